// Attribute: one weight blob of an operator (`@weight=(64,3,7,7)f32`) and its bytes.
#ifndef LUMEN_GRAPH_ATTRIBUTE_HPP_
#define LUMEN_GRAPH_ATTRIBUTE_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/bfloat16.hpp"  // BFloat16ToFloat, FloatToBFloat16

namespace lumen {

// Element types a .pnnx.param file can name (`f32`, `f16`, `i64`, ...).
enum class DataType {
  kUnknown,  // written as `null`
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt64,
  kInt32,
  kInt16,
  kInt8,
  kUInt8,
  kBool,
  kComplex64,
  kComplex128,
  kComplex32,
};

// Maps a dtype token to its DataType; returns false for a token the format does not define.
bool ParseDataType(const std::string& token, DataType* type);

// The dtype token as pnnx writes it (`f32`, ...).
const char* DataTypeName(DataType type);

// The dtype as numpy spells it (`float32`, `int64`, ...; "" for kUnknown), for the public API.
const char* DataTypeNumpyName(DataType type);

// Bytes per element (0 for kUnknown).
size_t DataTypeSize(DataType type);

// IEEE binary16 -> binary32, bit-exact, including subnormals, infinities and NaN (pnnx's and
// ONNX's f16 weights).
float HalfToFloat(uint16_t half);

// Element `index` of a little-endian f16 (bf16) array at `bytes`, any alignment, as float32.
float LoadHalf(const char* bytes, size_t index);
float LoadBrainHalf(const char* bytes, size_t index);

// A weight tensor as stored: dtype, PyTorch shape and the raw little-endian bytes (row-major).
struct Attribute {
  DataType type = DataType::kUnknown;
  std::vector<int> shape;
  std::vector<char> data;

  // Number of elements the shape declares.
  size_t ElementCount() const;

  // Bytes the shape and dtype declare; the stored member must have exactly this size.
  size_t DeclaredByteCount() const;

  // The values as float32 in row-major order. f16, bf16, f64, integer and bool blobs are converted;
  // complex and unknown types throw lumen::Error.
  std::vector<float> ToFloats() const;
};

}  // namespace lumen

#endif  // LUMEN_GRAPH_ATTRIBUTE_HPP_
