// torch.split / torch.chunk / torch.tensor_split (several outputs) against PyTorch, and the piece
// sizes PyTorch makes at other input sizes.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Split, chunk_uneven)
LUMEN_LAYER_CASE_TEST(Split, split_sections_last)
LUMEN_LAYER_CASE_TEST(Split, split_size_remainder)
LUMEN_LAYER_CASE_TEST(Split, split_yolo_rank5)

// The extents along `axis` of each inferred output.
std::vector<uint32_t> PieceExtents(const Node& op, const Shape& input, size_t axis) {
  std::vector<uint32_t> extents;
  for (const Shape& shape : InferShapes(op, {input})) extents.push_back(shape[axis]);
  return extents;
}

TEST(Split, SplitSizeFollowsTheInputSize) {
  // split(x, 3) on 8 gives 3, 3, 2 whatever extent the model was exported at.
  const Node op = MakeOperator("torch.split", {"dim=1", "split_size_or_sections=3"}, {}, 1, 3);
  EXPECT_EQ(PieceExtents(op, {2, 8, 5}, 1), std::vector<uint32_t>({3, 3, 2}));
  EXPECT_EQ(PieceExtents(op, {2, 9, 5}, 1), std::vector<uint32_t>({3, 3, 3}));
  EXPECT_THAT(LayerError(op, {{2, 10, 5}}),
              HasSubstr("input (2,10,5) splits into 4 piece(s) along dim 1 but the operator has 3 "
                        "output(s)"));
}

TEST(Split, ChunkMayGiveFewerPiecesThanAsked) {
  // torch.chunk(x, 4) on 6 gives pieces of ceil(6/4) = 2: three of them, as PyTorch does.
  const Node three = MakeOperator("torch.chunk", {"dim=-1", "chunks=4"}, {}, 1, 3);
  EXPECT_EQ(PieceExtents(three, {1, 6}, 1), std::vector<uint32_t>({2, 2, 2}));
  const Node four = MakeOperator("torch.chunk", {"dim=-1", "chunks=4"}, {}, 1, 4);
  EXPECT_EQ(PieceExtents(four, {1, 7}, 1), std::vector<uint32_t>({2, 2, 2, 1}));
  EXPECT_THAT(LayerError(four, {{1, 6}}), HasSubstr("splits into 3 piece(s)"));
}

TEST(Split, TensorSplitBySectionsAndIndices) {
  // sections=3 on 7: the first 7 % 3 pieces are one longer.
  const Node sections = MakeOperator("torch.tensor_split", {"dim=0", "sections=3"}, {}, 1, 3);
  EXPECT_EQ(PieceExtents(sections, {7, 2}, 0), std::vector<uint32_t>({3, 2, 2}));
  EXPECT_EQ(PieceExtents(sections, {2, 2}, 0), std::vector<uint32_t>({1, 1, 0}));
  // indices=(1,-2) on 6: x[:1], x[1:4], x[4:]; indices past the end give empty pieces.
  const Node indices = MakeOperator("torch.tensor_split", {"dim=1", "indices=(1,-2)"}, {}, 1, 3);
  EXPECT_EQ(PieceExtents(indices, {2, 6}, 1), std::vector<uint32_t>({1, 3, 2}));
  const Node beyond = MakeOperator("torch.tensor_split", {"dim=1", "indices=(4,9)"}, {}, 1, 3);
  EXPECT_EQ(PieceExtents(beyond, {2, 6}, 1), std::vector<uint32_t>({4, 2, 0}));
}

TEST(Split, CopiesThePiecesAlongAnyDimension) {
  std::vector<float> values(2 * 5 * 3);
  std::iota(values.begin(), values.end(), 0.0f);
  const Tensor input = Tensor::FromRowMajor(values, {2, 5, 3});
  // Along the batch (dim 0): each sample is one piece.
  const std::vector<Tensor> samples = RunLayer(
      MakeOperator("torch.split", {"dim=0", "split_size_or_sections=1"}, {}, 1, 2), {input});
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[1].shape(), Shape({1, 5, 3}));
  EXPECT_EQ(samples[1].ToRowMajor(), std::vector<float>(values.begin() + 15, values.end()));
  // Along the middle dimension, with sections (2,3).
  const std::vector<Tensor> pieces = RunLayer(
      MakeOperator("torch.split", {"dim=-2", "split_size_or_sections=(2,3)"}, {}, 1, 2), {input});
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].ToRowMajor(), std::vector<float>({0, 1, 2, 3, 4, 5, 15, 16, 17, 18, 19, 20}));
  EXPECT_EQ(pieces[1].shape(), Shape({2, 3, 3}));
  EXPECT_EQ(pieces[1].ToRowMajor()[0], 6.0f);
  EXPECT_EQ(pieces[1].ToRowMajor()[9], 21.0f);
}

TEST(Split, CopiesLargePiecesOnSeveralThreads) {
  const Shape shape{2, 6, 40, 40};
  std::vector<float> values(ShapeElementCount(shape));
  std::iota(values.begin(), values.end(), 0.0f);
  const std::vector<Tensor> pieces =
      RunLayer(MakeOperator("torch.chunk", {"dim=1", "chunks=2"}, {}, 1, 2),
               {Tensor::FromRowMajor(values, shape)}, 3);
  ASSERT_EQ(pieces.size(), 2u);
  const std::vector<float> second = pieces[1].ToRowMajor();
  const size_t plane = 40 * 40;
  for (size_t n = 0; n < 2; ++n) {
    for (size_t i = 0; i < 3 * plane; ++i) {
      ASSERT_EQ(second[n * 3 * plane + i], values[n * 6 * plane + 3 * plane + i]) << n << " " << i;
    }
  }
}

TEST(Split, RejectsSectionsThatDoNotAddUp) {
  EXPECT_THAT(
      LayerError(MakeOperator("torch.split", {"dim=1", "split_size_or_sections=(2,2)"}, {}, 1, 2),
                 {{1, 5}}),
      HasSubstr("split sizes (2,2) add up to 4 but dim 1 of input (1,5) has extent 5"));
}

TEST(Split, CountsHostilePiecesBeforeMakingThem) {
  // Hostile: chunks of an empty dimension, or a size of 1 on a huge one, would make billions of
  // pieces; the count is checked against the outputs first.
  EXPECT_THAT(
      LayerError(MakeOperator("torch.chunk", {"dim=1", "chunks=2147483647"}, {}, 1, 2), {{1, 0}}),
      HasSubstr("splits into 2147483647 piece(s) along dim 1 but the operator has 2 output(s)"));
  EXPECT_THAT(
      LayerError(MakeOperator("torch.split", {"dim=0", "split_size_or_sections=1"}, {}, 1, 2),
                 {{4000000000u}}),
      HasSubstr("splits into 4000000000 piece(s)"));
  // chunk of an empty dimension gives `chunks` empty pieces, as in PyTorch.
  EXPECT_EQ(InferShapes(MakeOperator("torch.chunk", {"dim=1", "chunks=2"}, {}, 1, 2), {{3, 0}}),
            std::vector<Shape>({{3, 0}, {3, 0}}));
}

TEST(Split, RejectsBadParameters) {
  EXPECT_THAT(LayerError(MakeOperator("torch.chunk", {"dim=1", "chunks=0"}, {}, 1, 2), {{1, 4}}),
              HasSubstr("chunks must be positive, got 0"));
  EXPECT_THAT(
      LayerError(MakeOperator("torch.split", {"dim=2", "split_size_or_sections=2"}, {}, 1, 2),
                 {{1, 4}}),
      HasSubstr("dim 2 is out of range for a tensor of rank 2"));
}

}  // namespace
}  // namespace lumen
