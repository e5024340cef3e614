// lumen.ViewChain: layers that only move their input's elements (permutes, slices, reshapes, each
// the only reader of the one before), run as one strided copy. ONNX exports split attention heads
// as a slice, a reshape and a transpose of each of Q, K and V, and merge them back the same way:
// three copies where one gather says the same. No file names it: the view-chain pass
// (passes/view_chains.cpp) builds it of the layers it replaces, which say through IsView and
// ViewThrough where their outputs lie. When a session's shapes make one link's output not one
// strided view of the chain's input (a reshape of a permuted view that needs a copy), the links
// run one after another instead.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "layer/view_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

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

 private:
  // Link `index`'s inputs (shapes or values) from the chain's, its first being `previous`: the
  // previous link's output.
  template <typename Item>
  std::vector<Item> LinkInputs(size_t index, const std::vector<Item>& chain_inputs,
                               const Item& previous) const;

  std::vector<ViewChainLink> links_;
};

namespace {

// Per session: the composed view, or (when the links do not compose for these shapes) each link's
// state and output but the last.
struct ViewChainState : LayerState {
  bool composed = false;
  StorageView view;
  std::vector<StatePointer> link_states;
  std::vector<Tensor> link_outputs;
  // Each link's operand lists, sized here so that Forward fills them without allocating.
  std::vector<InputTensors> link_inputs;
  std::vector<OutputTensors> link_output_lists;
  size_t bytes() const override {
    size_t total = 0;
    for (const Tensor& output : link_outputs) total += output.size() * sizeof(float);
    for (const StatePointer& state : link_states) total += state ? state->bytes() : 0;
    return total;
  }
};

}  // namespace

ViewChain::ViewChain(const LayerConfig& config, std::vector<ViewChainLink> links)
    : Layer(config), links_(std::move(links)) {
  if (links_.empty()) Fail("a chain needs at least one link");
  for (const ViewChainLink& link : links_) {
    if (!link.layer->IsView()) Fail(Concat(link.layer->description(), " is not a view"));
  }
}

template <typename Item>
std::vector<Item> ViewChain::LinkInputs(size_t index, const std::vector<Item>& chain_inputs,
                                        const Item& previous) const {
  std::vector<Item> inputs = {previous};
  for (size_t input : links_[index].other_inputs) {
    inputs.push_back(input < chain_inputs.size() ? chain_inputs[input] : Item{});
  }
  return inputs;
}

Shapes ViewChain::OutputShapes(const Shapes& input_shapes) const {
  Shape shape = input_shapes.at(0);
  for (size_t k = 0; k < links_.size(); ++k) {
    shape = links_[k].layer->OutputShapes(LinkInputs(k, input_shapes, shape)).at(0);
  }
  return {shape};
}

std::vector<size_t> ViewChain::ShapeValueInputs() const {
  std::vector<size_t> inputs;
  for (const ViewChainLink& link : links_) {
    for (size_t input : link.layer->ShapeValueInputs()) {
      // Input 0 is the previous link's output, whose values a view never needs.
      if (input == 0 || input > link.other_inputs.size()) continue;
      inputs.push_back(link.other_inputs[input - 1]);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  return inputs;
}

Shapes ViewChain::OutputShapesFromValues(const Shapes& input_shapes,
                                         const InputTensors& input_values) const {
  Shape shape = input_shapes.at(0);
  for (size_t k = 0; k < links_.size(); ++k) {
    shape = links_[k]
                .layer
                ->OutputShapesFromValues(LinkInputs(k, input_shapes, shape),
                                         LinkInputs<const Tensor*>(k, input_values, nullptr))
                .at(0);
  }
  return {shape};
}

bool ViewChain::ViewThrough(const Shapes& input_shapes, const InputTensors& input_values,
                            StorageView* view) const {
  StorageView composed = *view;
  for (size_t k = 0; k < links_.size(); ++k) {
    const Shapes link_shapes = LinkInputs(k, input_shapes, composed.shape);
    const InputTensors link_values = LinkInputs<const Tensor*>(k, input_values, nullptr);
    if (!links_[k].layer->ViewThrough(link_shapes, link_values, &composed)) return false;
  }
  *view = std::move(composed);
  return true;
}

StatePointer ViewChain::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                const PrepareContext& context) const {
  auto state = std::make_unique<ViewChainState>();
  state->view = WholeTensorView(input_shapes.at(0));
  if (ViewThrough(input_shapes, context.input_values, &state->view)) {
    if (state->view.shape != output_shapes.at(0)) {
      Fail(Concat("the composed view has shape ", ShapeToString(state->view.shape), ", expected ",
                  ShapeToString(output_shapes.at(0))));
    }
    state->composed = true;
    return state;
  }
  // Link by link: each link's output in the state, the last one's in the chain's output.
  Shape shape = input_shapes.at(0);
  for (size_t k = 0; k < links_.size(); ++k) {
    const Shapes link_shapes = LinkInputs(k, input_shapes, shape);
    PrepareContext link_context = context;
    link_context.input_values = LinkInputs<const Tensor*>(k, context.input_values, nullptr);
    const Shapes link_outputs =
        links_[k].layer->OutputShapesFromValues(link_shapes, link_context.input_values);
    state->link_states.push_back(links_[k].layer->Prepare(link_shapes, link_outputs, link_context));
    state->link_inputs.emplace_back(link_shapes.size(), nullptr);
    state->link_output_lists.emplace_back(1, nullptr);
    shape = link_outputs.at(0);
    if (k + 1 < links_.size()) state->link_outputs.emplace_back(shape);
  }
  return state;
}

void ViewChain::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                        const ForwardContext& context) const {
  ViewChainState& state = context.state_as<ViewChainState>();
  if (state.composed) {
    GatherStrided(*inputs[0], state.view.offset, state.view.strides, outputs[0],
                  context.compute.pool);
    return;
  }
  const Tensor* previous = inputs[0];
  for (size_t k = 0; k < links_.size(); ++k) {
    InputTensors& link_inputs = state.link_inputs[k];
    link_inputs[0] = previous;
    for (size_t i = 0; i < links_[k].other_inputs.size(); ++i) {
      link_inputs[i + 1] = inputs[links_[k].other_inputs[i]];
    }
    OutputTensors& link_outputs = state.link_output_lists[k];
    link_outputs[0] = k + 1 < links_.size() ? &state.link_outputs[k] : outputs[0];
    ForwardContext link_context;
    link_context.compute = context.compute;
    link_context.state = state.link_states[k].get();
    links_[k].layer->Forward(link_inputs, link_outputs, link_context);
    previous = link_outputs[0];
  }
}

std::unique_ptr<Layer> MakeViewChain(const LayerConfig& config, std::vector<ViewChainLink> links) {
  return std::make_unique<ViewChain>(config, std::move(links));
}

}  // namespace lumen
