// Broadcasting: the shape rule and the walk the expression and reduction layers use, checked
// against element-by-element arithmetic on logical indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "lumen/error.hpp"
#include "support/kernel_testing.hpp"
#include "support/logical_index.hpp"
#include "tensor/broadcast.hpp"

namespace lumen {
namespace {

using test_support::ForEachLogicalIndex;
using test_support::RandomValues;

// The operand's index for a result index: aligned at the last dimension, 0 where broadcast.
std::vector<uint32_t> OperandIndex(const std::vector<uint32_t>& result_index, const Shape& shape) {
  std::vector<uint32_t> index(shape.size());
  const size_t skipped = result_index.size() - shape.size();
  for (size_t dim = 0; dim < shape.size(); ++dim) {
    index[dim] = shape[dim] == 1 ? 0 : result_index[skipped + dim];
  }
  return index;
}

// A tensor of `shape` holding random values in [-1, 1).
Tensor RandomTensor(const Shape& shape, std::mt19937* generator) {
  Tensor tensor(shape);
  const std::vector<float> values = RandomValues(tensor.size(), generator);
  std::copy(values.begin(), values.end(), tensor.data());
  return tensor;
}

struct BroadcastCase {
  Shape first;
  Shape second;
  Shape result;
};

// Lets gtest name a failing case by its shapes instead of its bytes.
void PrintTo(const BroadcastCase& test_case, std::ostream* stream) {
  *stream << ShapeToString(test_case.first) << " with " << ShapeToString(test_case.second);
}

class BroadcastWalkTest : public testing::TestWithParam<BroadcastCase> {};

TEST_P(BroadcastWalkTest, ComputesWhatElementwiseIndexingComputes) {
  const BroadcastCase& test_case = GetParam();
  ASSERT_EQ(BroadcastShapes(test_case.first, test_case.second), test_case.result);
  std::mt19937 generator(7);
  const Tensor first = RandomTensor(test_case.first, &generator);
  const Tensor second = RandomTensor(test_case.second, &generator);
  Tensor result(test_case.result);
  result.Fill(std::nanf(""));

  // a - 2b: not symmetric, so swapped operands would show.
  const BroadcastWalk walk(test_case.result, {test_case.first, test_case.second});
  // On two threads: the runs a walk hands out must cover the result exactly once however the
  // chunks fall.
  ThreadPool pool(2);
  walk.ForEachRun(
      [&](const BroadcastWalk::Run& run) {
        for (size_t i = 0; i < run.count; ++i) {
          result.data()[run.result_offset + i] =
              first.data()[run.operand_offsets[0] + i * walk.inner_stride(0)] -
              2 * second.data()[run.operand_offsets[1] + i * walk.inner_stride(1)];
        }
      },
      &pool);

  ForEachLogicalIndex(test_case.result, [&](const std::vector<uint32_t>& index) {
    if (HasFailure()) return;  // one message, not one per element
    const float expected = first.at(OperandIndex(index, test_case.first)) -
                           2 * second.at(OperandIndex(index, test_case.second));
    ASSERT_EQ(result.at(index), expected) << "at result index " << ShapeToString(index);
  });
}

// Shapes the layers meet: equal, per-channel, scalar, row and column vectors, rank 4 and 5 (the
// YOLO head's views), both directions, and one long run big enough to be cut into chunks.
INSTANTIATE_TEST_SUITE_P(Shapes, BroadcastWalkTest,
                         testing::Values(BroadcastCase{{3, 5, 7}, {3, 5, 7}, {3, 5, 7}},
                                         BroadcastCase{{4, 6, 5}, {4, 1, 1}, {4, 6, 5}},
                                         BroadcastCase{{4, 1, 1}, {4, 6, 5}, {4, 6, 5}},
                                         BroadcastCase{{2, 3, 4}, {}, {2, 3, 4}},
                                         BroadcastCase{{2, 3, 4}, {4}, {2, 3, 4}},
                                         BroadcastCase{{2, 3, 4}, {3, 1}, {2, 3, 4}},
                                         BroadcastCase{{3, 1}, {1, 5}, {3, 5}},
                                         BroadcastCase{{1, 3, 1, 6}, {2, 1, 4, 1}, {2, 3, 4, 6}},
                                         BroadcastCase{
                                             {3, 5, 2, 4, 3}, {5, 1, 1, 3}, {3, 5, 2, 4, 3}},
                                         BroadcastCase{{2, 150, 160}, {2, 150, 160}, {2, 150, 160}},
                                         BroadcastCase{{64, 40, 40}, {64, 1, 1}, {64, 40, 40}}));

TEST(Broadcast, RefusesIncompatibleShapes) {
  try {
    BroadcastShapes({3, 4}, {2, 4});
    FAIL() << "(3,4) and (2,4) do not broadcast";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("(3,4)"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("(2,4)"), std::string::npos) << error.what();
  }
  EXPECT_THROW(BroadcastWalk({3, 4}, {{3, 4}, {4, 4}}), Error);
}

TEST(Broadcast, MergesContiguousDimensions) {
  // Equal shapes are one flat run; a per-channel operand leaves channels and H*W.
  EXPECT_EQ(BroadcastWalk({3, 5, 7}, {{3, 5, 7}, {3, 5, 7}}).merged_rank(), 1u);
  EXPECT_EQ(BroadcastWalk({4, 6, 5}, {{4, 6, 5}, {4, 1, 1}}).merged_rank(), 2u);
}

}  // namespace
}  // namespace lumen
