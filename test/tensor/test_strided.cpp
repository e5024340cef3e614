// Strided helpers: the memory arithmetic behind cat, split, softmax, permute and slice, checked
// against Tensor::at, the one definition of where a logical index lives.
#include <gtest/gtest.h>

#include <numeric>
#include <utility>
#include <vector>

#include "base/thread_pool.hpp"
#include "lumen/error.hpp"
#include "support/logical_index.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

using test_support::ForEachLogicalIndex;

// Where `index` lives in the tensor's memory, in floats from its start.
size_t OffsetOf(Tensor& tensor, const std::vector<uint32_t>& index) {
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
      ASSERT_EQ(offset, OffsetOf(tensor, index))
          << "shape " << ShapeToString(shape) << " index " << ShapeToString(index);
    });
  }
}

TEST(Strided, MemoryPositionIsTheOrderOfTheStorageStrides) {
  for (const Shape& shape : kShapes) {
    const size_t rank = shape.size();
    const std::vector<size_t> strides = StorageStrides(shape);
    // Walking memory positions from the fastest, each axis's stride is the product of the
    // extents of the axes after it in memory order.
    size_t stride = 1;
    for (size_t position = rank; position-- > 0;) {
      const size_t axis = MemoryPosition(position, rank);
      EXPECT_EQ(MemoryPosition(axis, rank), position) << "rank " << rank;  // its own inverse
      EXPECT_EQ(strides[axis], stride) << "shape " << ShapeToString(shape) << " axis " << axis;
      stride *= shape[axis];
    }
  }
  EXPECT_EQ(MemoryPosition(0, 1), 0u);
  EXPECT_EQ(MemoryPosition(1, 4), 1u);
  EXPECT_EQ(MemoryPosition(2, 4), 3u);
  EXPECT_EQ(MemoryPosition(3, 4), 2u);
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
        const size_t here = OffsetOf(tensor, index);
        ++index[axis];
        ASSERT_EQ(OffsetOf(tensor, index) - here, split.inner)
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

TEST(Strided, GatherTransposesInTilesWithPartialTiles) {
  // ConvNeXt's permutes, NCHW -> NHWC and back, at sizes where the input's contiguous dimension
  // (8 floats a tile) ends in a partial tile: 20 rows and 13 columns, 11 and 17 channels, on one
  // and two threads (large enough for the two to share it).
  for (const Shape& input_shape : {Shape{1, 11, 20, 13}, Shape{2, 17, 41, 29}}) {
    const Tensor input = CountingTensor(input_shape);
    const std::vector<size_t> strides = StorageStrides(input_shape);
    const auto stride = [&](size_t axis) { return static_cast<std::ptrdiff_t>(strides[axis]); };
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      // (n, c, h, w) -> (n, h, w, c)
      Tensor channels_last({input_shape[0], input_shape[2], input_shape[3], input_shape[1]});
      GatherStrided(input, 0, {stride(0), stride(2), stride(3), stride(1)}, &channels_last, &pool);
      // and back: (n, h, w, c) -> (n, c, h, w)
      const std::vector<size_t> last_strides = StorageStrides(channels_last.shape());
      const auto last_stride = [&](size_t axis) {
        return static_cast<std::ptrdiff_t>(last_strides[axis]);
      };
      Tensor back(input_shape);
      GatherStrided(channels_last, 0,
                    {last_stride(0), last_stride(3), last_stride(1), last_stride(2)}, &back, &pool);
      ForEachLogicalIndex(channels_last.shape(), [&](const std::vector<uint32_t>& index) {
        if (::testing::Test::HasFailure()) return;
        ASSERT_EQ(channels_last.at(index), input.at({index[0], index[3], index[1], index[2]}))
            << "input " << ShapeToString(input_shape) << " index " << ShapeToString(index);
      });
      ForEachLogicalIndex(input_shape, [&](const std::vector<uint32_t>& index) {
        if (::testing::Test::HasFailure()) return;
        ASSERT_EQ(back.at(index), input.at(index)) << "index " << ShapeToString(index);
      });
    }
  }
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

TEST(Strided, GatherDropsUnitExtentsAndMergesContiguousDimensions) {
  // x[:, :, 4:8] of a sequence-first (5, 1, 12) tensor, and a permute of a tensor with unit
  // dimensions between the others: the walks GatherStrided shortens.
  const Shape sequence_shape = {5, 1, 12};
  const Tensor sequence = CountingTensor(sequence_shape);
  const std::vector<size_t> sequence_strides = StorageStrides(sequence_shape);
  Tensor slice({5, 1, 4});
  GatherStrided(sequence, static_cast<std::ptrdiff_t>(4 * sequence_strides[2]),
                {static_cast<std::ptrdiff_t>(sequence_strides[0]),
                 static_cast<std::ptrdiff_t>(sequence_strides[1]),
                 static_cast<std::ptrdiff_t>(sequence_strides[2])},
                &slice, nullptr);
  ForEachLogicalIndex(slice.shape(), [&](const std::vector<uint32_t>& index) {
    if (::testing::Test::HasFailure()) return;
    ASSERT_EQ(slice.at(index), sequence.at({index[0], index[1], 4 + index[2]}))
        << "slice index " << ShapeToString(index);
  });
  // Output (d3, d0, d1, d2, d4) of an input (d0, d1, d2, d3, d4) = (4, 1, 3, 1, 6).
  const Shape input_shape = {4, 1, 3, 1, 6};
  const Tensor input = CountingTensor(input_shape);
  const std::vector<size_t> strides = StorageStrides(input_shape);
  Tensor output({1, 4, 1, 3, 6});
  std::vector<std::ptrdiff_t> permuted;
  for (size_t axis : {3, 0, 1, 2, 4})
    permuted.push_back(static_cast<std::ptrdiff_t>(strides[axis]));
  GatherStrided(input, 0, permuted, &output, nullptr);
  ForEachLogicalIndex(output.shape(), [&](const std::vector<uint32_t>& index) {
    if (::testing::Test::HasFailure()) return;
    ASSERT_EQ(output.at(index), input.at({index[1], index[2], index[3], index[0], index[4]}))
        << "output index " << ShapeToString(index);
  });
}

TEST(Strided, ReshapeAsStridedCopyKeepsTheRowMajorOrder) {
  const std::vector<std::pair<Shape, Shape>> reshapes = {
      {{197, 1, 96}, {197, 12, 8}}, {{7, 12, 8}, {7, 96}},   {{7, 96}, {7, 1, 96}},
      {{2, 3, 4, 5}, {6, 20}},      {{6, 20}, {2, 3, 4, 5}}, {{4, 6}, {24}},
      {{24}, {2, 1, 3, 4}},         {{3, 1, 8, 1}, {3, 8}},  {{5, 4, 3}, {5, 4, 3}}};
  for (const auto& [from, to] : reshapes) {
    std::vector<float> values(ShapeElementCount(from));
    std::iota(values.begin(), values.end(), 0.0f);
    const Tensor source = Tensor::FromRowMajor(values, from);
    StridedCopy copy;
    ASSERT_TRUE(ReshapeAsStridedCopy(from, to, &copy))
        << ShapeToString(from) << " -> " << ShapeToString(to);
    for (int threads : {1, 3}) {
      ThreadPool pool(threads);
      Tensor target(to);
      RunStridedCopy(copy, source.data(), target.data(), &pool);
      EXPECT_EQ(target.ToRowMajor(), values) << ShapeToString(from) << " -> " << ShapeToString(to);
    }
  }
  StridedCopy copy;
  EXPECT_FALSE(ReshapeAsStridedCopy({2, 3}, {3, 2}, &copy));  // the extents do not nest
  EXPECT_FALSE(ReshapeAsStridedCopy({4, 6}, {8, 4}, &copy));
  EXPECT_FALSE(ReshapeAsStridedCopy({4, 6}, {5, 5}, &copy));  // other element counts
  ASSERT_TRUE(ReshapeAsStridedCopy({0, 3}, {3, 0}, &copy));   // nothing to copy
  RunStridedCopy(copy, nullptr, nullptr, nullptr);
}

TEST(Strided, GatherRefusesAStrideCountThatDoesNotMatch) {
  const Tensor input = CountingTensor({2, 3});
  Tensor output({3, 2});
  EXPECT_THROW(GatherStrided(input, 0, {1}, &output, nullptr), Error);
}

// A transpose of a (2, 3, 40, 50) tensor's last two dimensions through StridedCopy, on one thread
// and on two (whole runs per task), against Tensor::at.
TEST(Strided, StridedCopyTransposesOnAnyThreads) {
  const Shape input_shape = {2, 3, 40, 50};
  const Tensor input = CountingTensor(input_shape);
  const std::vector<size_t> in = StorageStrides(input_shape);
  const Shape output_shape = {2, 3, 50, 40};
  const std::vector<size_t> out = StorageStrides(output_shape);
  StridedCopy copy;
  copy.extents = {2, 3, 40, 50};
  for (size_t d = 0; d < 4; ++d) copy.source_strides.push_back(static_cast<std::ptrdiff_t>(in[d]));
  copy.target_strides = {static_cast<std::ptrdiff_t>(out[0]), static_cast<std::ptrdiff_t>(out[1]),
                         static_cast<std::ptrdiff_t>(out[3]), static_cast<std::ptrdiff_t>(out[2])};
  const StridedCopy planned = MakeStridedCopy(copy);
  ThreadPool pool(2);
  for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
    Tensor output(output_shape);
    RunStridedCopy(planned, input.data(), output.data(), threads);
    ForEachLogicalIndex(output_shape, [&](const std::vector<uint32_t>& index) {
      if (::testing::Test::HasFailure()) return;
      ASSERT_EQ(output.at(index), input.at({index[0], index[1], index[3], index[2]}))
          << "output index " << ShapeToString(index);
    });
  }
}

// Dimensions that continue each other in both layouts merge into one longer run; extent-1
// dimensions disappear; an empty extent copies nothing.
TEST(Strided, MakeStridedCopyMergesAndDropsDimensions) {
  StridedCopy copy;
  copy.extents = {4, 1, 5};
  copy.source_strides = {5, 99, 1};
  copy.target_strides = {5, 7, 1};
  const StridedCopy merged = MakeStridedCopy(copy);
  EXPECT_EQ(merged.extents, std::vector<size_t>({20}));
  EXPECT_EQ(merged.source_strides, std::vector<std::ptrdiff_t>({1}));
  copy.extents = {4, 0, 5};
  const StridedCopy empty = MakeStridedCopy(copy);
  EXPECT_EQ(empty.extents, std::vector<size_t>({0}));
  std::vector<float> target(3, -1.0f);
  const std::vector<float> source(20, 1.0f);
  RunStridedCopy(empty, source.data(), target.data(), nullptr);
  EXPECT_EQ(target, std::vector<float>(3, -1.0f));
  copy.source_strides = {1};
  EXPECT_THROW(MakeStridedCopy(copy), Error);
}

}  // namespace
}  // namespace lumen
