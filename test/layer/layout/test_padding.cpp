// F.pad and the padding modules against PyTorch: every mode, pads of 1, 2 and 3 dimensions, crops
// (negative pads), batches and unbatched inputs, any rank for constant padding; the registered
// spellings, the shared index arithmetic, and the errors PyTorch gives too.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layer/layer_registry.hpp"
#include "math/padding.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Padding, pad_constant_rank5_three_dims)
LUMEN_LAYER_CASE_TEST(Padding, pad_constant_crop)
LUMEN_LAYER_CASE_TEST(Padding, pad_constant_batch_dim)
LUMEN_LAYER_CASE_TEST(Padding, pad_constant_last_only_rank1)
LUMEN_LAYER_CASE_TEST(Padding, pad_reflect_1d)
LUMEN_LAYER_CASE_TEST(Padding, pad_reflect_1d_unbatched)
LUMEN_LAYER_CASE_TEST(Padding, pad_reflect_2d_crop)
LUMEN_LAYER_CASE_TEST(Padding, pad_replicate_3d)
LUMEN_LAYER_CASE_TEST(Padding, pad_replicate_large)
LUMEN_LAYER_CASE_TEST(Padding, pad_circular_2d)
LUMEN_LAYER_CASE_TEST(Padding, pad_circular_crop)
LUMEN_LAYER_CASE_TEST(Padding, pad_circular_1d)
LUMEN_LAYER_CASE_TEST(Padding, constantpad1d)
LUMEN_LAYER_CASE_TEST(Padding, constantpad3d)
LUMEN_LAYER_CASE_TEST(Padding, zeropad2d_asymmetric_batch2)
LUMEN_LAYER_CASE_TEST(Padding, reflectionpad1d)
LUMEN_LAYER_CASE_TEST(Padding, reflectionpad2d_unbatched)
LUMEN_LAYER_CASE_TEST(Padding, replicationpad1d)
LUMEN_LAYER_CASE_TEST(Padding, replicationpad3d_batch2)

TEST(Padding, RegistersEverySpelling) {
  for (const char* type : {"F.pad", "nn.ConstantPad1d", "nn.ConstantPad2d", "nn.ConstantPad3d",
                           "nn.ZeroPad2d", "nn.ReflectionPad1d", "nn.ReflectionPad2d",
                           "nn.ReplicationPad1d", "nn.ReplicationPad2d", "nn.ReplicationPad3d"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

// The index arithmetic on x = [0, 1, 2, 3], against F.pad in PyTorch 1.13:
//   reflect (2,-1): [2,1,0,1,2]    replicate (-1,2): [1,2,3,3,3]
//   circular (-1,2): [1,2,3,1,2]   circular (2,-1): [1,2,0,1,2]   constant (1,1): [c,0,1,2,3,c]
TEST(Padding, SourceIndicesMatchPyTorch) {
  const auto indices = [](PaddingMode mode, int64_t before, int64_t after) {
    const AxisPadding padding{4, before, after};
    std::vector<int64_t> result;
    for (int64_t i = 0; i < padding.PaddedExtent(); ++i) {
      result.push_back(PaddingSourceIndex(mode, padding, i));
    }
    return result;
  };
  EXPECT_EQ(indices(PaddingMode::kReflect, 2, -1), std::vector<int64_t>({2, 1, 0, 1, 2}));
  EXPECT_EQ(indices(PaddingMode::kReflect, -1, 2), std::vector<int64_t>({1, 2, 3, 2, 1}));
  EXPECT_EQ(indices(PaddingMode::kReplicate, -1, 2), std::vector<int64_t>({1, 2, 3, 3, 3}));
  EXPECT_EQ(indices(PaddingMode::kCircular, -1, 2), std::vector<int64_t>({1, 2, 3, 1, 2}));
  EXPECT_EQ(indices(PaddingMode::kCircular, 2, -1), std::vector<int64_t>({1, 2, 0, 1, 2}));
  EXPECT_EQ(indices(PaddingMode::kCircular, 4, 0), std::vector<int64_t>({0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(indices(PaddingMode::kConstant, 1, 1), std::vector<int64_t>({-1, 0, 1, 2, 3, -1}));
}

// F.pad((1, 1), value=7) of [[1,2],[3,4]] is [[7,1,2,7],[7,3,4,7]]; a single-int module padding
// covers every one of the module's dimensions.
TEST(Padding, PadsSmallTensorsByHand) {
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("F.pad", {"pad=(1,1)", "mode=constant", "value=7.0"}),
               {Tensor::FromRowMajor({1, 2, 3, 4}, {2, 2})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 4}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({7, 1, 2, 7, 7, 3, 4, 7}));
  EXPECT_EQ(
      InferShapes(MakeOperator("nn.ConstantPad3d", {"padding=1", "value=0.0"}), {{2, 3, 4, 5, 6}}),
      std::vector<Shape>({{2, 3, 6, 7, 8}}));
  EXPECT_EQ(InferShapes(MakeOperator("nn.ZeroPad2d", {"padding=2"}), {{1, 3, 4, 5}}),
            std::vector<Shape>({{1, 3, 8, 9}}));
  // value=None (F.pad's default) pads with 0.
  const std::vector<Tensor> zero =
      RunLayer(MakeOperator("F.pad", {"pad=(0,1)", "mode=constant", "value=None"}),
               {Tensor::FromRowMajor({5, 6}, {1, 2})});
  EXPECT_EQ(zero[0].ToRowMajor(), std::vector<float>({5, 6, 0}));
}

// Large tensors go through the threaded path with the same result as one thread.
TEST(Padding, ThreadsGiveTheSameResult) {
  std::vector<float> values(2 * 3 * 70 * 90);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97) - 40.0f;
  const Tensor input = Tensor::FromRowMajor(values, {2, 3, 70, 90});
  for (const char* mode : {"constant", "reflect", "replicate", "circular"}) {
    const Node op = MakeOperator("F.pad", {"pad=(3,-2,5,4)", std::string("mode=") + mode});
    EXPECT_EQ(RunLayer(op, {input}, 1)[0].ToRowMajor(), RunLayer(op, {input}, 2)[0].ToRowMajor())
        << mode;
  }
}

TEST(Padding, RejectsWhatPyTorchRejects) {
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(4,0)", "mode=reflect"}), {{1, 3, 4}}),
              HasSubstr("a reflect pad must be smaller than the input's extent"));
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(5,0)", "mode=circular"}), {{1, 3, 4}}),
              HasSubstr("at most once"));
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(-3,-2)", "mode=constant"}), {{1, 3, 4}}),
              HasSubstr("the crops remove more elements than the axis holds"));
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(-2,-2)", "mode=replicate"}), {{1, 3, 4}}),
              HasSubstr("the padded extent would be 0"));
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(1,1,1,1)", "mode=reflect"}), {{5, 6}}),
              HasSubstr("needs an input of rank 3 or 4"));
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(1,1,1,1)", "mode=constant"}), {{5}}),
              HasSubstr("pad 2 dimensions, but the input (5) has 1"));
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(1,1,1)", "mode=constant"}), {{5}}),
              HasSubstr("pairs"));
  EXPECT_THAT(LayerError(MakeOperator("F.pad", {"pad=(1,1)", "mode=wrap"}), {{5}}),
              HasSubstr("unknown padding mode 'wrap'"));
}

}  // namespace
}  // namespace lumen
