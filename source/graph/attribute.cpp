#include "graph/attribute.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/checked_math.hpp"
#include "base/load_element.hpp"
#include "lumen/error.hpp"

namespace lumen {

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

float LoadHalf(const char* bytes, size_t index) {
  return HalfToFloat(LoadElement<uint16_t>(bytes, index));
}

float LoadBrainHalf(const char* bytes, size_t index) {
  return BFloat16ToFloat(LoadElement<uint16_t>(bytes, index));
}

namespace {

// Element `index` of an array of T, converted to float (how ToFloats reads each real dtype).
template <typename T>
float LoadAsFloat(const char* bytes, size_t index) {
  return static_cast<float>(LoadElement<T>(bytes, index));
}
float LoadBool(const char* bytes, size_t index) {
  return LoadElement<uint8_t>(bytes, index) != 0 ? 1.0f : 0.0f;
}

// What the reader knows of each dtype: its token, its size, and how one element becomes a float
// (none for complex and unknown types, which Lumen cannot compute with).
struct DataTypeInfo {
  DataType type;
  const char* name;        // pnnx's token
  const char* numpy_name;  // numpy's name, for the public API
  size_t size;
  float (*to_float)(const char* bytes, size_t index);
};

constexpr DataTypeInfo kDataTypes[] = {
    {DataType::kUnknown, "null", "", 0, nullptr},
    {DataType::kFloat32, "f32", "float32", 4, LoadAsFloat<float>},
    {DataType::kFloat64, "f64", "float64", 8, LoadAsFloat<double>},
    {DataType::kFloat16, "f16", "float16", 2, LoadHalf},
    {DataType::kBFloat16, "bf16", "bfloat16", 2, LoadBrainHalf},
    {DataType::kInt64, "i64", "int64", 8, LoadAsFloat<int64_t>},
    {DataType::kInt32, "i32", "int32", 4, LoadAsFloat<int32_t>},
    {DataType::kInt16, "i16", "int16", 2, LoadAsFloat<int16_t>},
    {DataType::kInt8, "i8", "int8", 1, LoadAsFloat<int8_t>},
    {DataType::kUInt8, "u8", "uint8", 1, LoadAsFloat<uint8_t>},
    {DataType::kBool, "bool", "bool", 1, LoadBool},
    {DataType::kComplex64, "c64", "complex64", 8, nullptr},
    {DataType::kComplex128, "c128", "complex128", 16, nullptr},
    {DataType::kComplex32, "c32", "complex32", 4, nullptr},
};

const DataTypeInfo& InfoOf(DataType type) {
  for (const DataTypeInfo& info : kDataTypes) {
    if (info.type == type) return info;
  }
  return kDataTypes[0];
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

const char* DataTypeNumpyName(DataType type) { return InfoOf(type).numpy_name; }

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
  if (type == DataType::kFloat32) {  // the common case: one copy, which also fixes alignment
    // (Not for no bytes: memcpy from an empty vector's null data is undefined.)
    if (!data.empty()) std::memcpy(values.data(), data.data(), data.size());
    return values;
  }
  const auto to_float = InfoOf(type).to_float;
  if (to_float == nullptr) {
    throw Error(Concat("cannot compute with ", DataTypeName(type),
                       " weights: only real types convert to f32"));
  }
  for (size_t i = 0; i < count; ++i) values[i] = to_float(data.data(), i);
  return values;
  // LESSON 04 END
}

}  // namespace lumen
