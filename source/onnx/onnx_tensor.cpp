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

bool IsNumericType(int32_t type) { return RawElementSize(type) != 0; }

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

}  // namespace onnx
}  // namespace lumen
