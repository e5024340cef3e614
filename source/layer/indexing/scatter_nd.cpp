// lumen.ScatterND: ONNX's ScatterND, a copy of data in which each slice of updates lands at the
// element or slice an index tuple (the indices' last dimension) names:
//   output[indices[i_0, ..., i_{q-2}, :], ...] = updates[i_0, ..., i_{q-2}, ...]
// replacing the value there or combining with it (ONNX's reduction add, mul, max, min of opsets 16
// and 18, which the ONNX reader passes as reduce sum, prod, amax, amin).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "layer/indexing/index_tuples.hpp"
#include "layer/indexing/scatter_reduction.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: where each update finds its output element (data's shape), and the updates'
// strides.
struct ScatterNdState : LayerState {
  explicit ScatterNdState(const Shapes& input_shapes)
      : addressing(input_shapes[0], input_shapes[1], 0),
        update_strides(StorageStrides(input_shapes[2])) {}
  IndexTupleAddressing addressing;
  std::vector<size_t> update_strides;
};

}  // namespace

// Updates are written in their row-major order, one thread, so that tuples naming one position
// twice (which ONNX leaves undefined without a reduction) give a fixed result: the last wins.
// Index values count from the end when negative; one out of range is an error at run time.
class ScatterNd : public Layer {
 public:
  // Reads reduce, in torch.scatter_reduce's names but 'mean' (ONNX has no mean); without it each
  // update replaces the value at its position.
  explicit ScatterNd(const LayerConfig& config) : Layer(config) {
    if (!config.HasParam("reduce")) return;
    const std::string name = config.StringParam("reduce");
    if (!ParseScatterReduction(name, kScatterReduceNames, &reduction_) ||
        reduction_ == ScatterReduction::kMean) {
      Fail(Concat("reduce must be 'sum', 'prod', 'amax' or 'amin', got '", name, "'"));
    }
  }

  // Data's shape, after checking that updates are indices.shape[:-1] + data.shape[length:].
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 3);
    const Shape& data = input_shapes[0];
    const Shape& indices = input_shapes[1];
    const Shape& updates = input_shapes[2];
    if (indices.empty() || indices.back() < 1 || indices.back() > data.size()) {
      Fail(Concat("the indices ", ShapeToString(indices),
                  " must have a last extent from 1 to data's rank (data ", ShapeToString(data),
                  ")"));
    }
    const Shape expected = AddressedShape(data, indices, 0);
    if (updates != expected) {
      Fail(Concat("the updates ", ShapeToString(updates), " must have the shape ",
                  ShapeToString(expected), " (indices ", ShapeToString(indices), ", data ",
                  ShapeToString(data), ")"));
    }
    return {data};
  }

  // Plans the addressing.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    return std::make_unique<ScatterNdState>(input_shapes);
  }

  // Copies data, then writes or combines every update at the position its tuple names.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const ScatterNdState& state = context.state_as<ScatterNdState>();
    const float* updates = inputs[2]->data();
    float* output = outputs[0]->data();
    std::copy(inputs[0]->data(), inputs[0]->data() + inputs[0]->size(), output);
    float bad = 0.0f;
    const auto scatter = [&](const Coordinates& position, size_t target) {
      CombineScattered(reduction_, updates[StorageOffsetOf(position, state.update_strides)],
                       &output[target]);
    };
    if (!state.addressing.ForEachPosition(inputs[2]->shape(), inputs[1]->data(), &bad, scatter)) {
      Fail(Concat("index ", bad, " is out of bounds for data ", ShapeToString(inputs[0]->shape())));
    }
  }

 private:
  ScatterReduction reduction_ = ScatterReduction::kNone;
};

LUMEN_REGISTER_LAYER(ScatterNd, "lumen.ScatterND");

}  // namespace lumen
