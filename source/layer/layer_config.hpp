// LayerConfig: what a layer is built from, and nothing else: its operator's name and type, typed
// parameters, weights, and how many operands it reads and writes (as ncnn's ParamDict and
// ModelBin give a layer its configuration, without the graph around it).
#ifndef LUMEN_LAYER_LAYER_CONFIG_HPP_
#define LUMEN_LAYER_LAYER_CONFIG_HPP_

#include <string>
#include <vector>

#include "graph/node.hpp"
#include "graph/operand.hpp"

namespace lumen {

// A range of dimensions an operator names by its first and last (or end) dim, read as one
// parameter pair: torch.flatten's start_dim and end_dim, lumen.Shape's start and end.
struct DimRange {
  int start = 0;
  int end = 0;
};

// A read-only view of one node, with getters that name the operator and key in every error.
class LayerConfig {
 public:
  // Views `node`, and the graph's `operands` when given (for what the file says of the node's
  // operands); both must outlive this object.
  explicit LayerConfig(const Node& node, const std::vector<Operand>* operands = nullptr)
      : node_(node), operands_(operands) {}

  // The op type ("nn.Conv2d").
  const std::string& type() const { return node_.type; }
  // The operator's name in the graph.
  const std::string& name() const { return node_.name; }
  // "nn.Conv2d 'conv1'": how messages name this operator.
  std::string Describe() const { return node_.Describe(); }
  // The same with the line of the model file when known: "nn.Conv2d 'conv1' (line 7)".
  std::string DescribeWithLine() const { return node_.DescribeWithLine(); }
  // Number of operands the operator reads and writes.
  size_t input_count() const { return node_.input_names.size(); }
  size_t output_count() const { return node_.output_names.size(); }
  // The position of the input that plays `role` (pnnx's `$attn_mask=...`), or -1 if none does.
  int InputIndexOfRole(const std::string& role) const;
  // The same, or `fallback` when no input plays it (F.prelu's weight is input 1 when unnamed).
  int InputIndexOfRole(const std::string& role, int fallback) const {
    const int by_role = InputIndexOfRole(role);
    return by_role >= 0 ? by_role : fallback;
  }
  // The element type the file declares for input `index` (`#1=(7,7)bool`), kUnknown when it
  // declares none or the graph's operands were not given. Inputs reach layers as floats: this is
  // how a layer tells a bool mask (1 = masked) from an additive one.
  DataType InputType(size_t index) const;

  // True if the operator has the parameter.
  bool HasParam(const std::string& key) const;
  // The parameter; throws lumen::Error naming the operator if it is missing.
  const Parameter& Param(const std::string& key) const;

  // Typed parameter getters; they throw lumen::Error naming the operator, the key, and what was
  // found when the parameter is missing or of the wrong type. The overloads with a fallback return
  // it when the parameter is absent.
  bool BoolParam(const std::string& key) const;
  bool BoolParam(const std::string& key, bool fallback) const;
  int IntParam(const std::string& key) const;
  int IntParam(const std::string& key, int fallback) const;
  float FloatParam(const std::string& key) const;
  float FloatParam(const std::string& key, float fallback) const;
  std::string StringParam(const std::string& key) const;
  std::string StringParam(const std::string& key, const std::string& fallback) const;
  std::vector<int> IntArrayParam(const std::string& key) const;
  std::vector<float> FloatArrayParam(const std::string& key) const;
  // A pair such as kernel_size, written either as `(3,3)` or as a single int `3`.
  std::vector<int> IntPairParam(const std::string& key) const;
  // The int parameters `start` and `end` as a DimRange, each its fallback when absent.
  DimRange DimRangeParam(const std::string& start, int start_fallback, const std::string& end,
                         int end_fallback) const {
    return {IntParam(start, start_fallback), IntParam(end, end_fallback)};
  }

  // True if the operator declares the weight.
  bool HasAttribute(const std::string& key) const;
  // The weight; throws lumen::Error naming the operator and the weight if it is missing.
  const Attribute& GetAttribute(const std::string& key) const;
  // The names of every weight, sorted: for ops that find their weights by shape or content
  // because pnnx versions name them differently (models.yolo.Detect).
  std::vector<std::string> AttributeNames() const;
  // The weight's values as float32 (see Attribute::ToFloats), checking that it has
  // `expected_shape` when one is given.
  std::vector<float> AttributeFloats(const std::string& key,
                                     const std::vector<int>& expected_shape = {}) const;

 private:
  const Node& node_;
  const std::vector<Operand>* operands_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYER_CONFIG_HPP_
