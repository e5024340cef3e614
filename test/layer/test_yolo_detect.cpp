// models.yolo.Detect against PyTorch, with both pnnx attribute namings and both grid conventions.
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

LUMEN_LAYER_CASE_TEST(YoloDetect, detect_old_grid_names)
LUMEN_LAYER_CASE_TEST(YoloDetect, detect_v7)

TEST(YoloDetect, RejectsAMissingStrideVector) {
  const RuntimeOperator op = MakeOperator("models.yolo.Detect", {},
                                          {{"m.0.weight", {{21, 4, 1, 1}, {}}},
                                           {"m.0.bias", {{21}, {}}},
                                           {"pnnx_00", {{1, 3, 2, 2, 2}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 4, 2, 2}}, {{1, 12, 7}}),
              HasSubstr("expected one stride per level, got 0 strides for 1 levels"));
}

}  // namespace
}  // namespace lumen
