// The bases of the layers whose outputs are views of their input. ViewLayer: the layers that only
// change a tensor's shape (reshape and view, flatten, squeeze, unsqueeze); they differ in how they
// compute the output shape, and all copy the elements in row-major order. StridedViewLayer: the
// layers that read part of the input, or read it in another order, with one step per dimension
// (select, narrow, unbind, flip); they differ in where each output sits in the input.
#ifndef LUMEN_LAYER_VIEW_LAYER_HPP_
#define LUMEN_LAYER_VIEW_LAYER_HPP_

#include <cstddef>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// A layer whose one output holds its one input's elements, in the same row-major order, in a new
// shape. Subclasses say only how the shape changes (ViewShape); the checks and the copy are shared.
class ViewLayer : public Layer {
 public:
  using Layer::Layer;
  // Checks that there is one input and returns its ViewShape.
  Shapes OutputShapes(const Shapes&) const override;
  // Plans the copy as a strided one when the two storage orders differ and the shapes nest.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Copies the input into the output's shape (what PyTorch's view gives).
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // The same elements in another shape.
  bool IsView() const override { return true; }
  // `view` reshaped to the output's shape, when the elements stay evenly spaced (ReshapeView).
  bool ViewThrough(const Shapes&, const InputTensors&, StorageView* view) const override;

 protected:
  // The output's shape for an input of shape `input`; throws lumen::Error (through Fail) when the
  // layer cannot view it so. The default keeps the shape (a plain copy).
  virtual Shape ViewShape(const Shape& input) const { return input; }
};

// Where one output's elements sit in the input's storage: output element (i_0, ..., i_k) is input
// element offset + i_0 * strides[0] + ... + i_k * strides[k] (negative strides walk backwards).
struct StridedView {
  std::ptrdiff_t offset = 0;
  std::vector<std::ptrdiff_t> strides;
};

// A layer whose outputs are strided views of its one input. Subclasses check shapes
// (OutputShapes) and say where each output sits (Views); the views are computed once per input
// shape in Prepare, and Forward only gathers them.
class StridedViewLayer : public Layer {
 public:
  using Layer::Layer;
  // Computes every output's view for this input shape.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Gathers each output from its view of the input.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 protected:
  // One view per output for an input of shape `input`, which OutputShapes has accepted.
  virtual std::vector<StridedView> Views(const Shape& input) const = 0;
  // The input's storage strides, signed, for building views (StorageStrides in tensor/strided).
  static std::vector<std::ptrdiff_t> SignedStrides(const Shape& input);
  // The view of the slice at `index` along `axis`, that dimension removed (select, unbind).
  static StridedView SliceView(const Shape& input, size_t axis, size_t index);
};

// A strided view layer along one dimension, `dim` (select, narrow, unbind): it checks that there
// is one input and resolves dim against its rank (negative counting from the end, failing when
// out of range) for both OutputShapes and Views, so that a subclass works with the axis alone.
class AxisViewLayer : public StridedViewLayer {
 public:
  // Keeps `dim`, the op's dimension parameter.
  AxisViewLayer(const LayerConfig& config, int dim) : StridedViewLayer(config), dim_(dim) {}
  // One input; the shapes OutputShapesAlong gives for dim's axis.
  Shapes OutputShapes(const Shapes& input_shapes) const final;

 protected:
  // The output shapes for an input of shape `input`, dim being its axis `axis`.
  virtual Shapes OutputShapesAlong(const Shape& input, size_t axis) const = 0;
  // One view per output for `input`, which OutputShapesAlong has accepted.
  virtual std::vector<StridedView> ViewsAlong(const Shape& input, size_t axis) const = 0;
  // Resolves dim and asks ViewsAlong.
  std::vector<StridedView> Views(const Shape& input) const final;
  // The dimension as the op gives it (for messages).
  int dim() const { return dim_; }
  // `input` without `axis`: the shape of a slice at one index (select, unbind).
  static Shape WithoutAxis(const Shape& input, size_t axis);

 private:
  int dim_;
};

// A layer whose output is one strided copy from one of its inputs (pixel shuffle, repeat,
// repeat_interleave, diag): subclasses describe the copy for the shapes (Copy);
// Prepare plans it once per input shape and Forward only runs it.
class StridedCopyLayer : public Layer {
 public:
  using Layer::Layer;
  // Plans the copy for these shapes.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Writes what the copy does not reach (Prefill), then runs the copy.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 protected:
  // The copy from input SourceInput() into the output for these shapes.
  virtual StridedCopy Copy(const Shapes& input_shapes, const Shapes& output_shapes) const = 0;
  // The input the copy reads: 0 unless a subclass says otherwise.
  virtual size_t SourceInput() const { return 0; }
  // Writes the output elements the copy leaves alone; by default there are none.
  virtual void Prefill(const InputTensors& /*inputs*/, Tensor* /*output*/) const {}
};

// One link of a view chain: its layer (an IsView one), and for each of its inputs but the first
// (which is the previous link's output, or the chain's input 0) the chain input that feeds it.
struct ViewChainLink {
  std::unique_ptr<Layer> layer;
  std::vector<size_t> other_inputs;
};

// lumen.ViewChain (layer/layout/view_chain.cpp): `links`, in order, run as one strided gather of
// input 0 when their views compose for a session's shapes, else one after another. `config`
// names the chain. What the view-chain pass (passes/view_chains.cpp) puts in a run's place.
std::unique_ptr<Layer> MakeViewChain(const LayerConfig& config, std::vector<ViewChainLink> links);

// Copies `source` into `target` in row-major order, as PyTorch's view/reshape would, spread over
// `pool` (may be null) when there is enough work. The element counts must match. Allocates
// nothing.
void CopyRowMajorOrder(const Tensor& source, Tensor* target, ThreadPool* pool);

}  // namespace lumen

#endif  // LUMEN_LAYER_VIEW_LAYER_HPP_
