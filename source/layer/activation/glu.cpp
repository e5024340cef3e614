// nn.GLU / F.glu: the gated linear unit. The input is halved along dim into a and b, and the
// output is a * sigmoid(b), half the input's extent along dim.
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer_registry.hpp"
#include "layer/slicewise_layer.hpp"
#include "lumen/error.hpp"
#include "math/activation.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Below this many output elements the layer runs on one thread.
constexpr size_t kParallelElements = 1 << 14;

// Halves along dim (PyTorch's default -1), which must have an even extent.
class Glu : public Layer {
 public:
  explicit Glu(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim", -1)) {}

  // The input with dim halved.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    Shape output = input_shapes[0];
    if (output.empty()) Fail("a rank-0 input cannot be halved");
    const size_t axis = Axis(dim_, output.size());
    if (output[axis] % 2 != 0) {
      Fail(Concat("dim ", dim_, " of input ", ShapeToString(output),
                  " must have an even extent to be halved"));
    }
    output[axis] /= 2;
    return {output};
  }

  // Locates dim in memory for this output shape: the output seen as (outer, half, inner) blocks
  // around dim; in the input each block is twice as long, a's half first.
  StatePointer Prepare(const Shapes& /*input_shapes*/, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<AxisSplitState>();
    const Shape& output = output_shapes[0];
    state->split = SplitAroundAxis(output, Axis(dim_, output.size()));
    return state;
  }

  // a * sigmoid(b), one block at a time.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const AxisSplit& split = context.state_as<AxisSplitState>().split;
    const size_t half = split.extent * split.inner;  // elements of a (and of b) in one block
    const float* input = inputs[0]->data();
    float* output = outputs[0]->data();
    WithActivation({Activation::Kind::kSigmoid}, [&](auto sigmoid) {
      ParallelFor(
          context.compute.pool, static_cast<std::ptrdiff_t>(split.outer),
          [&](std::ptrdiff_t block) {
            const float* a = input + static_cast<size_t>(block) * 2 * half;
            const float* b = a + half;
            float* target = output + static_cast<size_t>(block) * half;
            for (size_t i = 0; i < half; ++i) target[i] = a[i] * sigmoid(b[i]);
          },
          Schedule::kStatic, outputs[0]->size() >= kParallelElements);
    });
  }

 private:
  int dim_;
};

}  // namespace

LUMEN_REGISTER_LAYER(Glu, "nn.GLU", "F.glu");

}  // namespace lumen
