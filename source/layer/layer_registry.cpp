#include "layer/layer_registry.hpp"

#include <glog/logging.h>

#include <map>
#include <mutex>

#include "lumen/error.hpp"

namespace lumen {
namespace {

std::map<std::string, LayerCreator>& Table() {
  static std::map<std::string, LayerCreator> table;
  return table;
}

// Fills the table with every built-in layer, once, before the first lookup.
void EnsureBuiltinLayers() {
  static std::once_flag once;
  std::call_once(once, RegisterBuiltinLayers);
}

}  // namespace

void LayerRegistry::Register(const std::vector<std::string>& types, LayerCreator creator) {
  // LESSON 06 BEGIN: remember the creator under every type name
  for (const std::string& type : types) {
    CHECK(Table().emplace(type, creator).second) << "op type " << type << " registered twice";
  }
  // LESSON 06 END
}

bool LayerRegistry::Has(const std::string& type) {
  EnsureBuiltinLayers();
  return Table().count(type) > 0;
}

std::unique_ptr<Layer> LayerRegistry::Create(const LayerConfig& config) {
  EnsureBuiltinLayers();
  // LESSON 06 BEGIN: the layer for an operator's type, or an error naming it
  const auto found = Table().find(config.type());
  if (found == Table().end()) {
    throw Error(Concat("unsupported operator type ", config.DescribeWithLine()));
  }
  return found->second(config);
  // LESSON 06 END
}

std::vector<std::string> LayerRegistry::RegisteredTypes() {
  EnsureBuiltinLayers();
  std::vector<std::string> types;
  for (const auto& [type, creator] : Table()) types.push_back(type);
  return types;
}

}  // namespace lumen
