// torch.clamp / Tensor.clamp against PyTorch: max only, both bounds, NaN input; min > max and a
// lower bound only against PyTorch's rule; its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Clamp, clamp_max_only)
LUMEN_LAYER_CASE_TEST(Clamp, clamp_tensor_method)
LUMEN_LAYER_CASE_TEST(Clamp, clamp_nan)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Clamp, rank0_clamp)

TEST(Clamp, IsRegisteredUnderEverySpelling) {
  for (const char* type : {"torch.clamp", "Tensor.clamp", "torch.clip", "Tensor.clip"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

// PyTorch: torch.clamp(torch.tensor([-3., 0.2, 5.]), min=1, max=0) is [0., 0., 0.] (min > max
// gives max), and with min=0.5 alone [0.5, 0.5, 5.].
TEST(Clamp, FollowsPyTorchForOneBoundAndCrossedBounds) {
  const Tensor x = Tensor::FromRowMajor({-3.0f, 0.2f, 5.0f}, {3});
  EXPECT_EQ(RunLayer(MakeOperator("torch.clamp", {"min=1.0", "max=0.0"}), {x})[0].ToRowMajor(),
            std::vector<float>({0.0f, 0.0f, 0.0f}));
  EXPECT_EQ(RunLayer(MakeOperator("torch.clamp", {"min=0.5", "max=None"}), {x})[0].ToRowMajor(),
            std::vector<float>({0.5f, 0.5f, 5.0f}));
}

TEST(Clamp, RejectsNoBoundAndTensorBounds) {
  EXPECT_THAT(LayerError(MakeOperator("torch.clamp", {"min=None", "max=None"}), {{3}}),
              HasSubstr("at least one of min and max must not be None"));
  Node tensor_bound = MakeOperator("torch.clamp", {"max=None"}, {}, 2);
  tensor_bound.input_keys["min"] = tensor_bound.input_names[1];
  EXPECT_THAT(LayerError(tensor_bound, {{3}, {3}}),
              HasSubstr("a tensor 'min' bound is not supported"));
}

}  // namespace
}  // namespace lumen
