#include "onnx_tensor.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace onnx {

using lumen_onnx_proto::AttributeProto;
using lumen_onnx_proto::NodeProto;
using lumen_onnx_proto::TensorProto;

namespace {

// The most elements one constant may hold (2^31): far above any real weight, and it keeps every
// count below overflow in the arithmetic that follows.
constexpr size_t kMaxConstantElements = size_t{1} << 31;

// The most elements a value computed when loading may hold (2^24): shape arithmetic needs a few,
// and a file must not make the reader allocate gigabytes from a few bytes (ConstantOfShape of
// (2^31), an Expand or a broadcast of two long vectors).
constexpr size_t kMaxComputedElements = size_t{1} << 24;

float HalfToFloat(uint16_t half) {
  const uint32_t sign = (half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1f;
  const uint32_t mantissa = half & 0x3ff;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal
  } else if (exponent == 31) {
    value = mantissa == 0 ? std::numeric_limits<float>::infinity()
                          : std::numeric_limits<float>::quiet_NaN();
  } else {
    value = std::ldexp(static_cast<float>(mantissa + 1024), static_cast<int>(exponent) - 25);
  }
  return sign ? -value : value;
}

float BFloat16ToFloat(uint16_t bits) {
  const uint32_t word = uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

// Bytes one element takes in raw_data (0 for a type the reader does not keep).
size_t RawElementSize(int32_t type) {
  switch (type) {
    case kFloat:
    case kInt32:
    case kUInt32:
      return 4;
    case kDouble:
    case kInt64:
    case kUInt64:
      return 8;
    case kFloat16:
    case kBFloat16:
    case kInt16:
    case kUInt16:
      return 2;
    case kInt8:
    case kUInt8:
    case kBool:
      return 1;
    default:
      return 0;
  }
}

// Reads `count` little-endian elements of `type` from `bytes` into `tensor`.
void DecodeRaw(const char* bytes, size_t count, ConstantTensor* tensor) {
  const int32_t type = tensor->type;
  const auto load = [&](auto sample, size_t index) {
    decltype(sample) value;
    std::memcpy(&value, bytes + index * sizeof(value), sizeof(value));
    return value;
  };
  if (IsFloatingType(type)) {
    tensor->floats.resize(count);
    for (size_t i = 0; i < count; ++i) {
      switch (type) {
        case kFloat:
          tensor->floats[i] = load(float{}, i);
          break;
        case kDouble:
          tensor->floats[i] = static_cast<float>(load(double{}, i));
          break;
        case kFloat16:
          tensor->floats[i] = HalfToFloat(load(uint16_t{}, i));
          break;
        default:
          tensor->floats[i] = BFloat16ToFloat(load(uint16_t{}, i));
          break;
      }
    }
    return;
  }
  tensor->integers.resize(count);
  for (size_t i = 0; i < count; ++i) {
    int64_t value = 0;
    switch (type) {
      case kInt64:
        value = load(int64_t{}, i);
        break;
      case kUInt64:
        value = static_cast<int64_t>(load(uint64_t{}, i));
        break;
      case kInt32:
        value = load(int32_t{}, i);
        break;
      case kUInt32:
        value = load(uint32_t{}, i);
        break;
      case kInt16:
        value = load(int16_t{}, i);
        break;
      case kUInt16:
        value = load(uint16_t{}, i);
        break;
      case kInt8:
        value = load(int8_t{}, i);
        break;
      default:  // kUInt8, kBool
        value = load(uint8_t{}, i);
        break;
    }
    tensor->integers[i] = value;
  }
}

// The bytes of an external-data tensor: the file named by `location`, which must be a relative
// path staying inside `model_folder`, from `offset` for `length` bytes.
std::string ReadExternalData(const TensorProto& proto, const std::string& model_folder,
                             size_t expected_bytes, const std::string& where) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const auto& entry : proto.external_data()) {
    try {
      if (entry.key() == "location") {
        location = entry.value();
      } else if (entry.key() == "offset") {
        offset = std::stoll(entry.value());
      } else if (entry.key() == "length") {
        length = std::stoll(entry.value());
      }
    } catch (const std::exception&) {
      throw Error(Concat(where, ": external data '", entry.key(), "' = '", entry.value(),
                         "' is not a number"));
    }
  }
  namespace fs = std::filesystem;
  const fs::path relative(location);
  bool inside = !location.empty() && relative.is_relative();
  for (const fs::path& part : relative) inside = inside && part != "..";
  if (!inside) {
    throw Error(Concat(where, ": external data location '", location,
                       "' must be a relative path inside the model's folder"));
  }
  const fs::path folder = fs::weakly_canonical(fs::path(model_folder.empty() ? "." : model_folder));
  const fs::path file = fs::weakly_canonical(folder / relative);
  const std::string folder_text = folder.string() + "/";
  if (file.string().compare(0, folder_text.size(), folder_text) != 0) {
    throw Error(
        Concat(where, ": external data location '", location, "' leaves the model's folder"));
  }
  if (offset < 0 || (length >= 0 && static_cast<size_t>(length) != expected_bytes)) {
    throw Error(Concat(where, ": external data offset ", offset, " / length ", length,
                       " do not match the ", expected_bytes, " bytes the dims declare"));
  }
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw Error(Concat(where, ": cannot open external data file '", location, "'"));
  stream.seekg(offset);
  std::string bytes(expected_bytes, '\0');
  stream.read(&bytes[0], static_cast<std::streamsize>(expected_bytes));
  if (!stream || static_cast<size_t>(stream.gcount()) != expected_bytes) {
    throw Error(Concat(where, ": external data file '", location, "' holds fewer than ",
                       expected_bytes, " bytes from offset ", offset));
  }
  return bytes;
}

// The stored count of a typed field must be the dims' count.
void CheckStoredCount(size_t stored, size_t count, const std::string& field,
                      const std::string& where) {
  if (stored != count) {
    throw Error(
        Concat(where, ": ", field, " holds ", stored, " values but the dims declare ", count));
  }
}

}  // namespace

bool IsFloatingType(int32_t type) {
  return type == kFloat || type == kDouble || type == kFloat16 || type == kBFloat16;
}

std::string ElementTypeName(int32_t type) {
  if (TensorProto::DataType_IsValid(type)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(type));
  }
  return Concat("type ", type);
}

double ConstantTensor::At(size_t index) const {
  return IsFloatingType(type) ? static_cast<double>(floats[index])
                              : static_cast<double>(integers[index]);
}

int64_t ConstantTensor::IntegerAt(size_t index) const {
  if (!IsFloatingType(type)) return integers[index];
  const float value = floats[index];
  if (!(std::fabs(value) < 9.2e18f)) return value < 0 ? INT64_MIN : INT64_MAX;  // NaN: max
  return static_cast<int64_t>(value);
}

std::vector<int64_t> ConstantTensor::Integers() const {
  std::vector<int64_t> values(size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = IntegerAt(i);
  return values;
}

std::vector<float> ConstantTensor::Floats() const {
  if (IsFloatingType(type)) return floats;
  return std::vector<float>(integers.begin(), integers.end());
}

std::string ConstantTensor::Describe() const {
  return Concat(DimsToString(dims), " ", ElementTypeName(type));
}

ConstantTensor ConstantTensor::FromDoubles(int32_t type, const std::vector<int64_t>& dims,
                                           const std::vector<double>& values) {
  ConstantTensor tensor;
  tensor.type = type;
  tensor.dims = dims;
  if (IsFloatingType(type)) {
    tensor.floats.assign(values.begin(), values.end());
  } else {
    tensor.integers.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const double value = values[i];
      tensor.integers[i] = !(std::fabs(value) < 9.2e18) ? (value < 0 ? INT64_MIN : INT64_MAX)
                           : type == kBool              ? (value != 0.0 ? 1 : 0)
                                                        : static_cast<int64_t>(value);
    }
  }
  return tensor;
}

ConstantTensor ConstantTensor::FromIntegers(const std::vector<int64_t>& values) {
  ConstantTensor tensor;
  tensor.type = kInt64;
  tensor.dims = {static_cast<int64_t>(values.size())};
  tensor.integers = values;
  return tensor;
}

size_t ElementCountOf(const std::vector<int64_t>& dims, const std::string& where) {
  size_t count = 1;
  for (int64_t extent : dims) {
    if (extent < 0) throw Error(Concat(where, ": negative extent in dims ", DimsToString(dims)));
    if (extent != 0 && count > kMaxConstantElements / static_cast<size_t>(extent)) {
      throw Error(Concat(where, ": dims ", DimsToString(dims), " hold more than ",
                         kMaxConstantElements, " elements"));
    }
    count *= static_cast<size_t>(extent);
  }
  return count;
}

std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) text += Concat(i ? "," : "", dims[i]);
  return text + ")";
}

ConstantTensor ReadTensorProto(const TensorProto& proto, const std::string& model_folder,
                               const std::string& where) {
  ConstantTensor tensor;
  tensor.type = proto.data_type();
  tensor.dims.assign(proto.dims().begin(), proto.dims().end());
  if (tensor.dims.size() > 16) {
    throw Error(Concat(where, ": ", tensor.dims.size(), " dimensions (at most 16)"));
  }
  const size_t count = ElementCountOf(tensor.dims, where);
  const size_t element_size = RawElementSize(tensor.type);
  if (element_size == 0) {
    throw Error(Concat(where, ": element type ", ElementTypeName(tensor.type),
                       " is not supported (only numbers and bool)"));
  }
  const size_t bytes = count * element_size;
  if (proto.data_location() == TensorProto::EXTERNAL) {
    const std::string data = ReadExternalData(proto, model_folder, bytes, where);
    DecodeRaw(data.data(), count, &tensor);
    return tensor;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes) {
      throw Error(Concat(where, ": raw_data holds ", proto.raw_data().size(), " bytes but dims ",
                         DimsToString(tensor.dims), " of ", ElementTypeName(tensor.type), " need ",
                         bytes));
    }
    DecodeRaw(proto.raw_data().data(), count, &tensor);
    return tensor;
  }
  switch (tensor.type) {
    case kFloat:
      CheckStoredCount(static_cast<size_t>(proto.float_data_size()), count, "float_data", where);
      tensor.floats.assign(proto.float_data().begin(), proto.float_data().end());
      break;
    case kDouble:
      CheckStoredCount(static_cast<size_t>(proto.double_data_size()), count, "double_data", where);
      tensor.floats.assign(proto.double_data().begin(), proto.double_data().end());
      break;
    case kFloat16:
    case kBFloat16:
      CheckStoredCount(static_cast<size_t>(proto.int32_data_size()), count, "int32_data", where);
      for (int32_t bits : proto.int32_data()) {
        const auto half = static_cast<uint16_t>(bits);
        tensor.floats.push_back(tensor.type == kFloat16 ? HalfToFloat(half)
                                                        : BFloat16ToFloat(half));
      }
      break;
    case kInt64:
      CheckStoredCount(static_cast<size_t>(proto.int64_data_size()), count, "int64_data", where);
      tensor.integers.assign(proto.int64_data().begin(), proto.int64_data().end());
      break;
    case kUInt32:
    case kUInt64:
      CheckStoredCount(static_cast<size_t>(proto.uint64_data_size()), count, "uint64_data", where);
      for (uint64_t value : proto.uint64_data()) {
        tensor.integers.push_back(static_cast<int64_t>(value));
      }
      break;
    default:  // the int32-stored integer types and bool
      CheckStoredCount(static_cast<size_t>(proto.int32_data_size()), count, "int32_data", where);
      tensor.integers.assign(proto.int32_data().begin(), proto.int32_data().end());
      break;
  }
  return tensor;
}

Attribute ToAttribute(const ConstantTensor& tensor, const std::string& where) {
  Attribute attribute;
  attribute.type = DataType::kFloat32;
  for (int64_t extent : tensor.dims) {
    attribute.shape.push_back(CheckedInt(extent, where.c_str()));
  }
  const std::vector<float> values = tensor.Floats();
  attribute.data.resize(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
  return attribute;
}

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

const AttributeProto* FindAttribute(const NodeProto& node, const std::string& name) {
  for (const AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

namespace {

const AttributeProto* TypedAttribute(const NodeProto& node, const std::string& name,
                                     AttributeProto::AttributeType type, const char* type_name,
                                     const std::string& where) {
  const AttributeProto* attribute = FindAttribute(node, name);
  if (attribute == nullptr) return nullptr;
  // Old exporters leave `type` unset; then the field that is present decides.
  if (attribute->type() != AttributeProto::UNDEFINED && attribute->type() != type) {
    throw Error(Concat(where, ": attribute '", name, "' must be ", type_name, ", got ",
                       AttributeProto::AttributeType_Name(attribute->type())));
  }
  return attribute;
}

}  // namespace

int64_t IntAttribute(const NodeProto& node, const std::string& name, int64_t fallback,
                     const std::string& where) {
  const AttributeProto* attribute = TypedAttribute(node, name, AttributeProto::INT, "INT", where);
  return attribute ? attribute->i() : fallback;
}

float FloatAttribute(const NodeProto& node, const std::string& name, float fallback,
                     const std::string& where) {
  const AttributeProto* attribute =
      TypedAttribute(node, name, AttributeProto::FLOAT, "FLOAT", where);
  return attribute ? attribute->f() : fallback;
}

std::string StringAttribute(const NodeProto& node, const std::string& name,
                            const std::string& fallback, const std::string& where) {
  const AttributeProto* attribute =
      TypedAttribute(node, name, AttributeProto::STRING, "STRING", where);
  return attribute ? attribute->s() : fallback;
}

std::vector<int64_t> IntsAttribute(const NodeProto& node, const std::string& name,
                                   const std::vector<int64_t>& fallback, const std::string& where) {
  const AttributeProto* attribute = TypedAttribute(node, name, AttributeProto::INTS, "INTS", where);
  if (attribute == nullptr) return fallback;
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

// --- load-time evaluation -------------------------------------------------------------------

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
  if (ElementCountOf(output_dims, where) > input.size()) ComputedElementCount(output_dims, where);
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

// The axes of Squeeze / Unsqueeze / Reduce*: an input since opset 13, an attribute before.
std::vector<int64_t> AxesOf(const NodeProto& node, const std::vector<const ConstantTensor*>& inputs,
                            const std::string& where) {
  if (inputs.size() > 1 && inputs[1] != nullptr) return inputs[1]->Integers();
  return IntsAttribute(node, "axes", {}, where);
}

ConstantTensor Reshaped(const ConstantTensor& input, const std::vector<int64_t>& dims) {
  ConstantTensor output = input;
  output.dims = dims;
  return output;
}

}  // namespace

bool FoldConstantNode(const NodeProto& node, const std::vector<const ConstantTensor*>& inputs,
                      const std::string& where, std::vector<ConstantTensor>* outputs) {
  const std::string& op = node.op_type();
  const auto input = [&](size_t index) -> const ConstantTensor& {
    if (index >= inputs.size() || inputs[index] == nullptr) {
      throw Error(Concat(where, ": input ", index, " is missing"));
    }
    return *inputs[index];
  };
  using Arguments = std::vector<double>;
  // Binary and unary arithmetic: integer types keep C++ integer semantics (Div truncates).
  static const std::map<std::string, double (*)(double, double)> kBinary = {
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
  static const std::map<std::string, double (*)(double)> kUnary = {
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
  static const std::vector<std::string> kComparisons = {
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Not"};
  const bool comparison =
      std::find(kComparisons.begin(), kComparisons.end(), op) != kComparisons.end();
  if (const auto found = kBinary.find(op); found != kBinary.end()) {
    if ((op == "Max" || op == "Min") && inputs.size() != 2) return false;
    const ConstantTensor& a = input(0);
    const ConstantTensor& b = input(1);
    const bool integral = !IsFloatingType(a.type);
    const auto function = found->second;
    outputs->push_back(
        Elementwise({&a, &b}, comparison ? int32_t{kBool} : a.type, where, [&](const Arguments& x) {
          if (integral && op == "Div") {
            if (x[1] == 0) throw Error(Concat(where, ": integer division by zero"));
            return std::trunc(x[0] / x[1]);
          }
          return function(x[0], x[1]);
        }));
    return true;
  }
  if (const auto found = kUnary.find(op); found != kUnary.end()) {
    const ConstantTensor& a = input(0);
    const auto function = found->second;
    outputs->push_back(Elementwise({&a}, comparison ? int32_t{kBool} : a.type, where,
                                   [&](const Arguments& x) { return function(x[0]); }));
    return true;
  }
  if (op == "Identity") {
    outputs->push_back(input(0));
  } else if (op == "Cast") {
    const int64_t to = IntAttribute(node, "to", kFloat, where);
    if (RawElementSize(static_cast<int32_t>(to)) == 0) {
      throw Error(Concat(where, ": Cast to ", ElementTypeName(static_cast<int32_t>(to)),
                         " is not supported"));
    }
    const ConstantTensor& a = input(0);
    std::vector<double> values(a.size());
    for (size_t i = 0; i < values.size(); ++i) values[i] = a.At(i);
    outputs->push_back(ConstantTensor::FromDoubles(static_cast<int32_t>(to), a.dims, values));
  } else if (op == "Shape") {
    const std::vector<int64_t>& dims = input(0).dims;
    const int64_t rank = static_cast<int64_t>(dims.size());
    int64_t start = IntAttribute(node, "start", 0, where);
    int64_t end = IntAttribute(node, "end", rank, where);
    start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);
    end = std::clamp(end < 0 ? end + rank : end, int64_t{0}, rank);
    outputs->push_back(ConstantTensor::FromIntegers(
        std::vector<int64_t>(dims.begin() + start, dims.begin() + std::max(start, end))));
  } else if (op == "Size") {
    ConstantTensor size = ConstantTensor::FromIntegers({static_cast<int64_t>(input(0).size())});
    size.dims.clear();
    outputs->push_back(size);
  } else if (op == "Gather") {
    const ConstantTensor& data = input(0);
    const ConstantTensor& indices = input(1);
    if (data.dims.empty()) throw Error(Concat(where, ": Gather of a scalar"));
    const size_t axis =
        NormalizeAxis(IntAttribute(node, "axis", 0, where), data.dims.size(), where);
    const int64_t extent = data.dims[axis];
    std::vector<int64_t> picked = indices.Integers();
    for (int64_t& index : picked) {
      if (index < -extent || index >= extent) {
        throw Error(Concat(where, ": index ", index, " is out of range for extent ", extent));
      }
      if (index < 0) index += extent;
    }
    ConstantTensor taken = TakeAlongAxis(data, axis, picked, where);
    std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + static_cast<long>(axis));
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), data.dims.begin() + static_cast<long>(axis) + 1, data.dims.end());
    outputs->push_back(Reshaped(taken, dims));
  } else if (op == "Unsqueeze") {
    const ConstantTensor& a = input(0);
    std::vector<int64_t> axes = AxesOf(node, inputs, where);
    const size_t rank = a.dims.size() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (int64_t axis : axes) {
      const size_t normalized = NormalizeAxis(axis, rank, where);
      if (inserted[normalized]) throw Error(Concat(where, ": axis ", axis, " given twice"));
      inserted[normalized] = true;
    }
    std::vector<int64_t> dims;
    size_t next = 0;
    for (size_t i = 0; i < rank; ++i) dims.push_back(inserted[i] ? 1 : a.dims[next++]);
    outputs->push_back(Reshaped(a, dims));
  } else if (op == "Squeeze") {
    const ConstantTensor& a = input(0);
    const std::vector<int64_t> axes = AxesOf(node, inputs, where);
    std::vector<bool> removed(a.dims.size(), axes.empty());
    for (int64_t axis : axes) removed[NormalizeAxis(axis, a.dims.size(), where)] = true;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < a.dims.size(); ++i) {
      if (removed[i] && a.dims[i] != 1 && !axes.empty()) {
        throw Error(Concat(where, ": cannot squeeze axis ", i, " of extent ", a.dims[i]));
      }
      if (!(removed[i] && a.dims[i] == 1)) dims.push_back(a.dims[i]);
    }
    outputs->push_back(Reshaped(a, dims));
  } else if (op == "Concat") {
    const ConstantTensor& first = input(0);
    if (first.dims.empty()) throw Error(Concat(where, ": Concat of scalars"));
    const size_t axis =
        NormalizeAxis(IntAttribute(node, "axis", 0, where), first.dims.size(), where);
    std::vector<int64_t> dims = first.dims;
    dims[axis] = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const ConstantTensor& part = input(k);
      for (size_t i = 0; i < dims.size(); ++i) {
        if (part.dims.size() != dims.size() || (i != axis && part.dims[i] != dims[i])) {
          throw Error(Concat(where, ": cannot concatenate ", DimsToString(part.dims), " with ",
                             DimsToString(first.dims), " along axis ", axis));
        }
      }
      dims[axis] += part.dims[axis];
    }
    size_t outer = 1;
    for (size_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(dims[i]);
    std::vector<double> values;
    for (size_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        const ConstantTensor& part = input(k);
        const size_t block = outer == 0 ? 0 : part.size() / outer;
        for (size_t i = 0; i < block; ++i) values.push_back(part.At(o * block + i));
      }
    }
    outputs->push_back(ConstantTensor::FromDoubles(first.type, dims, values));
  } else if (op == "Reshape") {
    const ConstantTensor& a = input(0);
    std::vector<int64_t> dims = input(1).Integers();
    const bool allow_zero = IntAttribute(node, "allowzero", 0, where) != 0;
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0 && !allow_zero) {
        if (i >= a.dims.size())
          throw Error(Concat(where, ": shape ", DimsToString(dims), " copies a missing axis"));
        dims[i] = a.dims[i];
      }
      if (dims[i] == -1) {
        if (inferred >= 0) throw Error(Concat(where, ": two -1 in shape ", DimsToString(dims)));
        inferred = static_cast<int>(i);
      } else if (dims[i] < 0) {
        throw Error(Concat(where, ": invalid shape ", DimsToString(dims)));
      } else {
        known *= dims[i];
      }
    }
    if (inferred >= 0)
      dims[static_cast<size_t>(inferred)] = known == 0 ? 0 : static_cast<int64_t>(a.size()) / known;
    if (ElementCountOf(dims, where) != a.size()) {
      throw Error(
          Concat(where, ": cannot reshape ", DimsToString(a.dims), " to ", DimsToString(dims)));
    }
    outputs->push_back(Reshaped(a, dims));
  } else if (op == "Flatten") {
    const ConstantTensor& a = input(0);
    const int64_t rank = static_cast<int64_t>(a.dims.size());
    int64_t axis = IntAttribute(node, "axis", 1, where);
    if (axis < -rank || axis > rank) throw Error(Concat(where, ": axis ", axis, " out of range"));
    if (axis < 0) axis += rank;
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= a.dims[static_cast<size_t>(i)];
    outputs->push_back(
        Reshaped(a, {outer, outer == 0 ? 0 : static_cast<int64_t>(a.size()) / outer}));
  } else if (op == "Slice") {
    const ConstantTensor& a = input(0);
    std::vector<int64_t> starts;
    std::vector<int64_t> ends;
    std::vector<int64_t> axes;
    std::vector<int64_t> steps;
    if (inputs.size() >= 3) {
      starts = input(1).Integers();
      ends = input(2).Integers();
      if (inputs.size() > 3 && inputs[3] != nullptr) axes = inputs[3]->Integers();
      if (inputs.size() > 4 && inputs[4] != nullptr) steps = inputs[4]->Integers();
    } else {
      starts = IntsAttribute(node, "starts", {}, where);
      ends = IntsAttribute(node, "ends", {}, where);
      axes = IntsAttribute(node, "axes", {}, where);
    }
    if (axes.empty()) {
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size()) {
      throw Error(Concat(where, ": starts, ends, axes and steps differ in length"));
    }
    ConstantTensor result = a;
    for (size_t k = 0; k < starts.size(); ++k) {
      const size_t axis = NormalizeAxis(axes[k], a.dims.size(), where);
      const int64_t extent = result.dims[axis];
      const int64_t step = steps[k];
      if (step == 0) throw Error(Concat(where, ": step 0"));
      const auto clamp = [&](int64_t index, int64_t low, int64_t high) {
        if (index < 0) index = index < -extent ? -1 : index + extent;  // keep -1 below 0
        return std::clamp(index, low, high);
      };
      std::vector<int64_t> picked;
      if (step > 0) {
        const int64_t start = clamp(starts[k] < -extent ? 0 : starts[k], 0, extent);
        const int64_t end = clamp(ends[k] < -extent ? 0 : ends[k], 0, extent);
        for (int64_t i = start; i < end; i += step) picked.push_back(i);
      } else {
        const int64_t start = clamp(starts[k], -1, extent - 1);
        const int64_t end = clamp(ends[k], -1, extent - 1);
        for (int64_t i = start; i > end; i += step) picked.push_back(i);
      }
      result = TakeAlongAxis(result, axis, picked, where);
    }
    outputs->push_back(result);
  } else if (op == "ConstantOfShape") {
    const std::vector<int64_t> dims = input(0).Integers();
    const size_t count = ComputedElementCount(dims, where);
    int32_t type = kFloat;
    double value = 0.0;
    if (const AttributeProto* attribute = FindAttribute(node, "value")) {
      const ConstantTensor fill = ReadTensorProto(attribute->t(), "", where);
      if (fill.size() != 1) throw Error(Concat(where, ": value must hold one element"));
      type = fill.type;
      value = fill.At(0);
    }
    outputs->push_back(ConstantTensor::FromDoubles(type, dims, std::vector<double>(count, value)));
  } else if (op == "Range") {
    const double start = input(0).At(0);
    const double limit = input(1).At(0);
    const double delta = input(2).At(0);
    if (delta == 0) throw Error(Concat(where, ": delta 0"));
    const double steps = std::max(std::ceil((limit - start) / delta), 0.0);
    if (!(steps <= static_cast<double>(kMaxComputedElements))) {
      throw Error(Concat(where, ": the range holds too many elements"));
    }
    std::vector<double> values(static_cast<size_t>(steps));
    for (size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<double>(i) * delta;
    outputs->push_back(
        ConstantTensor::FromDoubles(input(0).type, {static_cast<int64_t>(values.size())}, values));
  } else if (op == "Where") {
    outputs->push_back(Elementwise({&input(0), &input(1), &input(2)}, input(1).type, where,
                                   [](const Arguments& x) { return x[0] != 0 ? x[1] : x[2]; }));
  } else if (op == "Expand") {
    const ConstantTensor& a = input(0);
    // Broadcasting against zeros of the target shape is Expand's bidirectional rule.
    const std::vector<int64_t> dims = input(1).Integers();
    const ConstantTensor zeros = ConstantTensor::FromDoubles(
        a.type, dims, std::vector<double>(ComputedElementCount(dims, where), 0.0));
    outputs->push_back(
        Elementwise({&a, &zeros}, a.type, where, [](const Arguments& x) { return x[0]; }));
  } else if (op == "Transpose") {
    const ConstantTensor& a = input(0);
    const size_t rank = a.dims.size();
    std::vector<int64_t> permutation = IntsAttribute(node, "perm", {}, where);
    if (permutation.empty()) {
      for (size_t i = rank; i-- > 0;) permutation.push_back(static_cast<int64_t>(i));
    }
    if (permutation.size() != rank) throw Error(Concat(where, ": perm does not match the rank"));
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> dims(rank);
    for (size_t i = 0; i < rank; ++i) {
      const size_t from = NormalizeAxis(permutation[i], rank, where);
      if (seen[from]) throw Error(Concat(where, ": perm repeats axis ", from));
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
      for (size_t axis = rank; axis-- > 0;) {
        if (++coordinates[axis] < dims[axis]) break;
        coordinates[axis] = 0;
      }
    }
    outputs->push_back(ConstantTensor::FromDoubles(a.type, dims, values));
  } else {
    return false;
  }
  return true;
}

}  // namespace onnx
}  // namespace lumen
