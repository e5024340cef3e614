// lumen_run: run any model, check it against a golden case, time it, profile it, read any operand.
//
//   lumen_run --case tmp/models/resnet18                    compare with PyTorch's outputs
//   lumen_run model.pnnx.param [model.pnnx.bin] --input in.f32:1,3,160,160 [--output-dir out]
//   lumen_run model.onnx --input in.f32:1,3,224,224        an ONNX model (weights inside)
//   lumen_run --case tmp/onnx/resnet18                      a case folder holding model.onnx
//   lumen_run --case tmp/models/resnet18 --extract layer4.1.relu_1   one operand to a file
//   lumen_run --case tmp/models/yolov5s_detect --dump dump/          every operand, and an index
//   lumen_run --case tmp/models/yolov5s_detect --sessions 4          4 concurrent sessions
// Exit status: 0 success, 1 an output differs from the reference, 2 bad usage or input.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "base/checked_math.hpp"
#include "base/threads.hpp"
#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"

namespace {

using lumen::Concat;
using lumen::Error;

// The megabyte of --max-memory: 2^20 bytes, as the session's messages about its budget count.
constexpr double kBudgetMegabyte = 1024.0 * 1024.0;

// Everything the command line asks for.
struct Options {
  std::string case_directory;
  bool list_operators = false;
  std::vector<std::string> model_files;  // param [bin]
  std::vector<std::string> input_specs;  // FILE:SHAPE
  std::string output_directory = ".";
  std::string extract;
  std::string dump_directory;
  int threads = 0;
  int repeat = 0;
  int sessions = 0;
  double max_memory_megabytes = 0;
  bool profile = false;
  bool no_fuse = false;
};

// "file.f32:1,3,224,224" -> path and shape ("file.f32:()" for a rank-0 input).
lumen::GoldenCase::DataFile ParseInputSpec(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos) throw Error(Concat("--input needs FILE:SHAPE, got '", spec, "'"));
  lumen::GoldenCase::DataFile file;
  file.path = spec.substr(0, colon);
  file.shape = lumen::ParseShapeText(spec.substr(colon + 1), Concat("--input ", spec));
  return file;
}

// A number field of /proc/self/status (Linux), such as "Threads:" or "VmHWM:" (peak RSS, kB).
long ProcessStatus(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + field.size());
  }
  return 0;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// Milliseconds since `start`.
double ElapsedMilliseconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

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

// Compares every output with the case's references, prints one line each; false on a mismatch.
bool CompareWithReferences(const lumen::GoldenCase& golden,
                           const std::vector<lumen::Tensor>& outputs, bool quiet = false) {
  if (golden.outputs.size() != outputs.size()) {
    throw Error(Concat("the case lists ", golden.outputs.size(), " outputs, the model has ",
                       outputs.size()));
  }
  bool passed = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].shape() != golden.outputs[i].shape) {
      throw Error(Concat("output ", i, " has shape ", lumen::ShapeToString(outputs[i].shape()),
                         ", the reference has ", lumen::ShapeToString(golden.outputs[i].shape)));
    }
    const std::vector<float> got = outputs[i].ToRowMajor();
    const std::vector<float> reference = lumen::ReadFloatFile(golden.outputs[i].path, got.size());
    const lumen::Comparison comparison = lumen::CompareWithTolerance(
        got, reference, golden.absolute_tolerance, golden.relative_tolerance);
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

// Times one Run (inputs already in place) with per-operator timing and prints the table, the
// framework overhead (Run minus the operators' own times) and the memory figures.
void PrintProfile(lumen::Session& session) {
  session.set_profiling(true);
  const auto start = std::chrono::steady_clock::now();
  session.Run();
  const double total = ElapsedMilliseconds(start);
  session.set_profiling(false);
  const std::vector<lumen::OperatorProfile> profile = session.Profile();
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
      session.scratch_bytes() / 1e6, ProcessStatus("VmHWM:") / 1e3);
}

// Times `repeat` runs after one warm-up (inputs already in place) and prints the median and min.
void PrintLatency(lumen::Session& session, int repeat) {
  session.Run();  // warm-up: first touch of every buffer, scratch memory grows to its final size
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    session.Run();
    times.push_back(ElapsedMilliseconds(start));
  }
  std::printf("median %.3f ms, min %.3f ms (%d runs, %d threads)\n", Median(times),
              *std::min_element(times.begin(), times.end()), repeat, session.threads());
  std::printf("process threads: %ld; BLAS: %s\n", ProcessStatus("Threads:"),
              lumen::BlasDescription().c_str());
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

// Runs `count` sessions of `model` at once, each in its own thread, each `runs` times, and checks
// every output: against the case's references, or else bit for bit against a first sequential
// run. Prints the peak RSS before and after.
bool RunConcurrentSessions(const std::shared_ptr<const lumen::Model>& model,
                           const lumen::GoldenCase& golden,
                           const std::vector<lumen::Tensor>& inputs, const Options& options) {
  const long rss_before = ProcessStatus("VmRSS:");
  lumen::SessionOptions session_options;
  session_options.threads = options.threads;
  session_options.max_memory_bytes =
      static_cast<size_t>(options.max_memory_megabytes * kBudgetMegabyte);
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
  const double seconds = ElapsedMilliseconds(start) / 1e3;
  for (const std::string& error : errors) {
    if (!error.empty()) std::fprintf(stderr, "lumen_run: session failed: %s\n", error.c_str());
  }
  bool passed = failures == 0;
  std::printf("%d sessions x %d runs in %.2f s: %s bit-identical to a sequential run\n",
              options.sessions, runs, seconds, passed ? "all" : "NOT all");
  if (!golden.outputs.empty()) passed = CompareWithReferences(golden, expected) && passed;
  const lumen::Session& first = *sessions.front();
  std::printf(
      "per session: activations %.1f MB planned, scratch and layer state %.1f MB; process RSS "
      "%.1f MB before the sessions, %.1f MB now, peak %.1f MB (model weights %.1f MB)\n",
      first.planned_activation_bytes() / 1e6, first.scratch_bytes() / 1e6, rss_before / 1e3,
      ProcessStatus("VmRSS:") / 1e3, ProcessStatus("VmHWM:") / 1e3, model->weight_bytes() / 1e6);
  return passed;
}

int Run(const Options& options) {
  lumen::GoldenCase golden;
  if (!options.case_directory.empty()) {
    if (!options.model_files.empty()) throw Error("--case takes no model files");
    golden = lumen::ReadGoldenCase(options.case_directory);
  } else {
    if (options.model_files.empty()) throw Error("give --case DIR, or a model file and --input");
    golden.param_path = options.model_files[0];
    if (options.model_files.size() > 1) golden.bin_path = options.model_files[1];
  }
  if (!options.input_specs.empty()) {
    golden.inputs.clear();
    golden.outputs.clear();  // other inputs: the case's references no longer apply
    for (const std::string& spec : options.input_specs) {
      golden.inputs.push_back(ParseInputSpec(spec));
    }
  }
  lumen::ModelOptions model_options;
  model_options.weights_path = golden.bin_path;
  // Reading intermediate operands needs every operand to exist: no fusion then.
  model_options.fuse =
      !options.no_fuse && options.dump_directory.empty() && options.extract.empty();
  const std::shared_ptr<const lumen::Model> model =
      lumen::Model::Load(golden.param_path, model_options);
  if (lumen::DropInputsOfInputlessModel(model->input_names().size(), &golden)) {
    std::printf(
        "the model takes no inputs (pnnx folded its outputs into constants): running "
        "without the case's inputs\n");
  }

  lumen::SessionOptions session_options;
  session_options.threads = options.threads;
  session_options.max_memory_bytes =
      static_cast<size_t>(options.max_memory_megabytes * kBudgetMegabyte);
  lumen::Session session(model, session_options);
  // The inputs count against the memory budget too: refuse before reading a huge one.
  for (const auto& input : golden.inputs) {
    size_t bytes = 0;
    try {
      bytes = lumen::CheckedMultiply(lumen::ShapeElementCount(input.shape), sizeof(float),
                                     "input bytes");
    } catch (const Error& error) {
      throw Error(Concat(input.path, ": ", error.what()));
    }
    if (bytes > session.memory_budget()) {
      throw Error(Concat(
          input.path, ": an input of shape ", lumen::ShapeToString(input.shape), " needs ",
          static_cast<double>(bytes) / kBudgetMegabyte, " MB, more than the memory budget of ",
          static_cast<double>(session.memory_budget()) / kBudgetMegabyte, " MB (--max-memory)"));
    }
  }
  std::vector<lumen::Tensor> inputs;
  for (const auto& input : golden.inputs) {
    inputs.push_back(lumen::ReadTensorFile(input.path, input.shape));
  }
  if (options.sessions > 0) return RunConcurrentSessions(model, golden, inputs, options) ? 0 : 1;

  if (!options.dump_directory.empty()) session.KeepAllOperands();
  if (inputs.empty() && !model->input_names().empty()) {
    throw Error("no inputs: give --input FILE:SHAPE for each model input");
  }
  const std::vector<lumen::Tensor> outputs = session.Run(inputs);

  int status = 0;
  if (!golden.outputs.empty()) {
    status = CompareWithReferences(golden, outputs) ? 0 : 1;
  } else if (options.extract.empty() && options.dump_directory.empty()) {
    CreateDirectory(options.output_directory);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string path = Concat(options.output_directory, "/out", i, ".f32");
      lumen::WriteTensorFile(path, outputs[i]);
      std::printf("output %zu %s -> %s\n", i, lumen::ShapeToString(outputs[i].shape()).c_str(),
                  path.c_str());
    }
  }
  if (!options.extract.empty()) {
    const lumen::Tensor& operand = session.Extract(options.extract);
    CreateDirectory(options.output_directory);
    const std::string path =
        Concat(options.output_directory, "/", FileNameFor(options.extract), ".f32");
    lumen::WriteTensorFile(path, operand);
    std::printf("operand '%s' %s -> %s\n", options.extract.c_str(),
                lumen::ShapeToString(operand.shape()).c_str(), path.c_str());
  }
  if (!options.dump_directory.empty()) Dump(session, options.dump_directory);
  // The inputs are still in the session's input operands: time Run on them.
  if (options.profile) PrintProfile(session);
  if (options.repeat > 0) PrintLatency(session, options.repeat);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("lumen_run: run a model, compare it with PyTorch, time it, read its operands");
  Options options;
  app.add_option("--case", options.case_directory,
                 "a golden case directory (case.txt, model.pnnx.param/.bin or model.onnx, inputs, "
                 "PyTorch's outputs)");
  app.add_option("model", options.model_files, "MODEL.pnnx.param [MODEL.pnnx.bin], or MODEL.onnx")
      ->expected(0, 2);
  app.add_option("--input", options.input_specs,
                 "FILE.f32:N,C,H,W, one per model input, in order (any shape the model can "
                 "compute; with --case, replaces the case's inputs)");
  app.add_option("--output-dir", options.output_directory,
                 "where outputs (out0.f32, ...) and --extract write");
  app.add_option("--threads", options.threads, "threads per session (default: all cores)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--repeat", options.repeat,
                 "after one warm-up, time N runs and print the median and min latency")
      ->check(CLI::Range(1, 1000000));
  app.add_flag("--profile", options.profile, "print a per-operator time table");
  app.add_option("--extract", options.extract,
                 "compute only what operand NAME needs and write it to OUTPUT_DIR/NAME.f32");
  app.add_option("--dump", options.dump_directory,
                 "write every operand to DIR/<name>.f32 and DIR/index.txt");
  app.add_option("--sessions", options.sessions,
                 "run N sessions of the one loaded model at once, each in its own thread, check "
                 "each, print the peak RSS")
      ->check(CLI::Range(1, 256));
  app.add_option("--max-memory", options.max_memory_megabytes,
                 "refuse to plan more than this many MB (2^20 bytes; default: 3/4 of physical "
                 "memory or of ulimit -v)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-fuse", options.no_fuse,
               "do not run the graph passes (x*sigmoid(x) as SiLU, channels-last blocks "
               "channels-first, activations fused into the layers before them)");
  app.add_flag("--list-operators", options.list_operators,
               "print every op type Lumen runs (pnnx's spelling), one per line, and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
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
