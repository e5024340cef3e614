// lumen_run: run any model, time it, summarise it, check it against a golden case, profile it,
// read any operand.
//
//   lumen_run model.onnx --repeat 50                        time it on made-up inputs
//   lumen_run model.onnx --shape input:1,3,224,224 --json   ... at a shape, as one JSON object
//   lumen_run model.onnx --summary                          inputs, outputs, operators, memory
//   lumen_run model.pnnx.param --input x.npy --save-outputs    numpy files in, numpy files out
//   lumen_run model.pnnx.param [model.pnnx.bin] --input in.f32:1,3,160,160 [--output-dir out]
//   lumen_run --case tmp/models/resnet18                    compare with PyTorch's outputs
//   lumen_run --case tmp/models/resnet18 --extract layer4.1.relu_1   one operand to a file
//   lumen_run --case tmp/models/yolov5s_detect --dump dump/          every operand, and an index
//   lumen_run --case tmp/models/yolov5s_detect --sessions 4          4 concurrent sessions
// Exit status: 0 success, 1 an output differs from the reference, 2 bad usage or input.
//
// The parts: run_options (the command line), model_inputs (files, .npy, made-up inputs),
// timing_report (latency statistics), json_text (--json); source/io (golden cases, .npy files).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "io/golden_case.hpp"
#include "io/npy_file.hpp"
#include "io/raw_file.hpp"
#include "json_text.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "lumen/summary.hpp"
#include "model_inputs.hpp"
#include "run_options.hpp"
#include "timing_report.hpp"

namespace {

using lumen::Concat;
using lumen::Error;
using lumen::run::JsonArray;
using lumen::run::JsonNumber;
using lumen::run::JsonObject;
using lumen::run::JsonShape;
using lumen::run::JsonString;
using lumen::run::Options;

// The megabyte of --max-memory: 2^20 bytes, as the session's messages about its budget count.
constexpr double kBudgetMegabyte = 1024.0 * 1024.0;
// The seed of made-up inputs (input i uses kInputSeed + i).
constexpr uint32_t kInputSeed = 20240527;

// An operand name as a file name: path separators would escape the directory.
std::string FileNameFor(std::string name) {
  for (char& c : name) {
    if (c == '/' || c == '\\') c = '_';
  }
  return name;
}

void CreateDirectory(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw Error(Concat(directory, ": cannot create the directory: ", error.message()));
}

// Compares every output with the case's references; throws when counts or shapes differ.
std::vector<lumen::Comparison> CompareWithReferences(const lumen::GoldenCase& golden,
                                                     const std::vector<lumen::Tensor>& outputs) {
  if (golden.outputs.size() != outputs.size()) {
    throw Error(Concat("the case lists ", golden.outputs.size(), " outputs, the model has ",
                       outputs.size()));
  }
  std::vector<lumen::Comparison> comparisons;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].shape() != golden.outputs[i].shape) {
      throw Error(Concat("output ", i, " has shape ", lumen::ShapeToString(outputs[i].shape()),
                         ", the reference has ", lumen::ShapeToString(golden.outputs[i].shape)));
    }
    const std::vector<float> got = outputs[i].ToRowMajor();
    const std::vector<float> reference = lumen::ReadFloatFile(golden.outputs[i].path, got.size());
    comparisons.push_back(lumen::CompareWithTolerance(got, reference, golden.absolute_tolerance,
                                                      golden.relative_tolerance));
  }
  return comparisons;
}

// One line per output comparison (only the failures when `quiet`); true if all passed.
bool PrintComparisons(const lumen::GoldenCase& golden, const std::vector<lumen::Tensor>& outputs,
                      const std::vector<lumen::Comparison>& comparisons, bool quiet = false) {
  bool passed = true;
  for (size_t i = 0; i < comparisons.size(); ++i) {
    const lumen::Comparison& comparison = comparisons[i];
    if (!quiet || !comparison.passed()) {
      std::printf(
          "%s output %zu %s: max abs error %.3g, max rel error %.3g, %zu/%zu outside "
          "atol %g rtol %g: %s\n",
          golden.name.c_str(), i, lumen::ShapeToString(outputs[i].shape()).c_str(),
          comparison.max_absolute_error, comparison.max_relative_error, comparison.mismatch_count,
          comparison.element_count, golden.absolute_tolerance, golden.relative_tolerance,
          comparison.passed() ? "PASS" : "FAIL");
    }
    passed = passed && comparison.passed();
  }
  return passed;
}

// Times `runs` Runs (inputs already in place) with per-operator timing and prints the table of
// each operator's median time, the framework overhead (the median Run minus the operators' own
// times) and the memory figures. One run is a poor guide on a shared machine: one slow moment
// lands on whichever operator was running.
void PrintProfile(lumen::Session& session, int runs) {
  session.set_profiling(true);
  std::vector<double> run_times;
  std::vector<std::vector<double>> operator_times;
  std::vector<lumen::OperatorProfile> profile;
  for (int run = 0; run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    session.Run();
    run_times.push_back(lumen::run::ElapsedMilliseconds(start));
    profile = session.Profile();
    operator_times.resize(profile.size());
    for (size_t i = 0; i < profile.size(); ++i)
      operator_times[i].push_back(profile[i].milliseconds);
  }
  session.set_profiling(false);
  for (size_t i = 0; i < profile.size(); ++i) {
    profile[i].milliseconds = lumen::run::StatisticsOf(operator_times[i]).median;
  }
  const double total = lumen::run::StatisticsOf(run_times).median;
  if (runs > 1) std::printf("medians of %d profiled runs\n", runs);
  double layer_total = 0;
  for (const auto& entry : profile) layer_total += entry.milliseconds;
  std::printf("%-22s %-48s %10s %7s\n", "type", "operator (+ fused)", "time ms", "share");
  for (const auto& entry : profile) {
    std::string name = entry.description;
    for (const std::string& fused : entry.fused) name += " +" + fused.substr(0, fused.find(' '));
    std::printf("%-22s %-48s %10.3f %6.1f%%\n", entry.type.c_str(), name.c_str(),
                entry.milliseconds, 100.0 * entry.milliseconds / total);
  }
  std::printf("operators %.3f ms, Run %.3f ms, framework overhead %.3f ms (%.2f%%)\n", layer_total,
              total, total - layer_total, 100.0 * (total - layer_total) / total);
  std::printf(
      "activation memory: %.1f MB planned, %.1f MB with one buffer per operand; scratch and "
      "layer state %.1f MB; peak RSS %.1f MB\n",
      session.planned_activation_bytes() / 1e6, session.separate_activation_bytes() / 1e6,
      session.scratch_bytes() / 1e6, lumen::run::ProcessStatus("VmHWM:") / 1e3);
}

// Writes every operand to DIR/<name>.f32 and lists them in DIR/index.txt.
void Dump(lumen::Session& session, const std::string& directory) {
  CreateDirectory(directory);
  std::ofstream index(directory + "/index.txt");
  if (!index) throw Error(Concat(directory, "/index.txt: cannot write"));
  index << "# name\tshape\tproducer\n";
  size_t count = 0;
  for (const lumen::OperandReport& report : session.Operands()) {
    lumen::WriteTensorFile(Concat(directory, "/", FileNameFor(report.name), ".f32"),
                           session.operand(report.name));
    index << report.name << '\t' << lumen::ShapeToString(report.shape) << '\t' << report.producer
          << '\n';
    ++count;
  }
  std::printf("dumped %zu operands to %s (index.txt: name, shape, producer)\n", count,
              directory.c_str());
}

// The session options the command line asks for.
lumen::SessionOptions SessionOptionsOf(const Options& options) {
  lumen::SessionOptions session_options;
  session_options.threads = options.threads;
  session_options.max_memory_bytes =
      static_cast<size_t>(options.max_memory_megabytes * kBudgetMegabyte);
  return session_options;
}

// Runs `count` sessions of `model` at once, each in its own thread, each `runs` times, and checks
// every output: against the case's references, or else bit for bit against a first sequential
// run. Prints the peak RSS before and after.
bool RunConcurrentSessions(const std::shared_ptr<const lumen::Model>& model,
                           const lumen::GoldenCase& golden,
                           const std::vector<lumen::Tensor>& inputs, const Options& options) {
  const long rss_before = lumen::run::ProcessStatus("VmRSS:");
  const lumen::SessionOptions session_options = SessionOptionsOf(options);
  const std::vector<lumen::Tensor> expected = lumen::Session(model, session_options).Run(inputs);
  const int runs = std::max(options.repeat, 1);
  std::vector<std::unique_ptr<lumen::Session>> sessions;
  for (int s = 0; s < options.sessions; ++s) {
    sessions.push_back(std::make_unique<lumen::Session>(model, session_options));
  }
  std::atomic<int> failures{0};
  std::vector<std::string> errors(sessions.size());
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (size_t s = 0; s < sessions.size(); ++s) {
    threads.emplace_back([&, s] {
      try {
        std::vector<lumen::Tensor> outputs;
        for (int run = 0; run < runs; ++run) {
          sessions[s]->Run(inputs, &outputs);
          bool same = outputs.size() == expected.size();
          for (size_t i = 0; same && i < outputs.size(); ++i) {
            same = outputs[i].shape() == expected[i].shape() &&
                   std::equal(outputs[i].data(), outputs[i].data() + outputs[i].size(),
                              expected[i].data());
          }
          if (!same) ++failures;
        }
      } catch (const Error& error) {
        errors[s] = error.what();
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const double seconds = lumen::run::ElapsedMilliseconds(start) / 1e3;
  for (const std::string& error : errors) {
    if (!error.empty()) std::fprintf(stderr, "lumen_run: session failed: %s\n", error.c_str());
  }
  bool passed = failures == 0;
  std::printf("%d sessions x %d runs in %.2f s: %s bit-identical to a sequential run\n",
              options.sessions, runs, seconds, passed ? "all" : "NOT all");
  if (!golden.outputs.empty()) {
    passed = PrintComparisons(golden, expected, CompareWithReferences(golden, expected)) && passed;
  }
  const lumen::Session& first = *sessions.front();
  std::printf(
      "per session: activations %.1f MB planned, scratch and layer state %.1f MB; process RSS "
      "%.1f MB before the sessions, %.1f MB now, peak %.1f MB (model weights %.1f MB)\n",
      first.planned_activation_bytes() / 1e6, first.scratch_bytes() / 1e6, rss_before / 1e3,
      lumen::run::ProcessStatus("VmRSS:") / 1e3, lumen::run::ProcessStatus("VmHWM:") / 1e3,
      model->weight_bytes() / 1e6);
  return passed;
}

// The summary (--summary) as JSON: the same fields as lumen::ModelSummary.
std::string SummaryJson(const lumen::ModelSummary& summary) {
  auto ports = [](const std::vector<lumen::ModelSummary::Port>& list) {
    std::vector<std::string> items;
    for (const auto& port : list) {
      items.push_back(JsonObject()
                          .Add("name", JsonString(port.name))
                          .Add("shape", port.shape_known ? JsonShape(port.shape) : "null")
                          .Text());
    }
    return JsonArray(items);
  };
  std::vector<std::string> operators;
  for (const auto& entry : summary.operators) {
    operators.push_back(JsonObject()
                            .Add("type", JsonString(entry.type))
                            .Add("count", std::to_string(entry.count))
                            .Text());
  }
  JsonObject object;
  object.Add("model", JsonString(summary.source))
      .Add("inputs", ports(summary.inputs))
      .Add("outputs", ports(summary.outputs))
      .Add("operator_count", std::to_string(summary.operator_count))
      .Add("fused_operator_count", std::to_string(summary.fused_operator_count))
      .Add("operators", JsonArray(operators))
      .Add("parameter_count", std::to_string(summary.parameter_count))
      .Add("parameter_bytes", std::to_string(summary.parameter_bytes))
      .Add("planned", summary.planned ? "true" : "false")
      .Add("planned_activation_bytes",
           summary.planned ? std::to_string(summary.planned_activation_bytes) : "null")
      .Add("separate_activation_bytes",
           summary.planned ? std::to_string(summary.separate_activation_bytes) : "null");
  if (!summary.planned) object.Add("planning_note", JsonString(summary.planning_note));
  return object.Text();
}

// --summary: at the declared shapes, or, given any --shape, at the shapes they complete (an
// input still open then is the same error as for a run).
void PrintSummary(const lumen::Model& model, const std::map<std::string, lumen::Shape>& overrides,
                  bool json) {
  std::vector<lumen::Shape> shapes;
  if (!overrides.empty()) shapes = lumen::run::ResolveInputShapes(model, overrides);
  const lumen::ModelSummary summary = lumen::Summarize(model, shapes);
  if (json) {
    std::printf("%s\n", SummaryJson(summary).c_str());
    return;
  }
  std::printf("%s", summary.ToString().c_str());
  if (!summary.planned && overrides.empty()) {
    std::printf("(give the open extents with --shape NAME:SHAPE for outputs and memory)\n");
  }
}

// A run's inputs and where each came from (a file, or "random"), for the report.
struct RunInputs {
  std::vector<lumen::Tensor> tensors;
  std::vector<std::string> names;
  std::vector<std::string> sources;
  bool from_files = false;  // --input files (not the case's, not made up)
};

// What a run gave, for the --json report.
struct RunResults {
  std::vector<lumen::Tensor> outputs;
  std::vector<std::string> output_names;
  std::vector<std::string> written;            // each output's file, when written
  std::vector<lumen::Comparison> comparisons;  // with the case's references, when compared
  bool passed = true;
  bool timed = false;
  lumen::run::LatencyStatistics latency;
};

// The inputs the options ask for: --input files; else the case's (references kept); else made up
// at the declared or --shape shapes (references dropped). Each is checked against the session's
// memory budget before it is read or made.
RunInputs GatherInputs(const Options& options, const lumen::Model& model,
                       const std::map<std::string, lumen::Shape>& overrides, size_t budget_bytes,
                       lumen::GoldenCase* golden) {
  RunInputs inputs;
  const std::vector<std::string> names = model.input_names();
  auto name_of = [&names](size_t i) { return i < names.size() ? names[i] : std::string(); };
  if (!options.input_specs.empty()) {
    golden->outputs.clear();  // other inputs: the case's references no longer apply
    inputs.tensors =
        lumen::run::ReadInputFiles(options.input_specs, model, overrides, budget_bytes);
    inputs.sources = options.input_specs;
    inputs.from_files = true;
  } else if (!options.case_directory.empty() && overrides.empty()) {  // the case's own inputs
    if (lumen::DropInputsOfInputlessModel(names.size(), golden) && !options.json) {
      std::printf(
          "the model takes no inputs (pnnx folded its outputs into constants): running "
          "without the case's inputs\n");
    }
    for (const auto& input : golden->inputs) {
      lumen::run::CheckInputFitsBudget(input.path, input.shape, budget_bytes);
      inputs.tensors.push_back(lumen::ReadTensorFile(input.path, input.shape));
      inputs.sources.push_back(input.path);
    }
  } else {
    golden->outputs.clear();  // made-up inputs (a case run at --shape): no references
    const std::vector<lumen::Shape> shapes = lumen::run::ResolveInputShapes(model, overrides);
    for (size_t i = 0; i < shapes.size(); ++i) {
      lumen::run::CheckInputFitsBudget(Concat("input '", names[i], "'"), shapes[i], budget_bytes);
      inputs.tensors.push_back(
          lumen::run::RandomTensor(shapes[i], kInputSeed + static_cast<uint32_t>(i)));
      inputs.sources.push_back("random");
    }
  }
  for (size_t i = 0; i < inputs.tensors.size(); ++i) inputs.names.push_back(name_of(i));
  return inputs;
}

// The --json report of a run: the model, its inputs and outputs (with their files and
// comparisons), and the latency when timed.
std::string RunReportJson(const std::string& model_path, int threads, const RunInputs& inputs,
                          const RunResults& results) {
  std::vector<std::string> input_items;
  for (size_t i = 0; i < inputs.tensors.size(); ++i) {
    input_items.push_back(JsonObject()
                              .Add("name", JsonString(inputs.names[i]))
                              .Add("shape", JsonShape(inputs.tensors[i].shape()))
                              .Add("source", JsonString(inputs.sources[i]))
                              .Text());
  }
  std::vector<std::string> output_items;
  for (size_t i = 0; i < results.outputs.size(); ++i) {
    JsonObject item;
    item.Add("name", JsonString(results.output_names[i]))
        .Add("shape", JsonShape(results.outputs[i].shape()));
    if (!results.written.empty()) item.Add("file", JsonString(results.written[i]));
    if (!results.comparisons.empty()) {
      const lumen::Comparison& comparison = results.comparisons[i];
      item.Add("max_abs_error", JsonNumber(comparison.max_absolute_error))
          .Add("max_rel_error", JsonNumber(comparison.max_relative_error))
          .Add("mismatches", std::to_string(comparison.mismatch_count))
          .Add("passed", comparison.passed() ? "true" : "false");
    }
    output_items.push_back(item.Text());
  }
  JsonObject report;
  report.Add("lumen_version", JsonString(LUMEN_VERSION))
      .Add("model", JsonString(model_path))
      .Add("threads", std::to_string(threads))
      .Add("inputs", JsonArray(input_items))
      .Add("outputs", JsonArray(output_items));
  if (!results.comparisons.empty()) report.Add("passed", results.passed ? "true" : "false");
  if (results.timed) {
    JsonObject timing;
    AddLatencyJson(results.latency, threads, &timing);
    report.Add("latency", timing.Text());
  }
  return report.Text();
}

// Writes the outputs where the options say, in the format they say; returns each path written
// (empty when nothing is written).
std::vector<std::string> WriteOutputs(const std::vector<lumen::Tensor>& outputs,
                                      const std::vector<std::string>& names, bool as_npy,
                                      const std::string& directory) {
  CreateDirectory(directory);
  std::vector<std::string> paths;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (as_npy) {
      paths.push_back(Concat(directory, "/", FileNameFor(names[i]), ".npy"));
      lumen::WriteNpyFile(paths.back(), outputs[i]);
    } else {
      paths.push_back(Concat(directory, "/out", i, ".f32"));
      lumen::WriteTensorFile(paths.back(), outputs[i]);
    }
  }
  return paths;
}

// Refuses option combinations that make no sense together, before any work.
void CheckOptionCombinations(const Options& options) {
  if (options.json && (options.profile || options.sessions > 0 || !options.extract.empty() ||
                       !options.dump_directory.empty())) {
    throw Error(
        "--json reports runs, timings and summaries; it does not combine with --profile, "
        "--sessions, --extract or --dump");
  }
  if (!options.case_directory.empty() && !options.model_files.empty()) {
    throw Error("--case takes no model files");
  }
  if (options.case_directory.empty() && options.model_files.empty()) {
    throw Error(
        "give a model file (MODEL.onnx, or MODEL.pnnx.param) or --case DIR; --help lists "
        "the options");
  }
}

int Run(const Options& options) {
  CheckOptionCombinations(options);
  lumen::GoldenCase golden;
  if (!options.case_directory.empty()) {
    golden = lumen::ReadGoldenCase(options.case_directory);
  } else {
    golden.param_path = options.model_files[0];
    if (options.model_files.size() > 1) golden.bin_path = options.model_files[1];
  }
  const std::map<std::string, lumen::Shape> overrides =
      lumen::run::ParseShapeOptions(options.shape_specs);
  lumen::ModelOptions model_options;
  model_options.weights_path = golden.bin_path;
  // Reading intermediate operands needs every operand to exist: no fusion then.
  model_options.fuse =
      !options.no_fuse && options.dump_directory.empty() && options.extract.empty();
  const std::shared_ptr<const lumen::Model> model =
      lumen::Model::Load(golden.param_path, model_options);
  if (options.summary) {
    PrintSummary(*model, overrides, options.json);
    return 0;
  }

  lumen::Session session(model, SessionOptionsOf(options));
  const RunInputs inputs =
      GatherInputs(options, *model, overrides, session.memory_budget(), &golden);
  if (options.sessions > 0) {
    return RunConcurrentSessions(model, golden, inputs.tensors, options) ? 0 : 1;
  }

  if (!options.dump_directory.empty()) session.KeepAllOperands();
  RunResults results;
  results.outputs = session.Run(inputs.tensors);
  results.output_names = model->output_names();
  if (!golden.outputs.empty()) {
    results.comparisons = CompareWithReferences(golden, results.outputs);
    results.passed = std::all_of(results.comparisons.begin(), results.comparisons.end(),
                                 [](const lumen::Comparison& c) { return c.passed(); });
    if (!options.json) PrintComparisons(golden, results.outputs, results.comparisons);
  }
  // Outputs are written when asked (--save-outputs, --output-dir), or for input files given
  // without references (lumen_run's raw-file use); as .npy when asked or when inputs were .npy.
  const bool npy_inputs =
      std::any_of(options.input_specs.begin(), options.input_specs.end(), lumen::run::IsNpyPath);
  const bool write = options.extract.empty() && options.dump_directory.empty() &&
                     (options.save_outputs || !options.output_directory.empty() ||
                      (inputs.from_files && golden.outputs.empty()));
  const std::string directory =
      options.output_directory.empty() ? std::string(".") : options.output_directory;
  if (write) {
    results.written = WriteOutputs(results.outputs, results.output_names,
                                   options.save_outputs || npy_inputs, directory);
  }
  if (!options.json && golden.outputs.empty()) {
    for (size_t i = 0; i < results.outputs.size(); ++i) {
      std::printf("output %zu '%s' %s%s%s\n", i, results.output_names[i].c_str(),
                  lumen::ShapeToString(results.outputs[i].shape()).c_str(),
                  results.written.empty() ? "" : " -> ",
                  results.written.empty() ? "" : results.written[i].c_str());
    }
  }
  if (!options.extract.empty()) {
    const lumen::Tensor& operand = session.Extract(options.extract);
    CreateDirectory(directory);
    const std::string path = Concat(directory, "/", FileNameFor(options.extract), ".f32");
    lumen::WriteTensorFile(path, operand);
    std::printf("operand '%s' %s -> %s\n", options.extract.c_str(),
                lumen::ShapeToString(operand.shape()).c_str(), path.c_str());
  }
  if (!options.dump_directory.empty()) Dump(session, options.dump_directory);
  // The inputs are still in the session's input operands: time Run on them.
  if (options.profile) PrintProfile(session, std::max(1, options.repeat));
  if (options.repeat > 0) {
    results.latency = lumen::run::TimeRuns(session, options.warmup, options.repeat);
    results.timed = true;
    if (!options.json) std::printf("%s", LatencyText(results.latency, session.threads()).c_str());
  }
  if (options.json) {
    std::printf("%s\n",
                RunReportJson(golden.param_path, session.threads(), inputs, results).c_str());
  }
  return results.passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  const int parse_status = lumen::run::ParseOptions(argc, argv, &options);
  if (parse_status >= 0) return parse_status;
  if (options.list_operators) {
    for (const std::string& type : lumen::Model::SupportedOperatorTypes()) std::puts(type.c_str());
    return 0;
  }
  try {
    return Run(options);
  } catch (const lumen::Error& error) {
    std::fprintf(stderr, "lumen_run: %s\n", error.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // The library reports the allocations it makes for a model as lumen::Error; this is the
    // last resort for any other (exit status 2, not an abort).
    std::fprintf(stderr, "lumen_run: out of memory\n");
    return 2;
  }
}
