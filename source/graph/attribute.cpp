#include "graph/attribute.hpp"

#include <cstdint>
#include <cstring>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

struct DataTypeInfo {
  DataType type;
  const char* name;
  size_t size;
};

constexpr DataTypeInfo kDataTypes[] = {
    {DataType::kUnknown, "null", 0},     {DataType::kFloat32, "f32", 4},
    {DataType::kFloat64, "f64", 8},      {DataType::kFloat16, "f16", 2},
    {DataType::kBFloat16, "bf16", 2},    {DataType::kInt64, "i64", 8},
    {DataType::kInt32, "i32", 4},        {DataType::kInt16, "i16", 2},
    {DataType::kInt8, "i8", 1},          {DataType::kUInt8, "u8", 1},
    {DataType::kBool, "bool", 1},        {DataType::kComplex64, "c64", 8},
    {DataType::kComplex128, "c128", 16}, {DataType::kComplex32, "c32", 4},
};

const DataTypeInfo& InfoOf(DataType type) {
  for (const DataTypeInfo& info : kDataTypes) {
    if (info.type == type) return info;
  }
  return kDataTypes[0];
}

// IEEE binary16 -> binary32, including subnormals, infinities and NaN.
float HalfToFloat(uint16_t half) {
  // LESSON 04 BEGIN: IEEE half (sign, 5-bit exponent, 10-bit mantissa) to float
  const uint32_t sign = (half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1Fu;
  uint32_t mantissa = half & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal half: shift the mantissa up until it has an implicit leading one.
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3FFu) << 13);
  }
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
  // LESSON 04 END
}

// Reads element `index` of a little-endian array of T from unaligned bytes.
template <typename T>
T LoadElement(const char* bytes, size_t index) {
  T value;
  std::memcpy(&value, bytes + index * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

bool ParseDataType(const std::string& token, DataType* type) {
  for (const DataTypeInfo& info : kDataTypes) {
    if (token == info.name) {
      *type = info.type;
      return true;
    }
  }
  return false;
}

const char* DataTypeName(DataType type) { return InfoOf(type).name; }

size_t DataTypeSize(DataType type) { return InfoOf(type).size; }

size_t Attribute::ElementCount() const {
  size_t count = 1;
  for (int extent : shape) {
    if (extent < 0) throw Error(Concat("weight shape has a negative extent ", extent));
    count = CheckedMultiply(count, static_cast<size_t>(extent), "weight element count");
  }
  return count;
}

size_t Attribute::DeclaredByteCount() const {
  return CheckedMultiply(ElementCount(), DataTypeSize(type), "weight byte count");
}

std::vector<float> Attribute::ToFloats() const {
  // LESSON 04 BEGIN: every dtype pnnx writes to f32, or a clear error
  if (data.size() != DeclaredByteCount()) {
    throw Error(Concat("attribute holds ", data.size(), " bytes but its shape and dtype declare ",
                       DeclaredByteCount()));
  }
  const size_t count = ElementCount();
  std::vector<float> values(count);
  const char* bytes = data.data();
  if (type == DataType::kFloat32) {  // the common case: one copy, which also fixes alignment
    std::memcpy(values.data(), bytes, data.size());
    return values;
  }
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
      case DataType::kFloat32:
        values[i] = LoadElement<float>(bytes, i);
        break;
      case DataType::kFloat64:
        values[i] = static_cast<float>(LoadElement<double>(bytes, i));
        break;
      case DataType::kFloat16:
        values[i] = HalfToFloat(LoadElement<uint16_t>(bytes, i));
        break;
      case DataType::kBFloat16: {
        const uint32_t bits = static_cast<uint32_t>(LoadElement<uint16_t>(bytes, i)) << 16;
        std::memcpy(&values[i], &bits, sizeof(float));
        break;
      }
      case DataType::kInt64:
        values[i] = static_cast<float>(LoadElement<int64_t>(bytes, i));
        break;
      case DataType::kInt32:
        values[i] = static_cast<float>(LoadElement<int32_t>(bytes, i));
        break;
      case DataType::kInt16:
        values[i] = static_cast<float>(LoadElement<int16_t>(bytes, i));
        break;
      case DataType::kInt8:
        values[i] = static_cast<float>(LoadElement<int8_t>(bytes, i));
        break;
      case DataType::kUInt8:
        values[i] = static_cast<float>(LoadElement<uint8_t>(bytes, i));
        break;
      case DataType::kBool:
        values[i] = LoadElement<uint8_t>(bytes, i) != 0 ? 1.0f : 0.0f;
        break;
      default:
        throw Error(Concat("cannot compute with ", DataTypeName(type),
                           " weights: only real types convert to f32"));
    }
  }
  return values;
  // LESSON 04 END
}

}  // namespace lumen
