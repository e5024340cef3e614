// torch.permute / Tensor.permute (and, through a subclass, torch.transpose): reorder dimensions.
#ifndef LUMEN_LAYER_LAYOUT_PERMUTE_HPP_
#define LUMEN_LAYER_LAYOUT_PERMUTE_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Output dimension j is input dimension order[j], over the whole tensor (the batch may move like
// any other dimension). Each output element is gathered from the input with the input's memory
// stride for the dimension it came from; Prepare computes those strides once per shape.
class Permute : public Layer {
 public:
  // Reads dims (one entry per dimension; negative counts from the end).
  explicit Permute(const LayerConfig& config);
  // The input's extents in the new order.
  Shapes OutputShapes(const Shapes&) const override;
  // Computes the gather strides for this input shape.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Gathers the output from the input.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // Order(rank), or empty when this layer cannot permute an input of that rank.
  std::vector<size_t> DimensionOrder(size_t rank) const override;
  // A reordering of its input.
  bool IsView() const override { return true; }
  // `view` with its dimensions reordered.
  bool ViewThrough(const Shapes&, const InputTensors&, StorageView* view) const override;

 protected:
  // For subclasses that build the order themselves (Transpose).
  struct NoDims {};
  Permute(const LayerConfig& config, NoDims) : Layer(config) {}

  // The input dimension each output dimension takes, for an input of rank `rank`; throws
  // lumen::Error naming the layer unless it is a permutation of 0..rank-1.
  virtual std::vector<size_t> Order(size_t rank) const;

 private:
  std::vector<int> dims_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_PERMUTE_HPP_
