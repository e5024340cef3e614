// Whole-model Forward latency on the bundled corpus models.
#include <benchmark/benchmark.h>

#include "lumen/base/threads.hpp"
#include "lumen/io/golden_case.hpp"
#include "lumen/io/raw_file.hpp"
#include "lumen/runtime/runtime_graph.hpp"

namespace lumen {
namespace {

// Arguments: thread count. The model is loaded and warmed up outside the timed loop.
void RunCase(benchmark::State& state, const std::string& case_name) {
  SetNumThreads(static_cast<int>(state.range(0)));
  const GoldenCase golden =
      ReadGoldenCase(std::string(LUMEN_SOURCE_DIR) + "/tmp/models/" + case_name);
  RuntimeGraph graph(golden.param_path, golden.bin_path);
  graph.Build();
  std::vector<TensorBatch> inputs;
  for (const auto& input : golden.inputs) {
    inputs.push_back(ReadBatchFile(input.path, input.shape));
  }
  std::vector<TensorBatch> outputs;
  graph.Forward(inputs, &outputs);
  for (auto _ : state) {
    graph.Forward(inputs, &outputs);
    benchmark::DoNotOptimize(outputs[0][0].data());
  }
}

void BM_ResNet18(benchmark::State& state) { RunCase(state, "resnet18"); }
void BM_ResNet18Batch4(benchmark::State& state) { RunCase(state, "resnet18_b4"); }
void BM_YoloV5s(benchmark::State& state) { RunCase(state, "yolov5s_detect"); }

BENCHMARK(BM_ResNet18)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNet18Batch4)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_YoloV5s)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lumen
