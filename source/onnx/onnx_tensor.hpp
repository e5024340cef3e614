// Constant tensors of an ONNX model (initializers, Constant nodes, and what constant_folding.hpp
// computes from them at load time), how they are read from a TensorProto and turned into a
// layer's weights, and the typed reading of node attributes. Internal to source/onnx/.
#ifndef LUMEN_SOURCE_ONNX_ONNX_TENSOR_HPP_
#define LUMEN_SOURCE_ONNX_ONNX_TENSOR_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "graph/attribute.hpp"
#include "onnx.pb.h"

namespace lumen {
namespace onnx {

// ONNX's element types (TensorProto.DataType) that the reader keeps as numbers.
enum ElementType : int32_t {
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kBFloat16 = 16,
};

// True for the floating-point element types (float, double, float16, bfloat16).
bool IsFloatingType(int32_t type);

// The DataType of an ONNX element type, as the public API reports what a file declares;
// DataType::kUnknown for one it has no name for (unsigned 16 to 64 bits, strings).
DataType ToDataType(int32_t type);

// True for the element types the reader keeps as numbers (every number type and bool).
bool IsNumericType(int32_t type);

// The element type's ONNX name ("FLOAT", "INT64", ...), for messages.
std::string ElementTypeName(int32_t type);

// A tensor whose values are known when the model is read. Floating-point values are held as
// float (the weights: no double copy of a large model), every other type as int64 (ONNX's shape
// arithmetic is int64 and must stay exact).
struct ConstantTensor {
  int32_t type = kFloat;
  std::vector<int64_t> dims;
  std::vector<float> floats;      // when IsFloatingType(type)
  std::vector<int64_t> integers;  // otherwise

  // Number of elements.
  size_t size() const { return IsFloatingType(type) ? floats.size() : integers.size(); }
  // Element `index` (row-major) as a double; lumen::Error past the last element.
  double At(size_t index) const;
  // Element `index` as an int64 (floats truncated); lumen::Error past the last element.
  int64_t IntegerAt(size_t index) const;
  // Every element as an int64.
  std::vector<int64_t> Integers() const;
  // Every element as a float.
  std::vector<float> Floats() const;
  // "(1,3,224,224) FLOAT": how messages name it.
  std::string Describe() const;

  // A tensor of `type` and `dims` filled from doubles (rounded as the type requires).
  static ConstantTensor FromDoubles(int32_t type, const std::vector<int64_t>& dims,
                                    const std::vector<double>& values);
  // A 1-D int64 tensor.
  static ConstantTensor FromIntegers(const std::vector<int64_t>& values);
};

// Elements a shape holds; throws lumen::Error naming `where` on a negative extent or an overflow.
size_t ElementCountOf(const std::vector<int64_t>& dims, const std::string& where);

// "(1,3,224,224)".
std::string DimsToString(const std::vector<int64_t>& dims);

// Reads a TensorProto's values, from its typed fields, its raw_data, or (data_location EXTERNAL)
// from a file that must lie inside `model_folder`. Throws lumen::Error naming `where` when the
// stored bytes do not match the dims, the type is not numeric, or the external file is outside
// the folder or too short.
ConstantTensor ReadTensorProto(const lumen_onnx_proto::TensorProto& proto,
                               const std::string& model_folder, const std::string& where);

// The tensor as a float32 weight for a Lumen node; `where` names it in messages.
Attribute ToAttribute(const ConstantTensor& tensor, const std::string& where);

// The node's attribute `name`, or null.
const lumen_onnx_proto::AttributeProto* FindAttribute(const lumen_onnx_proto::NodeProto& node,
                                                      const std::string& name);
// Typed attribute getters returning `fallback` when the attribute is absent; they throw
// lumen::Error naming `where` when it has another type.
int64_t IntAttribute(const lumen_onnx_proto::NodeProto& node, const std::string& name,
                     int64_t fallback, const std::string& where);
float FloatAttribute(const lumen_onnx_proto::NodeProto& node, const std::string& name,
                     float fallback, const std::string& where);
std::string StringAttribute(const lumen_onnx_proto::NodeProto& node, const std::string& name,
                            const std::string& fallback, const std::string& where);
std::vector<int64_t> IntsAttribute(const lumen_onnx_proto::NodeProto& node, const std::string& name,
                                   const std::vector<int64_t>& fallback, const std::string& where);

}  // namespace onnx
}  // namespace lumen

#endif  // LUMEN_SOURCE_ONNX_ONNX_TENSOR_HPP_
