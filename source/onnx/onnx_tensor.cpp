#include "onnx_tensor.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <utility>

#include "base/checked_math.hpp"
#include "base/load_element.hpp"
#include "graph/attribute.hpp"
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

// The same element converted to the kind ConstantTensor keeps (float or int64).
template <typename T, typename Kept>
Kept LoadAs(const char* bytes, size_t index) {
  return static_cast<Kept>(LoadElement<T>(bytes, index));
}

// How raw_data holds each element type the reader keeps: bytes per element, and how one element
// is read, into floats for the floating types and into integers for the others (bool included).
struct RawElementType {
  int32_t type;
  size_t size;
  float (*to_float)(const char* bytes, size_t index);
  int64_t (*to_integer)(const char* bytes, size_t index);
};

constexpr RawElementType kRawElementTypes[] = {
    {kFloat, 4, LoadAs<float, float>, nullptr},
    {kDouble, 8, LoadAs<double, float>, nullptr},
    {kFloat16, 2, LoadHalf, nullptr},
    {kBFloat16, 2, LoadBrainHalf, nullptr},
    {kInt64, 8, nullptr, LoadAs<int64_t, int64_t>},
    {kUInt64, 8, nullptr, LoadAs<uint64_t, int64_t>},
    {kInt32, 4, nullptr, LoadAs<int32_t, int64_t>},
    {kUInt32, 4, nullptr, LoadAs<uint32_t, int64_t>},
    {kInt16, 2, nullptr, LoadAs<int16_t, int64_t>},
    {kUInt16, 2, nullptr, LoadAs<uint16_t, int64_t>},
    {kInt8, 1, nullptr, LoadAs<int8_t, int64_t>},
    {kUInt8, 1, nullptr, LoadAs<uint8_t, int64_t>},
    {kBool, 1, nullptr, LoadAs<uint8_t, int64_t>},
};

// The entry of `type`, or null for a type the reader does not keep (strings, complex, ...).
const RawElementType* FindRawElementType(int32_t type) {
  for (const RawElementType& entry : kRawElementTypes) {
    if (entry.type == type) return &entry;
  }
  return nullptr;
}

// Bytes one element takes in raw_data (0 for a type the reader does not keep).
size_t RawElementSize(int32_t type) {
  const RawElementType* entry = FindRawElementType(type);
  return entry == nullptr ? 0 : entry->size;
}

// Reads `count` little-endian elements of `tensor->type` (one the reader keeps) from `bytes`.
void DecodeRaw(const char* bytes, size_t count, ConstantTensor* tensor) {
  // LESSON 16 BEGIN: count little-endian elements of tensor->type into its floats or integers
  const RawElementType& entry = *FindRawElementType(tensor->type);
  if (entry.to_float != nullptr) {
    tensor->floats.resize(count);
    for (size_t i = 0; i < count; ++i) tensor->floats[i] = entry.to_float(bytes, i);
  } else {
    tensor->integers.resize(count);
    for (size_t i = 0; i < count; ++i) tensor->integers[i] = entry.to_integer(bytes, i);
  }
  // LESSON 16 END
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

// The values of a TensorProto without raw_data, from the typed field its element type uses into
// `tensor` (which holds the type and dims; `count` is their element count). ONNX keeps f16, bf16,
// bool and the integers of up to 32 bits in int32_data, one element per int32.
ConstantTensor ReadTypedFields(const TensorProto& proto, ConstantTensor tensor, size_t count,
                               const std::string& where) {
  // Fills `target` from `field` and hands the tensor on (moved: no copy of the values).
  const auto stored = [&](const auto& field, const char* name, auto* target) -> ConstantTensor&& {
    CheckStoredCount(static_cast<size_t>(field.size()), count, name, where);
    target->assign(field.begin(), field.end());
    return std::move(tensor);
  };
  if (tensor.type == kFloat) return stored(proto.float_data(), "float_data", &tensor.floats);
  if (tensor.type == kDouble) return stored(proto.double_data(), "double_data", &tensor.floats);
  if (tensor.type == kInt64) return stored(proto.int64_data(), "int64_data", &tensor.integers);
  if (tensor.type == kUInt32 || tensor.type == kUInt64) {
    return stored(proto.uint64_data(), "uint64_data", &tensor.integers);
  }
  CheckStoredCount(static_cast<size_t>(proto.int32_data_size()), count, "int32_data", where);
  tensor.integers.assign(proto.int32_data().begin(), proto.int32_data().end());
  if (tensor.type == kFloat16 || tensor.type == kBFloat16) {  // the int32s hold 16-bit patterns
    for (int64_t bits : tensor.integers) {
      const auto half = static_cast<uint16_t>(bits);
      tensor.floats.push_back(tensor.type == kFloat16 ? HalfToFloat(half) : BFloat16ToFloat(half));
    }
    tensor.integers.clear();
  }
  return tensor;
}

}  // namespace

bool IsFloatingType(int32_t type) {
  const RawElementType* entry = FindRawElementType(type);
  return entry != nullptr && entry->to_float != nullptr;
}

DataType ToDataType(int32_t type) {
  static const std::pair<int32_t, DataType> kTypes[] = {
      {kFloat, DataType::kFloat32},   {kDouble, DataType::kFloat64},
      {kFloat16, DataType::kFloat16}, {kBFloat16, DataType::kBFloat16},
      {kInt64, DataType::kInt64},     {kInt32, DataType::kInt32},
      {kInt16, DataType::kInt16},     {kInt8, DataType::kInt8},
      {kUInt8, DataType::kUInt8},     {kBool, DataType::kBool}};
  for (const auto& [onnx_type, data_type] : kTypes) {
    if (onnx_type == type) return data_type;
  }
  return DataType::kUnknown;
}

bool IsNumericType(int32_t type) { return RawElementSize(type) != 0; }

std::string ElementTypeName(int32_t type) {
  if (TensorProto::DataType_IsValid(type)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(type));
  }
  return Concat("type ", type);
}

namespace {

// Throws lumen::Error for an index past `tensor`'s elements: the operators read single values
// (a Clip's bounds, a Range's start) from constants the file may leave empty.
void CheckIndex(const ConstantTensor& tensor, size_t index) {
  if (index >= tensor.size()) {
    throw Error(Concat("constant ", tensor.Describe(), " has no element ", index));
  }
}

}  // namespace

double ConstantTensor::At(size_t index) const {
  CheckIndex(*this, index);
  return IsFloatingType(type) ? static_cast<double>(floats[index])
                              : static_cast<double>(integers[index]);
}

int64_t ConstantTensor::IntegerAt(size_t index) const {
  CheckIndex(*this, index);
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
  // LESSON 16 BEGIN: type and dims; the bytes from external data, raw_data or the typed fields
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
  return ReadTypedFields(proto, std::move(tensor), count, where);
  // LESSON 16 END
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
