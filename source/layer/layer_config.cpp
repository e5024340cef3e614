#include "layer/layer_config.hpp"

#include "lumen/error.hpp"

namespace lumen {
namespace {

std::string ShapeText(const std::vector<int>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + ")";
}

}  // namespace

int LayerConfig::InputIndexOfRole(const std::string& role) const {
  const auto found = node_.input_keys.find(role);
  if (found == node_.input_keys.end()) return -1;
  for (size_t i = 0; i < node_.input_names.size(); ++i) {
    if (node_.input_names[i] == found->second) return static_cast<int>(i);
  }
  return -1;
}

DataType LayerConfig::InputType(size_t index) const {
  if (operands_ == nullptr || index >= node_.input_names.size()) return DataType::kUnknown;
  for (const Operand& operand : *operands_) {
    if (operand.name == node_.input_names[index]) return operand.type;
  }
  return DataType::kUnknown;
}

bool LayerConfig::HasParam(const std::string& key) const { return node_.params.count(key) > 0; }

const Parameter& LayerConfig::Param(const std::string& key) const {
  const auto found = node_.params.find(key);
  if (found == node_.params.end()) {
    throw Error(Concat(Describe(), ": missing parameter '", key, "'"));
  }
  return found->second;
}

// Runs one typed conversion, adding the operator and key to any error it throws.
template <typename Convert>
static auto ConvertParam(const LayerConfig& op, const std::string& key, Convert convert) {
  const Parameter& parameter = op.Param(key);
  try {
    return convert(parameter);
  } catch (const Error& error) {
    throw Error(Concat(op.Describe(), ": parameter '", key, "': ", error.what()));
  }
}

bool LayerConfig::BoolParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const Parameter& p) { return p.AsBool(); });
}

bool LayerConfig::BoolParam(const std::string& key, bool fallback) const {
  return HasParam(key) ? BoolParam(key) : fallback;
}

int LayerConfig::IntParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const Parameter& p) { return p.AsInt(); });
}

int LayerConfig::IntParam(const std::string& key, int fallback) const {
  return HasParam(key) ? IntParam(key) : fallback;
}

float LayerConfig::FloatParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const Parameter& p) { return p.AsFloat(); });
}

float LayerConfig::FloatParam(const std::string& key, float fallback) const {
  return HasParam(key) ? FloatParam(key) : fallback;
}

std::string LayerConfig::StringParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const Parameter& p) { return p.AsString(); });
}

std::string LayerConfig::StringParam(const std::string& key, const std::string& fallback) const {
  return HasParam(key) ? StringParam(key) : fallback;
}

std::vector<int> LayerConfig::IntArrayParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const Parameter& p) { return p.AsIntArray(); });
}

std::vector<float> LayerConfig::FloatArrayParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const Parameter& p) { return p.AsFloatArray(); });
}

std::vector<int> LayerConfig::IntPairParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const Parameter& p) {
    if (p.type() == Parameter::Type::kInt) return std::vector<int>{p.AsInt(), p.AsInt()};
    std::vector<int> values = p.AsIntArray();
    if (values.size() == 1) values.push_back(values[0]);
    if (values.size() != 2) throw Error(Concat("expected 2 ints, got '", p.text(), "'"));
    return values;
  });
}

bool LayerConfig::HasAttribute(const std::string& key) const {
  return node_.attributes.count(key) > 0;
}

const Attribute& LayerConfig::GetAttribute(const std::string& key) const {
  const auto found = node_.attributes.find(key);
  if (found == node_.attributes.end()) {
    throw Error(Concat(Describe(), ": missing weight attribute '@", key, "'"));
  }
  return found->second;
}

std::vector<std::string> LayerConfig::AttributeNames() const {
  std::vector<std::string> names;
  for (const auto& entry : node_.attributes) names.push_back(entry.first);
  return names;
}

std::vector<float> LayerConfig::AttributeFloats(const std::string& key,
                                                const std::vector<int>& expected_shape) const {
  const Attribute& attribute = GetAttribute(key);
  if (!expected_shape.empty() && attribute.shape != expected_shape) {
    throw Error(Concat(Describe(), ": weight '@", key, "' has shape ", ShapeText(attribute.shape),
                       " but the parameters imply ", ShapeText(expected_shape)));
  }
  try {
    return attribute.ToFloats();
  } catch (const Error& error) {
    throw Error(Concat(Describe(), ": weight '@", key, "': ", error.what()));
  }
}

}  // namespace lumen
