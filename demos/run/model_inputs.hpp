// The inputs lumen_run feeds a model: read from files (.npy with its own shape, raw float32 with
// a shape given or declared), or made up at the model's declared shapes for timing, with
// --shape NAME:1,3,224,224 for the extents the model leaves open.
#ifndef LUMEN_DEMOS_RUN_MODEL_INPUTS_HPP_
#define LUMEN_DEMOS_RUN_MODEL_INPUTS_HPP_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lumen/model.hpp"
#include "lumen/tensor.hpp"

namespace lumen {
namespace run {

// --shape options by input name: "images:1,3,640,640" -> {"images", (1,3,640,640)}. Throws
// lumen::Error for a malformed option or an input named twice.
std::map<std::string, Shape> ParseShapeOptions(const std::vector<std::string>& specs);

// One shape per model input: the --shape given for it, else the shape the model declares. Throws
// lumen::Error naming the input, with the --shape to write, when neither gives every extent, and
// for a --shape naming no input.
std::vector<Shape> ResolveInputShapes(const Model& model,
                                      const std::map<std::string, Shape>& overrides);

// A tensor of `shape` filled with values in [0, 1) from a fixed seed: the same on every machine
// and run (non-negative, so that inputs read as indices or passed to log/sqrt stay valid).
Tensor RandomTensor(const Shape& shape, uint32_t seed);

// Reads one input per --input spec: FILE.npy (shape from the file), FILE:SHAPE (raw float32),
// or FILE (raw float32 at the --shape or declared shape of the input at its position). Checks
// each against `budget_bytes` before reading it. Throws lumen::Error naming the file.
std::vector<Tensor> ReadInputFiles(const std::vector<std::string>& specs, const Model& model,
                                   const std::map<std::string, Shape>& overrides,
                                   size_t budget_bytes);

// Throws lumen::Error when an input of `shape` (from `what`, a file or an input name) would not
// fit in `budget_bytes`: refused before it is read or made.
void CheckInputFitsBudget(const std::string& what, const Shape& shape, size_t budget_bytes);

// True if `path` ends in ".npy".
bool IsNpyPath(const std::string& path);

}  // namespace run
}  // namespace lumen

#endif  // LUMEN_DEMOS_RUN_MODEL_INPUTS_HPP_
