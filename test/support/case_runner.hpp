// Test helpers: run a case folder against PyTorch's outputs, and build operators by hand.
#ifndef LUMEN_TEST_SUPPORT_CASE_RUNNER_HPP_
#define LUMEN_TEST_SUPPORT_CASE_RUNNER_HPP_

#include <map>
#include <string>
#include <vector>

#include "lumen/runtime/runtime_operator.hpp"
#include "lumen/tensor/tensor.hpp"

namespace lumen {
namespace test_support {

// Runs the case in `directory` (the corpus format: model.pnnx.param/.bin, in*.f32, out*.f32,
// case.txt) through the reader and RuntimeGraph, and EXPECTs every output to match PyTorch's within
// the case's tolerance, reporting the largest error and the first mismatch.
void ExpectCaseMatches(const std::string& directory);

// The same for the case test/data/layers/<name>, written by scripts/make_layer_cases.py.
void ExpectLayerCaseMatches(const std::string& name);

// A weight for MakeOperator: its shape and row-major values (zeros when empty).
struct Weight {
  std::vector<int> shape;
  std::vector<float> values;
};

// An operator as the reader would produce it; `params` are pnnx items such as "stride=(2,2)".
RuntimeOperator MakeOperator(const std::string& type, const std::vector<std::string>& params,
                             const std::map<std::string, Weight>& weights = {});

// Creates the layer for `op` through the registry and prepares it for the given full shapes.
// Returns the lumen::Error message it throws, or an empty string if it accepts them.
std::string LayerError(const RuntimeOperator& op, const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& output_shapes);

}  // namespace test_support
}  // namespace lumen

// Declares TEST(Suite, case_name) running test/data/layers/<case_name> against PyTorch.
#define LUMEN_LAYER_CASE_TEST(Suite, case_name) \
  TEST(Suite, case_name) { ::lumen::test_support::ExpectLayerCaseMatches(#case_name); }

#endif  // LUMEN_TEST_SUPPORT_CASE_RUNNER_HPP_
