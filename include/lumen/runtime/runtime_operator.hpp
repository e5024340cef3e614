// RuntimeOperator: one line of a .pnnx.param file (an op node) with its typed parameters and
// weights.
#ifndef LUMEN_RUNTIME_RUNTIME_OPERATOR_HPP_
#define LUMEN_RUNTIME_RUNTIME_OPERATOR_HPP_

#include <map>
#include <string>
#include <vector>

#include "lumen/runtime/runtime_attribute.hpp"
#include "lumen/runtime/runtime_parameter.hpp"

namespace lumen {

struct RuntimeOperand;

// An operator node: what it is (`type`, `name`), what it reads and writes, and its configuration.
// The reader fills the names, parameters and attributes; RuntimeGraph::Build links the operands.
struct RuntimeOperator {
  std::string type;  // e.g. "nn.Conv2d"
  std::string name;  // unique in the graph, e.g. "layer1.0.conv1"
  int line = 0;      // line in the .pnnx.param file, for messages (0 when built by hand)

  // Operand names as written on the line, by position: the same name may appear more than once.
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  // The linked operands, same positions as the names.
  std::vector<RuntimeOperand*> inputs;
  std::vector<RuntimeOperand*> outputs;

  // `$key=operand` items: the role an input plays (e.g. "input", "tensor"), keyed by role.
  std::map<std::string, std::string> input_keys;
  // `key=value` hyper-parameters.
  std::map<std::string, RuntimeParameter> params;
  // `@key=(shape)dtype` weights, with their bytes once the .pnnx.bin is read.
  std::map<std::string, RuntimeAttribute> attributes;
  // Operators that RuntimeGraph's passes merged into this one ("nn.ReLU 'relu'"), for profiles.
  std::vector<std::string> fused;

  // "nn.Conv2d 'conv1'": how messages name this operator.
  std::string Describe() const;

  // True if the operator has the parameter.
  bool HasParam(const std::string& key) const;
  // The parameter; throws lumen::Error naming the operator if it is missing.
  const RuntimeParameter& Param(const std::string& key) const;

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

  // True if the operator declares the attribute.
  bool HasAttribute(const std::string& key) const;
  // The attribute; throws lumen::Error naming the operator and the attribute if it is missing.
  const RuntimeAttribute& Attribute(const std::string& key) const;
  // The attribute's values as float32 (see RuntimeAttribute::ToFloats), checking that it has
  // `expected_shape` when one is given.
  std::vector<float> AttributeFloats(const std::string& key,
                                     const std::vector<int>& expected_shape = {}) const;
};

}  // namespace lumen

#endif  // LUMEN_RUNTIME_RUNTIME_OPERATOR_HPP_
