// Strided helpers: the memory arithmetic behind cat, split, softmax, permute and slice, checked
// against Tensor::at, the one definition of where a logical index lives.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "lumen/base/error.hpp"
#include "lumen/base/thread_pool.hpp"
#include "lumen/tensor/strided.hpp"
#include "support/logical_index.hpp"

namespace lumen {
namespace {

using test_support::ForEachLogicalIndex;

// Where `index` lives in the tensor's memory, in floats from its start.
size_t MemoryPosition(Tensor& tensor, const std::vector<uint32_t>& index) {
  return static_cast<size_t>(&tensor.at(index) - tensor.data());
}

// A tensor whose every element holds its own memory position, so gathers are easy to read.
Tensor CountingTensor(const Shape& shape) {
  Tensor tensor(shape);
  std::iota(tensor.data(), tensor.data() + tensor.size(), 0.0f);
  return tensor;
}

const std::vector<Shape> kShapes = {{7}, {3, 5}, {2, 3, 4}, {2, 3, 4, 5}, {3, 2, 1, 4, 3}};

TEST(Strided, StorageStridesAgreeWithTensorAt) {
  for (const Shape& shape : kShapes) {
    Tensor tensor(shape);
    const std::vector<size_t> strides = StorageStrides(shape);
    ASSERT_EQ(strides.size(), shape.size());
    ForEachLogicalIndex(shape, [&](const std::vector<uint32_t>& index) {
      if (::testing::Test::HasFailure()) return;  // one message, not one per element
      size_t offset = 0;
      for (size_t axis = 0; axis < shape.size(); ++axis) offset += index[axis] * strides[axis];
      ASSERT_EQ(offset, MemoryPosition(tensor, index))
          << "shape " << ShapeToString(shape) << " index " << ShapeToString(index);
    });
  }
}

TEST(Strided, SplitAroundAxisAgreesWithTensorAt) {
  for (const Shape& shape : kShapes) {
    Tensor tensor(shape);
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      const AxisSplit split = SplitAroundAxis(shape, axis);
      ASSERT_EQ(split.outer * split.extent * split.inner, tensor.size());
      ASSERT_EQ(split.extent, shape[axis]);
      // Moving one step along `axis` must move `inner` floats in memory, wherever we start.
      ForEachLogicalIndex(shape, [&](std::vector<uint32_t> index) {
        if (::testing::Test::HasFailure() || index[axis] + 1 >= shape[axis]) return;
        const size_t here = MemoryPosition(tensor, index);
        ++index[axis];
        ASSERT_EQ(MemoryPosition(tensor, index) - here, split.inner)
            << "shape " << ShapeToString(shape) << " axis " << axis;
      });
    }
  }
  EXPECT_THROW(SplitAroundAxis({2, 3}, 2), Error);
}

TEST(Strided, GatherWithPermutedStridesIsAPermute) {
  // Output (d2, d0, d3, d1) of an input (d0, d1, d2, d3): output[a,b,c,d] = input[b,d,a,c].
  const Shape input_shape = {2, 3, 4, 5};
  const Tensor input = CountingTensor(input_shape);
  const std::vector<size_t> strides = StorageStrides(input_shape);
  Tensor output({4, 2, 5, 3});
  ThreadPool pool(2);  // the chunks two threads take must still cover every element once
  GatherStrided(input, 0,
                {static_cast<std::ptrdiff_t>(strides[2]), static_cast<std::ptrdiff_t>(strides[0]),
                 static_cast<std::ptrdiff_t>(strides[3]), static_cast<std::ptrdiff_t>(strides[1])},
                &output, &pool);
  ForEachLogicalIndex(output.shape(), [&](const std::vector<uint32_t>& index) {
    if (::testing::Test::HasFailure()) return;
    ASSERT_EQ(output.at(index), input.at({index[1], index[3], index[0], index[2]}))
        << "output index " << ShapeToString(index);
  });
}

TEST(Strided, GatherWithOffsetAndStepIsASlice) {
  // input[:, 1:7:2, :] of a (3, 8, 5) tensor.
  const Shape input_shape = {3, 8, 5};
  const Tensor input = CountingTensor(input_shape);
  const std::vector<size_t> strides = StorageStrides(input_shape);
  Tensor output({3, 3, 5});
  GatherStrided(
      input, static_cast<std::ptrdiff_t>(strides[1]),
      {static_cast<std::ptrdiff_t>(strides[0]), static_cast<std::ptrdiff_t>(2 * strides[1]),
       static_cast<std::ptrdiff_t>(strides[2])},
      &output, nullptr);
  ForEachLogicalIndex(output.shape(), [&](const std::vector<uint32_t>& index) {
    if (::testing::Test::HasFailure()) return;
    ASSERT_EQ(output.at(index), input.at({index[0], 1 + 2 * index[1], index[2]}))
        << "output index " << ShapeToString(index);
  });
}

TEST(Strided, GatherRefusesAStrideCountThatDoesNotMatch) {
  const Tensor input = CountingTensor({2, 3});
  Tensor output({3, 2});
  EXPECT_THROW(GatherStrided(input, 0, {1}, &output, nullptr), Error);
}

}  // namespace
}  // namespace lumen
