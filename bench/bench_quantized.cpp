// The int8 GEMM (math/int8_gemm) against the fp32 packed GEMM (math/packed_gemm) on the products
// a quantised ResNet18 computes: its 3x3 convolutions as im2col GEMMs (m = output pixels,
// k = 9 * C_in, n = C_out) and its Linear layer, at 1 thread, with a GOP/s counter (2 * m * n * k
// / time). Both include what a layer pays per call: packing A, and bias + ReLU on the output (the
// int8 one also the dequantisation). Issue 29 asks int8 to take <= 0.8x fp32's time on AVX2 and
// <= 0.6x with VNNI; the label names the kernel and the CPU's features.
//
//   build/lumen_bench --benchmark_filter=QuantizedGemm
//
// BM_QuantizedConvolutionLayer times whole layers on the same 3x3 convolutions: nn.Conv2d (which
// picks im2col or Winograd) against lumen.QuantizedConv2d in each of its forms (as this CPU
// prefers; the int8 GEMM on uint8 im2col rows; the integer Winograd of
// kernel/quantized_winograd), both with ReLU fused, at 1 thread:
//
//   build/lumen_bench --benchmark_filter=QuantizedConvolutionLayer
//
// Kinds: fp32 (PackedGemm), int8 (Int8Gemm on uint8 A, as a layer that quantises its input
// before im2col would call it), int8+quantise (the same, quantising a float A first: the cost when
// a layer quantises the im2col rows themselves), int8 generic (the plain C++ kernel), and for
// batch 1 fp32 matrix-vector (math/matrix_vector, what the fp32 Linear runs there), and bf16
// (math/bf16_gemm, packing and rounding a float A as a bf16 file's convolution does; where the
// CPU lacks AVX512-BF16, its plain C++ kernel, slower than fp32: the label says which).
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/compute_context.hpp"
#include "base/cpu_features.hpp"
#include "base/thread_pool.hpp"
#include "base/workspace.hpp"
#include "graph/node.hpp"
#include "layer/layer.hpp"
#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/activation.hpp"
#include "math/bf16_gemm.hpp"
#include "math/int8_gemm.hpp"
#include "math/int8_gemm_kernels.hpp"
#include "math/matrix_vector.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// One product: m x k activations times k x n weights.
struct GemmShape {
  const char* layer;
  int m, k, n;
};

constexpr GemmShape kShapes[] = {
    {"resnet18 conv3x3 64->64 @56", 3136, 576, 64},
    {"resnet18 conv3x3 128->128 @28", 784, 1152, 128},
    {"resnet18 conv3x3 256->256 @14", 196, 2304, 256},
    {"resnet18 conv3x3 512->512 @7", 49, 4608, 512},
    {"resnet18 fc 512->1000", 1, 512, 1000},
};

enum Kind { kFp32, kInt8, kInt8WithQuantise, kInt8Generic, kFp32MatrixVector, kBf16 };
const char* const kKindNames[] = {
    "fp32", "int8", "int8+quantise", "int8 generic", "fp32 matrix-vector", "bf16"};

// Arguments: shape index, kind, threads.
void BM_QuantizedGemm(benchmark::State& state) {
  const GemmShape& shape = kShapes[state.range(0)];
  const auto kind = static_cast<Kind>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  const int m = shape.m, k = shape.k, n = shape.n;
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> weights(static_cast<size_t>(n) * k);  // PyTorch's layout: channel-major
  for (float& weight : weights) weight = normal(generator);
  std::vector<float> a(static_cast<size_t>(m) * k);  // column-major im2col rows, after a ReLU
  for (float& value : a) value = uniform(generator);
  const std::vector<float> bias(n, 0.1f);
  const Activation relu{Activation::Kind::kRelu};
  std::vector<float> c(static_cast<size_t>(m) * n);

  ThreadPool pool(threads);
  Workspace workspace(threads);
  const ComputeContext context{&pool, &workspace};
  Int8Isa isa = BestInt8Isa();
  if (kind == kFp32MatrixVector) {  // what the fp32 Linear runs at batch 1
    if (m != 1) {
      state.SkipWithError("matrix-vector: batch 1 only");
      return;
    }
    for (auto _ : state) {
      MatrixVector(weights.data(), k, n, a.data(), k, c.data());
      AddBiasAndActivate(relu, 0.0f, c.data(), n);
      benchmark::DoNotOptimize(c.data());
    }
  } else if (kind == kFp32) {
    const PackedMatrix packed(weights.data(), k, n, k);
    workspace.Reserve(ScratchSlot::kGemmPacking, PackedGemmScratchSize(m, k));
    for (auto _ : state) {
      PackedGemm(m, a.data(), m, packed, c.data(), m, context);
      for (int j = 0; j < n; ++j)
        AddBiasAndActivate(relu, bias[j], c.data() + static_cast<size_t>(j) * m, m);
      benchmark::DoNotOptimize(c.data());
    }
  } else if (kind == kBf16) {
    const Bf16PackedWeights packed(weights.data(), n, k, k);
    workspace.Reserve(ScratchSlot::kGemmPacking, Bf16GemmScratchSize(m, packed));
    for (auto _ : state) {
      Bf16Gemm(m, a.data(), m, packed, bias.data(), relu, c.data(), m, context);
      benchmark::DoNotOptimize(c.data());
    }
  } else {
    if (kind == kInt8Generic) isa = Int8Isa::kGeneric;
    std::vector<int8_t> quantized;
    std::vector<float> scales;
    QuantizeWeightsPerChannel(weights.data(), n, k, &quantized, &scales);
    const Int8PackedWeights packed(quantized.data(), n, k, k, scales.data(), isa);
    const Uint8Quantization quantization = ChooseUint8Quantization(0.0f, 1.0f);
    std::vector<uint8_t> a_bytes(a.size());
    QuantizeToUint8(a.data(), a.size(), quantization, a_bytes.data());
    workspace.Reserve(ScratchSlot::kGemmPacking, Int8GemmScratchSize(m, packed));
    for (auto _ : state) {
      if (kind == kInt8WithQuantise) {
        QuantizeToUint8(a.data(), a.size(), quantization, a_bytes.data());
      }
      Int8Gemm(m, a_bytes.data(), m, quantization, packed, bias.data(), relu, c.data(), m, context);
      benchmark::DoNotOptimize(c.data());
    }
  }
  const double operations = 2.0 * m * n * k;
  state.counters["GOP"] =
      benchmark::Counter(operations * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  const char* kernel = kind == kFp32 || kind == kFp32MatrixVector ? ""
                       : kind == kBf16                            ? Bf16IsaName(BestBf16Isa())
                                                                  : Int8IsaName(isa);
  state.SetLabel(Concat(shape.layer, " (", m, "x", k, "x", n, ") ", kKindNames[kind],
                        *kernel == '\0' ? "" : " ", kernel, ", CPU ",
                        DetectedCpuFeatures().Describe()));
}

void QuantizedGemmArguments(benchmark::internal::Benchmark* benchmark) {
  for (size_t shape = 0; shape < std::size(kShapes); ++shape) {
    for (int kind : {kFp32, kInt8, kInt8WithQuantise, kInt8Generic, kFp32MatrixVector, kBf16}) {
      if (kind == kFp32MatrixVector && kShapes[shape].m != 1) continue;
      benchmark->Args({static_cast<int64_t>(shape), kind, 1});
    }
  }
  benchmark->ArgNames({"shape", "kind", "threads"});
}

BENCHMARK(BM_QuantizedGemm)
    ->Apply(QuantizedGemmArguments)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// A float32 attribute of `shape` holding `values`.
Attribute FloatAttribute(const std::vector<int>& shape, const std::vector<float>& values) {
  Attribute attribute;
  attribute.type = DataType::kFloat32;
  attribute.shape = shape;
  attribute.data.resize(values.size() * sizeof(float));
  std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
  return attribute;
}

// Convolution layers of the quantised models (ResNet18's 3x3s, strided layers and stem,
// MobileNetV2-0.5's and full width's 1x1s and stems), zero padded by kernel / 2, ReLU fused.
struct LayerGeometry {
  const char* layer;
  int in_channels;
  int out_channels;
  int kernel;      // square
  int side;        // square input map
  int stride = 1;  // both axes
};
constexpr LayerGeometry kLayers[] = {
    {"resnet18 conv3x3 64->64 @56", 64, 64, 3, 56},
    {"resnet18 conv3x3 128->128 @28", 128, 128, 3, 28},
    {"resnet18 conv3x3 256->256 @14", 256, 256, 3, 14},
    {"resnet18 conv3x3 512->512 @7", 512, 512, 3, 7},
    {"mobilenet_v2 conv1x1 8->48 @112", 8, 48, 1, 112},
    {"mobilenet_v2 conv1x1 16->8 @112", 16, 8, 1, 112},
    {"mobilenet_v2 conv1x1 24->144 @56", 24, 144, 1, 56},
    {"mobilenet_v2 conv1x1 32->192 @28", 32, 192, 1, 28},
    {"mobilenet_v2 conv1x1 192->32 @28", 192, 32, 1, 28},
    {"mobilenet_v2 conv1x1 384->64 @14", 384, 64, 1, 14},
    {"resnet18 conv3x3 s2 64->128 @56", 64, 128, 3, 56, 2},
    {"resnet18 conv1x1 s2 64->128 @56", 64, 128, 1, 56, 2},
    {"resnet18 stem conv7x7 s2 3->64 @224", 3, 64, 7, 224, 2},
    {"mobilenet_v2 stem conv3x3 s2 3->16 @224", 3, 16, 3, 224, 2},
    {"mobilenet_v2 conv1x1 96->24 @56", 96, 24, 1, 56},
    {"mobilenet_v2 conv1x1 32->16 @112", 32, 16, 1, 112},
    {"mobilenet_v2 conv1x1 144->24 @56", 144, 24, 1, 56},
    {"mobilenet_v2 conv1x1 192->16 @28", 192, 16, 1, 28},
    {"mobilenet_v2 stem conv3x3 s2 3->32 @224", 3, 32, 3, 224, 2},
};

// Arguments: layer index (of kLayers), form: 0 nn.Conv2d, 1 lumen.QuantizedConv2d as the layer
// chooses to compute it on this CPU, 2 lumen.QuantizedConv2d on the int8 GEMM
// (LUMEN_QUANTIZED_KERNELS=int8), 3 on the integer Winograd where it applies (=winograd).
void BM_QuantizedConvolutionLayer(benchmark::State& state) {
  const LayerGeometry& geometry = kLayers[state.range(0)];
  const bool quantized = state.range(1) >= 1;
  const char* const kernels[] = {nullptr, nullptr, "int8", "winograd"};
  const char* forced_kernels = kernels[state.range(1)];
  const int side = geometry.side;
  const int kernel = geometry.kernel;
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> weights(static_cast<size_t>(geometry.out_channels) * geometry.in_channels *
                             kernel * kernel);
  for (float& weight : weights) weight = normal(generator);
  const std::vector<int> weight_shape = {geometry.out_channels, geometry.in_channels, kernel,
                                         kernel};

  Node node;
  node.type = quantized ? "lumen.QuantizedConv2d" : "nn.Conv2d";
  node.name = "conv";
  node.input_names = {"in"};
  node.output_names = {"out"};
  node.params["in_channels"] = Parameter::FromInt(geometry.in_channels);
  node.params["out_channels"] = Parameter::FromInt(geometry.out_channels);
  node.params["kernel_size"] = Parameter::FromIntArray({kernel, kernel});
  node.params["stride"] = Parameter::FromIntArray({geometry.stride, geometry.stride});
  node.params["padding"] = Parameter::FromIntArray({kernel / 2, kernel / 2});
  node.params["dilation"] = Parameter::FromIntArray({1, 1});
  node.params["groups"] = Parameter::FromInt(1);
  node.params["bias"] = Parameter::FromBool(true);
  node.attributes["bias"] =
      FloatAttribute({geometry.out_channels}, std::vector<float>(geometry.out_channels, 0.1f));
  if (quantized) {
    std::vector<int8_t> values;
    std::vector<float> scales;
    QuantizeWeightsPerChannel(weights.data(), geometry.out_channels,
                              geometry.in_channels * kernel * kernel, &values, &scales);
    const Uint8Quantization input = ChooseUint8Quantization(0.0f, 1.0f);
    node.params["input_scale"] = Parameter::FromFloat(input.scale);
    node.params["input_zero_point"] = Parameter::FromInt(input.zero_point);
    Attribute& weight = node.attributes["weight"];
    weight.type = DataType::kInt8;
    weight.shape = weight_shape;
    weight.data.assign(values.begin(), values.end());
    node.attributes["weight_scales"] = FloatAttribute({geometry.out_channels}, scales);
  } else {
    node.attributes["weight"] = FloatAttribute(weight_shape, weights);
  }
  if (forced_kernels != nullptr) setenv("LUMEN_QUANTIZED_KERNELS", forced_kernels, 1);
  std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(node));
  unsetenv("LUMEN_QUANTIZED_KERNELS");
  layer->FuseActivation(Activation{Activation::Kind::kRelu});

  const Shape input_shape = {1, static_cast<uint32_t>(geometry.in_channels),
                             static_cast<uint32_t>(side), static_cast<uint32_t>(side)};
  std::vector<float> values(ShapeElementCount(input_shape));  // after a ReLU: [0, 1)
  for (float& value : values) value = uniform(generator);
  const Tensor input = Tensor::FromRowMajor(values, input_shape);
  const std::vector<Shape> output_shapes = layer->OutputShapes({input_shape});
  Tensor output(output_shapes[0]);
  ThreadPool pool(1);
  Workspace workspace(1);
  std::unique_ptr<LayerState> layer_state =
      layer->Prepare({input_shape}, output_shapes, PrepareContext{1, &workspace, {}});
  const ForwardContext context{ComputeContext{&pool, &workspace}, layer_state.get()};
  for (auto _ : state) {
    layer->Forward({&input}, {&output}, context);
    benchmark::DoNotOptimize(output.data());
  }
  const int output_side = (side + 2 * (kernel / 2) - kernel) / geometry.stride + 1;
  const double operations = 2.0 * output_side * output_side * geometry.out_channels *
                            geometry.in_channels * kernel * kernel;
  state.counters["GOP"] =
      benchmark::Counter(operations * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  const char* const forms[] = {"", " (as this CPU prefers)", " (int8 GEMM)", " (Winograd)"};
  state.SetLabel(Concat(geometry.layer, " ", node.type, forms[state.range(1)],
                        quantized ? Concat(" ", Int8IsaName(BestInt8Isa())) : std::string(),
                        ", CPU ", DetectedCpuFeatures().Describe()));
}

BENCHMARK(BM_QuantizedConvolutionLayer)
    ->ArgsProduct({benchmark::CreateDenseRange(0, static_cast<int64_t>(std::size(kLayers)) - 1, 1),
                   {0, 1, 2, 3}})
    ->ArgNames({"layer", "form"})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The choice int8_gemm_avx2.cpp documents: its exact micro-kernel (bytes widened to int16,
// vpmaddwd) against the loop it rejected (vpmaddubsw, saturating, then vpmaddwd by ones), on the
// same 16 x 6 tile with both operands in L1, in multiply-adds per second ("GOP" counts 2 per
// multiply-add, as above). Not a correct kernel: only its speed matters here.
__attribute__((target("avx2"))) void SaturatingMicroKernel(int groups, const uint8_t* a,
                                                           const uint8_t* b, int32_t* sums) {
  constexpr int kColumns = 6;
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i sum0[kColumns];
  __m256i sum1[kColumns];
#pragma GCC unroll 8
  for (int j = 0; j < kColumns; ++j) sum0[j] = sum1[j] = _mm256_setzero_si256();
  for (int group = 0; group < groups; ++group, a += 64, b += kColumns * 4) {
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
    const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 32));
#pragma GCC unroll 8
    for (int j = 0; j < kColumns; ++j) {
      int32_t quad;
      std::memcpy(&quad, b + j * 4, 4);
      const __m256i weight = _mm256_set1_epi32(quad);
      sum0[j] =
          _mm256_add_epi32(sum0[j], _mm256_madd_epi16(_mm256_maddubs_epi16(a0, weight), ones));
      sum1[j] =
          _mm256_add_epi32(sum1[j], _mm256_madd_epi16(_mm256_maddubs_epi16(a1, weight), ones));
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < kColumns; ++j) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + j * 16), sum0[j]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + j * 16 + 8), sum1[j]);
  }
}

// Argument: 0 the exact widened kernel, 1 the saturating vpmaddubsw loop.
void BM_Int8InnerLoop(benchmark::State& state) {
  if (!DetectedCpuFeatures().avx2) {
    state.SkipWithError("needs AVX2");
    return;
  }
  const bool saturating = state.range(0) == 1;
  constexpr int kGroups = 256;  // 16 KB of A, 6 KB of weights: L1
  std::vector<uint8_t> a(kGroups * 64, 3), b(kGroups * 24, 5);
  std::vector<int32_t> sums(96);
  const Int8Kernel& kernel = Int8KernelFor(Int8Isa::kAvx2);
  for (auto _ : state) {
    if (saturating) {
      SaturatingMicroKernel(kGroups, a.data(), b.data(), sums.data());
    } else {
      kernel.micro_kernel(kGroups, a.data(), b.data(), sums.data(), 16, false);
    }
    benchmark::DoNotOptimize(sums.data());
  }
  // Each group holds 4 k-steps of bytes, or 2 of int16.
  const double multiply_adds = 96.0 * kGroups * (saturating ? 4 : 2);
  state.counters["GOP"] =
      benchmark::Counter(2 * multiply_adds * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(saturating ? "vpmaddubsw + vpmaddwd (saturates)" : "widened vpmaddwd (exact)");
}

BENCHMARK(BM_Int8InnerLoop)->Arg(0)->Arg(1)->ArgName("saturating");

}  // namespace
}  // namespace lumen
