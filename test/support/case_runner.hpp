// Test helpers: run a case folder against PyTorch's outputs, and build and run one layer by hand.
#ifndef LUMEN_TEST_SUPPORT_CASE_RUNNER_HPP_
#define LUMEN_TEST_SUPPORT_CASE_RUNNER_HPP_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/compute_context.hpp"
#include "base/thread_pool.hpp"
#include "base/workspace.hpp"
#include "graph/node.hpp"
#include "layer/layer.hpp"
#include "lumen/tensor.hpp"

namespace lumen {
namespace test_support {

// How ExpectCaseMatches runs a case.
struct CaseOptions {
  int threads = 1;
  bool fuse = true;
  // Also EXPECT that every operand's inferred shape equals the shape the param file annotates
  // (true for cases run at their export size).
  bool check_annotated_shapes = true;
};

// Runs the case in `directory` (the corpus format: model.pnnx.param/.bin, in*.f32, out*.f32,
// case.txt) through Model and Session, and EXPECTs every output to match PyTorch's within the
// case's tolerance, reporting the largest error and the first mismatch (of the first output that
// differs; the others are only counted). Returns whether everything matched.
bool ExpectCaseMatches(const std::string& directory, const CaseOptions& options = {});

// The same for the case test/data/layers/<name>, written by scripts/make_layer_cases.py.
void ExpectLayerCaseMatches(const std::string& name);

// A weight for MakeOperator: its shape and row-major values (zeros when empty).
struct Weight {
  std::vector<int> shape;
  std::vector<float> values;
};

// An operator as the reader would produce it; `params` are pnnx items such as "stride=(2,2)".
// It reads `inputs` operands (in0, in1, ...) and writes `outputs` (out0, ...).
Node MakeOperator(const std::string& type, const std::vector<std::string>& params,
                  const std::map<std::string, Weight>& weights = {}, int inputs = 1,
                  int outputs = 1);

// Stores `op`'s attribute `name` as bf16, as a `--to bf16` file does: each value rounded to the
// nearest bfloat16. Returns the rounded values (row-major), what the layer's weights now stand for.
std::vector<float> StoreAsBFloat16(Node* op, const std::string& name);

// Creates the layer for `op` through the registry, infers its output shapes for `input_shapes`
// and prepares it. Returns the lumen::Error message it throws, or an empty string if it accepts.
std::string LayerError(const Node& op, const std::vector<Shape>& input_shapes);
// The same, and also returns a message when the inferred output shapes differ from
// `expected_output_shapes`.
std::string LayerError(const Node& op, const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& expected_output_shapes);

// The output shapes the layer for `op` infers (throws lumen::Error as the layer does).
std::vector<Shape> InferShapes(const Node& op, const std::vector<Shape>& input_shapes);

// A thread pool and the workspace of its threads, as a session owns them, for tests that call
// layers and kernels directly.
class TestContext {
 public:
  // A context running loops on `threads` threads.
  explicit TestContext(int threads = 1);
  // What kernels receive.
  ComputeContext compute() { return ComputeContext{pool_.get(), workspace_.get()}; }
  // What Layer::Prepare receives.
  PrepareContext prepare() { return PrepareContext{pool_->threads(), workspace_.get(), {}}; }

 private:
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<Workspace> workspace_;
};

// Builds the layer for `op`, infers and prepares it for `inputs` (whose values it may read, as a
// session lets layers read known values), runs Forward on `threads` threads and returns the
// outputs.
std::vector<Tensor> RunLayer(const Node& op, const std::vector<Tensor>& inputs, int threads = 1);
// The lumen::Error message RunLayer throws for these inputs, or an empty string if it runs (for
// layers whose output shapes depend on their inputs' values).
std::string RunLayerError(const Node& op, const std::vector<Tensor>& inputs);

}  // namespace test_support
}  // namespace lumen

// Declares TEST(Suite, case_name) running test/data/layers/<case_name> against PyTorch.
#define LUMEN_LAYER_CASE_TEST(Suite, case_name) \
  TEST(Suite, case_name) { ::lumen::test_support::ExpectLayerCaseMatches(#case_name); }

#endif  // LUMEN_TEST_SUPPORT_CASE_RUNNER_HPP_
