// LayerRegistry: maps an op type string ("nn.Conv2d", "F.relu", ...) to the code that builds its
// layer.
//
// Each layer registers itself in its own source file with LUMEN_REGISTER_LAYER, so adding a layer
// touches no central list. Registration runs during static initialisation; the lumen library is
// linked as a whole archive (see CMakeLists.txt) so that no layer's object file is dropped.
#ifndef LUMEN_LAYER_LAYER_REGISTRY_HPP_
#define LUMEN_LAYER_LAYER_REGISTRY_HPP_

#include <memory>
#include <string>
#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// Builds a layer from its operator; throws lumen::Error on bad parameters or weights.
using LayerCreator = std::unique_ptr<Layer> (*)(const RuntimeOperator& op);

// The process-wide table of op types and their layer creators.
class LayerRegistry {
 public:
  // Registers `creator` under every name in `types` (an op and its aliases across pnnx versions).
  // Returns true so that it can initialise a static variable.
  static bool Register(const std::vector<std::string>& types, LayerCreator creator);

  // True if some layer implements `type`.
  static bool Has(const std::string& type);

  // Builds the layer for `op`; throws lumen::Error naming the op if its type has no layer.
  static std::unique_ptr<Layer> Create(const RuntimeOperator& op);

  // Every registered op type, sorted.
  static std::vector<std::string> RegisteredTypes();
};

}  // namespace lumen

// Registers LayerClass (constructible from a RuntimeOperator) under one or more op type strings.
#define LUMEN_REGISTER_LAYER(LayerClass, ...)                                                    \
  static const bool kLumenRegistered##LayerClass = ::lumen::LayerRegistry::Register(             \
      {__VA_ARGS__}, [](const ::lumen::RuntimeOperator& op) -> std::unique_ptr<::lumen::Layer> { \
        return std::make_unique<LayerClass>(op);                                                 \
      })

#endif  // LUMEN_LAYER_LAYER_REGISTRY_HPP_
