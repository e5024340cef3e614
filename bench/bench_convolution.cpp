// Every convolution algorithm at the convolution shapes of ResNet18 (224x224) and YOLOv5s
// (640x640), batch 1, on 1 and 2 threads, with a GFLOP/s counter (2 * multiply-adds / time); and
// the depthwise kernel at MobileNetV3's and ConvNeXt's depthwise shapes, with GFLOP/s and GB/s;
// and the max pooling kernels at the 3x3 stride-2 poolings that follow the classifiers' stems.
//
//   build/lumen_bench --benchmark_filter=Convolution
//
// The machine's limits: one AVX2 core does 2 FMA x 8 lanes = 32 FLOP per cycle (78 GFLOP/s at
// 2.45 GHz; AVX-512 doubles it; the peak% counters are against the rate lumen_bench measures at
// start, machine_peak.hpp), and a depthwise layer, with about as many multiply-adds per pixel
// as its kernel has taps, reads and writes each pixel once, so it is bounded by the FMA units for
// maps that fit the caches and by memory bandwidth (10-20 GB/s per core) for the ones that do not.
//
// ChooseConvolutionAlgorithm's thresholds come from these numbers.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/compute_context.hpp"
#include "base/thread_pool.hpp"
#include "base/workspace.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "kernel/max_pooling_kernels.hpp"
#include "lumen/error.hpp"
#include "machine_peak.hpp"
#include "math/bf16_gemm.hpp"

namespace lumen {
namespace {

// One convolution layer: channels, input size, kernel, stride, padding, groups, and the
// activation its model fuses into it (the epilogue is part of the layer's time: a tanh that was
// not vectorised once cost more than the super-resolution net's Winograd products).
struct LayerShape {
  const char* model;
  int in_channels, out_channels, size, kernel, stride, padding;
  int groups = 1;
  Activation::Kind activation = Activation::Kind::kRelu;
};

constexpr Activation::Kind kSilu = Activation::Kind::kSilu;
constexpr Activation::Kind kTanh = Activation::Kind::kTanh;
constexpr Activation::Kind kNone = Activation::Kind::kIdentity;

constexpr LayerShape kLayers[] = {
    {"resnet18", 3, 64, 224, 7, 2, 3},
    {"resnet18", 64, 64, 56, 3, 1, 1},
    {"resnet18", 64, 128, 56, 3, 2, 1},
    {"resnet18", 128, 128, 28, 3, 1, 1},
    {"resnet18", 64, 128, 56, 1, 2, 0},
    {"resnet18", 128, 256, 28, 3, 2, 1},
    {"resnet18", 256, 256, 14, 3, 1, 1},
    {"resnet18", 256, 512, 14, 3, 2, 1},
    {"resnet18", 512, 512, 7, 3, 1, 1},
    {"yolov5s", 3, 32, 640, 6, 2, 2, 1, kSilu},
    {"yolov5s", 32, 64, 320, 3, 2, 1, 1, kSilu},
    {"yolov5s", 32, 32, 160, 3, 1, 1, 1, kSilu},
    {"yolov5s", 64, 32, 160, 1, 1, 0, 1, kSilu},
    {"yolov5s", 64, 64, 80, 3, 1, 1, 1, kSilu},
    {"yolov5s", 128, 128, 40, 3, 1, 1, 1, kSilu},
    {"yolov5s", 256, 128, 40, 1, 1, 0, 1, kSilu},
    {"yolov5s", 256, 256, 20, 3, 1, 1, 1, kSilu},
    {"yolov5s", 512, 256, 20, 1, 1, 0, 1, kSilu},
    {"yolov5s", 128, 256, 80, 3, 2, 1, 1, kSilu},
    {"superres", 1, 64, 128, 5, 1, 2, 1, kTanh},
    {"superres", 64, 32, 128, 3, 1, 1, 1, kTanh},
    {"superres", 32, 9, 128, 3, 1, 1, 1, kNone},
    // The stems of the other classifiers and image-to-image nets: few input channels, so the
    // im2col depth K is 27..243 and the GEMM has few columns.
    {"mnasnet", 3, 16, 224, 3, 2, 1},
    {"regnet", 3, 32, 224, 3, 2, 1},
    {"squeezenet", 3, 64, 224, 3, 2, 0},
    {"densenet", 3, 32, 160, 7, 2, 3},
    {"unet", 3, 16, 128, 3, 1, 1},
    {"style", 3, 16, 128, 9, 1, 4},
    // Few output channels: the style transfer net's last layer, back to RGB.
    {"style", 16, 3, 128, 9, 1, 4, 1, kNone},
    // RegNet's grouped convolutions, 8 channels per group, and a plain one with 8 input channels.
    {"regnet", 24, 24, 112, 3, 2, 1, 3},
    {"regnet", 48, 48, 28, 3, 1, 1, 6},
    {"regnet", 104, 104, 28, 3, 2, 1, 13},
    {"regnet", 216, 216, 7, 3, 1, 1, 27},
    {"narrow", 8, 16, 56, 3, 1, 1},
    // SqueezeNet 1.1's fire modules: 3x3 and 1x1 expansions of a narrow squeeze layer.
    {"squeezenet", 16, 64, 55, 3, 1, 1},
    {"squeezenet", 32, 128, 27, 3, 1, 1},
    {"squeezenet", 48, 192, 13, 3, 1, 1},
    {"squeezenet", 16, 64, 55, 1, 1, 0},
    {"squeezenet", 64, 16, 55, 1, 1, 0},
    // DenseNet-121 (growth 12) at 160x160: its 58 3x3 layers, 48 -> 12, on each block's map.
    {"densenet", 48, 12, 40, 3, 1, 1, 1, kNone},
    {"densenet", 48, 12, 20, 3, 1, 1, 1, kNone},
    {"densenet", 48, 12, 10, 3, 1, 1, 1, kNone},
    {"densenet", 48, 12, 5, 3, 1, 1, 1, kNone},
    // MobileNetV2's pointwise layers: expansions (ReLU6, here ReLU) and linear projections.
    {"mobilenet_v2", 24, 144, 56, 1, 1, 0},
    {"mobilenet_v2", 144, 24, 56, 1, 1, 0, 1, kNone},
    {"mobilenet_v2", 192, 32, 28, 1, 1, 0, 1, kNone},
    {"mobilenet_v2", 96, 576, 14, 1, 1, 0},
    {"mobilenet_v2", 576, 96, 14, 1, 1, 0, 1, kNone},
    {"mobilenet_v2", 960, 160, 7, 1, 1, 0, 1, kNone},
    {"mobilenet_v2", 320, 1280, 7, 1, 1, 0},
};

enum Algorithm { kChosen, kIm2col, kPointwise, kWinograd, kWinograd2x2, kSmallDepth, kReference };

// A depthwise layer: channels (groups == in == out), input size, kernel, stride; padding k / 2.
struct DepthwiseShape {
  const char* model;
  int channels, size, kernel, stride;
};

constexpr DepthwiseShape kDepthwiseLayers[] = {
    {"mobilenet_v3", 16, 80, 3, 1},
    {"mobilenet_v3", 48, 80, 3, 2},
    {"mobilenet_v3", 56, 40, 3, 1},
    {"mobilenet_v3", 56, 40, 5, 2},
    {"mobilenet_v3", 88, 20, 5, 1},
    {"mobilenet_v3", 184, 20, 3, 2},
    {"mobilenet_v3", 136, 10, 3, 1},
    {"mobilenet_v3", 504, 10, 5, 2},
    {"mobilenet_v3", 720, 5, 5, 1},
    {"convnext", 32, 24, 7, 1},
    {"convnext", 128, 6, 7, 1},
    {"mobilenet_v2", 144, 56, 3, 1},
    // MobileNetV2 0.5's depthwise layers on the largest maps.
    {"mobilenet_v2", 16, 112, 3, 1},
    {"mobilenet_v2", 48, 112, 3, 2},
    {"mobilenet_v2", 96, 56, 3, 1},
    // Full-width MobileNetV2's on 14x14 and 7x7 maps.
    {"mobilenet_v2", 384, 14, 3, 1},
    {"mobilenet_v2", 960, 7, 3, 1},
    // EfficientNet-B0 0.5's 5x5 layers on 14x14 maps.
    {"efficientnet", 336, 14, 5, 1},
    // Full-width MobileNetV2's stride-2 layers, 112 -> 56 and 56 -> 28.
    {"mobilenet_v2", 96, 112, 3, 2},
    {"mobilenet_v2", 144, 56, 3, 2},
    // Full-width MobileNetV2's on 28x28 maps (1.4x ORT's time in the model, one thread).
    {"mobilenet_v2", 192, 28, 3, 1},
};

ConvolutionSpec MakeSpec(const LayerShape& layer) {
  ConvolutionSpec spec;
  spec.in_channels = layer.in_channels;
  spec.out_channels = layer.out_channels;
  spec.groups = layer.groups;
  spec.window.kernel_h = spec.window.kernel_w = layer.kernel;
  spec.window.stride_h = spec.window.stride_w = layer.stride;
  spec.window.pad_top = spec.window.pad_bottom = layer.padding;
  spec.window.pad_left = spec.window.pad_right = layer.padding;
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  spec.weights.resize(static_cast<size_t>(layer.out_channels) * (layer.in_channels / layer.groups) *
                      layer.kernel * layer.kernel);
  for (float& weight : spec.weights) weight = normal(generator);
  spec.bias.assign(layer.out_channels, 0.1f);
  return spec;
}

// The share, in %, of `threads` cores' measured multiply-add peak that `flops` per iteration
// reach in `seconds` for all of `state`'s iterations: read against the context line of
// lumen_bench's output that names that peak. (A plain value: Google Benchmark's rate counters
// would print it as "%/s".) Like GFLOP, it counts the direct convolution's products, so Winograd,
// which computes fewer, can pass 100%.
double PeakShare(const benchmark::State& state, double seconds, double flops, int threads) {
  const double gflops = flops * 1e-9 * static_cast<double>(state.iterations()) / seconds;
  return 100.0 * gflops / (MeasuredPeakGflops() * threads);
}

// Arguments: layer index, algorithm, threads, and bf16: 1 for a `--to bf16` file's layer, its
// products in bf16 (math/bf16_gemm: AMX or AVX512-BF16, the CPU's fastest), skipped where the CPU
// has neither.
void BM_Convolution(benchmark::State& state) {
  const LayerShape& layer = kLayers[state.range(0)];
  const auto algorithm = static_cast<Algorithm>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  ConvolutionSpec spec = MakeSpec(layer);
  if (state.range(3) == 1) {
    if (BestBf16Isa() == Bf16Isa::kGeneric) {
      state.SkipWithError("no bf16 products on this CPU");
      return;
    }
    spec.bf16_products = true;
  }
  const ConvolutionShape shape = MakeConvolutionShape(spec.window, layer.size, layer.size);
  if ((algorithm == kPointwise && !PointwiseApplies(spec)) ||
      ((algorithm == kWinograd || algorithm == kWinograd2x2) && !WinogradApplies(spec))) {
    state.SkipWithError("not applicable");
    return;
  }
  const ConvolutionAlgorithmKind kind =
      algorithm == kChosen        ? ChooseConvolutionAlgorithm(spec, shape)
      : algorithm == kIm2col      ? ConvolutionAlgorithmKind::kIm2col
      : algorithm == kPointwise   ? ConvolutionAlgorithmKind::kPointwise
      : algorithm == kWinograd    ? ConvolutionAlgorithmKind::kWinograd4x4
      : algorithm == kWinograd2x2 ? ConvolutionAlgorithmKind::kWinograd2x2
      : algorithm == kSmallDepth  ? ConvolutionAlgorithmKind::kSmallDepth
                                  : ConvolutionAlgorithmKind::kReference;
  const std::unique_ptr<ConvolutionAlgorithm> convolution = MakeConvolutionAlgorithm(kind, spec);
  // What a session owns: the threads and their scratch, reserved by the plan as Prepare does.
  ThreadPool pool(threads);
  Workspace workspace(threads);
  const ComputeContext context{&pool, &workspace};
  const ConvolutionPlan plan = convolution->Plan(shape, Activation{layer.activation}, threads);
  plan.ReserveScratch(&workspace);
  std::vector<float> input(static_cast<size_t>(layer.in_channels) * layer.size * layer.size, 0.5f);
  std::vector<float> output(static_cast<size_t>(layer.out_channels) * shape.output_h *
                            shape.output_w);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    convolution->Run(plan, input.data(), output.data(), context);
    benchmark::DoNotOptimize(output.data());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * layer.out_channels * shape.output_h * shape.output_w *
                       (layer.in_channels / layer.groups) * layer.kernel * layer.kernel;
  state.counters["GFLOP"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak%"] = PeakShare(state, seconds, flops, threads);
  const char* activation_name = layer.activation == kSilu   ? "+silu "
                                : layer.activation == kTanh ? "+tanh "
                                : layer.activation == kNone ? ""
                                                            : "+relu ";
  state.SetLabel(Concat(layer.model, " ", layer.in_channels, "->", layer.out_channels,
                        layer.groups > 1 ? Concat(" g", layer.groups) : std::string(), " k",
                        layer.kernel, "s", layer.stride, " @", layer.size, " ", activation_name,
                        convolution->name(),
                        spec.bf16_products ? Concat(" bf16 ", Bf16IsaName(BestBf16Isa())) : ""));
}

void ConvolutionArguments(benchmark::internal::Benchmark* benchmark) {
  for (int threads : {1, 2}) {
    for (size_t layer = 0; layer < std::size(kLayers); ++layer) {
      for (int algorithm : {kChosen, kIm2col, kPointwise, kWinograd, kWinograd2x2, kSmallDepth}) {
        benchmark->Args({static_cast<int64_t>(layer), algorithm, threads, 0});
        // bf16 products: im2col's and Winograd F(2x2)'s GEMMs (F(4x4) stays fp32).
        if (algorithm == kChosen || algorithm == kIm2col || algorithm == kWinograd2x2) {
          benchmark->Args({static_cast<int64_t>(layer), algorithm, threads, 1});
        }
      }
    }
  }
  benchmark->ArgNames({"layer", "algorithm", "threads", "bf16"});
}

BENCHMARK(BM_Convolution)
    ->Apply(ConvolutionArguments)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Arguments: depthwise layer index, reference (1) or the depthwise kernel (0), threads.
void BM_DepthwiseConvolution(benchmark::State& state) {
  const DepthwiseShape& layer = kDepthwiseLayers[state.range(0)];
  const bool reference = state.range(1) == 1;
  const int threads = static_cast<int>(state.range(2));
  // MakeSpec's shape with one input channel gives the weights depthwise needs: (C, 1, k, k).
  ConvolutionSpec spec = MakeSpec(
      {layer.model, 1, layer.channels, layer.size, layer.kernel, layer.stride, layer.kernel / 2});
  spec.in_channels = spec.groups = layer.channels;
  const ConvolutionShape shape = MakeConvolutionShape(spec.window, layer.size, layer.size);
  const std::unique_ptr<ConvolutionAlgorithm> convolution = MakeConvolutionAlgorithm(
      reference ? ConvolutionAlgorithmKind::kReference : ConvolutionAlgorithmKind::kDepthwise,
      spec);
  ThreadPool pool(threads);
  Workspace workspace(threads);
  const ComputeContext context{&pool, &workspace};
  const ConvolutionPlan plan =
      convolution->Plan(shape, Activation{Activation::Kind::kRelu}, threads);
  plan.ReserveScratch(&workspace);
  const size_t input_floats = static_cast<size_t>(layer.channels) * layer.size * layer.size;
  const size_t output_floats =
      static_cast<size_t>(layer.channels) * shape.output_h * shape.output_w;
  std::vector<float> input(input_floats, 0.5f);
  std::vector<float> output(output_floats);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    convolution->Run(plan, input.data(), output.data(), context);
    benchmark::DoNotOptimize(output.data());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * output_floats * layer.kernel * layer.kernel;
  state.counters["GFLOP"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak%"] = PeakShare(state, seconds, flops, threads);
  state.counters["GB"] = benchmark::Counter((input_floats + output_floats) * sizeof(float) * 1e-9,
                                            benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(Concat(layer.model, " ", layer.channels, " k", layer.kernel, "s", layer.stride,
                        " @", layer.size, " ", convolution->name()));
}

void DepthwiseArguments(benchmark::internal::Benchmark* benchmark) {
  for (int threads : {1, 2}) {
    for (size_t layer = 0; layer < std::size(kDepthwiseLayers); ++layer) {
      for (int reference : {0, 1}) {
        benchmark->Args({static_cast<int64_t>(layer), reference, threads});
      }
    }
  }
  benchmark->ArgNames({"layer", "reference", "threads"});
}

BENCHMARK(BM_DepthwiseConvolution)
    ->Apply(DepthwiseArguments)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// A 3x3 stride-2 max pooling: channels, input size, padding, ceil mode.
struct MaxPoolingShape {
  const char* model;
  int channels, size, padding;
  bool ceil_mode;
};

constexpr MaxPoolingShape kMaxPoolingLayers[] = {
    {"resnet18", 64, 112, 1, false},  {"shufflenet", 24, 112, 1, false},
    {"squeezenet", 64, 111, 0, true}, {"squeezenet", 128, 55, 0, true},
    {"squeezenet", 256, 27, 0, true}, {"small map", 64, 15, 0, true},
};

// Arguments: layer index, kernel (0 separable, 1 reference, 2 tiled); one thread (the layer
// spreads the channels over the threads). GB/s counts the input and output once.
void BM_MaxPooling(benchmark::State& state) {
  const MaxPoolingShape& layer = kMaxPoolingLayers[state.range(0)];
  const int kernel = static_cast<int>(state.range(1));
  Window2d window;
  window.kernel_h = window.kernel_w = 3;
  window.stride_h = window.stride_w = 2;
  window.pad_top = window.pad_bottom = window.pad_left = window.pad_right = layer.padding;
  PoolingPlane plane;
  plane.input_h = plane.input_w = layer.size;
  plane.output_h = window.OutputHeight(layer.size, layer.ceil_mode);
  plane.output_w = window.OutputWidth(layer.size, layer.ceil_mode);
  const size_t input_area = static_cast<size_t>(layer.size) * layer.size;
  const size_t output_area = static_cast<size_t>(plane.output_h) * plane.output_w;
  std::vector<float> input(layer.channels * input_area);
  std::mt19937 generator(3);
  std::normal_distribution<float> normal;
  for (float& value : input) value = normal(generator);
  std::vector<float> output(layer.channels * output_area);
  if (kernel == 2 && !MaxPoolTiledApplies(window, plane)) {
    state.SkipWithError("not applicable");
    return;
  }
  std::vector<float> scratch(
      std::max(MaxPoolSeparableScratchSize(plane), MaxPoolTiledScratchSize(window, plane)));
  for (auto _ : state) {
    for (int channel = 0; channel < layer.channels; ++channel) {
      const float* source = input.data() + channel * input_area;
      float* target = output.data() + channel * output_area;
      if (kernel == 1) {
        MaxPoolReference(window, plane, source, target);
      } else if (kernel == 2) {
        MaxPoolTiled(window, plane, source, target, scratch.data());
      } else {
        MaxPoolSeparable(window, plane, source, target, scratch.data());
      }
    }
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["GB"] = benchmark::Counter((input.size() + output.size()) * sizeof(float) * 1e-9,
                                            benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(Concat(layer.model, " ", layer.channels, " @", layer.size,
                        kernel == 1   ? " reference"
                        : kernel == 2 ? " tiled"
                                      : " separable"));
}
BENCHMARK(BM_MaxPooling)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1, 2}})
    ->ArgNames({"layer", "kernel"})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lumen
