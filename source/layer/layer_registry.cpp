#include "lumen/layer/layer_registry.hpp"

#include <glog/logging.h>

#include <map>

#include "lumen/base/error.hpp"

namespace lumen {
namespace {

// A function-local static is built on first use, so registrations from other files' static
// initialisers never see an unconstructed table.
std::map<std::string, LayerCreator>& Table() {
  static std::map<std::string, LayerCreator> table;
  return table;
}

}  // namespace

bool LayerRegistry::Register(const std::vector<std::string>& types, LayerCreator creator) {
  // LESSON 06 BEGIN: remember the creator under every type name
  // LESSON 06 STUB: return false;  // runs before main: must not throw
  for (const std::string& type : types) {
    CHECK(Table().emplace(type, creator).second) << "op type " << type << " registered twice";
  }
  return true;
  // LESSON 06 END
}

bool LayerRegistry::Has(const std::string& type) { return Table().count(type) > 0; }

std::unique_ptr<Layer> LayerRegistry::Create(const RuntimeOperator& op) {
  // LESSON 06 BEGIN: the layer for an operator's type, or an error naming it
  const auto found = Table().find(op.type);
  if (found == Table().end()) {
    throw Error(Concat("unsupported operator type ", op.Describe(),
                       op.line ? Concat(" (line ", op.line, ")") : std::string()));
  }
  return found->second(op);
  // LESSON 06 END
}

std::vector<std::string> LayerRegistry::RegisteredTypes() {
  std::vector<std::string> types;
  for (const auto& [type, creator] : Table()) types.push_back(type);
  return types;
}

}  // namespace lumen
