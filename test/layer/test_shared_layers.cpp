// One layer object serves every session of a model, from many threads at once: for each layer
// ported to the const-layer API with per-session state or scratch (pooling, batch norm, linear,
// softmax, reduction, upsample, channel shuffle, Detect), sessions on six threads, each with its
// own threads and scratch, prepare and run one shared layer for inputs of different shapes, and
// must get what a layer of their own gives.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using test_support::TestContext;
using test_support::Weight;

// Runs `layer` on `inputs` as a session would: its own pool and workspace, Prepare, Forward.
std::vector<float> RunAsASession(const Layer& layer, const std::vector<Tensor>& inputs,
                                 int threads) {
  std::vector<Shape> shapes;
  std::vector<const Tensor*> pointers;
  for (const Tensor& input : inputs) {
    shapes.push_back(input.shape());
    pointers.push_back(&input);
  }
  const std::vector<Shape> output_shapes = layer.OutputShapes(shapes);
  TestContext context(threads);
  std::unique_ptr<LayerState> state = layer.Prepare(shapes, output_shapes, context.prepare());
  Tensor output(output_shapes[0]);
  layer.Forward(pointers, {&output}, ForwardContext{context.compute(), state.get()});
  return output.ToRowMajor();
}

// Random inputs of each shape set, for one run each.
std::vector<std::vector<Tensor>> RandomInputs(const std::vector<std::vector<Shape>>& shape_sets,
                                              std::mt19937* generator) {
  std::vector<std::vector<Tensor>> runs;
  for (const std::vector<Shape>& shapes : shape_sets) {
    std::vector<Tensor> inputs;
    for (const Shape& shape : shapes) {
      inputs.push_back(
          Tensor::FromRowMajor(RandomValues(ShapeElementCount(shape), generator), shape));
    }
    runs.push_back(inputs);
  }
  return runs;
}

// Six sessions share one layer built from `op`; each runs every input set (in its own order, on
// one or two threads) and must match a fresh layer run alone.
void ExpectSessionsShareTheLayer(const Node& op,
                                 const std::vector<std::vector<Shape>>& shape_sets) {
  std::mt19937 generator(91);
  const std::vector<std::vector<Tensor>> runs = RandomInputs(shape_sets, &generator);
  std::vector<std::vector<float>> expected;
  for (const std::vector<Tensor>& inputs : runs) {
    expected.push_back(RunLayer(op, inputs, 1)[0].ToRowMajor());
  }
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  constexpr int kSessions = 6;
  std::vector<std::vector<std::vector<float>>> outputs(kSessions);
  std::vector<std::thread> sessions;
  for (int session = 0; session < kSessions; ++session) {
    sessions.emplace_back([&, session] {
      for (size_t step = 0; step < runs.size(); ++step) {
        outputs[session].push_back(
            RunAsASession(*layer, runs[(step + session) % runs.size()], 1 + session % 2));
      }
    });
  }
  for (std::thread& session : sessions) session.join();
  for (int session = 0; session < kSessions; ++session) {
    for (size_t step = 0; step < runs.size(); ++step) {
      ExpectClose(
          outputs[session][step], expected[(step + session) % runs.size()], 1e-6f, 1e-6f,
          op.type + " session " + std::to_string(session) + " step " + std::to_string(step));
    }
  }
}

TEST(SharedLayers, MaxPooling) {
  ExpectSessionsShareTheLayer(
      MakeOperator("nn.MaxPool2d", {"kernel_size=(3,3)", "stride=(2,2)", "padding=(1,1)"}),
      {{{2, 8, 33, 31}}, {{1, 8, 9, 40}}, {{3, 4, 5}}, {{1, 16, 64, 64}}});
  ExpectSessionsShareTheLayer(
      MakeOperator("nn.MaxPool2d", {"kernel_size=(3,3)", "stride=(1,1)", "dilation=(2,2)"}),
      {{{2, 8, 33, 31}}, {{1, 8, 9, 40}}});
}

TEST(SharedLayers, AveragePooling) {
  ExpectSessionsShareTheLayer(
      MakeOperator("nn.AvgPool2d", {"kernel_size=(2,2)", "stride=(2,2)", "ceil_mode=True"}),
      {{{2, 8, 33, 31}}, {{1, 8, 9, 40}}, {{3, 4, 5}}});
  ExpectSessionsShareTheLayer(MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(3,4)"}),
                              {{{2, 8, 33, 31}}, {{1, 8, 9, 40}}, {{3, 2, 2}}});
}

TEST(SharedLayers, BatchNormAndChannelShuffle) {
  ExpectSessionsShareTheLayer(MakeOperator("nn.BatchNorm2d", {"num_features=4", "affine=False"},
                                           {{"running_mean", {{4}, {0.1f, 0.2f, -0.3f, 0.0f}}},
                                            {"running_var", {{4}, {1.0f, 0.5f, 2.0f, 1.5f}}}}),
                              {{{2, 4, 64, 65}}, {{1, 4, 3, 3}}, {{5, 4, 7, 2}}});
  ExpectSessionsShareTheLayer(MakeOperator("nn.ChannelShuffle", {"groups=2"}),
                              {{{2, 4, 64, 65}}, {{1, 6, 3}}, {{5, 8, 7, 2, 3}}});
}

TEST(SharedLayers, Linear) {
  std::mt19937 generator(92);
  const Node op = MakeOperator("nn.Linear", {"in_features=48", "out_features=70", "bias=True"},
                               {{"weight", {{70, 48}, RandomValues(70 * 48, &generator)}},
                                {"bias", {{70}, RandomValues(70, &generator)}}});
  ExpectSessionsShareTheLayer(op, {{{1, 48}}, {{300, 48}}, {{4, 37, 48}}, {{48}}, {{2, 1, 48}}});
}

TEST(SharedLayers, SoftmaxAndReduction) {
  ExpectSessionsShareTheLayer(MakeOperator("nn.Softmax", {"dim=1"}),
                              {{{2, 8, 33, 31}}, {{1, 80}}, {{3, 300, 5}}});
  ExpectSessionsShareTheLayer(MakeOperator("torch.mean", {"dim=(0,2)", "keepdim=False"}),
                              {{{2, 8, 33, 31}}, {{7, 1, 80}}, {{3, 300, 5, 2}}});
}

TEST(SharedLayers, Upsample) {
  ExpectSessionsShareTheLayer(
      MakeOperator("nn.Upsample",
                   {"mode=bilinear", "scale_factor=(2.0,2.0)", "align_corners=False"}),
      {{{2, 8, 33, 31}}, {{1, 3, 9, 40}}, {{1, 1, 1, 1}}});
}

TEST(SharedLayers, YoloDetect) {
  std::mt19937 generator(93);
  const auto grid = [](int size, float value) {
    return Weight{{1, 3, size, size, 2}, std::vector<float>(3 * size * size * 2, value)};
  };
  const Node op = MakeOperator("models.yolo.Detect", {},
                               {{"m.0.weight", {{21, 4, 1, 1}, RandomValues(84, &generator)}},
                                {"m.0.bias", {{21}, RandomValues(21, &generator)}},
                                {"m.1.weight", {{21, 8, 1, 1}, RandomValues(168, &generator)}},
                                {"m.1.bias", {{21}, RandomValues(21, &generator)}},
                                {"pnnx_00", grid(8, -0.5f)},
                                {"pnnx_01", {{2}, {8.0f, 16.0f}}},
                                {"pnnx_02", grid(8, 12.0f)},
                                {"pnnx_03", grid(4, -0.5f)},
                                {"pnnx_04", grid(4, 40.0f)}},
                               2);
  ExpectSessionsShareTheLayer(op, {{{1, 4, 8, 8}, {1, 8, 4, 4}},
                                   {{2, 4, 40, 24}, {2, 8, 20, 12}},
                                   {{1, 4, 2, 6}, {1, 8, 1, 3}}});
}

}  // namespace
}  // namespace lumen
