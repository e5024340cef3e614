// The products of the sequence layers, with a GFLOP/s counter (2 * multiply-adds / time), on 1 and
// 2 threads:
//   - the packed GEMM of an attention in-projection (256 tokens x 384 features times the 384 x 1152
//     q/k/v weights), its pre-packed weights as nn.MultiheadAttention holds them;
//   - a batched torch.matmul whose right operand is packed on every run ((8,256,64) @ (8,64,256));
//   - a whole nn.MultiheadAttention layer (1, 256, 384), 6 heads;
//   - a whole nn.LSTM, 2 layers, bidirectional, hidden 256, 100 steps, batch 1 and 8;
//   - nn.Linear at the shapes of ConvNeXt's channels-last MLPs (many slices of few rows, stacked
//     into one GEMM), of ViT's MLP (one tall slice), and a classifier head at batch 1 (a
//     matrix-vector product, bandwidth-bound: its counter is GB/s of weights read);
//   - the activations a layer fuses (SiLU, GELU), in GB/s of input read and output written.
//
// The machine's limits, to read the counters against: one AVX2 core with two FMA units does
// 2 x 8 x 2 = 32 fp32 FLOP per cycle (about 78 GFLOP/s at 2.45 GHz; 64 per cycle, 2 x 16 x 2,
// with AVX-512); a core streams roughly 15-20 GB/s from DRAM.
//
//   build/lumen_bench --benchmark_filter='Gemm|MatMul|Attention|Lstm|Linear|Activation'
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/compute_context.hpp"
#include "base/thread_pool.hpp"
#include "base/workspace.hpp"
#include "graph/node.hpp"
#include "layer/layer_registry.hpp"
#include "math/activation.hpp"
#include "math/batched_gemm.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// `count` floats uniform in [-scale, scale) from a fixed seed.
std::vector<float> Random(size_t count, float scale = 1.0f) {
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> distribution(-scale, scale);
  std::vector<float> values(count);
  for (float& value : values) value = distribution(generator);
  return values;
}

// A float32 weight of `shape` with random values, as a reader would attach it to a node.
Attribute RandomWeight(const std::vector<int>& shape) {
  Attribute attribute;
  attribute.type = DataType::kFloat32;
  attribute.shape = shape;
  const std::vector<float> values = Random(attribute.ElementCount(), 0.1f);
  attribute.data.resize(values.size() * sizeof(float));
  std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
  return attribute;
}

// Reports 2 * multiply_adds per second as GFLOP/s.
void SetGflops(benchmark::State& state, double multiply_adds) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * multiply_adds * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// Arguments: threads.
void BM_GemmAttentionInProjection(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int m = 256, k = 384, n = 1152;
  const std::vector<float> a = Random(static_cast<size_t>(m) * k);
  const std::vector<float> b = Random(static_cast<size_t>(k) * n);
  std::vector<float> c(static_cast<size_t>(m) * n);
  const PackedMatrix packed(b.data(), k, n, k);
  ThreadPool pool(threads);
  Workspace workspace(threads);
  workspace.Reserve(ScratchSlot::kGemmPacking, PackedGemmScratchSize(m, k));
  const ComputeContext context{&pool, &workspace};
  for (auto _ : state) {
    PackedGemm(m, a.data(), m, packed, c.data(), m, context);
    benchmark::DoNotOptimize(c.data());
  }
  SetGflops(state, static_cast<double>(m) * n * k);
}
BENCHMARK(BM_GemmAttentionInProjection)->Arg(1)->Arg(2)->UseRealTime();

// Arguments: threads.
void BM_MatMulBatched(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  BatchedGemm gemm;
  gemm.m = 256;
  gemm.n = 256;
  gemm.k = 64;
  gemm.a_row = 1, gemm.a_col = 256;
  gemm.b_row = 1, gemm.b_col = 64;
  gemm.c_row = 1, gemm.c_col = 256;
  gemm.batch = {8};
  gemm.a_batch = {256 * 64};
  gemm.b_batch = {64 * 256};
  gemm.c_batch = {256 * 256};
  const std::vector<float> a = Random(8 * 256 * 64);
  const std::vector<float> b = Random(8 * 64 * 256);
  std::vector<float> c(8 * 256 * 256);
  ThreadPool pool(threads);
  Workspace workspace(threads);
  const BatchedGemmPlan plan = PlanBatchedGemm(gemm, threads);
  ReserveBatchedGemm(plan, &workspace);
  const ComputeContext context{&pool, &workspace};
  for (auto _ : state) {
    RunBatchedGemm(plan, a.data(), b.data(), c.data(), context);
    benchmark::DoNotOptimize(c.data());
  }
  SetGflops(state, 8.0 * 256 * 256 * 64);
}
BENCHMARK(BM_MatMulBatched)->Arg(1)->Arg(2)->UseRealTime();

// Runs `layer` on `input` in `state`'s loop on `threads` threads.
void RunLayerLoop(benchmark::State& state, const Layer& layer, const Tensor& input, int threads) {
  ThreadPool pool(threads);
  Workspace workspace(threads);
  const std::vector<Shape> output_shapes = layer.OutputShapes({input.shape()});
  std::unique_ptr<LayerState> layer_state =
      layer.Prepare({input.shape()}, output_shapes, PrepareContext{threads, &workspace, {}});
  std::vector<Tensor> outputs;
  for (const Shape& shape : output_shapes) outputs.emplace_back(shape);
  std::vector<Tensor*> output_pointers;
  for (Tensor& output : outputs) output_pointers.push_back(&output);
  const ForwardContext context{ComputeContext{&pool, &workspace}, layer_state.get()};
  for (auto _ : state) {
    layer.Forward({&input}, output_pointers, context);
    benchmark::DoNotOptimize(outputs[0].data());
  }
}

// Arguments: threads.
void BM_MultiheadAttention(benchmark::State& state) {
  Node op;
  op.type = "nn.MultiheadAttention";
  op.name = "attention";
  op.input_names = {"x"};
  op.output_names = {"y"};
  op.params["embed_dim"] = Parameter::Parse("384");
  op.params["num_heads"] = Parameter::Parse("6");
  op.params["batch_first"] = Parameter::Parse("True");
  op.attributes["in_proj_weight"] = RandomWeight({1152, 384});
  op.attributes["in_proj_bias"] = RandomWeight({1152});
  op.attributes["out_proj.weight"] = RandomWeight({384, 384});
  op.attributes["out_proj.bias"] = RandomWeight({384});
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  const Tensor input = Tensor::FromRowMajor(Random(256 * 384), {1, 256, 384});
  RunLayerLoop(state, *layer, input, static_cast<int>(state.range(0)));
  // In-projection, Q K^T and P V over 6 heads of 64, out-projection.
  SetGflops(state, 256.0 * 384 * 1152 + 2 * 256.0 * 256 * 384 + 256.0 * 384 * 384);
}
BENCHMARK(BM_MultiheadAttention)->Arg(1)->Arg(2)->UseRealTime();

// Arguments: batch, threads.
void BM_Lstm(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  Node op;
  op.type = "nn.LSTM";
  op.name = "lstm";
  op.input_names = {"x"};
  op.output_names = {"y"};
  for (const char* item : {"input_size=256", "hidden_size=256", "num_layers=2",
                           "bidirectional=True", "batch_first=True", "bias=True"}) {
    const std::string text = item;
    op.params[text.substr(0, text.find('='))] = Parameter::Parse(text.substr(text.find('=') + 1));
  }
  for (int layer = 0; layer < 2; ++layer) {
    for (const std::string direction : {"", "_reverse"}) {
      const std::string suffix = "_l" + std::to_string(layer) + direction;
      op.attributes["weight_ih" + suffix] = RandomWeight({1024, layer == 0 ? 256 : 512});
      op.attributes["weight_hh" + suffix] = RandomWeight({1024, 256});
      op.attributes["bias_ih" + suffix] = RandomWeight({1024});
      op.attributes["bias_hh" + suffix] = RandomWeight({1024});
    }
  }
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  const Tensor input = Tensor::FromRowMajor(Random(static_cast<size_t>(batch) * 100 * 256),
                                            {static_cast<uint32_t>(batch), 100, 256});
  RunLayerLoop(state, *layer, input, static_cast<int>(state.range(1)));
  // Per token and direction: the input's share (4H x in) and the recurrent product (4H x H).
  const double tokens = batch * 100.0;
  SetGflops(state, tokens * 2 * 1024 * (256 + 512) + tokens * 2 * 2 * 1024 * 256);
}
BENCHMARK(BM_Lstm)->Args({1, 1})->Args({1, 2})->Args({8, 1})->Args({8, 2})->UseRealTime();

// An nn.Linear input shape and its out_features.
struct LinearShape {
  const char* what;
  Shape input;
  int out_features;
};

const LinearShape kLinearShapes[] = {
    {"convnext 24x24 32->128", {1, 24, 24, 32}, 128},
    {"convnext 24x24 128->32", {1, 24, 24, 128}, 32},
    {"convnext 6x6 128->512", {1, 6, 6, 128}, 512},
    {"vit 197 tokens 96->384", {1, 197, 96}, 384},
    {"classifier 1280->1000", {1, 1280}, 1000},
};

// Arguments: shape index, threads.
void BM_Linear(benchmark::State& state) {
  const LinearShape& shape = kLinearShapes[state.range(0)];
  const int in_features = static_cast<int>(shape.input.back());
  Node op;
  op.type = "nn.Linear";
  op.name = "linear";
  op.input_names = {"x"};
  op.output_names = {"y"};
  op.params["in_features"] = Parameter::Parse(std::to_string(in_features));
  op.params["out_features"] = Parameter::Parse(std::to_string(shape.out_features));
  op.params["bias"] = Parameter::Parse("True");
  op.attributes["weight"] = RandomWeight({shape.out_features, in_features});
  op.attributes["bias"] = RandomWeight({shape.out_features});
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  const Tensor input = Tensor::FromRowMajor(Random(ShapeElementCount(shape.input)), shape.input);
  RunLayerLoop(state, *layer, input, static_cast<int>(state.range(1)));
  const double rows = static_cast<double>(ShapeElementCount(shape.input)) / in_features;
  const double weight_bytes = 4.0 * in_features * shape.out_features;
  if (rows == 1) {
    state.counters["GB/s"] =
        benchmark::Counter(weight_bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  } else {
    SetGflops(state, rows * in_features * shape.out_features);
  }
  state.SetLabel(shape.what);
}

void LinearArguments(benchmark::internal::Benchmark* benchmark) {
  for (int threads : {1, 2}) {
    for (size_t shape = 0; shape < std::size(kLinearShapes); ++shape) {
      benchmark->Args({static_cast<int64_t>(shape), threads});
    }
  }
  benchmark->ArgNames({"shape", "threads"});
}
BENCHMARK(BM_Linear)->Apply(LinearArguments)->UseRealTime();

// Arguments: activation kind (Activation::Kind), threads. A 24x24x128 map (ConvNeXt's GELU input),
// 295 KB, which stays in the L2 cache.
void BM_Activation(benchmark::State& state) {
  const Activation activation{static_cast<Activation::Kind>(state.range(0))};
  const int threads = static_cast<int>(state.range(1));
  const std::vector<float> input = Random(24 * 24 * 128, 4.0f);
  std::vector<float> output(input.size());
  ThreadPool pool(threads);
  Workspace workspace(threads);
  const ComputeContext context{&pool, &workspace};
  for (auto _ : state) {
    ApplyActivation(activation, input.data(), output.data(), input.size(), context);
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["GB/s"] = benchmark::Counter(8.0 * input.size() * state.iterations() / 1e9,
                                              benchmark::Counter::kIsRate);
  state.counters["ns/float"] =
      benchmark::Counter(static_cast<double>(input.size()) * state.iterations() / 1e9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Activation)
    ->ArgNames({"kind", "threads"})
    ->Args({static_cast<int>(Activation::Kind::kRelu), 1})
    ->Args({static_cast<int>(Activation::Kind::kSilu), 1})
    ->Args({static_cast<int>(Activation::Kind::kSigmoid), 1})
    ->Args({static_cast<int>(Activation::Kind::kTanh), 1})
    ->Args({static_cast<int>(Activation::Kind::kGelu), 1})
    ->Args({static_cast<int>(Activation::Kind::kGeluTanh), 1})
    ->Args({static_cast<int>(Activation::Kind::kSilu), 2})
    ->UseRealTime();

}  // namespace
}  // namespace lumen
