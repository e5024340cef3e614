// Gated activations: x * sigmoid(x) becomes nn.SiLU, x * hardsigmoid(x) becomes nn.Hardswish.
//
// Matches a step that multiplies its two inputs (Layer::MultipliesItsTwoInputs: pnnx.Expression
// mul(@0,@1), which is also what the ONNX reader makes of Mul) when one factor is the output of a
// sigmoid or hardsigmoid (Layer::ElementwiseActivation, whatever its spelling: nn.Sigmoid,
// F.sigmoid, torch.sigmoid, Tensor.sigmoid, ONNX Sigmoid) of the other factor, and that product is
// the gate's only reader. The product becomes one activation layer reading x, and the gate's step
// disappears: one pass over memory instead of two, and the activation can then fuse into the layer
// before it (activation_fusion.cpp). torch.onnx.export writes nn.SiLU this way (and nn.Hardswish
// before opset 14), and so does a model that spells the product out where pnnx does not fuse it.
//
// Leaves alone: a gate that anything else reads too, or that is a graph output (it must still be
// computed); a gate of another operand than the other factor (squeeze-and-excitation's
// x * hardsigmoid(pool(x))); other activations as gates; products with anything more in them
// (mul(@0,2), add(mul(@0,@1),@2)) or of one operand with itself.
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace {

// The op whose layer computes x * gate(x), for each gate that has one.
struct GatedForm {
  Activation::Kind gate;
  const char* type;
};
constexpr GatedForm kGatedForms[] = {{Activation::Kind::kSigmoid, "nn.SiLU"},
                                     {Activation::Kind::kHardsigmoid, "nn.Hardswish"}};

// The op type computing x * gate(x), or null when `gate` has none.
const char* GatedType(const Activation& gate) {
  for (const GatedForm& form : kGatedForms) {
    if (form.gate == gate.kind) return form.type;
  }
  return nullptr;
}

// The layer of op `type` that takes the place of `product`, under its name.
std::unique_ptr<Layer> MakeGatedLayer(const char* type, const LayerGraph::Step& product,
                                      const LayerGraph& graph) {
  Node node;
  node.type = type;
  node.name = product.name;
  node.input_names = {graph.operands[static_cast<size_t>(product.inputs[0])].name};
  node.output_names = {graph.operands[static_cast<size_t>(product.outputs[0])].name};
  return LayerRegistry::Create(LayerConfig(node));
}

}  // namespace

int FuseGatedActivations(LayerGraph* graph) {
  const std::vector<int> sole_readers = graph->SoleReaders();
  int fused = 0;
  for (size_t index = 0; index < graph->steps.size(); ++index) {
    LayerGraph::Step& product = graph->steps[index];
    if (product.inputs.size() != 2 || product.outputs.size() != 1 ||
        !product.layer->MultipliesItsTwoInputs()) {
      continue;
    }
    for (size_t k = 0; k < 2; ++k) {
      const int gate = product.inputs[k];
      const int x = product.inputs[1 - k];
      const int gate_step = graph->operands[static_cast<size_t>(gate)].producer;
      if (gate_step < 0 || sole_readers[static_cast<size_t>(gate)] != static_cast<int>(index)) {
        continue;
      }
      const LayerGraph::Step& activation = graph->steps[static_cast<size_t>(gate_step)];
      const Activation* function = activation.layer->ElementwiseActivation();
      const char* type = function == nullptr ? nullptr : GatedType(*function);
      if (type == nullptr || activation.inputs != std::vector<int>{x}) continue;
      product.inputs = {x};
      product.ReplaceLayer(MakeGatedLayer(type, product, *graph));
      graph->operands[static_cast<size_t>(gate)].fused_into = product.description;
      graph->steps[static_cast<size_t>(gate_step)].removed = true;
      ++fused;
      break;
    }
  }
  graph->DropRemovedSteps();
  return fused;
}

}  // namespace lumen
