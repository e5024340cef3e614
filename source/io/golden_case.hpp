// Golden cases: a model with inputs and PyTorch's outputs, described by a case.txt file. The
// model is the folder's model.pnnx.param (+ .bin), or its model.onnx when there is no param file.
// Data paths are relative to the folder (an ONNX case may reuse a PNNX case's in0.f32 through
// `input ../../models/resnet18/in0.f32 1,3,224,224`).
//
//   input in0.f32 1,3,224,224          one line per input, in graph input order
//   output out0.f32 1,1000             one line per output, in graph output order
//   output out1.f32 ()                 a rank-0 tensor (one value), such as x.sum()
//   tolerance 1e-4 1e-4                atol rtol: pass when |got - ref| <= atol + rtol * |ref|
//   bin ../resnet18/model.pnnx.bin     optional: weights shared with another case
//   note free text
#ifndef LUMEN_IO_GOLDEN_CASE_HPP_
#define LUMEN_IO_GOLDEN_CASE_HPP_

#include <string>
#include <vector>

#include "lumen/tensor.hpp"

namespace lumen {

// One case folder, with every path resolved relative to the folder.
struct GoldenCase {
  // A data file and the full shape (batch first) of its contents.
  struct DataFile {
    std::string path;
    Shape shape;
  };

  std::string name;        // the folder's name
  std::string param_path;  // the model file: model.pnnx.param, or model.onnx
  std::string bin_path;    // the PNNX weights; empty for an ONNX model
  std::vector<DataFile> inputs;
  std::vector<DataFile> outputs;
  float absolute_tolerance = 0.0f;
  float relative_tolerance = 0.0f;
  std::string note;
};

// Parses a shape as case.txt and lumen_run's --input write it: "1,3,224,224" (or in parentheses,
// "(1,3,224,224)"), and "()" for a rank-0 tensor. Extents are positive. Throws lumen::Error that
// starts with `where` on anything else.
Shape ParseShapeText(const std::string& text, const std::string& where);

// Reads `directory`/case.txt; throws lumen::Error naming the line on a malformed file.
GoldenCase ReadGoldenCase(const std::string& directory);

// Fits the case's inputs to a model that takes `model_input_count` inputs: when pnnx folded every
// output of the traced module into constants, the model has no inputs left while the case still
// lists those the module was traced with; they feed nothing and are dropped (returns true).
// Otherwise changes nothing (a count that differs is the session's error to report).
bool DropInputsOfInputlessModel(size_t model_input_count, GoldenCase* golden);

// How far a result is from its reference.
struct Comparison {
  size_t element_count = 0;
  size_t mismatch_count = 0;        // elements outside atol + rtol * |ref| (NaN counts)
  double max_absolute_error = 0.0;  // max |got - ref|
  double max_relative_error = 0.0;  // max |got - ref| / |ref| over elements with ref != 0
  size_t first_mismatch = 0;        // row-major index of the first mismatch, if any
  bool passed() const { return mismatch_count == 0; }
};

// Compares two row-major buffers elementwise with PyTorch's allclose rule (NaN matches NaN only).
// Sizes must match.
Comparison CompareWithTolerance(const std::vector<float>& got, const std::vector<float>& reference,
                                float absolute_tolerance, float relative_tolerance);

}  // namespace lumen

#endif  // LUMEN_IO_GOLDEN_CASE_HPP_
