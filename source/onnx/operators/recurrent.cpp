// ONNX LSTM, GRU and RNN onto nn.LSTM / nn.GRU / nn.RNN: one ONNX node is one layer of one or two
// directions (torch.onnx.export writes num_layers > 1 as stacked nodes). What differs from
// PyTorch is rearranged here, once, when the model is built:
//   - the gate order: ONNX stacks LSTM gates as i, o, f, c and GRU gates as z, r, h; PyTorch as
//     i, f, g, o and r, z, n;
//   - the biases: ONNX's B is [Wb; Rb] per direction, PyTorch's bias_ih and bias_hh;
//   - the output Y: ONNX's is (L, D, N, H), the layer's (L, N, D*H).
// The layer computes PyTorch's GRU, whose candidate gate is tanh(W_n x + b_in + r (R_n h + b_hn)):
// ONNX's linear_before_reset=1, which is what PyTorch exports; linear_before_reset=0 is refused.
#include <algorithm>
#include <cctype>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

using lumen_onnx_proto::NodeProto;

namespace {

// For each PyTorch gate, the ONNX gate that holds it.
std::vector<int> OnnxGateOfTorchGate(const std::string& op) {
  if (op == "LSTM") return {0, 2, 3, 1};  // i f g o  <-  i o f c
  if (op == "GRU") return {1, 0, 2};      // r z n    <-  z r h
  return {0};
}

// Direction `direction` of a (D, G*H, K) weight, gates reordered to PyTorch's: a (G*H, K) weight.
ConstantTensor GateRows(const ConstantTensor& stacked, int64_t direction, int64_t hidden,
                        const std::vector<int>& gate_order) {
  const std::vector<float> values = stacked.Floats();
  const int64_t gates = static_cast<int64_t>(gate_order.size());
  const int64_t columns = stacked.dims[2];
  ConstantTensor result;
  result.type = kFloat;
  result.dims = {gates * hidden, columns};
  result.floats.reserve(static_cast<size_t>(gates * hidden * columns));
  for (int64_t gate = 0; gate < gates; ++gate) {
    const int64_t source_gate = gate_order[static_cast<size_t>(gate)];
    for (int64_t unit = 0; unit < hidden; ++unit) {
      const int64_t row = (direction * gates + source_gate) * hidden + unit;
      const auto begin = values.begin() + row * columns;
      result.floats.insert(result.floats.end(), begin, begin + columns);
    }
  }
  return result;
}

// The ONNX activation name in the case the spec writes it ("Tanh"), for comparisons.
std::string Canonical(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

bool IsAllZero(const ConstantTensor& tensor) {
  for (size_t i = 0; i < tensor.size(); ++i) {
    if (tensor.At(i) != 0.0) return false;
  }
  return true;
}

// Refuses what PyTorch's recurrent layers do not compute (direction reverse, layout 1, clip,
// ...) and returns the number of directions, 1 or 2.
int64_t SupportedDirections(const NodeProto& node, const std::string& where) {
  const std::string& op = node.op_type();
  const auto fail = [&](const std::string& message) { throw Error(Concat(where, ": ", message)); };
  const std::string direction = StringAttribute(node, "direction", "forward", where);
  if (direction != "forward" && direction != "bidirectional") {
    fail(Concat("direction '", direction,
                "' is not supported (only forward and bidirectional, as PyTorch has them)"));
  }
  if (IntAttribute(node, "layout", 0, where) != 0) {
    fail("layout=1 (batch first) is not supported, only layout=0");
  }
  if (FindAttribute(node, "clip") != nullptr) fail("clip is not supported");
  if (FindAttribute(node, "activation_alpha") != nullptr ||
      FindAttribute(node, "activation_beta") != nullptr) {
    fail("activation_alpha and activation_beta are not supported");
  }
  if (op == "LSTM" && IntAttribute(node, "input_forget", 0, where) != 0) {
    fail("input_forget=1 is not supported");
  }
  if (op == "GRU" && IntAttribute(node, "linear_before_reset", 0, where) == 0) {
    fail(
        "linear_before_reset=0 is not supported: Lumen's GRU applies the reset gate after the "
        "recurrent product, as PyTorch does (it exports linear_before_reset=1)");
  }
  return direction == "bidirectional" ? 2 : 1;
}

// The simple RNN's nonlinearity ("tanh" or "relu"; "tanh" for LSTM and GRU). Per direction,
// ONNX's default activations are the only ones PyTorch has, except the simple RNN's Tanh or Relu:
// any other is refused.
std::string Nonlinearity(const NodeProto& node, int64_t directions, const std::string& where) {
  const std::string& op = node.op_type();
  const auto fail = [&](const std::string& message) { throw Error(Concat(where, ": ", message)); };
  std::vector<std::string> defaults;
  if (op == "LSTM") defaults = {"sigmoid", "tanh", "tanh"};
  if (op == "GRU") defaults = {"sigmoid", "tanh"};
  if (op == "RNN") defaults = {"tanh"};
  std::string nonlinearity = "tanh";
  const auto* activations = FindAttribute(node, "activations");
  if (activations == nullptr) return nonlinearity;
  const size_t per_direction = defaults.size();
  if (static_cast<size_t>(activations->strings_size()) != per_direction * directions) {
    fail(Concat("expected ", per_direction * directions, " activations, got ",
                activations->strings_size()));
  }
  for (int i = 0; i < activations->strings_size(); ++i) {
    const std::string name = Canonical(activations->strings(i));
    const std::string& expected = defaults[static_cast<size_t>(i) % per_direction];
    if (op == "RNN") {
      if (name != "tanh" && name != "relu") {
        fail(Concat("activation '", activations->strings(i),
                    "' is not supported (only Tanh and Relu)"));
      }
      if (i > 0 && name != nonlinearity) fail("the two directions' activations differ");
      nonlinearity = name;
    } else if (name != expected) {
      fail(Concat("activation '", activations->strings(i), "' in place ", i,
                  " is not supported (only ONNX's defaults, which PyTorch computes)"));
    }
  }
  return nonlinearity;
}

// Direction `direction` of ONNX's bias B ((D, 2*G*H): per direction [Wb; Rb]) as PyTorch's
// bias_ih and bias_hh, gates reordered.
void SplitBias(const std::vector<float>& b, int64_t direction, int64_t hidden,
               const std::vector<int>& gate_order, ConstantTensor* input_bias,
               ConstantTensor* hidden_bias) {
  const int64_t gates = static_cast<int64_t>(gate_order.size());
  input_bias->type = hidden_bias->type = kFloat;
  input_bias->dims = hidden_bias->dims = {gates * hidden};
  const size_t base = static_cast<size_t>(direction * 2 * gates * hidden);
  for (int64_t gate = 0; gate < gates; ++gate) {
    const int64_t source = gate_order[static_cast<size_t>(gate)];
    for (int64_t unit = 0; unit < hidden; ++unit) {
      const size_t offset = base + static_cast<size_t>(source * hidden + unit);
      input_bias->floats.push_back(b[offset]);
      hidden_bias->floats.push_back(b[offset + static_cast<size_t>(gates * hidden)]);
    }
  }
}

}  // namespace

void GraphBuilder::MapRecurrent() {
  const std::string& op = node().op_type();
  const bool lstm = op == "LSTM";
  const std::vector<int> gate_order = OnnxGateOfTorchGate(op);
  const int64_t gates = static_cast<int64_t>(gate_order.size());

  const int64_t directions = SupportedDirections(node(), Where());
  const std::string nonlinearity = Nonlinearity(node(), directions, Where());

  const ConstantTensor& w = ConstantInput(1, "weight W");
  const ConstantTensor& r = ConstantInput(2, "recurrence weight R");
  if (w.dims.size() != 3 || r.dims.size() != 3 || w.dims[0] != directions ||
      r.dims[0] != directions || r.dims[1] != gates * r.dims[2] || w.dims[1] != r.dims[1]) {
    Fail(Concat("W ", w.Describe(), " and R ", r.Describe(), " must be (", directions, ", ", gates,
                "*H, input_size) and (", directions, ", ", gates, "*H, H)"));
  }
  const int64_t hidden = r.dims[2];
  const int64_t input_size = w.dims[2];
  if (hidden < 1 || input_size < 1) Fail("the hidden and input sizes must be positive");
  if (Int("hidden_size", hidden) != hidden) Fail("hidden_size disagrees with R");
  const bool bias = HasInput(3);
  if (bias) {
    const ConstantTensor& b = ConstantInput(3, "bias B");
    if (b.dims != std::vector<int64_t>{directions, 2 * gates * hidden}) {
      Fail(Concat("B ", b.Describe(), " must be (", directions, ", ", 2 * gates * hidden, ")"));
    }
  }
  if (HasInput(4)) {
    Fail(
        "sequence_lens is not supported (every sequence of the batch must have the input's "
        "length)");
  }
  if (lstm && HasInput(7) && !IsAllZero(ConstantInput(7, "peephole weights P"))) {
    Fail("peephole weights (P) are not supported");
  }

  const size_t state_count = lstm ? 2 : 1;
  const std::vector<std::string> inputs = RecurrentInputs(state_count);

  const std::string y_onnx =
      node().output_size() > 0 && !node().output(0).empty() ? node().output(0) : "";
  const std::string y = NewOperandName(y_onnx.empty() ? node_name_ : y_onnx);
  std::vector<std::string> outputs = {y};
  const size_t wanted_outputs = std::min<size_t>(node().output_size(), 1 + state_count);
  for (size_t i = 1; i < wanted_outputs; ++i) {
    outputs.push_back(node().output(static_cast<int>(i)).empty()
                          ? NewOperandName(Concat(node_name_, ":", i))
                          : node().output(static_cast<int>(i)));
  }
  // Unused trailing outputs are dropped: a layer computes only what it is asked for.
  while (outputs.size() > 1 && node().output(static_cast<int>(outputs.size() - 1)).empty()) {
    outputs.pop_back();
  }

  const std::string type = lstm ? "nn.LSTM" : op == "GRU" ? "nn.GRU" : "nn.RNN";
  Node layer = MakeNode(type, inputs, outputs);
  layer.params["input_size"] = Parameter::FromInt(static_cast<int>(input_size));
  layer.params["hidden_size"] = Parameter::FromInt(static_cast<int>(hidden));
  layer.params["num_layers"] = Parameter::FromInt(1);
  layer.params["bidirectional"] = Parameter::FromBool(directions == 2);
  layer.params["batch_first"] = Parameter::FromBool(false);
  layer.params["bias"] = Parameter::FromBool(bias);
  if (op == "RNN") layer.params["nonlinearity"] = Parameter::FromString(nonlinearity);
  for (int64_t d = 0; d < directions; ++d) {
    const std::string suffix = d == 1 ? "_l0_reverse" : "_l0";
    layer.attributes["weight_ih" + suffix] =
        ToAttribute(GateRows(w, d, hidden, gate_order), Where());
    layer.attributes["weight_hh" + suffix] =
        ToAttribute(GateRows(r, d, hidden, gate_order), Where());
    if (bias) {
      ConstantTensor input_bias;
      ConstantTensor hidden_bias;
      SplitBias(ConstantInput(3, "bias B").Floats(), d, hidden, gate_order, &input_bias,
                &hidden_bias);
      layer.attributes["bias_ih" + suffix] = ToAttribute(input_bias, Where());
      layer.attributes["bias_hh" + suffix] = ToAttribute(hidden_bias, Where());
    }
  }
  Emit(std::move(layer));
  for (size_t i = 1; i < outputs.size(); ++i) SetRuntimeOutput(i, outputs[i]);

  if (!y_onnx.empty()) EmitOnnxRecurrentOutput(y, y_onnx, directions);
}

// Initial states: zeros, which is what the exporter writes when the PyTorch module got none (as
// an Expand of 0 to a shape computed from the input), are the layer's default; leaving them out
// lets the model follow a new batch size.
std::vector<std::string> GraphBuilder::RecurrentInputs(size_t state_count) {
  std::vector<size_t> state_inputs;
  for (size_t i = 0; i < state_count; ++i) {
    const size_t index = 5 + i;
    if (HasInput(index) && !(IsConstantInput(index) && IsAllZero(ConstantInput(index, "state")))) {
      state_inputs.push_back(index);
    }
  }
  std::vector<std::string> inputs = {RuntimeInput(0)};
  if (!state_inputs.empty()) {
    for (size_t i = 0; i < state_count; ++i) {
      const size_t index = 5 + i;
      if (!HasInput(index)) {
        Fail(Concat("initial_h and initial_c must both be given or both be left out (",
                    index == 5 ? "initial_h" : "initial_c", " is missing)"));
      }
      inputs.push_back(RuntimeInput(index));
    }
  }
  return inputs;
}

// (L, N, D*H) -> ONNX's (L, D, N, H): one direction gains an axis; two are split and stacked.
void GraphBuilder::EmitOnnxRecurrentOutput(const std::string& y, const std::string& y_onnx,
                                           int64_t directions) {
  if (directions == 1) {
    Node unsqueeze = MakeNode("torch.unsqueeze", {y}, {y_onnx});
    unsqueeze.params["dim"] = Parameter::FromInt(1);
    Emit(std::move(unsqueeze));
  } else {
    const std::string forward = NewOperandName(y_onnx);
    const std::string backward = NewOperandName(Concat(y_onnx, ":reverse"));
    Node chunk = MakeNode("torch.chunk", {y}, {forward, backward});
    chunk.params["chunks"] = Parameter::FromInt(2);
    chunk.params["dim"] = Parameter::FromInt(-1);
    Emit(std::move(chunk));
    Node stack = MakeNode("torch.stack", {forward, backward}, {y_onnx});
    stack.params["dim"] = Parameter::FromInt(1);
    Emit(std::move(stack));
  }
  SetRuntimeOutput(0, y_onnx);
}

}  // namespace onnx
}  // namespace lumen
