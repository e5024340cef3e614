// Load-time evaluation of ONNX nodes, one small function per op (Fold<Op>) and one table from op
// type to function. Every value is computed as a double and stored as its tensor's element type:
// shape arithmetic stays exact in int64, and what a file makes the reader compute is capped at
// kMaxComputedElements.
#include "onnx/constant_folding.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "lumen/error.hpp"

namespace lumen {
namespace onnx {

using lumen_onnx_proto::AttributeProto;
using lumen_onnx_proto::NodeProto;

namespace {

// Row-major strides of `dims`.
std::vector<size_t> StridesOf(const std::vector<int64_t>& dims) {
  std::vector<size_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) {
    strides[i - 1] = strides[i] * static_cast<size_t>(dims[i]);
  }
  return strides;
}

// The element count of a value computed when loading; throws naming `where` above
// kMaxComputedElements.
size_t ComputedElementCount(const std::vector<int64_t>& dims, const std::string& where) {
  const size_t count = ElementCountOf(dims, where);
  if (count > kMaxComputedElements) {
    throw Error(Concat(where, ": evaluating this when loading would make a tensor of ",
                       DimsToString(dims), ", more than the ", kMaxComputedElements,
                       " elements shape arithmetic may compute"));
  }
  return count;
}

// The index into a tensor of `dims` (right-aligned, broadcast) of the output element whose
// row-major coordinates are `coordinates` in `output_dims`.
size_t BroadcastIndex(const std::vector<int64_t>& dims, const std::vector<size_t>& strides,
                      const std::vector<int64_t>& output_dims,
                      const std::vector<int64_t>& coordinates) {
  size_t index = 0;
  const size_t offset = output_dims.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 1) index += static_cast<size_t>(coordinates[i + offset]) * strides[i];
  }
  return index;
}

// NumPy-style broadcast of two shapes; throws lumen::Error naming `where` if they do not
// broadcast.
std::vector<int64_t> BroadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                   const std::string& where) {
  std::vector<int64_t> result(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < result.size(); ++i) {
    const int64_t x = i < result.size() - a.size() ? 1 : a[i - (result.size() - a.size())];
    const int64_t y = i < result.size() - b.size() ? 1 : b[i - (result.size() - b.size())];
    if (x != y && x != 1 && y != 1) {
      throw Error(Concat(where, ": shapes ", DimsToString(a), " and ", DimsToString(b),
                         " do not broadcast"));
    }
    result[i] = x == 1 ? y : x;
  }
  return result;
}

// Applies `function` element-wise over the broadcast of `inputs`, producing `type`.
template <typename Function>
ConstantTensor Elementwise(const std::vector<const ConstantTensor*>& inputs, int32_t type,
                           const std::string& where, Function function) {
  std::vector<int64_t> dims;
  size_t largest_input = 0;
  for (const ConstantTensor* input : inputs) {
    dims = BroadcastDims(dims, input->dims, where);
    largest_input = std::max(largest_input, input->size());
  }
  // Arithmetic on weights makes as many elements as it reads; only broadcasting makes more.
  size_t count = ElementCountOf(dims, where);
  if (count > largest_input) count = ComputedElementCount(dims, where);
  std::vector<std::vector<size_t>> strides;
  for (const ConstantTensor* input : inputs) strides.push_back(StridesOf(input->dims));
  std::vector<double> values(count);
  std::vector<int64_t> coordinates(dims.size(), 0);
  std::vector<double> arguments(inputs.size());
  for (size_t i = 0; i < count; ++i) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      arguments[k] = inputs[k]->At(BroadcastIndex(inputs[k]->dims, strides[k], dims, coordinates));
    }
    values[i] = function(arguments);
    for (size_t axis = dims.size(); axis-- > 0;) {  // next coordinates, row-major
      if (++coordinates[axis] < dims[axis]) break;
      coordinates[axis] = 0;
    }
  }
  return ConstantTensor::FromDoubles(type, dims, values);
}

// An axis in [-rank, rank) made non-negative; throws naming `where` otherwise.
size_t NormalizeAxis(int64_t axis, size_t rank, const std::string& where) {
  const int64_t signed_rank = static_cast<int64_t>(rank);
  if (axis < -signed_rank || axis >= signed_rank) {
    throw Error(Concat(where, ": axis ", axis, " is out of range for rank ", rank));
  }
  return static_cast<size_t>(axis < 0 ? axis + signed_rank : axis);
}

// Elements `[begin, end)` of each row-major block along `axis`: a copy of `input` restricted to
// the given indices along that axis.
ConstantTensor TakeAlongAxis(const ConstantTensor& input, size_t axis,
                             const std::vector<int64_t>& indices, const std::string& where) {
  const std::vector<int64_t>& dims = input.dims;
  std::vector<int64_t> output_dims = dims;
  output_dims[axis] = static_cast<int64_t>(indices.size());
  // Repeated indices can make more elements than the input holds.
  const size_t count = ElementCountOf(output_dims, where);
  if (count > input.size()) ComputedElementCount(output_dims, where);
  // No element: the extents around the axis may still be huge, and the loops below as long.
  if (count == 0) return ConstantTensor::FromDoubles(input.type, output_dims, {});
  size_t outer = 1;
  size_t inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(dims[i]);
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= static_cast<size_t>(dims[i]);
  const size_t extent = static_cast<size_t>(dims[axis]);
  std::vector<double> values;
  values.reserve(outer * indices.size() * inner);
  for (size_t o = 0; o < outer; ++o) {
    for (int64_t index : indices) {
      for (size_t i = 0; i < inner; ++i) {
        values.push_back(input.At((o * extent + static_cast<size_t>(index)) * inner + i));
      }
    }
  }
  return ConstantTensor::FromDoubles(input.type, output_dims, values);
}

// A copy of `input` with other dims of the same element count.
ConstantTensor Reshaped(const ConstantTensor& input, const std::vector<int64_t>& dims) {
  ConstantTensor output = input;
  output.dims = dims;
  return output;
}

// One node being evaluated: its proto, its known inputs, and how messages name it.
struct FoldingNode {
  const NodeProto& proto;
  const std::vector<const ConstantTensor*>& inputs;
  const std::string& where;

  // Input `index`; throws if it is omitted.
  const ConstantTensor& Input(size_t index) const {
    if (index >= inputs.size() || inputs[index] == nullptr) {
      throw Error(Concat(where, ": input ", index, " is missing"));
    }
    return *inputs[index];
  }
  // True if input `index` is given.
  bool HasInput(size_t index) const { return index < inputs.size() && inputs[index] != nullptr; }
  int64_t Int(const std::string& name, int64_t fallback) const {
    return IntAttribute(proto, name, fallback, where);
  }
  std::vector<int64_t> Ints(const std::string& name) const {
    return IntsAttribute(proto, name, {}, where);
  }
  // The axes of Squeeze / Unsqueeze: an input since opset 13, an attribute before.
  std::vector<int64_t> Axes() const { return HasInput(1) ? Input(1).Integers() : Ints("axes"); }
  [[noreturn]] void Fail(const std::string& message) const {
    throw Error(Concat(where, ": ", message));
  }
};

using Arguments = std::vector<double>;

// Binary arithmetic and comparisons, element-wise with broadcasting: integer types keep C++
// integer semantics (Div truncates, and refuses a zero divisor).
const std::map<std::string, double (*)(double, double)>& BinaryFunctions() {
  static const std::map<std::string, double (*)(double, double)> functions = {
      {"Add", [](double a, double b) { return a + b; }},
      {"Sub", [](double a, double b) { return a - b; }},
      {"Mul", [](double a, double b) { return a * b; }},
      {"Div", [](double a, double b) { return a / b; }},
      {"Pow", [](double a, double b) { return std::pow(a, b); }},
      {"Max", [](double a, double b) { return std::max(a, b); }},
      {"Min", [](double a, double b) { return std::min(a, b); }},
      {"Mod", [](double a, double b) { return std::fmod(a, b); }},
      {"Equal", [](double a, double b) { return a == b ? 1.0 : 0.0; }},
      {"Less", [](double a, double b) { return a < b ? 1.0 : 0.0; }},
      {"Greater", [](double a, double b) { return a > b ? 1.0 : 0.0; }},
      {"LessOrEqual", [](double a, double b) { return a <= b ? 1.0 : 0.0; }},
      {"GreaterOrEqual", [](double a, double b) { return a >= b ? 1.0 : 0.0; }},
      {"And", [](double a, double b) { return (a != 0 && b != 0) ? 1.0 : 0.0; }},
      {"Or", [](double a, double b) { return (a != 0 || b != 0) ? 1.0 : 0.0; }},
  };
  return functions;
}

// Unary arithmetic, element-wise.
const std::map<std::string, double (*)(double)>& UnaryFunctions() {
  static const std::map<std::string, double (*)(double)> functions = {
      {"Neg", [](double a) { return -a; }},
      {"Abs", [](double a) { return std::fabs(a); }},
      {"Sqrt", [](double a) { return std::sqrt(a); }},
      {"Floor", [](double a) { return std::floor(a); }},
      {"Ceil", [](double a) { return std::ceil(a); }},
      {"Exp", [](double a) { return std::exp(a); }},
      {"Log", [](double a) { return std::log(a); }},
      {"Reciprocal", [](double a) { return 1.0 / a; }},
      {"Not", [](double a) { return a == 0 ? 1.0 : 0.0; }},
      {"Relu", [](double a) { return std::max(a, 0.0); }},
      {"Sigmoid", [](double a) { return 1.0 / (1.0 + std::exp(-a)); }},
      {"Tanh", [](double a) { return std::tanh(a); }},
  };
  return functions;
}

// The element type of an element-wise op's result: bool for comparisons and logic, else its first
// input's.
int32_t ResultType(const std::string& op, int32_t input_type) {
  static const std::set<std::string> kBoolean = {"Equal",          "Less", "Greater", "LessOrEqual",
                                                 "GreaterOrEqual", "And",  "Or",      "Not"};
  return kBoolean.count(op) ? int32_t{kBool} : input_type;
}

ConstantTensor FoldBinary(const FoldingNode& node) {
  const std::string& op = node.proto.op_type();
  const ConstantTensor& a = node.Input(0);
  const ConstantTensor& b = node.Input(1);
  const bool integral = !IsFloatingType(a.type);
  const auto function = BinaryFunctions().at(op);
  return Elementwise({&a, &b}, ResultType(op, a.type), node.where, [&](const Arguments& x) {
    if (integral && op == "Div") {
      if (x[1] == 0) node.Fail("integer division by zero");
      return std::trunc(x[0] / x[1]);
    }
    return function(x[0], x[1]);
  });
}

ConstantTensor FoldUnary(const FoldingNode& node) {
  const std::string& op = node.proto.op_type();
  const ConstantTensor& a = node.Input(0);
  const auto function = UnaryFunctions().at(op);
  return Elementwise({&a}, ResultType(op, a.type), node.where,
                     [&](const Arguments& x) { return function(x[0]); });
}

ConstantTensor FoldWhere(const FoldingNode& node) {
  return Elementwise({&node.Input(0), &node.Input(1), &node.Input(2)}, node.Input(1).type,
                     node.where, [](const Arguments& x) { return x[0] != 0 ? x[1] : x[2]; });
}

ConstantTensor FoldIdentity(const FoldingNode& node) { return node.Input(0); }

ConstantTensor FoldCast(const FoldingNode& node) {
  const int64_t to = node.Int("to", kFloat);
  if (!IsNumericType(static_cast<int32_t>(to))) {
    node.Fail(Concat("Cast to ", ElementTypeName(static_cast<int32_t>(to)), " is not supported"));
  }
  const ConstantTensor& a = node.Input(0);
  std::vector<double> values(a.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = a.At(i);
  return ConstantTensor::FromDoubles(static_cast<int32_t>(to), a.dims, values);
}

// Shape and Size read only the input's dims.
ConstantTensor FoldShape(const FoldingNode& node) {
  const std::vector<int64_t>& dims = node.Input(0).dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t start = node.Int("start", 0);
  int64_t end = node.Int("end", rank);
  start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);
  end = std::clamp(end < 0 ? end + rank : end, int64_t{0}, rank);
  return ConstantTensor::FromIntegers(
      std::vector<int64_t>(dims.begin() + start, dims.begin() + std::max(start, end)));
}

ConstantTensor FoldSize(const FoldingNode& node) {
  // Counted from the dims, not allocated: a constant's dims may be absurd.
  ConstantTensor size = ConstantTensor::FromIntegers(
      {static_cast<int64_t>(ElementCountOf(node.Input(0).dims, node.where))});
  size.dims.clear();
  return size;
}

ConstantTensor FoldGather(const FoldingNode& node) {
  const ConstantTensor& data = node.Input(0);
  const ConstantTensor& indices = node.Input(1);
  if (data.dims.empty()) node.Fail("Gather of a scalar");
  const size_t axis = NormalizeAxis(node.Int("axis", 0), data.dims.size(), node.where);
  const int64_t extent = data.dims[axis];
  std::vector<int64_t> picked = indices.Integers();
  for (int64_t& index : picked) {
    if (index < -extent || index >= extent) {
      node.Fail(Concat("index ", index, " is out of range for extent ", extent));
    }
    if (index < 0) index += extent;
  }
  ConstantTensor taken = TakeAlongAxis(data, axis, picked, node.where);
  std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + static_cast<long>(axis));
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + static_cast<long>(axis) + 1, data.dims.end());
  return Reshaped(taken, dims);
}

ConstantTensor FoldUnsqueeze(const FoldingNode& node) {
  const ConstantTensor& a = node.Input(0);
  const std::vector<int64_t> axes = node.Axes();
  const size_t rank = a.dims.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (int64_t axis : axes) {
    const size_t normalized = NormalizeAxis(axis, rank, node.where);
    if (inserted[normalized]) node.Fail(Concat("axis ", axis, " given twice"));
    inserted[normalized] = true;
  }
  std::vector<int64_t> dims;
  size_t next = 0;
  for (size_t i = 0; i < rank; ++i) dims.push_back(inserted[i] ? 1 : a.dims[next++]);
  return Reshaped(a, dims);
}

ConstantTensor FoldSqueeze(const FoldingNode& node) {
  const ConstantTensor& a = node.Input(0);
  const std::vector<int64_t> axes = node.Axes();
  std::vector<bool> removed(a.dims.size(), axes.empty());
  for (int64_t axis : axes) removed[NormalizeAxis(axis, a.dims.size(), node.where)] = true;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (removed[i] && a.dims[i] != 1 && !axes.empty()) {
      node.Fail(Concat("cannot squeeze axis ", i, " of extent ", a.dims[i]));
    }
    if (!(removed[i] && a.dims[i] == 1)) dims.push_back(a.dims[i]);
  }
  return Reshaped(a, dims);
}

ConstantTensor FoldConcat(const FoldingNode& node) {
  const ConstantTensor& first = node.Input(0);
  if (first.dims.empty()) node.Fail("Concat of scalars");
  const size_t axis = NormalizeAxis(node.Int("axis", 0), first.dims.size(), node.where);
  const size_t count = node.inputs.size();
  std::vector<int64_t> dims = first.dims;
  dims[axis] = 0;
  for (size_t k = 0; k < count; ++k) {
    const ConstantTensor& part = node.Input(k);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (part.dims.size() != dims.size() || (i != axis && part.dims[i] != dims[i])) {
        node.Fail(Concat("cannot concatenate ", DimsToString(part.dims), " with ",
                         DimsToString(first.dims), " along axis ", axis));
      }
    }
    dims[axis] += part.dims[axis];
  }
  // No element: the extents before the axis may still be huge, and the loop below as long.
  if (ElementCountOf(dims, node.where) == 0)
    return ConstantTensor::FromDoubles(first.type, dims, {});
  size_t outer = 1;
  for (size_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(dims[i]);
  std::vector<double> values;
  for (size_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < count; ++k) {
      const ConstantTensor& part = node.Input(k);
      const size_t block = outer == 0 ? 0 : part.size() / outer;
      for (size_t i = 0; i < block; ++i) values.push_back(part.At(o * block + i));
    }
  }
  return ConstantTensor::FromDoubles(first.type, dims, values);
}

ConstantTensor FoldReshape(const FoldingNode& node) {
  const ConstantTensor& a = node.Input(0);
  std::vector<int64_t> dims = node.Input(1).Integers();
  const bool allow_zero = node.Int("allowzero", 0) != 0;
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && !allow_zero) {
      if (i >= a.dims.size())
        node.Fail(Concat("shape ", DimsToString(dims), " copies a missing axis"));
      dims[i] = a.dims[i];
    }
    if (dims[i] == -1) {
      if (inferred >= 0) node.Fail(Concat("two -1 in shape ", DimsToString(dims)));
      inferred = static_cast<int>(i);
    } else if (dims[i] < 0) {
      node.Fail(Concat("invalid shape ", DimsToString(dims)));
    } else if (__builtin_mul_overflow(known, dims[i], &known)) {
      node.Fail(Concat("shape ", DimsToString(dims), " has more elements than an int64 counts"));
    }
  }
  if (inferred >= 0) {
    dims[static_cast<size_t>(inferred)] = known == 0 ? 0 : static_cast<int64_t>(a.size()) / known;
  }
  if (ElementCountOf(dims, node.where) != a.size()) {
    node.Fail(Concat("cannot reshape ", DimsToString(a.dims), " to ", DimsToString(dims)));
  }
  return Reshaped(a, dims);
}

ConstantTensor FoldFlatten(const FoldingNode& node) {
  const ConstantTensor& a = node.Input(0);
  const int64_t rank = static_cast<int64_t>(a.dims.size());
  int64_t axis = node.Int("axis", 1);
  if (axis < -rank || axis > rank) node.Fail(Concat("axis ", axis, " out of range"));
  if (axis < 0) axis += rank;
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) {
    // Extents before a 0 may multiply past int64 while the tensor holds no element.
    if (__builtin_mul_overflow(outer, a.dims[static_cast<size_t>(i)], &outer)) {
      node.Fail(Concat("dims ", DimsToString(a.dims), " before axis ", axis,
                       " have more elements than an int64 counts"));
    }
  }
  return Reshaped(a, {outer, outer == 0 ? 0 : static_cast<int64_t>(a.size()) / outer});
}

// The indices one Slice keeps along an axis of `extent`, ONNX's clamping rules applied.
std::vector<int64_t> SlicedIndices(int64_t start, int64_t end, int64_t step, int64_t extent) {
  const auto clamp = [&](int64_t index, int64_t low, int64_t high) {
    if (index < 0) index = index < -extent ? -1 : index + extent;  // keep -1 below 0
    return std::clamp(index, low, high);
  };
  std::vector<int64_t> picked;
  if (step > 0) {
    const int64_t first = clamp(start < -extent ? 0 : start, 0, extent);
    const int64_t last = clamp(end < -extent ? 0 : end, 0, extent);
    for (int64_t i = first; i < last; i += step) picked.push_back(i);
  } else {
    const int64_t first = clamp(start, -1, extent - 1);
    const int64_t last = clamp(end, -1, extent - 1);
    for (int64_t i = first; i > last; i += step) picked.push_back(i);
  }
  return picked;
}

ConstantTensor FoldSlice(const FoldingNode& node) {
  const ConstantTensor& a = node.Input(0);
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  std::vector<int64_t> axes;
  std::vector<int64_t> steps;
  if (node.inputs.size() >= 3) {  // opset 10 on: inputs
    starts = node.Input(1).Integers();
    ends = node.Input(2).Integers();
    if (node.HasInput(3)) axes = node.Input(3).Integers();
    if (node.HasInput(4)) steps = node.Input(4).Integers();
  } else {
    starts = node.Ints("starts");
    ends = node.Ints("ends");
    axes = node.Ints("axes");
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    node.Fail("starts, ends, axes and steps differ in length");
  }
  ConstantTensor result = a;
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t axis = NormalizeAxis(axes[k], a.dims.size(), node.where);
    if (steps[k] == 0) node.Fail("step 0");
    result = TakeAlongAxis(
        result, axis, SlicedIndices(starts[k], ends[k], steps[k], result.dims[axis]), node.where);
  }
  return result;
}

ConstantTensor FoldConstantOfShape(const FoldingNode& node) {
  const std::vector<int64_t> dims = node.Input(0).Integers();
  const size_t count = ComputedElementCount(dims, node.where);
  int32_t type = kFloat;
  double value = 0.0;
  if (const AttributeProto* attribute = FindAttribute(node.proto, "value")) {
    const ConstantTensor fill = ReadTensorProto(attribute->t(), "", node.where);
    if (fill.size() != 1) node.Fail("value must hold one element");
    type = fill.type;
    value = fill.At(0);
  }
  return ConstantTensor::FromDoubles(type, dims, std::vector<double>(count, value));
}

ConstantTensor FoldRange(const FoldingNode& node) {
  for (size_t input = 0; input < 3; ++input) {
    if (node.Input(input).size() != 1) node.Fail(Concat("input ", input, " must be one value"));
  }
  const double start = node.Input(0).At(0);
  const double limit = node.Input(1).At(0);
  const double delta = node.Input(2).At(0);
  if (delta == 0) node.Fail("delta 0");
  const double steps = std::max(std::ceil((limit - start) / delta), 0.0);
  if (!(steps <= static_cast<double>(kMaxComputedElements))) {
    node.Fail("the range holds too many elements");
  }
  std::vector<double> values(static_cast<size_t>(steps));
  for (size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<double>(i) * delta;
  return ConstantTensor::FromDoubles(node.Input(0).type, {static_cast<int64_t>(values.size())},
                                     values);
}

ConstantTensor FoldExpand(const FoldingNode& node) {
  const ConstantTensor& a = node.Input(0);
  // Broadcasting against zeros of the target shape is Expand's bidirectional rule.
  const std::vector<int64_t> dims = node.Input(1).Integers();
  const ConstantTensor zeros = ConstantTensor::FromDoubles(
      a.type, dims, std::vector<double>(ComputedElementCount(dims, node.where), 0.0));
  return Elementwise({&a, &zeros}, a.type, node.where, [](const Arguments& x) { return x[0]; });
}

ConstantTensor FoldTranspose(const FoldingNode& node) {
  const ConstantTensor& a = node.Input(0);
  const size_t rank = a.dims.size();
  std::vector<int64_t> permutation = node.Ints("perm");
  if (permutation.empty()) {
    for (size_t i = rank; i-- > 0;) permutation.push_back(static_cast<int64_t>(i));
  }
  if (permutation.size() != rank) node.Fail("perm does not match the rank");
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const size_t from = NormalizeAxis(permutation[i], rank, node.where);
    if (seen[from]) node.Fail(Concat("perm repeats axis ", from));
    seen[from] = true;
    permutation[i] = static_cast<int64_t>(from);
    dims[i] = a.dims[from];
  }
  const std::vector<size_t> strides = StridesOf(a.dims);
  const size_t count = a.size();
  std::vector<double> values(count);
  std::vector<int64_t> coordinates(rank, 0);
  for (size_t i = 0; i < count; ++i) {
    size_t index = 0;
    for (size_t k = 0; k < rank; ++k) {
      index += static_cast<size_t>(coordinates[k]) * strides[static_cast<size_t>(permutation[k])];
    }
    values[i] = a.At(index);
    for (size_t axis = rank; axis-- > 0;) {  // next coordinates, row-major
      if (++coordinates[axis] < dims[axis]) break;
      coordinates[axis] = 0;
    }
  }
  return ConstantTensor::FromDoubles(a.type, dims, values);
}

// DequantizeLinear of a constant: the weights of a QDQ model (int8 per output channel, a
// DequantizeLinear in front of each Conv), y = (x - zero_point) * scale, the scale and zero point
// a scalar or a vector along `axis`.
ConstantTensor FoldDequantizeLinear(const FoldingNode& node) {
  const ConstantTensor& x = node.Input(0);
  const ConstantTensor& scale = node.Input(1);
  const ConstantTensor* zero_point = node.HasInput(2) ? &node.Input(2) : nullptr;
  if (scale.dims.size() > 1) {
    throw Error(Concat(node.where, ": the scale must be a scalar or a vector, got rank ",
                       scale.dims.size()));
  }
  size_t axis = 0;
  size_t inner = 1;  // elements of x per step along the axis
  if (scale.dims.size() == 1) {
    axis = NormalizeAxis(node.Int("axis", 1), x.dims.size(), node.where);
    if (x.dims[axis] != scale.dims[0] || (zero_point && zero_point->size() != scale.size())) {
      throw Error(Concat(node.where, ": ", scale.size(), " scales for an axis of ", x.dims[axis]));
    }
    for (size_t d = axis + 1; d < x.dims.size(); ++d) inner *= static_cast<size_t>(x.dims[d]);
  }
  std::vector<double> values(x.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t channel = scale.dims.empty() ? 0 : (i / inner) % scale.size();
    const double zero = zero_point ? zero_point->At(channel) : 0.0;
    // In float, as the runtime's expression and ONNX Runtime compute it.
    values[i] = static_cast<float>(static_cast<float>(x.At(i) - zero) *
                                   static_cast<float>(scale.At(channel)));
  }
  return ConstantTensor::FromDoubles(kFloat, x.dims, values);
}

using Folder = ConstantTensor (*)(const FoldingNode&);

// Op type -> the function that evaluates it.
const std::map<std::string, Folder>& Folders() {
  static const std::map<std::string, Folder> folders = [] {
    std::map<std::string, Folder> table = {
        {"Where", FoldWhere},         {"DequantizeLinear", FoldDequantizeLinear},
        {"Identity", FoldIdentity},   {"Cast", FoldCast},
        {"Shape", FoldShape},         {"Size", FoldSize},
        {"Gather", FoldGather},       {"Unsqueeze", FoldUnsqueeze},
        {"Squeeze", FoldSqueeze},     {"Concat", FoldConcat},
        {"Reshape", FoldReshape},     {"Flatten", FoldFlatten},
        {"Slice", FoldSlice},         {"ConstantOfShape", FoldConstantOfShape},
        {"Range", FoldRange},         {"Expand", FoldExpand},
        {"Transpose", FoldTranspose},
    };
    for (const auto& entry : BinaryFunctions()) table[entry.first] = FoldBinary;
    for (const auto& entry : UnaryFunctions()) table[entry.first] = FoldUnary;
    return table;
  }();
  return folders;
}

}  // namespace

bool FoldConstantNode(const NodeProto& node, const std::vector<const ConstantTensor*>& inputs,
                      const std::string& where, std::vector<ConstantTensor>* outputs) {
  const std::string& op = node.op_type();
  const auto folder = Folders().find(op);
  if (folder == Folders().end()) return false;
  // Max and Min take any number of inputs; two are folded, more are left to the layers.
  if ((op == "Max" || op == "Min") && inputs.size() != 2) return false;
  outputs->push_back(folder->second(FoldingNode{node, inputs, where}));
  return true;
}

}  // namespace onnx
}  // namespace lumen
