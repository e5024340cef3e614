#include "model_inputs.hpp"

#include <algorithm>
#include <random>

#include "base/checked_math.hpp"
#include "io/golden_case.hpp"
#include "io/npy_file.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace run {
namespace {

// The megabyte of --max-memory: 2^20 bytes, as the session's messages about its budget count.
constexpr double kBudgetMegabyte = 1024.0 * 1024.0;

// A declared shape as text: "(1,3,?,?)", "(unannotated)".
std::string DeclaredShapeText(const std::vector<int>& shape) {
  if (shape.empty()) return "(not given in the file)";
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i > 0 ? "," : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  }
  return text + ")";
}

// An example --shape for a declared shape: its fixed extents kept, 1 for each open one.
std::string ExampleShape(const std::vector<int>& shape) {
  if (shape.empty()) return "1,3,224,224";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i > 0 ? "," : "") + std::to_string(shape[i] < 0 ? 1 : shape[i]);
  }
  return text;
}

// The names of the model's inputs, for messages: "'images', 'sizes'".
std::string InputList(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += Concat(i > 0 ? ", " : "", "'", names[i], "'");
  return names.empty() ? std::string("none") : text;
}

// The shape of input `index`: its --shape, else the one the model declares (see
// ResolveInputShapes).
Shape ResolveInputShape(const Model& model, size_t index,
                        const std::map<std::string, Shape>& overrides) {
  const std::string name = model.input_names().at(index);
  const std::vector<int> declared = model.export_input_shapes().at(index);
  const auto given = overrides.find(name);
  if (given != overrides.end()) return given->second;
  const bool open = declared.empty() || std::any_of(declared.begin(), declared.end(),
                                                    [](int extent) { return extent < 0; });
  if (open) {
    throw Error(Concat("input '", name, "' has shape ", DeclaredShapeText(declared),
                       " in the model file: give every extent with --shape ", name, ":",
                       ExampleShape(declared), " (or give the input with --input FILE)"));
  }
  return Shape(declared.begin(), declared.end());
}

}  // namespace

bool IsNpyPath(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
}

std::map<std::string, Shape> ParseShapeOptions(const std::vector<std::string>& specs) {
  std::map<std::string, Shape> shapes;
  for (const std::string& spec : specs) {
    // The last colon: an ONNX input name may hold one ("input:0"), a shape never does.
    const size_t colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw Error(Concat("--shape needs NAME:SHAPE such as images:1,3,640,640, got '", spec, "'"));
    }
    const std::string name = spec.substr(0, colon);
    const Shape shape = ParseShapeText(spec.substr(colon + 1), Concat("--shape ", spec));
    if (!shapes.emplace(name, shape).second) {
      throw Error(Concat("--shape gives input '", name, "' twice"));
    }
  }
  return shapes;
}

std::vector<Shape> ResolveInputShapes(const Model& model,
                                      const std::map<std::string, Shape>& overrides) {
  const std::vector<std::string> names = model.input_names();
  for (const auto& [name, shape] : overrides) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw Error(Concat("--shape names input '", name, "', but the model's inputs are ",
                         InputList(names)));
    }
  }
  std::vector<Shape> shapes;
  for (size_t i = 0; i < names.size(); ++i)
    shapes.push_back(ResolveInputShape(model, i, overrides));
  return shapes;
}

Tensor RandomTensor(const Shape& shape, uint32_t seed) {
  // mt19937's sequence is fixed by the standard (its distributions are not): take 24 bits of each
  // draw as a float in [0, 1), exactly representable.
  std::mt19937 generator(seed);
  std::vector<float> values(ShapeElementCount(shape));
  for (float& value : values) value = static_cast<float>(generator() >> 8) / 16777216.0f;
  return Tensor::FromRowMajor(values, shape);
}

void CheckInputFitsBudget(const std::string& what, const Shape& shape, size_t budget_bytes) {
  size_t bytes = 0;
  try {
    bytes = CheckedMultiply(ShapeElementCount(shape), sizeof(float), "input bytes");
  } catch (const Error& error) {
    throw Error(Concat(what, ": ", error.what()));
  }
  if (bytes > budget_bytes) {
    throw Error(Concat(what, ": an input of shape ", ShapeToString(shape), " needs ",
                       static_cast<double>(bytes) / kBudgetMegabyte,
                       " MB, more than the memory budget of ",
                       static_cast<double>(budget_bytes) / kBudgetMegabyte, " MB (--max-memory)"));
  }
}

std::vector<Tensor> ReadInputFiles(const std::vector<std::string>& specs, const Model& model,
                                   const std::map<std::string, Shape>& overrides,
                                   size_t budget_bytes) {
  std::vector<Tensor> inputs;
  const std::vector<std::string> names = model.input_names();
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string& spec = specs[i];
    if (IsNpyPath(spec)) {
      CheckInputFitsBudget(spec, ReadNpyHeader(spec).shape, budget_bytes);
      inputs.push_back(ReadNpyFile(spec));
      continue;
    }
    const size_t colon = spec.rfind(':');
    std::string path = spec;
    Shape shape;
    if (colon != std::string::npos) {
      path = spec.substr(0, colon);
      shape = ParseShapeText(spec.substr(colon + 1), Concat("--input ", spec));
    } else {
      if (i >= names.size()) {
        throw Error(Concat("--input ", spec, ": the model has only ", names.size(),
                           " input(s); give a shape as FILE:SHAPE"));
      }
      // The input's --shape, else its declared shape (the error says which --shape to add).
      try {
        shape = ResolveInputShape(model, i, overrides);
      } catch (const Error& error) {
        throw Error(Concat("--input ", spec,
                           ": raw float32 needs a shape (FILE:SHAPE, or a .npy "
                           "file): ",
                           error.what()));
      }
    }
    CheckInputFitsBudget(path, shape, budget_bytes);
    inputs.push_back(ReadTensorFile(path, shape));
  }
  return inputs;
}

}  // namespace run
}  // namespace lumen
