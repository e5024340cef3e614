#include "lumen/runtime/runtime_operator.hpp"

#include "lumen/base/error.hpp"

namespace lumen {
namespace {

std::string ShapeText(const std::vector<int>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + ")";
}

}  // namespace

std::string RuntimeOperator::Describe() const { return Concat(type, " '", name, "'"); }

bool RuntimeOperator::HasParam(const std::string& key) const { return params.count(key) > 0; }

const RuntimeParameter& RuntimeOperator::Param(const std::string& key) const {
  const auto found = params.find(key);
  if (found == params.end()) {
    throw Error(Concat(Describe(), ": missing parameter '", key, "'"));
  }
  return found->second;
}

// Runs one typed conversion, adding the operator and key to any error it throws.
template <typename Convert>
static auto ConvertParam(const RuntimeOperator& op, const std::string& key, Convert convert) {
  const RuntimeParameter& parameter = op.Param(key);
  try {
    return convert(parameter);
  } catch (const Error& error) {
    throw Error(Concat(op.Describe(), ": parameter '", key, "': ", error.what()));
  }
}

bool RuntimeOperator::BoolParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const RuntimeParameter& p) { return p.AsBool(); });
}

bool RuntimeOperator::BoolParam(const std::string& key, bool fallback) const {
  return HasParam(key) ? BoolParam(key) : fallback;
}

int RuntimeOperator::IntParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const RuntimeParameter& p) { return p.AsInt(); });
}

int RuntimeOperator::IntParam(const std::string& key, int fallback) const {
  return HasParam(key) ? IntParam(key) : fallback;
}

float RuntimeOperator::FloatParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const RuntimeParameter& p) { return p.AsFloat(); });
}

float RuntimeOperator::FloatParam(const std::string& key, float fallback) const {
  return HasParam(key) ? FloatParam(key) : fallback;
}

std::string RuntimeOperator::StringParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const RuntimeParameter& p) { return p.AsString(); });
}

std::string RuntimeOperator::StringParam(const std::string& key,
                                         const std::string& fallback) const {
  return HasParam(key) ? StringParam(key) : fallback;
}

std::vector<int> RuntimeOperator::IntArrayParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const RuntimeParameter& p) { return p.AsIntArray(); });
}

std::vector<float> RuntimeOperator::FloatArrayParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const RuntimeParameter& p) { return p.AsFloatArray(); });
}

std::vector<int> RuntimeOperator::IntPairParam(const std::string& key) const {
  return ConvertParam(*this, key, [](const RuntimeParameter& p) {
    if (p.type() == RuntimeParameter::Type::kInt) return std::vector<int>{p.AsInt(), p.AsInt()};
    std::vector<int> values = p.AsIntArray();
    if (values.size() == 1) values.push_back(values[0]);
    if (values.size() != 2) throw Error(Concat("expected 2 ints, got '", p.text(), "'"));
    return values;
  });
}

bool RuntimeOperator::HasAttribute(const std::string& key) const {
  return attributes.count(key) > 0;
}

const RuntimeAttribute& RuntimeOperator::Attribute(const std::string& key) const {
  const auto found = attributes.find(key);
  if (found == attributes.end()) {
    throw Error(Concat(Describe(), ": missing weight attribute '@", key, "'"));
  }
  return found->second;
}

std::vector<float> RuntimeOperator::AttributeFloats(const std::string& key,
                                                    const std::vector<int>& expected_shape) const {
  const RuntimeAttribute& attribute = Attribute(key);
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
