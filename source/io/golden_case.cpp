#include "io/golden_case.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "base/parse_number.hpp"
#include "lumen/error.hpp"

namespace lumen {
Shape ParseShapeText(const std::string& text, const std::string& where) {
  std::string list = text;
  if (list.size() >= 2 && list.front() == '(' && list.back() == ')') {
    list = list.substr(1, list.size() - 2);
    if (list.empty()) return Shape{};  // "()": rank 0
  }
  Shape shape;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    int64_t extent = 0;
    if (!ParseInteger(item, &extent) || extent <= 0 || extent > 0x7FFFFFFF) {
      throw Error(Concat(where, ": bad shape '", text, "' (expected positive extents such as ",
                         "1,3,224,224, or () for a rank-0 tensor)"));
    }
    shape.push_back(static_cast<uint32_t>(extent));
    if (shape.size() > kMaxRank) {
      throw Error(Concat(where, ": shape '", text, "' has more than ", kMaxRank, " dimensions"));
    }
    start = comma + 1;
  }
  return shape;
}

GoldenCase ReadGoldenCase(const std::string& directory) {
  const std::string case_path = directory + "/case.txt";
  std::ifstream file(case_path);
  if (!file) throw Error(Concat(case_path, ": cannot open"));
  GoldenCase result;
  const size_t slash = directory.find_last_of('/', directory.size() - 2);
  result.name = directory.substr(slash == std::string::npos ? 0 : slash + 1);
  if (!result.name.empty() && result.name.back() == '/') result.name.pop_back();
  result.param_path = directory + "/model.pnnx.param";
  result.bin_path = directory + "/model.pnnx.bin";
  // An ONNX case holds model.onnx (weights inside) instead of the param/bin pair.
  if (!std::ifstream(result.param_path) && std::ifstream(directory + "/model.onnx")) {
    result.param_path = directory + "/model.onnx";
    result.bin_path.clear();
  }
  bool has_tolerance = false;
  std::string line;
  for (int line_number = 1; std::getline(file, line); ++line_number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = Concat(case_path, ":", line_number);
    std::istringstream stream(line);
    std::string keyword;
    if (!(stream >> keyword)) continue;
    if (keyword == "note") {
      std::getline(stream >> std::ws, result.note);
    } else if (keyword == "input" || keyword == "output") {
      std::string name;
      std::string shape;
      if (!(stream >> name >> shape))
        throw Error(Concat(where, ": expected '", keyword, " FILE SHAPE'"));
      GoldenCase::DataFile data{directory + "/" + name, ParseShapeText(shape, where)};
      (keyword == "input" ? result.inputs : result.outputs).push_back(data);
    } else if (keyword == "tolerance") {
      std::string absolute;
      std::string relative;
      if (!(stream >> absolute >> relative) || !ParseFloat(absolute, &result.absolute_tolerance) ||
          !ParseFloat(relative, &result.relative_tolerance)) {
        throw Error(Concat(where, ": expected 'tolerance ATOL RTOL'"));
      }
      has_tolerance = true;
    } else if (keyword == "bin") {
      std::string path;
      if (!(stream >> path)) throw Error(Concat(where, ": expected 'bin PATH'"));
      if (result.bin_path.empty()) throw Error(Concat(where, ": an ONNX case has no weights file"));
      result.bin_path = directory + "/" + path;
    } else {
      throw Error(Concat(where, ": unknown keyword '", keyword, "'"));
    }
  }
  if (result.inputs.empty() || result.outputs.empty() || !has_tolerance) {
    throw Error(Concat(case_path, ": needs at least one input, one output and a tolerance line"));
  }
  return result;
}

Comparison CompareWithTolerance(const std::vector<float>& got, const std::vector<float>& reference,
                                float absolute_tolerance, float relative_tolerance) {
  if (got.size() != reference.size()) {
    throw Error(Concat("cannot compare ", got.size(), " values with ", reference.size(),
                       " reference values"));
  }
  Comparison comparison;
  comparison.element_count = got.size();
  bool saw_nan = false;
  for (size_t i = 0; i < got.size(); ++i) {
    // NaN where PyTorch has NaN is a match (as torch.allclose(equal_nan=True)); elsewhere it fails.
    if (std::isnan(got[i]) && std::isnan(reference[i])) continue;
    // An infinity matches only the same infinity (as in torch.allclose): inf - inf is NaN, and
    // rtol * |inf| would let any value match an infinite reference.
    const bool infinite = std::isinf(got[i]) || std::isinf(reference[i]);
    if (infinite && got[i] == reference[i]) continue;
    const double error = std::fabs(static_cast<double>(got[i]) - reference[i]);
    const double magnitude = std::fabs(static_cast<double>(reference[i]));
    const bool within =
        !infinite && error <= absolute_tolerance + relative_tolerance * magnitude;  // NaN fails
    if (!within) {
      if (comparison.mismatch_count == 0) comparison.first_mismatch = i;
      ++comparison.mismatch_count;
    }
    if (std::isnan(error)) {
      saw_nan = true;
      continue;
    }
    comparison.max_absolute_error = std::fmax(comparison.max_absolute_error, error);
    if (magnitude > 0) {
      comparison.max_relative_error = std::fmax(comparison.max_relative_error, error / magnitude);
    }
  }
  if (saw_nan) comparison.max_absolute_error = comparison.max_relative_error = NAN;
  return comparison;
}

bool DropInputsOfInputlessModel(size_t model_input_count, GoldenCase* golden) {
  if (model_input_count != 0 || golden->inputs.empty()) return false;
  golden->inputs.clear();
  return true;
}

}  // namespace lumen
