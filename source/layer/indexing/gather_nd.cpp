// lumen.GatherND: ONNX's GatherND, which PyTorch has no single op for (advanced indexing
// x[i, j] with index tensors comes closest). The indices' last dimension holds tuples of leading
// data coordinates; each tuple picks one element or slice of data:
//   output[i_0, ..., i_{q-2}, ...] = data[i_0, ..., i_{b-1}, indices[i_0, ..., i_{q-2}, :], ...]
// where the first b = batch_dims dimensions are shared by data and indices.
#include <memory>
#include <vector>

#include "layer/indexing/index_tuples.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: where each output position finds its data element, and the output's strides.
struct GatherNdState : LayerState {
  explicit GatherNdState(const Shapes& input_shapes, const Shape& output, size_t batch)
      : addressing(input_shapes[0], input_shapes[1], batch),
        output_strides(StorageStrides(output)) {}
  IndexTupleAddressing addressing;
  std::vector<size_t> output_strides;
};

}  // namespace

// Index values are floats holding whole numbers (exact up to 2^24), counted from the end when
// negative as ONNX allows; an index out of range is an error at run time naming the layer.
class GatherNd : public Layer {
 public:
  // Reads batch_dims (default 0).
  explicit GatherNd(const LayerConfig& config)
      : Layer(config), batch_dims_(config.IntParam("batch_dims", 0)) {
    if (batch_dims_ < 0) Fail(Concat("batch_dims must be at least 0, got ", batch_dims_));
  }

  // indices.shape[:-1] + data.shape[batch_dims + tuple length:].
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& data = input_shapes[0];
    const Shape& indices = input_shapes[1];
    const size_t batch = static_cast<size_t>(batch_dims_);
    if (indices.empty() || data.empty() || batch >= indices.size() || batch >= data.size()) {
      Fail(Concat("data ", ShapeToString(data), " and indices ", ShapeToString(indices),
                  " must both have a rank above batch_dims = ", batch_dims_));
    }
    const size_t length = indices.back();
    if (length < 1 || batch + length > data.size()) {
      Fail(Concat("the indices' last extent ", length, " must be from 1 to data's rank ",
                  data.size(), " less batch_dims ", batch_dims_, " (data ", ShapeToString(data),
                  ", indices ", ShapeToString(indices), ")"));
    }
    for (size_t d = 0; d < batch; ++d) {
      if (data[d] != indices[d]) {
        Fail(Concat("data ", ShapeToString(data), " and indices ", ShapeToString(indices),
                    " differ in batch dim ", d));
      }
    }
    const Shape output = AddressedShape(data, indices, batch);
    if (output.size() > kMaxRank) {
      Fail(Concat("the output ", ShapeToString(output), " has a rank above ", kMaxRank));
    }
    return {output};
  }

  // Plans the addressing.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    return std::make_unique<GatherNdState>(input_shapes, output_shapes[0],
                                           static_cast<size_t>(batch_dims_));
  }

  // Reads every output element from the data element its tuple and position name.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const GatherNdState& state = context.state_as<GatherNdState>();
    const float* data = inputs[0]->data();
    float* output = outputs[0]->data();
    float bad = 0.0f;
    const auto gather = [&](const Coordinates& position, size_t source) {
      output[StorageOffsetOf(position, state.output_strides)] = data[source];
    };
    if (!state.addressing.ForEachPosition(outputs[0]->shape(), inputs[1]->data(), &bad, gather)) {
      Fail(Concat("index ", bad, " is out of bounds for data ", ShapeToString(inputs[0]->shape())));
    }
  }

 private:
  int batch_dims_;
};

LUMEN_REGISTER_LAYER(GatherNd, "lumen.GatherND");

}  // namespace lumen
