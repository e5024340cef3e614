// nn.Conv2d at every convolution shape of ResNet18 (batch 1, 224x224 input).
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>

#include "lumen/base/error.hpp"
#include "lumen/base/threads.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {
namespace {

// One convolution of ResNet18: channels, input size, kernel, stride, padding.
struct ConvolutionShape {
  int in_channels, out_channels, size, kernel, stride, padding;
};

// Builds an nn.Conv2d operator with random weights, as the reader would.
RuntimeOperator MakeConvolution(const ConvolutionShape& shape) {
  RuntimeOperator op;
  op.type = "nn.Conv2d";
  op.name = "bench_conv";
  op.params["in_channels"] = RuntimeParameter::FromInt(shape.in_channels);
  op.params["out_channels"] = RuntimeParameter::FromInt(shape.out_channels);
  op.params["kernel_size"] = RuntimeParameter::FromIntArray({shape.kernel, shape.kernel});
  op.params["stride"] = RuntimeParameter::FromIntArray({shape.stride, shape.stride});
  op.params["padding"] = RuntimeParameter::FromIntArray({shape.padding, shape.padding});
  op.params["dilation"] = RuntimeParameter::FromIntArray({1, 1});
  op.params["groups"] = RuntimeParameter::FromInt(1);
  op.params["bias"] = RuntimeParameter::FromBool(true);
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  const auto random_attribute = [&](std::vector<int> attribute_shape) {
    RuntimeAttribute attribute;
    attribute.type = DataType::kFloat32;
    attribute.shape = attribute_shape;
    std::vector<float> values(attribute.ElementCount());
    for (float& value : values) value = normal(generator);
    attribute.data.resize(values.size() * sizeof(float));
    std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
    return attribute;
  };
  op.attributes["weight"] =
      random_attribute({shape.out_channels, shape.in_channels, shape.kernel, shape.kernel});
  op.attributes["bias"] = random_attribute({shape.out_channels});
  return op;
}

// Arguments: index into kShapes, thread count.
constexpr ConvolutionShape kShapes[] = {
    {3, 64, 224, 7, 2, 3},    // conv1
    {64, 64, 56, 3, 1, 1},    // layer1
    {64, 128, 56, 3, 2, 1},   // layer2.0.conv1
    {128, 128, 28, 3, 1, 1},  // layer2
    {64, 128, 56, 1, 2, 0},   // layer2.0.downsample
    {128, 256, 28, 3, 2, 1},  // layer3.0.conv1
    {256, 256, 14, 3, 1, 1},  // layer3
    {128, 256, 28, 1, 2, 0},  // layer3.0.downsample
    {256, 512, 14, 3, 2, 1},  // layer4.0.conv1
    {512, 512, 7, 3, 1, 1},   // layer4
    {256, 512, 14, 1, 2, 0},  // layer4.0.downsample
};

void BM_Conv2dResNet18(benchmark::State& state) {
  const ConvolutionShape& shape = kShapes[state.range(0)];
  SetNumThreads(static_cast<int>(state.range(1)));
  const RuntimeOperator op = MakeConvolution(shape);
  std::unique_ptr<Layer> layer = LayerRegistry::Create(op);
  const int output_size = (shape.size + 2 * shape.padding - shape.kernel) / shape.stride + 1;
  const Shape input_shape{1, static_cast<uint32_t>(shape.in_channels),
                          static_cast<uint32_t>(shape.size), static_cast<uint32_t>(shape.size)};
  const Shape output_shape{1, static_cast<uint32_t>(shape.out_channels),
                           static_cast<uint32_t>(output_size), static_cast<uint32_t>(output_size)};
  layer->Prepare({input_shape}, {output_shape});
  TensorBatch input{Tensor(Shape(input_shape.begin() + 1, input_shape.end()))};
  input[0].Fill(0.5f);
  TensorBatch output{Tensor(Shape(output_shape.begin() + 1, output_shape.end()))};
  for (auto _ : state) {
    layer->Forward({&input}, {&output});
    benchmark::DoNotOptimize(output[0].data());
  }
  const double flops = 2.0 * shape.out_channels * output_size * output_size * shape.in_channels *
                       shape.kernel * shape.kernel;
  state.counters["GFLOP"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(Concat(shape.in_channels, "->", shape.out_channels, " k", shape.kernel, " s",
                        shape.stride, " @", shape.size));
}

void ConvolutionArguments(benchmark::internal::Benchmark* benchmark) {
  for (int threads : {1, 2}) {
    for (size_t i = 0; i < std::size(kShapes); ++i) {
      benchmark->Args({static_cast<int64_t>(i), threads});
    }
  }
  benchmark->ArgNames({"shape", "threads"});
}

BENCHMARK(BM_Conv2dResNet18)
    ->Apply(ConvolutionArguments)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lumen
