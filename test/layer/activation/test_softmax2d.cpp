// nn.Softmax2d against PyTorch on (C, H, W) and (N, C, H, W) inputs; other ranks are refused, as
// PyTorch refuses them.
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

LUMEN_LAYER_CASE_TEST(Softmax2d, softmax2d_unbatched)
LUMEN_LAYER_CASE_TEST(Softmax2d, softmax2d_batched)

TEST(Softmax2d, NeedsRank3Or4) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Softmax2d", {}), {{4, 5}}),
              HasSubstr("nn.Softmax2d 'op': expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, "
                        "got shape (4,5)"));
}

}  // namespace
}  // namespace lumen
