// torch.roll, torch.flip, torch.narrow, torch.unbind, torch.tile, torch.repeat_interleave,
// torch.diag and torch.cross by hand, with PyTorch's results for each argument form (negative
// dims and shifts, shifts larger than the extent, a dimension rolled twice, dims=None), and their
// errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::Arange;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RowMajorOutput;
using test_support::RunLayer;
using ::testing::HasSubstr;

// x = arange(6).reshape(2, 3): torch.roll(x, 1, 1) = [[2,0,1],[5,3,4]];
// torch.roll(x, (-1, 4), (0, 1)) = [[5,3,4],[2,0,1]]; torch.roll(x, 2) (dims None) =
// [[4,5,0],[1,2,3]]; rolling dim -1 by 1 twice is a roll by 2.
TEST(Roll, RollsAsPyTorch) {
  const Tensor x = Arange({2, 3});
  EXPECT_EQ(RowMajorOutput("torch.roll", {"shifts=(1)", "dims=(1)"}, {x}),
            std::vector<float>({2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(RowMajorOutput("torch.roll", {"shifts=(-1,4)", "dims=(0,1)"}, {x}),
            std::vector<float>({5, 3, 4, 2, 0, 1}));
  EXPECT_EQ(RowMajorOutput("torch.roll", {"shifts=(2)", "dims=None"}, {x}),
            std::vector<float>({4, 5, 0, 1, 2, 3}));
  EXPECT_EQ(RowMajorOutput("torch.roll", {"shifts=(1,1)", "dims=(-1,1)"}, {x}),
            std::vector<float>({1, 2, 0, 4, 5, 3}));
  // Rolling a 4-D tensor's last two dimensions (Lumen swaps them in memory).
  const Tensor y = Arange({1, 2, 2, 3});
  EXPECT_EQ(RowMajorOutput("torch.roll", {"shifts=(1,-1)", "dims=(2,3)"}, {y}),
            std::vector<float>({4, 5, 3, 1, 2, 0, 10, 11, 9, 7, 8, 6}));
}

TEST(Roll, RejectsMismatchedShiftsAndDims) {
  EXPECT_THAT(LayerError(MakeOperator("torch.roll", {"shifts=(1,2)", "dims=(0)"}), {{2, 3}}),
              HasSubstr("shifts and dims must have the same length"));
  EXPECT_THAT(LayerError(MakeOperator("torch.roll", {"shifts=(1,2)", "dims=None"}), {{2, 3}}),
              HasSubstr("without dims, shifts must be one number"));
  EXPECT_THAT(LayerError(MakeOperator("torch.roll", {"shifts=(1)", "dims=(2)"}), {{2, 3}}),
              HasSubstr("dim 2 is out of range"));
}

// torch.flip(x, (0, -1)) of arange(6).reshape(2, 3) = [[5,4,3],[2,1,0]].
TEST(Flip, FlipsAsPyTorch) {
  EXPECT_EQ(RowMajorOutput("torch.flip", {"dims=(0,-1)"}, {Arange({2, 3})}),
            std::vector<float>({5, 4, 3, 2, 1, 0}));
  EXPECT_THAT(LayerError(MakeOperator("torch.flip", {"dims=(1,-1)"}), {{2, 3}}),
              HasSubstr("dim -1 is listed twice"));
}

// torch.narrow(x, 1, -2, 2) of arange(6).reshape(2, 3) = [[1,2],[4,5]]; a range past the end is an
// error, not a clamp.
TEST(Narrow, NarrowsAsPyTorch) {
  EXPECT_EQ(RowMajorOutput("torch.narrow", {"dim=1", "start=-2", "length=2"}, {Arange({2, 3})}),
            std::vector<float>({1, 2, 4, 5}));
  EXPECT_THAT(LayerError(MakeOperator("torch.narrow", {"dim=1", "start=2", "length=2"}), {{2, 3}}),
              HasSubstr("start (2) + length (2) exceeds the extent 3"));
}

// torch.unbind(x, -1) of arange(6).reshape(2, 3): three vectors [0,3], [1,4], [2,5].
TEST(Unbind, UnbindsAsPyTorch) {
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("torch.unbind", {"dim=-1"}, {}, 1, 3), {Arange({2, 3})});
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[2].ToRowMajor(), std::vector<float>({2, 5}));
  EXPECT_THAT(LayerError(MakeOperator("torch.unbind", {"dim=0"}, {}, 1, 3), {{2, 3}}),
              HasSubstr("has 2 slice(s) along dim 0 but the operator has 3 output(s)"));
}

// torch.tile pads short dims with leading 1s (Tensor.repeat refuses them), and a longer dims
// adds leading dimensions.
TEST(Tile, TilesAsPyTorch) {
  EXPECT_EQ(InferShapes(MakeOperator("torch.tile", {"dims=(2)"}), {{2, 3}}),
            std::vector<Shape>({{2, 6}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.tile", {"dims=(2,1,1)"}), {{2, 3}}),
            std::vector<Shape>({{2, 2, 3}}));
  EXPECT_EQ(RowMajorOutput("torch.tile", {"dims=(2)"}, {Arange({1, 2})}),
            std::vector<float>({0, 1, 0, 1}));
}

// torch.repeat_interleave(arange(4).reshape(2, 2), 2) = [0,0,1,1,2,2,3,3]; with dim=1:
// [[0,0,1,1],[2,2,3,3]]. Repeats as a tensor are refused by name.
TEST(RepeatInterleave, RepeatsAsPyTorch) {
  EXPECT_EQ(RowMajorOutput("torch.repeat_interleave", {"repeats=2", "dim=None"}, {Arange({2, 2})}),
            std::vector<float>({0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(RowMajorOutput("torch.repeat_interleave", {"repeats=2", "dim=-1"}, {Arange({2, 2})}),
            std::vector<float>({0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(RowMajorOutput("torch.repeat_interleave", {"repeats=2", "dim=0"}, {Arange({2, 2})}),
            std::vector<float>({0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_THAT(LayerError(MakeOperator("torch.repeat_interleave", {"dim=0"}, {}, 2), {{3}, {3}}),
              HasSubstr("repeats given as a tensor are not supported"));
}

// torch.diag([1, 2], 1) = [[0,1,0],[0,0,2],[0,0,0]]; torch.diag(arange(6).reshape(2, 3), -1) =
// [3]; torch.diag(arange(6).reshape(2, 3), 3) is empty.
TEST(Diag, BuildsAndReadsDiagonals) {
  EXPECT_EQ(RowMajorOutput("torch.diag", {"diagonal=1"}, {Tensor::FromRowMajor({1, 2}, {2})}),
            std::vector<float>({0, 1, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(RowMajorOutput("torch.diag", {"diagonal=-1"}, {Arange({2, 3})}),
            std::vector<float>({3}));
  EXPECT_EQ(RowMajorOutput("torch.diag", {"diagonal=1"}, {Arange({2, 3})}),
            std::vector<float>({1, 5}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.diag", {"diagonal=3"}), {{2, 3}}),
            std::vector<Shape>({{0}}));
  EXPECT_THAT(LayerError(MakeOperator("torch.diag", {"diagonal=0"}), {{2, 3, 4}}),
              HasSubstr("expects a vector or a matrix"));
}

// torch.cross([[1,0,0]], [[0,1,0]]) = [[0,0,1]], broadcast over rows; without dim the first
// dimension of extent 3 is used.
TEST(Cross, CrossesAsPyTorch) {
  const Tensor a = Tensor::FromRowMajor({1, 0, 0, 0, 1, 0}, {2, 3});
  const Tensor b = Tensor::FromRowMajor({0, 1, 0}, {1, 3});
  EXPECT_EQ(RowMajorOutput("torch.cross", {"dim=1"}, {a, b}),
            std::vector<float>({0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(RowMajorOutput("torch.cross", {"dim=None"}, {a, b}),
            std::vector<float>({0, 0, 1, 0, 0, 0}));
  EXPECT_THAT(LayerError(MakeOperator("torch.cross", {"dim=0"}, {}, 2), {{2, 3}, {2, 3}}),
              HasSubstr("must have extent 3"));
}

}  // namespace
}  // namespace lumen
