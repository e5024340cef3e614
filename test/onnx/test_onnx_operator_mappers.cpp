// The ONNX op mappers of issue 26 on one-node models (test/data/onnx/mappers/): which Lumen nodes
// they make where the mapping has a rule of its own (old-opset Hardmax, SAME pads at a stride,
// ConvTranspose's output_shape), and the variants they refuse, with messages naming the node. Their
// numbers are checked against PyTorch and numpy by the tmp/onnx/op_* golden cases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "lumen/error.hpp"
#include "onnx/onnx_reader.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// test/data/onnx/mappers/, written by scripts/make_onnx_operator_cases.py.
const std::string kMappers = test_support::SourceDirectory() + "/test/data/onnx/mappers/";

// The graph Lumen reads from mappers/<name>.onnx.
Graph Read(const std::string& name) { return ReadOnnxGraph(kMappers + name + ".onnx"); }

// The lumen::Error message reading mappers/<name>.onnx throws, or "" if it reads.
std::string ReadError(const std::string& name) {
  try {
    Read(name);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// The types of a graph's nodes, in order.
std::vector<std::string> NodeTypes(const Graph& graph) {
  std::vector<std::string> types;
  for (const Node& node : graph.nodes) types.push_back(node.type);
  return types;
}

TEST(OnnxOperatorMappers, OldOpsetHardmaxRunsOnTheInputFlattenedAtAxis) {
  EXPECT_THAT(NodeTypes(Read("hardmax_opset11_axis1")),
              ElementsAre("torch.flatten", "lumen.Hardmax", "lumen.Shape", "lumen.Reshape"));
  EXPECT_THAT(NodeTypes(Read("logsoftmax_axis1")), ElementsAre("nn.LogSoftmax"));
}

TEST(OnnxOperatorMappers, SamePadsAtAStrideArePlannedByCenterPad) {
  EXPECT_THAT(NodeTypes(Read("conv_same_upper_stride2")),
              ElementsAre("lumen.CenterPad", "nn.Conv2d"));
  // With stride 1 the pads are known when loading: an odd total is an F.pad.
  EXPECT_THAT(NodeTypes(Read("maxpool_same_lower")), ElementsAre("F.pad", "nn.MaxPool2d"));
  EXPECT_THAT(NodeTypes(Read("conv_transpose_output_shape")),
              ElementsAre("nn.ConvTranspose2d", "lumen.CenterPad"));
}

TEST(OnnxOperatorMappers, RefusedVariantsNameTheNode) {
  EXPECT_THAT(ReadError("lrn_even_size"),
              HasSubstr("node 'node' (LRN, opset 13): size 4 is not supported (only odd sizes"));
  EXPECT_THAT(ReadError("scatter_elements_mean"),
              HasSubstr("reduction 'mean' is not one of none, add, mul, max, min"));
  EXPECT_THAT(ReadError("cast_string"), HasSubstr("a Cast to STRING is not supported"));
  EXPECT_THAT(ReadError("topk_runtime_k"),
              HasSubstr("the k (input 1, 'x') must be known when loading"));
  EXPECT_THAT(ReadError("cumsum_two_axes"), HasSubstr("the axis must be one value, got 2"));
  EXPECT_THAT(ReadError("conv_unknown_auto_pad"), HasSubstr("unknown auto_pad 'SAME_MIDDLE'"));
  EXPECT_THAT(ReadError("conv_negative_pads"), HasSubstr("must not be negative"));
}

}  // namespace
}  // namespace lumen
