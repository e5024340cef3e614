// torch.squeeze against PyTorch, and PyTorch's rules the corpus lacks (the batch, lists, dims
// whose extent is not 1).
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Squeeze, squeeze_all)
LUMEN_LAYER_CASE_TEST(Squeeze, squeeze_dim)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Squeeze, rank0_squeeze)

TEST(Squeeze, SqueezesEveryExtentOneDimensionTheBatchIncluded) {
  const Node op = MakeOperator("torch.squeeze", {});
  EXPECT_EQ(InferShapes(op, {{1, 3, 1, 4}}), std::vector<Shape>({{3, 4}}));
  EXPECT_EQ(InferShapes(op, {{2, 3, 1, 4}}), std::vector<Shape>({{2, 3, 4}}));
  EXPECT_EQ(InferShapes(op, {{1, 1}}), std::vector<Shape>({{}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.squeeze", {"dim=None"}), {{1, 3, 1}}),
            std::vector<Shape>({{3}}));
}

TEST(Squeeze, LeavesANamedDimensionAloneUnlessItsExtentIsOne) {
  const Node op = MakeOperator("Tensor.squeeze", {"dim=0"});
  EXPECT_EQ(InferShapes(op, {{1, 3, 5}}), std::vector<Shape>({{3, 5}}));
  EXPECT_EQ(InferShapes(op, {{4, 3, 5}}), std::vector<Shape>({{4, 3, 5}}));
  const Node list = MakeOperator("torch.squeeze", {"dim=(1,-1)"});
  EXPECT_EQ(InferShapes(list, {{1, 1, 3, 1}}), std::vector<Shape>({{1, 3}}));
}

TEST(Squeeze, RejectsBadDims) {
  EXPECT_THAT(LayerError(MakeOperator("torch.squeeze", {"dim=3"}), {{1, 3, 1}}),
              HasSubstr("dim 3 is out of range for a tensor of rank 3"));
  EXPECT_THAT(LayerError(MakeOperator("torch.squeeze", {"dim=(1,-2)"}), {{1, 1, 1}}),
              HasSubstr("dim -2 is listed twice"));
}

}  // namespace
}  // namespace lumen
