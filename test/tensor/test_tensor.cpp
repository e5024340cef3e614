// Tensor: layout conversions, shapes, reshape semantics and errors.
#include <gtest/gtest.h>

#include <numeric>
#include <utility>
#include <vector>

#include "lumen/error.hpp"
#include "lumen/tensor.hpp"

namespace lumen {
namespace {

// 0, 1, 2, ... : with these values an element's value is its row-major index.
std::vector<float> Iota(size_t count) {
  std::vector<float> values(count);
  std::iota(values.begin(), values.end(), 0.0f);
  return values;
}

TEST(Tensor, ShapeMapsToCubeDimensions) {
  const Tensor chw({3, 4, 5});
  EXPECT_EQ(chw.channels(), 3u);
  EXPECT_EQ(chw.rows(), 4u);
  EXPECT_EQ(chw.cols(), 5u);
  EXPECT_EQ(chw.size(), 60u);

  const Tensor vector({7});
  EXPECT_EQ(vector.channels(), 1u);
  EXPECT_EQ(vector.rows(), 1u);
  EXPECT_EQ(vector.cols(), 7u);

  const Tensor matrix({2, 7});
  EXPECT_EQ(matrix.channels(), 1u);
  EXPECT_EQ(matrix.rows(), 2u);
  EXPECT_EQ(matrix.cols(), 7u);

  // Leading dimensions fold into channels: YOLO's (3, 85, 20, 20) view is 255 slices of 20x20.
  const Tensor rank4({3, 85, 20, 20});
  EXPECT_EQ(rank4.channels(), 255u);
  EXPECT_EQ(rank4.rows(), 20u);
  EXPECT_EQ(rank4.cols(), 20u);
  EXPECT_EQ(rank4.rank(), 4u);
}

TEST(Tensor, FromRowMajorPlacesEachElement) {
  // Row-major (C, H, W): value at (c, h, w) is c*H*W + h*W + w.
  const Tensor tensor = Tensor::FromRowMajor(Iota(2 * 3 * 4).data(), {2, 3, 4});
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t h = 0; h < 3; ++h) {
      for (uint32_t w = 0; w < 4; ++w) {
        EXPECT_EQ(tensor.at(c, h, w), static_cast<float>(c * 12 + h * 4 + w));
        EXPECT_EQ(tensor.at({c, h, w}), static_cast<float>(c * 12 + h * 4 + w));
      }
    }
  }
  // Inside a channel Armadillo stores column by column: the element below (0,0) comes next.
  EXPECT_EQ(tensor.data()[1], 4.0f);
}

TEST(Tensor, RowMajorRoundTripForEveryRank) {
  for (const Shape& shape :
       {Shape{5}, Shape{3, 5}, Shape{2, 3, 5}, Shape{2, 3, 4, 5}, Shape{2, 1, 3, 4, 5}}) {
    const std::vector<float> values = Iota(ShapeElementCount(shape));
    const Tensor tensor = Tensor::FromRowMajor(values.data(), shape);
    EXPECT_EQ(tensor.ToRowMajor(), values) << ShapeToString(shape);
  }
}

TEST(Tensor, LogicalIndexOfRank5) {
  const Shape shape{2, 3, 4, 5, 6};
  const Tensor tensor = Tensor::FromRowMajor(Iota(ShapeElementCount(shape)).data(), shape);
  // Row-major index of (1,2,3,4,5) = ((((1*3+2)*4+3)*5+4)*6+5).
  EXPECT_EQ(tensor.at({1, 2, 3, 4, 5}),
            static_cast<float>((((1 * 3 + 2) * 4 + 3) * 5 + 4) * 6 + 5));
  EXPECT_THROW(tensor.at({1, 2, 3, 5, 0}), Error);
  EXPECT_THROW(tensor.at({0, 0, 0}), Error);
}

TEST(Tensor, ReshapeKeepsRowMajorOrder) {
  // PyTorch's view keeps the row-major element sequence; so must Reshape, whatever the ranks.
  // (9,4,11) and (3,4,33) have the same rows but not the same cols: memory must move.
  const std::vector<Shape> shapes{{4, 9, 11},    {396},      {12, 33},  {2, 18, 11},
                                  {2, 2, 9, 11}, {36, 11},   {11, 36},  {1, 396},
                                  {396, 1},      {3, 4, 33}, {9, 4, 11}};
  const std::vector<float> values = Iota(396);
  for (const Shape& from : shapes) {
    for (const Shape& to : shapes) {
      Tensor tensor = Tensor::FromRowMajor(values.data(), from);
      tensor.Reshape(to);
      EXPECT_EQ(tensor.shape(), to);
      EXPECT_EQ(tensor.ToRowMajor(), values) << ShapeToString(from) << " -> " << ShapeToString(to);
    }
  }
}

TEST(Tensor, ReshapeRejectsADifferentElementCount) {
  Tensor tensor({2, 3, 4});
  try {
    tensor.Reshape({5, 5});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "cannot reshape a tensor of shape (2,3,4) (24 elements) to (5,5) (25 elements)");
  }
}

TEST(Tensor, ViewUsesExternalMemory) {
  std::vector<float> memory(24, -1.0f);
  Tensor view(memory.data(), {2, 3, 4});
  EXPECT_EQ(view.data(), memory.data());
  view.CopyFromRowMajor(Iota(24).data());
  EXPECT_EQ(memory[1], 4.0f);  // (0,1,0) in column-major order
  view.Reshape({4, 6});        // a view stays on its memory, elements move to the new order
  EXPECT_EQ(view.data(), memory.data());
  EXPECT_EQ(view.ToRowMajor(), Iota(24));
}

// The copy semantics tensor.hpp promises, which sessions rely on: a view stays on its memory
// whatever is assigned to it, a copy has memory of its own, and a move hands the memory over.
TEST(Tensor, CopiesIntoAViewAndMovesTheMemory) {
  std::vector<float> memory(6, -1.0f);
  Tensor view(memory.data(), {2, 3});
  view = Tensor::FromRowMajor(Iota(6), {3, 2});  // same count: written into the view's memory
  EXPECT_EQ(view.data(), memory.data());
  EXPECT_EQ(view.shape(), (Shape{3, 2}));
  EXPECT_EQ(view.ToRowMajor(), Iota(6));
  EXPECT_EQ(memory[1], 2.0f);  // (1,0) in column-major order

  Tensor copy(view);  // memory of its own, same elements
  EXPECT_NE(copy.data(), memory.data());
  EXPECT_EQ(copy.ToRowMajor(), Iota(6));
  copy.Fill(0.0f);
  EXPECT_EQ(memory[1], 2.0f);

  Tensor small({2});  // also a small tensor, which Armadillo would keep inside the cube object
  const float* small_data = small.data();
  Tensor moved(std::move(small));
  EXPECT_EQ(moved.data(), small_data);
  Tensor moved_view(std::move(view));
  EXPECT_EQ(moved_view.data(), memory.data());
  moved = std::move(moved_view);  // moving into an owning tensor: it takes the view over
  EXPECT_EQ(moved.data(), memory.data());

  Tensor other_view(memory.data() + 3, {3});
  other_view = Tensor::FromRowMajor({7, 8, 9}, {3});  // moving into a view: a copy
  EXPECT_EQ(other_view.data(), memory.data() + 3);
  EXPECT_EQ(memory[3], 7.0f);

  const Tensor empty;
  EXPECT_EQ(empty.shape(), (Shape{0}));
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(Tensor(empty).size(), 0u);
}

// An empty tensor keeps its shape but stores no slices: Armadillo's cube would hold a pointer per
// slice, 4 GB for these 2^29 channels of nothing.
TEST(Tensor, AnEmptyTensorStoresNoChannels) {
  const Shape shape = {1, 1u << 29, 0, 4};
  const Tensor empty(shape);
  EXPECT_EQ(empty.shape(), shape);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.channels(), 0u);
  Tensor resized;
  resized.Reshape(shape);
  EXPECT_EQ(resized.channels(), 0u);
  EXPECT_EQ(resized.shape(), shape);
}

TEST(Tensor, FillFromValues) {
  Tensor tensor({2, 2});
  tensor.Fill({1, 2, 3, 4});
  EXPECT_EQ(tensor.at(0, 0, 1), 2.0f);
  EXPECT_EQ(tensor.at(0, 1, 0), 3.0f);
  tensor.Fill(7.0f);
  EXPECT_EQ(tensor.ToRowMajor(), std::vector<float>(4, 7.0f));
  EXPECT_THROW(tensor.Fill({1, 2, 3}), Error);
}

TEST(Tensor, BatchIsTheLeadingDimension) {
  // (N, C, H, W): sample n, channel c is fcube slice n * C + c, each slice an H x W matrix.
  const std::vector<float> values = Iota(2 * 3 * 2 * 4);
  const Tensor tensor = Tensor::FromRowMajor(values, {2, 3, 2, 4});
  EXPECT_EQ(tensor.channels(), 6u);
  EXPECT_EQ(tensor.rows(), 2u);
  EXPECT_EQ(tensor.cols(), 4u);
  EXPECT_EQ(tensor.at(4, 1, 2), values[((1 * 3 + 1) * 2 + 1) * 4 + 2]);  // [1][1][1][2]
  EXPECT_EQ(tensor.at({1, 1, 1, 2}), tensor.at(4, 1, 2));
  EXPECT_EQ(tensor.ToRowMajor(), values);
}

TEST(Tensor, RankFiveAndOneRoundTrip) {
  const std::vector<float> values = Iota(2 * 3 * 2 * 2 * 5);
  EXPECT_EQ(Tensor::FromRowMajor(values, {2, 3, 2, 2, 5}).ToRowMajor(), values);
  const Tensor vector = Tensor::FromRowMajor(Iota(7), {7});
  EXPECT_EQ(vector.channels(), 1u);
  EXPECT_EQ(vector.rows(), 1u);
  EXPECT_EQ(vector.cols(), 7u);
  EXPECT_EQ(vector.ToRowMajor(), Iota(7));
}

TEST(Tensor, RejectsShapesWhoseElementCountOverflows) {
  EXPECT_THROW(Tensor({1, 4194304, 2097152, 2097152}), Error);
  EXPECT_THROW(ShapeElementCount({65536, 65536, 65536, 65536}), Error);
  // 2^32 elements fit in size_t, but 2^32 channels do not fit in the cube's 32-bit slice count:
  // without its own check the fold would wrap to 0 channels and make an empty tensor.
  EXPECT_THROW(Tensor({65536, 65536, 1, 1}), Error);
  float memory[1] = {0.0f};
  EXPECT_THROW(Tensor(memory, {2, 65536, 32768, 1, 1}), Error);
  // A shape that fits is still accepted.
  const Tensor fits({2, 3, 1, 1});
  EXPECT_EQ(fits.channels(), 6u);
}

}  // namespace
}  // namespace lumen

namespace lumen {
namespace {

TEST(Tensor, CopyReshapedMatchesReshape) {
  const std::vector<Shape> shapes{{4, 9, 11}, {396}, {12, 33}, {2, 18, 11}, {36, 11}, {11, 36}};
  std::vector<float> values(396);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  for (const Shape& from : shapes) {
    for (const Shape& to : shapes) {
      const Tensor source = Tensor::FromRowMajor(values.data(), from);
      Tensor target(to);
      CopyReshaped(source, &target);
      EXPECT_EQ(target.ToRowMajor(), values) << ShapeToString(from) << " -> " << ShapeToString(to);
    }
  }
  Tensor wrong({5});
  EXPECT_THROW(CopyReshaped(Tensor({2, 3}), &wrong), Error);
}

}  // namespace
}  // namespace lumen
