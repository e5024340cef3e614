// Tensor.to against PyTorch: float (a copy), long and int (truncation toward zero), bool; the
// types Lumen refuses by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(TypeConversion, to_long_truncates)
LUMEN_LAYER_CASE_TEST(TypeConversion, to_int_truncates)
LUMEN_LAYER_CASE_TEST(TypeConversion, to_bool)
LUMEN_LAYER_CASE_TEST(TypeConversion, to_float)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(TypeConversion, rank0_to)

TEST(TypeConversion, IsRegistered) { EXPECT_TRUE(LayerRegistry::Has("Tensor.to")); }

// torch.tensor([-2.7, -0.5, 0.0, 1.9, nan]).to(torch.bool) is [T, T, F, T, T]; .long() of the
// first four is [-2, 0, 0, 1].
TEST(TypeConversion, ConvertsByHand) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor input = Tensor::FromRowMajor({-2.7f, -0.5f, 0.0f, 1.9f, nan}, {5});
  EXPECT_EQ(RunLayer(MakeOperator("Tensor.to", {"dtype=torch.bool", "copy=False"}), {input})[0]
                .ToRowMajor(),
            std::vector<float>({1, 1, 0, 1, 1}));
  const std::vector<float> truncated =
      RunLayer(MakeOperator("Tensor.to", {"dtype=torch.long", "copy=False"}), {input})[0]
          .ToRowMajor();
  EXPECT_EQ(std::vector<float>(truncated.begin(), truncated.begin() + 4),
            std::vector<float>({-2, 0, 0, 1}));
  // dtype None (a device move) copies.
  EXPECT_EQ(RunLayer(MakeOperator("Tensor.to", {"dtype=None", "copy=True"}),
                     {Tensor::FromRowMajor({1.5f, -3.25f}, {2})})[0]
                .ToRowMajor(),
            std::vector<float>({1.5f, -3.25f}));
}

TEST(TypeConversion, RefusesTypesFloat32CannotHoldByName) {
  for (const char* dtype : {"torch.double", "torch.half", "torch.uint8", "torch.int8",
                            "torch.short", "torch.complex64", "torch.bfloat16"}) {
    EXPECT_THAT(LayerError(MakeOperator("Tensor.to", {std::string("dtype=") + dtype}), {{2}}),
                HasSubstr(std::string("conversion to ") + dtype + " is not supported"));
  }
}

}  // namespace
}  // namespace lumen
