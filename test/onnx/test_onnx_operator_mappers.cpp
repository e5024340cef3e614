// The ONNX op mappers of issue 26 on one-node models (test/data/onnx/mappers/): which Lumen nodes
// they make where the mapping has a rule of its own (old-opset Hardmax, SAME pads at a stride,
// ConvTranspose's output_shape), and the variants they refuse, with messages naming the node. Their
// numbers are checked against PyTorch and numpy by the tmp/onnx/op_* golden cases. The mappings
// of issue 26's second part (losses, Gather of rank-2 indices, weights given as graph inputs, old
// opsets) are read from ONNX's own node tests in tmp/onnx_node.
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

// The graph Lumen reads from ONNX's backend node test tmp/onnx_node/<name> (whose numbers the
// ctest onnx_node_cases checks against ONNX's reference outputs).
Graph ReadNodeTest(const std::string& name) {
  return ReadOnnxGraph(test_support::SourceDirectory() + "/tmp/onnx_node/" + name + "/model.onnx");
}

TEST(OnnxOperatorMappers, LossesMapOntoTheirPyTorchFunctions) {
  const Graph cross_entropy = ReadNodeTest("test_sce_mean_weight_log_prob");
  ASSERT_FALSE(cross_entropy.nodes.empty());
  const Node& loss = cross_entropy.nodes.back();
  EXPECT_EQ(loss.type, "F.cross_entropy");
  EXPECT_EQ(loss.input_names.size(), 3u);   // scores, targets, weight
  EXPECT_EQ(loss.output_names.size(), 2u);  // loss, log_prob
  EXPECT_EQ(NodeTypes(ReadNodeTest("test_nllloss_NCd1_ii")).back(), "F.nll_loss");
}

TEST(OnnxOperatorMappers, IndicesOfRankTwoAreSelectedFlatAndSplitOut) {
  EXPECT_THAT(
      NodeTypes(ReadNodeTest("test_gather_2d_indices")),
      ElementsAre("pnnx.Attribute", "torch.flatten", "torch.index_select", "torch.unflatten"));
}

TEST(OnnxOperatorMappers, WeightsGivenAsGraphInputsAreOperands) {
  EXPECT_THAT(NodeTypes(ReadNodeTest("test_basic_conv_with_padding")), ElementsAre("F.conv2d"));
  EXPECT_THAT(NodeTypes(ReadNodeTest("test_convtranspose_3d")), ElementsAre("F.conv_transpose3d"));
  EXPECT_THAT(NodeTypes(ReadNodeTest("test_gemm_transposeA")),
              ElementsAre("torch.t", "torch.matmul", "pnnx.Expression"));
  EXPECT_THAT(NodeTypes(ReadNodeTest("test_batchnorm_example")), ElementsAre("F.batch_norm"));
}

TEST(OnnxOperatorMappers, OldOpsetsAreReadOpByOp) {
  // Opset 6's Elu (version 6) is read; Relu at opset 5 (version 1) is refused by test_onnx_reader.
  EXPECT_THAT(NodeTypes(ReadNodeTest("test_elu")), ElementsAre("nn.ELU"));
}

}  // namespace
}  // namespace lumen
