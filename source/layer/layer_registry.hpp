// LayerRegistry: maps an op type string ("nn.Conv2d", "F.relu", ...) to the code that builds its
// layer.
//
// Each layer registers itself at the bottom of its own source file with LUMEN_REGISTER_LAYER,
// which defines a function RegisterLayer_<Class>(). The build collects every such function into
// one generated file (scripts/cmake/generate_registrations.cmake) that the registry calls before
// its first lookup. So adding a layer touches no hand-written list, and, unlike registration from
// static initialisers, no linker can drop a layer: the registry refers to every one of them.
#ifndef LUMEN_LAYER_LAYER_REGISTRY_HPP_
#define LUMEN_LAYER_LAYER_REGISTRY_HPP_

#include <memory>
#include <string>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Builds a layer from its operator's configuration; throws lumen::Error on bad parameters or
// weights.
using LayerCreator = std::unique_ptr<Layer> (*)(const LayerConfig& config);

// The process-wide table of op types and their layer creators.
class LayerRegistry {
 public:
  // Registers `creator` under every name in `types` (an op and its spellings across pnnx versions
  // and formats). Registering a type twice is a bug in Lumen (CHECK).
  static void Register(const std::vector<std::string>& types, LayerCreator creator);

  // True if some layer implements `type`.
  static bool Has(const std::string& type);

  // Builds the layer for a node; throws lumen::Error naming the op if its type has no layer.
  static std::unique_ptr<Layer> Create(const LayerConfig& config);

  // Every registered op type, sorted.
  static std::vector<std::string> RegisteredTypes();
};

// Defined in the generated file: calls every layer's RegisterLayer_<Class>().
void RegisterBuiltinLayers();

}  // namespace lumen

// Defines RegisterLayer_<LayerClass>(), which registers LayerClass (constructible from a
// LayerConfig) under one or more op type strings. Use it inside namespace lumen.
#define LUMEN_REGISTER_LAYER(LayerClass, ...)                                                      \
  void RegisterLayer_##LayerClass() {                                                              \
    ::lumen::LayerRegistry::Register(                                                              \
        {__VA_ARGS__}, [](const ::lumen::LayerConfig& config) -> std::unique_ptr<::lumen::Layer> { \
          return std::make_unique<LayerClass>(config);                                             \
        });                                                                                        \
  }                                                                                                \
  static_assert(true, "the macro is used as a statement: LUMEN_REGISTER_LAYER(...);")

#endif  // LUMEN_LAYER_LAYER_REGISTRY_HPP_
