// Whole-model latency on the bundled corpus models: one session, inputs from the case, the model
// loaded, planned and warmed up outside the timed loop (so the figure is Run alone).
//
//   build/lumen_bench --benchmark_filter='ResNet|Yolo|MobileNet|Vit|Transformer|Lstm|ConvNext'
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"

namespace lumen {
namespace {

// Argument: thread count. Skips (with the reason) a case this build cannot load.
void RunCase(benchmark::State& state, const std::string& case_name) {
  try {
    const GoldenCase golden =
        ReadGoldenCase(std::string(LUMEN_SOURCE_DIR) + "/tmp/models/" + case_name);
    ModelOptions model_options;
    model_options.weights_path = golden.bin_path;
    std::shared_ptr<const Model> model = Model::Load(golden.param_path, model_options);
    SessionOptions session_options;
    session_options.threads = static_cast<int>(state.range(0));
    Session session(model, session_options);
    std::vector<Tensor> inputs;
    for (const auto& input : golden.inputs)
      inputs.push_back(ReadTensorFile(input.path, input.shape));
    std::vector<Tensor> outputs;
    session.Run(inputs, &outputs);  // plans and warms up
    for (auto _ : state) {
      session.Run(inputs, &outputs);
      benchmark::DoNotOptimize(outputs[0].data());
    }
  } catch (const Error& error) {
    state.SkipWithError(error.what());
  }
}

void BM_ResNet18(benchmark::State& state) { RunCase(state, "resnet18"); }
void BM_ResNet18Batch4(benchmark::State& state) { RunCase(state, "resnet18_b4"); }
void BM_YoloV5s(benchmark::State& state) { RunCase(state, "yolov5s_detect"); }
void BM_MobileNetV3(benchmark::State& state) { RunCase(state, "mobilenet_v3_large_075_160"); }
void BM_VitD96P8(benchmark::State& state) { RunCase(state, "vit_d96_p8"); }
void BM_TransformerPrenorm(benchmark::State& state) { RunCase(state, "transformer_prenorm"); }
void BM_LstmClassifier(benchmark::State& state) { RunCase(state, "lstm_classifier"); }
void BM_ConvNextBlocks(benchmark::State& state) { RunCase(state, "convnext_blocks"); }

#define LUMEN_MODEL_BENCHMARK(function)                                         \
  BENCHMARK(function)->Arg(1)->Arg(2)->ArgName("threads")->UseRealTime()->Unit( \
      benchmark::kMillisecond)

LUMEN_MODEL_BENCHMARK(BM_ResNet18);
LUMEN_MODEL_BENCHMARK(BM_ResNet18Batch4);
LUMEN_MODEL_BENCHMARK(BM_YoloV5s);
LUMEN_MODEL_BENCHMARK(BM_MobileNetV3);
LUMEN_MODEL_BENCHMARK(BM_VitD96P8);
LUMEN_MODEL_BENCHMARK(BM_TransformerPrenorm);
LUMEN_MODEL_BENCHMARK(BM_LstmClassifier);
LUMEN_MODEL_BENCHMARK(BM_ConvNextBlocks);

}  // namespace
}  // namespace lumen
