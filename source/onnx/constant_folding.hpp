// Load-time evaluation of ONNX nodes whose inputs are all known: the exporter's shape arithmetic
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ConstantOfShape, Range, Cast, ...), and
// arithmetic on weights. It needs only a node and its input values, not the graph builder, so that
// a shape subgraph can be evaluated again whenever its inputs' shapes are known. Internal to
// source/onnx/.
#ifndef LUMEN_SOURCE_ONNX_CONSTANT_FOLDING_HPP_
#define LUMEN_SOURCE_ONNX_CONSTANT_FOLDING_HPP_

#include <string>
#include <vector>

#include "onnx.pb.h"
#include "onnx/onnx_tensor.hpp"

namespace lumen {
namespace onnx {

// The most elements a value computed when loading may hold (2^24): shape arithmetic needs a few,
// and a file must not make the reader allocate gigabytes from a few bytes (ConstantOfShape of
// (2^31), an Expand or a broadcast of two long vectors).
constexpr size_t kMaxComputedElements = size_t{1} << 24;

// Evaluates an ONNX node whose inputs are all known (`inputs[i]` null for an omitted optional
// input) into `outputs`. Returns false if the op type has no evaluator here (the reader then
// builds a layer for it); throws lumen::Error naming `where` on inputs the op refuses.
bool FoldConstantNode(const lumen_onnx_proto::NodeProto& node,
                      const std::vector<const ConstantTensor*>& inputs, const std::string& where,
                      std::vector<ConstantTensor>* outputs);

}  // namespace onnx
}  // namespace lumen

#endif  // LUMEN_SOURCE_ONNX_CONSTANT_FOLDING_HPP_
