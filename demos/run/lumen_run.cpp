// lumen_run: run any PNNX model, check it against a golden case, time it, profile it.
//
//   lumen_run --case tmp/models/resnet18                      compare with PyTorch's outputs
//   lumen_run model.pnnx.param model.pnnx.bin --input in.f32:1,3,224,224 [--output-dir out]
//   options: --threads T   --repeat N   --profile
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "lumen/base/error.hpp"
#include "lumen/base/parse_number.hpp"
#include "lumen/base/threads.hpp"
#include "lumen/io/golden_case.hpp"
#include "lumen/io/raw_file.hpp"
#include "lumen/runtime/runtime_graph.hpp"

namespace {

using lumen::Concat;
using lumen::Error;

constexpr const char* kUsage =
    "usage:\n"
    "  lumen_run --case DIR [options]\n"
    "      run a golden case (DIR/case.txt) and compare every output with its reference\n"
    "  lumen_run MODEL.pnnx.param MODEL.pnnx.bin --input FILE.f32:N,C,H,W [--input ...]\n"
    "            [--output-dir DIR] [options]\n"
    "      run a model on raw float32 inputs and write out0.f32, out1.f32, ... to DIR\n"
    "options:\n"
    "  --threads T   threads for every parallel part (default: all cores)\n"
    "  --repeat N    after one warm-up run, time N runs and print the median and min latency\n"
    "  --profile     print a per-operator time table\n";

struct Options {
  std::string case_directory;
  std::string param_path;
  std::string bin_path;
  std::vector<lumen::GoldenCase::DataFile> inputs;
  std::string output_directory = ".";
  int threads = 0;
  int repeat = 0;
  bool profile = false;
};

int ParsePositive(const std::string& text, const std::string& option) {
  int64_t value = 0;
  if (!lumen::ParseInteger(text, &value) || value < 1 || value > 1000000) {
    throw Error(Concat(option, " needs a positive integer, got '", text, "'"));
  }
  return static_cast<int>(value);
}

// "file.f32:1,3,224,224" -> path and shape.
lumen::GoldenCase::DataFile ParseInputSpec(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos) throw Error(Concat("--input needs FILE:SHAPE, got '", spec, "'"));
  lumen::GoldenCase::DataFile file;
  file.path = spec.substr(0, colon);
  const std::string shape = spec.substr(colon + 1);
  size_t start = 0;
  while (start <= shape.size()) {
    const size_t comma = std::min(shape.find(',', start), shape.size());
    file.shape.push_back(
        static_cast<uint32_t>(ParsePositive(shape.substr(start, comma - start), "--input shape")));
    start = comma + 1;
  }
  return file;
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(Concat(argument, " needs a value"));
      return argv[++i];
    };
    if (argument == "--case") {
      options.case_directory = value();
    } else if (argument == "--input") {
      options.inputs.push_back(ParseInputSpec(value()));
    } else if (argument == "--output-dir") {
      options.output_directory = value();
    } else if (argument == "--threads") {
      options.threads = ParsePositive(value(), argument);
    } else if (argument == "--repeat") {
      options.repeat = ParsePositive(value(), argument);
    } else if (argument == "--profile") {
      options.profile = true;
    } else if (argument == "--help" || argument == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (!argument.empty() && argument[0] == '-') {
      throw Error(Concat("unknown option '", argument, "'"));
    } else {
      positional.push_back(argument);
    }
  }
  if (!options.case_directory.empty()) {
    if (!positional.empty() || !options.inputs.empty()) {
      throw Error("--case takes no model files or --input");
    }
  } else {
    if (positional.size() != 2 || options.inputs.empty()) {
      throw Error("give either --case DIR, or MODEL.pnnx.param MODEL.pnnx.bin and --input");
    }
    options.param_path = positional[0];
    options.bin_path = positional[1];
  }
  return options;
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

// Times one Run (inputs already in place) with per-operator timing and prints the table, the
// framework overhead (Run minus the operators' own times) and the memory figures.
void PrintProfile(lumen::RuntimeGraph& graph) {
  graph.set_profiling(true);
  const auto start = std::chrono::steady_clock::now();
  graph.Run();
  const double total = ElapsedMilliseconds(start);
  graph.set_profiling(false);
  const std::vector<const lumen::RuntimeOperator*> order = graph.ExecutionOrder();
  const std::vector<double>& times = graph.operator_milliseconds();
  double layer_total = 0;
  for (double time : times) layer_total += time;
  std::printf("%-22s %-34s %-22s %10s %7s\n", "type", "name", "output shape", "time ms", "share");
  for (size_t i = 0; i < order.size(); ++i) {
    const lumen::RuntimeOperator& op = *order[i];
    std::string shape = "-";
    if (!op.outputs.empty()) {
      std::vector<uint32_t> extents(op.outputs[0]->shape.begin(), op.outputs[0]->shape.end());
      shape = lumen::ShapeToString(extents);
    }
    std::string name = op.name;
    for (const std::string& fused : op.fused) name += " +" + fused.substr(0, fused.find(' '));
    std::printf("%-22s %-34s %-22s %10.3f %6.1f%%\n", op.type.c_str(), name.c_str(), shape.c_str(),
                times[i], 100.0 * times[i] / total);
  }
  std::printf("operators %.3f ms, Run %.3f ms, framework overhead %.3f ms (%.2f%%)\n", layer_total,
              total, total - layer_total, 100.0 * (total - layer_total) / total);
  std::printf(
      "activation memory: %.1f MB planned, %.1f MB with one buffer per operand; "
      "peak RSS %.1f MB\n",
      graph.planned_activation_bytes() / 1e6, graph.separate_activation_bytes() / 1e6,
      ProcessStatus("VmHWM:") / 1e3);
}

// Times `repeat` runs after one warm-up (inputs already in place) and prints the median and min.
void PrintLatency(lumen::RuntimeGraph& graph, int repeat) {
  graph.Run();  // warm-up: first touch of every buffer, scratch memory grows to its final size
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    graph.Run();
    times.push_back(ElapsedMilliseconds(start));
  }
  std::printf("median %.3f ms, min %.3f ms (%d runs, %d threads)\n", Median(times),
              *std::min_element(times.begin(), times.end()), repeat, lumen::GetNumThreads());
  std::printf("process threads: %ld; BLAS: %s\n", ProcessStatus("Threads:"),
              lumen::BlasDescription().c_str());
}

int Run(const Options& options) {
  if (options.threads > 0) lumen::SetNumThreads(options.threads);
  lumen::GoldenCase golden;
  if (!options.case_directory.empty()) {
    golden = lumen::ReadGoldenCase(options.case_directory);
  } else {
    golden.param_path = options.param_path;
    golden.bin_path = options.bin_path;
    golden.inputs = options.inputs;
  }
  lumen::RuntimeGraph graph(golden.param_path, golden.bin_path);
  graph.Build();

  std::vector<lumen::TensorBatch> inputs;
  for (const auto& input : golden.inputs) {
    inputs.push_back(lumen::ReadBatchFile(input.path, input.shape));
  }
  const std::vector<lumen::TensorBatch> outputs = graph.Forward(inputs);

  int status = 0;
  if (!options.case_directory.empty()) {
    if (golden.outputs.size() != outputs.size()) {
      throw Error(Concat("the case lists ", golden.outputs.size(), " outputs, the model has ",
                         outputs.size()));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const lumen::Shape got_shape = lumen::BatchShape(outputs[i]);
      if (got_shape != golden.outputs[i].shape) {
        throw Error(Concat("output ", i, " has shape ", lumen::ShapeToString(got_shape),
                           ", the reference has ", lumen::ShapeToString(golden.outputs[i].shape)));
      }
      std::vector<float> got(lumen::ShapeElementCount(got_shape));
      lumen::BatchToRowMajor(outputs[i], got.data());
      const std::vector<float> reference = lumen::ReadFloatFile(golden.outputs[i].path, got.size());
      const lumen::Comparison comparison = lumen::CompareWithTolerance(
          got, reference, golden.absolute_tolerance, golden.relative_tolerance);
      std::printf(
          "%s output %zu %s: max abs error %.3g, max rel error %.3g, %zu/%zu outside "
          "atol %g rtol %g: %s\n",
          golden.name.c_str(), i, lumen::ShapeToString(got_shape).c_str(),
          comparison.max_absolute_error, comparison.max_relative_error, comparison.mismatch_count,
          comparison.element_count, golden.absolute_tolerance, golden.relative_tolerance,
          comparison.passed() ? "PASS" : "FAIL");
      if (!comparison.passed()) status = 1;
    }
  } else {
    std::error_code error;
    std::filesystem::create_directories(options.output_directory, error);
    if (error) {
      throw Error(Concat(options.output_directory,
                         ": cannot create the output directory: ", error.message()));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string path = Concat(options.output_directory, "/out", i, ".f32");
      lumen::WriteBatchFile(path, outputs[i]);
      std::printf("output %zu %s -> %s\n", i,
                  lumen::ShapeToString(lumen::BatchShape(outputs[i])).c_str(), path.c_str());
    }
  }
  // The inputs are still in the graph's input operands from Forward: time Run on them.
  if (options.profile) PrintProfile(graph);
  if (options.repeat > 0) PrintLatency(graph, options.repeat);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(ParseOptions(argc, argv));
  } catch (const lumen::Error& error) {
    std::fprintf(stderr, "lumen_run: %s\n", error.what());
    if (argc <= 1) std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
}
