// Reading an ONNX model (a ModelProto protobuf, as torch.onnx.export writes it) into a Graph.
//
// The reader is the only code that knows ONNX. It maps every ONNX node onto the Lumen node type
// with the same semantics (Conv -> nn.Conv2d, Gemm -> nn.Linear, Add -> pnnx.Expression, ...), so
// the runtime and the layers never learn which format a model came from. Initializers become
// weights; arithmetic on values known when loading is folded here. The exporter's shape arithmetic
// on run-time values (Shape, Gather, Concat, Reshape, ConstantOfShape, Range, ...) becomes layers
// that a session computes when it plans, from the input shapes it is given: the file's declared
// shapes (value_info) are never used.
// An op outside the supported set is refused naming its type, node and opset.
#ifndef LUMEN_ONNX_ONNX_READER_HPP_
#define LUMEN_ONNX_ONNX_READER_HPP_

#include <string>

#include "graph/graph.hpp"

namespace lumen {

// The ONNX default-domain opsets the reader accepts. Each op is read as ONNX defines it at the
// model's opset (Slice's attributes before 10, Upsample, Split's num_outputs at 18, ...), or
// refused naming the op, the node and the opset (onnx_opsets.cpp).
inline constexpr int kOldestOnnxOpset = 1;
inline constexpr int kNewestOnnxOpset = 18;

// Reads the .onnx file at `path`. External data must lie in the file's folder. Throws
// lumen::Error naming the file (and the node, with its op type and the opset) on any problem.
Graph ReadOnnxGraph(const std::string& path);

// Reads a model from the bytes of a .onnx file; `source` names it in messages and
// `model_folder` is where external data may be read from (empty: none may be). For tests and
// fuzzing.
Graph ReadOnnxGraphFromBytes(const std::string& bytes, const std::string& source,
                             const std::string& model_folder);

// True if `head`, the first bytes of a file, can start an ONNX ModelProto (and not a PNNX param
// file): its first byte is the key of a ModelProto field.
bool LooksLikeOnnx(const std::string& head);

}  // namespace lumen

#endif  // LUMEN_ONNX_ONNX_READER_HPP_
