// torch.split / torch.chunk (several outputs) against PyTorch.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Split, chunk_uneven)
LUMEN_LAYER_CASE_TEST(Split, split_sections_last)
LUMEN_LAYER_CASE_TEST(Split, split_size_remainder)
LUMEN_LAYER_CASE_TEST(Split, split_yolo_rank5)

TEST(Split, RejectsSectionsThatDoNotAddUp) {
  EXPECT_THAT(LayerError(MakeOperator("torch.split", {"dim=1", "split_size_or_sections=(2,2)"}),
                         {{1, 5}}, {{1, 2}, {1, 2}}),
              HasSubstr("splitting extent 5 of (1,5) gives 2 pieces of total 4"));
}

}  // namespace
}  // namespace lumen
