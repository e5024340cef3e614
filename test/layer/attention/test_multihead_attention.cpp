// nn.MultiheadAttention against PyTorch: self and cross attention, batch-first, sequence-first and
// unbatched inputs, float masks per head and for padding (a fully masked row gives NaN, as in
// PyTorch), bool masks (declared bool in the file, fed as 0/1), attention weights averaged or per
// head, add_bias_kv and add_zero_attn, sequences long
// enough to be split into several blocks; shape inference for other sizes and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "layer/layer_config.hpp"
#include "support/case_runner.hpp"
#include "support/sequence_layer_cases.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::Weight;
using ::testing::HasSubstr;

LUMEN_CORPUS_CASE_TEST(MultiheadAttention, mha_self_batchfirst)
LUMEN_CORPUS_CASE_TEST(MultiheadAttention, mha_self_seqfirst)
LUMEN_CORPUS_CASE_TEST(MultiheadAttention, mha_cross_kdim_vdim)
LUMEN_CORPUS_CASE_TEST(MultiheadAttention, mha_causal_mask)
LUMEN_CORPUS_CASE_TEST(MultiheadAttention, mha_need_weights_b2)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_mask_per_head_fully_masked_row)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_seqfirst_b3_causal_weights)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_seqfirst_cross_key_value)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_seqfirst_kdim_vdim_b2)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_key_padding)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_float_mask_values)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_bool_causal_mask)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_bool_masks_seqfirst)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_float_mask_bool_padding)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_unbatched_weights)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_unbatched_cross)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_no_bias)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_bias_kv_zero_attn)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_long_sequence)
LUMEN_SEQUENCE_CASE_TEST(MultiheadAttention, mha_long_batch2_heads4)

// An attention op of embed_dim 8 and 2 heads reading `inputs` operands (the last one the mask
// when `mask` is set) and writing `outputs`.
Node Attention(int inputs, int outputs, bool batch_first, bool mask = false,
               std::vector<std::string> extra = {}) {
  std::vector<std::string> params = {
      "embed_dim=8", "num_heads=2", "kdim=8",
      "vdim=8",      "bias=True",   batch_first ? "batch_first=True" : "batch_first=False"};
  params.insert(params.end(), extra.begin(), extra.end());
  std::map<std::string, Weight> weights = {{"in_proj_weight", Weight{{24, 8}, {}}},
                                           {"in_proj_bias", Weight{{24}, {}}},
                                           {"out_proj.weight", Weight{{8, 8}, {}}},
                                           {"out_proj.bias", Weight{{8}, {}}}};
  if (std::find(extra.begin(), extra.end(), "add_bias_kv=True") != extra.end()) {
    weights["bias_k"] = Weight{{1, 1, 8}, {}};
    weights["bias_v"] = Weight{{1, 1, 8}, {}};
  }
  Node op = MakeOperator("nn.MultiheadAttention", params, weights, inputs, outputs);
  if (mask) op.input_keys["attn_mask"] = op.input_names.back();
  return op;
}

TEST(MultiheadAttention, InfersShapesForOtherLengthsAndBatches) {
  EXPECT_EQ(InferShapes(Attention(1, 1, true), {{4, 33, 8}}), (std::vector<Shape>{{4, 33, 8}}));
  EXPECT_EQ(InferShapes(Attention(1, 2, false), {{33, 4, 8}}),
            (std::vector<Shape>{{33, 4, 8}, {4, 33, 33}}));
  EXPECT_EQ(InferShapes(Attention(2, 2, true), {{3, 5, 8}, {3, 9, 8}}),
            (std::vector<Shape>{{3, 5, 8}, {3, 5, 9}}));
  EXPECT_EQ(InferShapes(Attention(2, 2, true, false, {"average_attn_weights=False"}),
                        {{3, 5, 8}, {3, 9, 8}}),
            (std::vector<Shape>{{3, 5, 8}, {3, 2, 5, 9}}));
  EXPECT_EQ(InferShapes(Attention(1, 2, true), {{5, 8}}), (std::vector<Shape>{{5, 8}, {5, 5}}));
  EXPECT_EQ(InferShapes(Attention(2, 1, true, true), {{2, 6, 8}, {4, 6, 6}}),
            (std::vector<Shape>{{2, 6, 8}}));
  EXPECT_EQ(InferShapes(Attention(1, 2, true, false, {"add_bias_kv=True", "add_zero_attn=True"}),
                        {{2, 6, 8}}),
            (std::vector<Shape>{{2, 6, 8}, {2, 6, 8}}));
}

TEST(MultiheadAttention, NamesTheShapesItCannotUse) {
  EXPECT_THAT(LayerError(Attention(1, 1, true), {{1, 7, 6}}),
              HasSubstr("expected a query of shape (N,L,E) with 8 features, got (1,7,6)"));
  EXPECT_THAT(LayerError(Attention(2, 1, false), {{7, 2, 8}, {5, 3, 8}}),
              HasSubstr("do not agree on the batch and key counts (layout (L,N,E))"));
  EXPECT_THAT(LayerError(Attention(2, 1, true, true), {{1, 7, 8}, {7, 6}}),
              HasSubstr("expected attn_mask of shape (7,7) or (2,7,7), got (7,6)"));
  EXPECT_THAT(LayerError(MakeOperator("nn.MultiheadAttention", {"embed_dim=8", "num_heads=3"}),
                         {{1, 7, 8}}),
              HasSubstr("embed_dim 8 must be a positive multiple of num_heads 3"));
  EXPECT_THAT(LayerError(Attention(1, 3, true), {{1, 7, 8}}), HasSubstr("expected 1 or 2 outputs"));
}

TEST(LayerConfig, InputTypeIsTheFilesDeclaration) {
  const Node op = Attention(2, 1, true, true);
  const std::vector<Operand> operands = {{"in0", {1, 7, 8}, DataType::kFloat32},
                                         {"in1", {7, 7}, DataType::kBool}};
  EXPECT_EQ(LayerConfig(op, &operands).InputType(0), DataType::kFloat32);
  EXPECT_EQ(LayerConfig(op, &operands).InputType(1), DataType::kBool);
  EXPECT_EQ(LayerConfig(op, &operands).InputType(2), DataType::kUnknown);  // no such input
  EXPECT_EQ(LayerConfig(op).InputType(1), DataType::kUnknown);             // no operands given
}

TEST(MultiheadAttention, NoKeysGiveTheOutputBias) {
  // torch: with a (1, 0, E) key, softmax over no keys attends to nothing, so every output row is
  // out_proj.bias, and the weights are (1, 3, 0).
  Node op = MakeOperator("nn.MultiheadAttention",
                         {"embed_dim=4", "num_heads=2", "batch_first=True", "bias=True"},
                         {{"in_proj_weight", Weight{{12, 4}, std::vector<float>(48, 0.5f)}},
                          {"in_proj_bias", Weight{{12}, {}}},
                          {"out_proj.weight", Weight{{4, 4}, std::vector<float>(16, 0.5f)}},
                          {"out_proj.bias", Weight{{4}, {1.0f, 2.0f, 3.0f, 4.0f}}}},
                         2, 2);
  Tensor query(Shape{1, 3, 4});
  query.Fill(1.0f);
  const std::vector<Tensor> outputs = test_support::RunLayer(op, {query, Tensor(Shape{1, 0, 4})});
  EXPECT_EQ(outputs[0].ToRowMajor(), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_EQ(outputs[1].shape(), (Shape{1, 3, 0}));
}

}  // namespace
}  // namespace lumen
