// lumen.ViewChain: layers that only move their input's elements (permutes, slices, reshapes, each
// the only reader of the one before), run as one strided copy. ONNX exports split attention heads
// as a slice, a reshape and a transpose of each of Q, K and V, and merge them back the same way:
// three copies where one gather says the same. No file names it: the view-chain pass
// (passes/view_chains.cpp) builds it of the layers it replaces, which say through IsView and
// ViewThrough where their outputs lie. When a session's shapes make one link's output not one
// strided view of the chain's input (a reshape of a permuted view that needs a copy), the links
// run one after another instead.
#ifndef LUMEN_LAYER_LAYOUT_VIEW_CHAIN_HPP_
#define LUMEN_LAYER_LAYOUT_VIEW_CHAIN_HPP_

#include <cstddef>
#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// One link of a chain: its layer, and for each of its inputs but the first (which is the previous
// link's output, or the chain's input 0) the chain input that feeds it.
struct ViewChainLink {
  std::unique_ptr<Layer> layer;
  std::vector<size_t> other_inputs;
};

// Runs `links` (at least one, each IsView) as one strided gather of input 0.
class ViewChain : public Layer {
 public:
  // Takes the links, in order; `config` names the chain (the first link's operator).
  ViewChain(const LayerConfig& config, std::vector<ViewChainLink> links);

  // Every link's shape inference in turn.
  Shapes OutputShapes(const Shapes&) const override;
  // The links' value inputs, as the chain's input indices.
  std::vector<size_t> ShapeValueInputs() const override;
  // Every link's shape inference in turn, with the values they read.
  Shapes OutputShapesFromValues(const Shapes&, const InputTensors&) const override;
  // Composes the links' views; if that fails, prepares each link and its output instead.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // One gather, or the links one after another.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // A chain of views is a view too.
  bool IsView() const override { return true; }
  // The links' views composed.
  bool ViewThrough(const Shapes&, const InputTensors&, StorageView* view) const override;

  // The links, for profiles and tests.
  const std::vector<ViewChainLink>& links() const { return links_; }

 private:
  // Link `index`'s input shapes (or values, when `values` is given) from the chain's and the
  // previous link's output `previous`.
  template <typename Item>
  std::vector<Item> LinkInputs(size_t index, const std::vector<Item>& chain_inputs,
                               const Item& previous) const;

  std::vector<ViewChainLink> links_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_VIEW_CHAIN_HPP_
