// PnnxModel: everything a .pnnx.param / .pnnx.bin pair describes, as runtime nodes.
//
// The reader is the only code that knows the file formats. It produces operators (with typed
// parameters and weight attributes) and operands (with their shape notes); it knows nothing about
// layers. RuntimeGraph takes a PnnxModel, links it and turns operators into layers.
#ifndef LUMEN_PNNX_PNNX_MODEL_HPP_
#define LUMEN_PNNX_PNNX_MODEL_HPP_

#include <memory>
#include <string>
#include <vector>

#include "lumen/runtime/runtime_operand.hpp"
#include "lumen/runtime/runtime_operator.hpp"

namespace lumen {

// The nodes read from one model, in file order. Operands are unlinked (no producer/consumers yet).
struct PnnxModel {
  std::vector<std::unique_ptr<RuntimeOperator>> operators;
  std::vector<std::unique_ptr<RuntimeOperand>> operands;
};

// Reads a .pnnx.param file and the weights its `@` items declare from the .pnnx.bin file, checking
// every declared weight against the stored member (presence, size, dtype). Throws lumen::Error with
// the file, line and token on any problem.
PnnxModel ReadPnnxModel(const std::string& param_path, const std::string& bin_path);

// Reads the weights of every `@` attribute of `model` from a .pnnx.bin file.
// `param_path` only names the param file in messages.
void ReadPnnxWeights(const std::string& bin_path, const std::string& param_path, PnnxModel* model);

}  // namespace lumen

#endif  // LUMEN_PNNX_PNNX_MODEL_HPP_
