#include "onnx_graph_builder.hpp"

#include <cmath>
#include <cstdio>

#include "graph/topological_order.hpp"
#include "lumen/error.hpp"
#include "onnx/onnx_reader.hpp"

namespace lumen {
namespace onnx {

using lumen_onnx_proto::AttributeProto;
using lumen_onnx_proto::GraphProto;
using lumen_onnx_proto::ModelProto;
using lumen_onnx_proto::NodeProto;
using lumen_onnx_proto::ValueInfoProto;

namespace {

// The dims a ValueInfoProto declares (-1 for a symbolic or missing extent), or empty when it
// declares no shape.
bool DeclaredDims(const ValueInfoProto& value, std::vector<int64_t>* dims) {
  if (!value.has_type() || !value.type().has_tensor_type() ||
      !value.type().tensor_type().has_shape()) {
    return false;
  }
  dims->clear();
  for (const auto& dimension : value.type().tensor_type().shape().dim()) {
    dims->push_back(dimension.has_dim_value() && dimension.dim_value() >= 0 ? dimension.dim_value()
                                                                            : -1);
  }
  return true;
}

// Fills what `value` declares of a graph input or output into `operand`: its dims (-1 for a free
// extent) and its element type; and the names of its symbolic extents (dim_param) into
// `dim_names`.
void DescribeAsDeclared(const ValueInfoProto& value, Operand* operand,
                        std::vector<std::string>* dim_names) {
  operand->type = ToDataType(value.type().tensor_type().elem_type());
  std::vector<int64_t> dims;
  if (!DeclaredDims(value, &dims)) return;
  operand->shape.clear();
  for (int64_t extent : dims) {
    operand->shape.push_back(extent > INT32_MAX ? -1 : static_cast<int>(extent));
  }
  dim_names->clear();
  for (const auto& dimension : value.type().tensor_type().shape().dim()) {
    dim_names->push_back(dimension.has_dim_param() ? dimension.dim_param() : "");
  }
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

}  // namespace

GraphBuilder::GraphBuilder(const ModelProto& model, std::string source, std::string model_folder)
    : model_(model),
      graph_proto_(model.graph()),
      source_(std::move(source)),
      model_folder_(std::move(model_folder)) {
  graph_.source = source_;
}

Graph GraphBuilder::Build() {
  if (!model_.has_graph()) throw Error(Concat(source_, ": the ONNX model has no graph"));
  ReadOpset();
  ReadDeclaredShapes();
  ReadInitializersAndInputs();
  const std::vector<size_t> order = OrderNodes();
  RefuseUnsupportedOps();
  for (size_t index : order) ConvertNode(index);
  node_ = nullptr;
  ResolveOutputs();
  return std::move(graph_);
}

void GraphBuilder::ReadOpset() {
  for (const auto& opset : model_.opset_import()) {
    if (IsDefaultDomain(opset.domain())) opset_ = static_cast<int>(opset.version());
  }
  if (opset_ == 0) throw Error(Concat(source_, ": the model imports no ONNX (ai.onnx) opset"));
  if (opset_ < kOldestOnnxOpset || opset_ > kNewestOnnxOpset) {
    throw Error(Concat(source_, ": ONNX opset ", opset_, " is not supported (Lumen reads opsets ",
                       kOldestOnnxOpset, " to ", kNewestOnnxOpset, ")"));
  }
}

void GraphBuilder::ReadDeclaredShapes() {
  std::vector<int64_t> dims;
  for (const auto* list :
       {&graph_proto_.input(), &graph_proto_.value_info(), &graph_proto_.output()}) {
    for (const ValueInfoProto& value : *list) {
      if (DeclaredDims(value, &dims)) declared_dims_[value.name()] = dims;
    }
  }
}

void GraphBuilder::ReadInitializersAndInputs() {
  for (const auto& initializer : graph_proto_.initializer()) {
    const std::string where = Concat(source_, ": initializer '", initializer.name(), "'");
    if (initializer.name().empty()) throw Error(Concat(source_, ": an initializer has no name"));
    if (!constants_.emplace(initializer.name(), ReadTensorProto(initializer, model_folder_, where))
             .second) {
      throw Error(Concat(where, " is defined twice"));
    }
  }
  // Graph inputs that are also initializers are weights with a default (IR < 4 lists every
  // weight as an input): they are not inputs the caller passes.
  for (const ValueInfoProto& input : graph_proto_.input()) {
    if (constants_.count(input.name())) continue;
    const std::string where = Concat(source_, ": graph input '", input.name(), "'");
    if (input.name().empty()) throw Error(Concat(source_, ": a graph input has no name"));
    const int32_t type = input.type().tensor_type().elem_type();
    if (!IsFloatingType(type)) {
      throw Error(Concat(where, " has element type ", ElementTypeName(type),
                         "; Lumen's inputs are floating-point tensors"));
    }
    if (!graph_inputs_.insert(input.name()).second) throw Error(Concat(where, " is listed twice"));
    Operand operand;
    operand.name = input.name();
    DescribeAsDeclared(input, &operand, &graph_.dim_names[input.name()]);
    graph_.operands.push_back(operand);
    operand_names_.insert(input.name());
    graph_.input_names.push_back(input.name());
    runtime_[input.name()] = input.name();
  }
  if (graph_.input_names.empty()) throw Error(Concat(source_, ": the graph has no inputs"));
  if (graph_proto_.output_size() == 0) throw Error(Concat(source_, ": the graph has no outputs"));
}

std::vector<size_t> GraphBuilder::OrderNodes() const {
  // Kahn's algorithm over value names: the ONNX standard requires nodes in order, but a reader
  // that sorts accepts more files and finds cycles and missing inputs with one walk.
  const size_t count = static_cast<size_t>(graph_proto_.node_size());
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < count; ++i) {
    const NodeProto& proto = graph_proto_.node(static_cast<int>(i));
    for (const std::string& output : proto.output()) {
      if (output.empty()) continue;
      const std::string name = proto.name().empty() ? proto.op_type() : proto.name();
      if (constants_.count(output) || graph_inputs_.count(output) ||
          !producer.emplace(output, i).second) {
        throw Error(Concat(source_, ": value '", output, "' is produced twice (again by node '",
                           name, "' (", proto.op_type(), "))"));
      }
    }
  }
  std::vector<std::vector<size_t>> waits_for(count);
  for (size_t i = 0; i < count; ++i) {
    const NodeProto& proto = graph_proto_.node(static_cast<int>(i));
    for (const std::string& input : proto.input()) {
      if (input.empty() || constants_.count(input) || graph_inputs_.count(input)) continue;
      const auto found = producer.find(input);
      if (found == producer.end()) {
        throw Error(Concat(source_, ": node '", proto.name(), "' (", proto.op_type(), ") reads '",
                           input, "', which no node, initializer or graph input produces"));
      }
      waits_for[i].push_back(found->second);
    }
  }
  const TopologicalOrder sorted = OrderTopologically(waits_for);
  if (!sorted.stuck.empty()) {
    std::string stuck;
    for (size_t i = 0; i < sorted.stuck.size() && i < 10; ++i) {
      const NodeProto& proto = graph_proto_.node(static_cast<int>(sorted.stuck[i]));
      stuck += Concat("\n  '", proto.name(), "' (", proto.op_type(), ")");
    }
    throw Error(Concat(source_, ": the graph has a cycle; these nodes can never run:", stuck));
  }
  for (const ValueInfoProto& output : graph_proto_.output()) {
    if (!producer.count(output.name()) && !constants_.count(output.name()) &&
        !graph_inputs_.count(output.name())) {
      throw Error(Concat(source_, ": graph output '", output.name(), "' is never produced"));
    }
  }
  return sorted.order;
}

void GraphBuilder::RefuseUnsupportedOps() const {
  // Every unsupported op at once: a user converting a new model wants the whole list.
  std::string unsupported;
  std::set<std::string> listed;
  for (const NodeProto& proto : graph_proto_.node()) {
    const bool known = IsDefaultDomain(proto.domain()) && SupportedOps().count(proto.op_type());
    const std::string key = proto.domain() + "::" + proto.op_type();
    if (known || !listed.insert(key).second) continue;
    unsupported += Concat("\n  ", proto.op_type(),
                          proto.domain().empty() ? "" : Concat(" (domain ", proto.domain(), ")"),
                          ", first at node '", proto.name(), "'");
  }
  if (!unsupported.empty()) {
    throw Error(Concat(source_, ": the model uses ONNX ops Lumen does not implement (opset ",
                       opset_, "):", unsupported));
  }
}

void GraphBuilder::ConvertNode(size_t index) {
  node_ = &graph_proto_.node(static_cast<int>(index));
  node_index_ = index;
  nodes_made_ = 0;
  node_name_ = node_->name().empty() ? Concat(node_->op_type(), "_", index) : node_->name();
  CheckOpVersion();
  if (node_->op_type() == "Constant") {
    if (node_->output_size() != 1) Fail("expected one output");
    ConstantTensor value;
    if (const AttributeProto* tensor = FindAttribute(*node_, "value")) {
      value = ReadTensorProto(tensor->t(), model_folder_, Where());
    } else if (const AttributeProto* number = FindAttribute(*node_, "value_float")) {
      value = ConstantTensor::FromDoubles(kFloat, {}, {number->f()});
    } else if (const AttributeProto* numbers = FindAttribute(*node_, "value_floats")) {
      value = ConstantTensor::FromDoubles(
          kFloat, {numbers->floats_size()},
          std::vector<double>(numbers->floats().begin(), numbers->floats().end()));
    } else if (const AttributeProto* integer = FindAttribute(*node_, "value_int")) {
      value = ConstantTensor::FromIntegers({integer->i()});
      value.dims.clear();
    } else if (const AttributeProto* integers = FindAttribute(*node_, "value_ints")) {
      value = ConstantTensor::FromIntegers(
          std::vector<int64_t>(integers->ints().begin(), integers->ints().end()));
    } else {
      Fail("no supported value attribute (value, value_float(s), value_int(s))");
    }
    constants_[node_->output(0)] = std::move(value);
    return;
  }
  // Known inputs only: evaluate now, once (the exporter's shape arithmetic lands here).
  bool all_known = node_->input_size() > 0;
  std::vector<const ConstantTensor*> known;
  for (size_t i = 0; i < InputCount(); ++i) {
    if (!HasInput(i)) {
      known.push_back(nullptr);
    } else if (IsConstantInput(i)) {
      known.push_back(&constants_.at(node_->input(static_cast<int>(i))));
    } else {
      all_known = false;
    }
  }
  std::vector<ConstantTensor> outputs;
  if (all_known && FoldConstantNode(*node_, known, Where(), &outputs)) {
    for (size_t i = 0; i < outputs.size() && i < static_cast<size_t>(node_->output_size()); ++i) {
      constants_[node_->output(static_cast<int>(i))] = std::move(outputs[i]);
    }
    return;
  }
  // Anything else becomes layers, the shape arithmetic on run-time values included (Shape, the
  // Gather, Concat, Mul, ... that follow it): a session computes those when it plans, from the
  // shapes it is given, so that one model runs at every size.
  MapOperator();
  NoteIntegerOutputs();
}

void GraphBuilder::NoteIntegerOutputs() {
  static const std::set<std::string> always_integer = {
      "Shape",   "Size",        "ArgMax",         "ArgMin", "NonZero", "Equal", "Less",
      "Greater", "LessOrEqual", "GreaterOrEqual", "Not",    "And",     "Or",    "Xor"};
  const std::string& op = node_->op_type();
  bool integer = always_integer.count(op) > 0;
  if (op == "Cast") {
    integer = !IsFloatingType(static_cast<int32_t>(Int("to", kFloat)));
  } else if (op == "ConstantOfShape") {
    const AttributeProto* value = FindAttribute(*node_, "value");
    integer = value != nullptr && !IsFloatingType(value->t().data_type());
  } else if (!integer) {
    // The other ops keep their data's type (ONNX requires one type across a Mul's or a Concat's
    // inputs; Where's data is its inputs 1 and 2).
    const size_t data = op == "Where" ? 1 : 0;
    integer = IsIntegerInput(data);
  }
  if (!integer) return;
  for (const std::string& output : node_->output()) integer_values_.insert(output);
}

bool GraphBuilder::IsIntegerInput(size_t index) const {
  if (!HasInput(index)) return false;
  const std::string& name = node_->input(static_cast<int>(index));
  const auto constant = constants_.find(name);
  if (constant != constants_.end()) return !IsFloatingType(constant->second.type);
  return integer_values_.count(name) > 0;
}

void GraphBuilder::ResolveOutputs() {
  for (const ValueInfoProto& output : graph_proto_.output()) {
    const std::string& name = output.name();
    const auto constant = constants_.find(name);
    if (constant != constants_.end() && !runtime_.count(name)) {
      // A graph output known when loading: a node that writes the constant.
      node_name_ = name;
      nodes_made_ = 0;
      Node node = MakeNode("pnnx.Attribute", {}, {name});
      node.attributes["data"] =
          ToAttribute(constant->second, Concat(source_, ": output '", name, "'"));
      Emit(std::move(node));
      graph_.output_names.push_back(name);
      continue;
    }
    const auto runtime = runtime_.find(name);
    if (runtime == runtime_.end()) {
      throw Error(Concat(source_, ": graph output '", name, "' is never computed"));
    }
    if (runtime->second != name) {
      // An output that is another value (after Identity, Dropout): copy it, so
      // that the output has its own operand with the file's name.
      node_name_ = name;
      nodes_made_ = 0;
      EmitExpressionOf("identity(@0)", {runtime->second}, name);
    }
    graph_.output_names.push_back(name);
  }
  // Each output's operand says what the file declares of it (Model::outputs).
  for (const ValueInfoProto& output : graph_proto_.output()) {
    for (Operand& operand : graph_.operands) {
      if (operand.name == output.name()) {
        DescribeAsDeclared(output, &operand, &graph_.dim_names[output.name()]);
      }
    }
  }
}

std::string GraphBuilder::Where() const {
  if (node_ == nullptr) return source_;
  return Concat(source_, ": node '", node_name_, "' (", node_->op_type(), ", opset ", opset_, ")");
}

void GraphBuilder::Fail(const std::string& message) const {
  throw Error(Concat(Where(), ": ", message));
}

bool GraphBuilder::HasInput(size_t index) const {
  return index < InputCount() && !node_->input(static_cast<int>(index)).empty();
}

bool GraphBuilder::IsConstantInput(size_t index) const {
  return HasInput(index) && constants_.count(node_->input(static_cast<int>(index))) > 0;
}

const ConstantTensor& GraphBuilder::ConstantInput(size_t index, const std::string& role) const {
  if (!HasInput(index)) Fail(Concat("the ", role, " (input ", index, ") is missing"));
  const auto found = constants_.find(node_->input(static_cast<int>(index)));
  if (found == constants_.end()) {
    Fail(Concat("the ", role, " (input ", index, ", '", node_->input(static_cast<int>(index)),
                "') must be known when loading (an initializer, a Constant or shape "
                "arithmetic), not computed at run time"));
  }
  return found->second;
}

std::string GraphBuilder::RuntimeInput(size_t index) {
  if (!HasInput(index)) Fail(Concat("input ", index, " is missing"));
  const std::string& name = node_->input(static_cast<int>(index));
  const auto runtime = runtime_.find(name);
  if (runtime != runtime_.end()) return runtime->second;
  const auto made = materialized_.find(name);
  if (made != materialized_.end()) return made->second;
  const ConstantTensor& value = constants_.at(name);
  const std::string operand = NewOperandName(name);
  Node node = MakeNode("pnnx.Attribute", {}, {operand});
  node.attributes["data"] = ToAttribute(value, Concat(Where(), ": input '", name, "'"));
  Emit(std::move(node));
  materialized_[name] = operand;
  return operand;
}

std::vector<std::string> GraphBuilder::RuntimeInputs(size_t count) {
  std::vector<std::string> operands;
  for (size_t index = 0; index < count; ++index) operands.push_back(RuntimeInput(index));
  return operands;
}

std::vector<int64_t> GraphBuilder::InputDims(size_t index) const {
  if (!HasInput(index)) return {};
  const std::string& name = node_->input(static_cast<int>(index));
  const auto constant = constants_.find(name);
  if (constant != constants_.end()) return constant->second.dims;
  // A graph input's declared dims (its rank, at least, holds at every size); never another
  // value's, which shape inference wrote for the export's sizes.
  const auto declared = declared_dims_.find(name);
  if (!graph_inputs_.count(name) || declared == declared_dims_.end()) return {};
  return declared->second;
}

int GraphBuilder::InputRank(size_t index) const {
  if (!HasInput(index)) return -1;
  const std::string& name = node_->input(static_cast<int>(index));
  if (constants_.count(name) || (graph_inputs_.count(name) && declared_dims_.count(name))) {
    return static_cast<int>(InputDims(index).size());
  }
  return -1;
}

int GraphBuilder::RequireInputRank(size_t index, const std::string& why) const {
  if (!HasInput(index)) Fail(Concat("input ", index, " is missing"));
  const int rank = InputRank(index);
  if (rank < 0) {
    Fail(Concat("the rank of '", node_->input(static_cast<int>(index)), "' is needed ", why,
                ", and Lumen knows it when loading only for graph inputs and constants"));
  }
  return rank;
}

int64_t GraphBuilder::Int(const std::string& name, int64_t fallback) const {
  return IntAttribute(*node_, name, fallback, Where());
}

float GraphBuilder::Float(const std::string& name, float fallback) const {
  return FloatAttribute(*node_, name, fallback, Where());
}

std::string GraphBuilder::String(const std::string& name, const std::string& fallback) const {
  return StringAttribute(*node_, name, fallback, Where());
}

std::vector<int64_t> GraphBuilder::Ints(const std::string& name,
                                        const std::vector<int64_t>& fallback) const {
  return IntsAttribute(*node_, name, fallback, Where());
}

Node GraphBuilder::MakeNode(const std::string& type, const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs) {
  Node node;
  node.type = type;
  node.name = nodes_made_ == 0 ? node_name_ : Concat(node_name_, "#", nodes_made_);
  ++nodes_made_;
  node.line = static_cast<int>(node_index_) + 1;
  node.input_names = inputs;
  node.output_names = outputs;
  return node;
}

void GraphBuilder::Emit(Node node) {
  for (const std::string& name : node.output_names) {
    if (!operand_names_.insert(name).second) {
      throw Error(Concat(Where(), ": operand '", name, "' is produced twice"));
    }
    Operand operand;
    operand.name = name;
    operand.type = DataType::kFloat32;
    const auto declared = declared_dims_.find(name);
    if (declared != declared_dims_.end()) {
      for (int64_t extent : declared->second) {
        operand.shape.push_back(extent > INT32_MAX ? -1 : static_cast<int>(extent));
      }
    }
    graph_.operands.push_back(std::move(operand));
  }
  graph_.nodes.push_back(std::move(node));
}

void GraphBuilder::EmitOutput(Node node) {
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

std::string GraphBuilder::NewOperandName(const std::string& base) {
  for (int suffix = 1;; ++suffix) {
    std::string name = Concat(base, "#", suffix);
    if (!operand_names_.count(name) && !constants_.count(name) && !runtime_.count(name)) {
      return name;
    }
  }
}

void GraphBuilder::SetRuntimeOutput(size_t index, const std::string& operand) {
  if (index >= static_cast<size_t>(node_->output_size())) return;
  const std::string& name = node_->output(static_cast<int>(index));
  if (!name.empty()) runtime_[name] = operand;
}

const std::string& GraphBuilder::OutputName(size_t index) const {
  if (index >= static_cast<size_t>(node_->output_size()) ||
      node_->output(static_cast<int>(index)).empty()) {
    Fail(Concat("output ", index, " is missing"));
  }
  return node_->output(static_cast<int>(index));
}

std::string GraphBuilder::NumberText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[40];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

void GraphBuilder::EmitExpression(const std::string& pattern, const std::vector<size_t>& inputs) {
  // Scalars known when loading are written into the text; other inputs become @k.
  int runtime_rank = -1;
  for (size_t input : inputs) {
    if (!IsConstantInput(input)) runtime_rank = std::max(runtime_rank, InputRank(input));
  }
  std::vector<std::string> operands;
  std::vector<std::string> texts;
  for (size_t input : inputs) {
    if (IsConstantInput(input)) {
      const ConstantTensor& value = constants_.at(node_->input(static_cast<int>(input)));
      // A one-element constant of rank r only broadcasts as a number if r is at most the
      // rank of the result.
      // Unknown ranks (-1) take only rank-0 constants inline.
      const int rank = static_cast<int>(value.dims.size());
      if (value.size() == 1 && (rank == 0 || (runtime_rank >= 1 && rank <= runtime_rank))) {
        texts.push_back(NumberText(value.At(0)));
        continue;
      }
    }
    texts.push_back(Concat("@", operands.size()));
    operands.push_back(RuntimeInput(input));
  }
  std::string expression;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{') {
      const size_t close = pattern.find('}', i);
      expression += texts[static_cast<size_t>(std::stoi(pattern.substr(i + 1, close - i - 1)))];
      i = close;
    } else {
      expression += pattern[i];
    }
  }
  if (operands.empty()) {
    Fail("every input is known when loading, but this op cannot be evaluated then");
  }
  EmitExpressionOf(expression, operands, OutputName(0));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::EmitExpressionOf(const std::string& expression,
                                    const std::vector<std::string>& inputs,
                                    const std::string& output) {
  Node node = MakeNode("pnnx.Expression", inputs, {output});
  node.params["expr"] = Parameter::FromString(expression);
  Emit(std::move(node));
}

}  // namespace onnx
}  // namespace lumen
