// nn.LPPool1d/2d and nn.LocalResponseNorm by hand (pnnx's own tests, golden cases in
// tmp/pnnx_ops, run every variant against PyTorch), and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

// F.lp_pool1d(torch.tensor([[3., 4., 12., 0., 1.]]), 2, 2): windows (3, 4) and (12, 0), norms
// 5 and 12 (the last value has no full window); with ceil_mode PyTorch averages the 1-tap last
// window over 1 but multiplies by the kernel's 2: sqrt(1 * 2).
TEST(LpPooling, PoolsNormsByHand) {
  std::vector<Tensor> outputs =
      RunLayer(MakeOperator("F.lp_pool1d", {"norm_type=2", "kernel_size=2"}),
               {Tensor::FromRowMajor({3, 4, 12, 0, 1}, {1, 5})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({5, 12}));
  outputs =
      RunLayer(MakeOperator("nn.LPPool1d", {"norm_type=2", "kernel_size=2", "ceil_mode=True"}),
               {Tensor::FromRowMajor({3, 4, 12, 0, 1}, {1, 5})});
  ASSERT_EQ(outputs[0].size(), 3u);
  EXPECT_FLOAT_EQ(outputs[0].ToRowMajor()[2], std::sqrt(2.0f));
  EXPECT_THAT(test_support::LayerError(
                  MakeOperator("nn.LPPool2d", {"norm_type=0", "kernel_size=2"}), {{1, 1, 4, 4}}),
              HasSubstr("norm_type must be a non-zero number"));
}

// nn.LocalResponseNorm(2, alpha=1, beta=1, k=1) on channels (1, 2) at one position: channel 0's
// neighbourhood is channels -1 (zero) and 0, so 1 / (1 + (0 + 1) / 2); channel 1's is 0 and 1:
// 2 / (1 + (1 + 4) / 2).
TEST(LocalResponseNorm, NormalisesAcrossChannelsByHand) {
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("nn.LocalResponseNorm", {"size=2", "alpha=1.0", "beta=1.0", "k=1.0"}),
               {Tensor::FromRowMajor({1, 2}, {1, 2, 1})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({1.0f / 1.5f, 2.0f / 3.5f}));
  EXPECT_THAT(test_support::LayerError(MakeOperator("nn.LocalResponseNorm", {"size=2"}), {{2, 3}}),
              HasSubstr("expected an input of rank 3 or more"));
}

}  // namespace
}  // namespace lumen
