// torch.einsum. The equations that are matrix products, two operands with at most one summed
// letter ('bij,bjk->bik', 'bhqd,bhkd->bhqk', 'ij,kj->ik', 'bi,bj->bij', ...), run as one batched
// GEMM: every letter then plays one part, a batch letter (in both operands and the result,
// broadcast where one operand has extent 1), a row letter (left operand and result), a column
// letter (right operand and result) or the summed letter (both operands, not the result). Each
// operand's letters may come in any order: the product reads them as strided matrices
// (math/batched_gemm.hpp), so transposed operands and results cost no copy.
//
// Every other equation (one or three operands, permutations, traces and diagonals, several summed
// letters: 'ji', 'ii', 'ij->', 'ik,jkl,il->ij', 'imnj,kmln->ijkl') runs the definition, one loop
// over the result's elements and the summed letters' values (EinsumByDefinition); ellipses are
// rejected by name.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/batched_gemm.hpp"
#include "math/einsum_definition.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// What a session keeps per shape: how to run the products.
struct EinsumState : LayerState {
  BatchedGemmPlan plan;
};

// The same for an equation run by its definition.
struct EinsumDefinitionState : LayerState {
  EinsumDefinition plan;
};

}  // namespace

// torch.einsum restricted to batched matrix products (see the top of this file).
class EinsumLayer : public Layer {
 public:
  // Parses and classifies the equation; throws lumen::Error naming it if it is not a product.
  explicit EinsumLayer(const LayerConfig& config) : Layer(config) {
    const std::string written = config.StringParam("equation");
    for (char c : written) {
      if (c != ' ') equation_ += c;
    }
    const auto reject = [&](const std::string& why) {
      Fail(Concat("equation '", written, "' is not supported: ", why,
                  " (Lumen runs einsum equations written with subscript letters and no ellipsis, "
                  "e.g. 'bij,bjk->bik')"));
    };
    if (equation_.find('.') != std::string::npos) reject("ellipsis '...'");
    const size_t arrow = equation_.find("->");
    const std::string operands = equation_.substr(0, arrow);
    for (size_t start = 0;;) {
      const size_t comma = operands.find(',', start);
      terms_.push_back(operands.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (arrow != std::string::npos) {
      result_ = equation_.substr(arrow + 2);
    } else {
      // Implicit output, as torch: the letters used once, in alphabetical order.
      for (char c = 'A'; c <= 'z'; ++c) {
        const auto count = std::count(operands.begin(), operands.end(), c);
        if (count == 1) result_ += c;
      }
    }
    std::vector<const std::string*> all_terms{&result_};
    for (const std::string& term : terms_) all_terms.push_back(&term);
    for (const std::string* term : all_terms) {
      for (size_t i = 0; i < term->size(); ++i) {
        const char c = (*term)[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
          reject(Concat("'", c, "' is not a subscript letter"));
        }
        if (term == &result_ && term->find(c, i + 1) != std::string::npos) {
          reject(Concat("letter '", c, "' repeats in the result"));
        }
      }
    }
    for (char c : result_) {
      if (operands.find(c) == std::string::npos) {
        reject(Concat("result letter '", c, "' is in neither operand"));
      }
    }
    for (char c : operands) {
      if (c != ',' && result_.find(c) == std::string::npos &&
          summed_letters_.find(c) == std::string::npos) {
        summed_letters_ += c;
      }
    }
    by_definition_ = !IsBatchedProduct();
    if (by_definition_) return;
    left_ = terms_[0];
    right_ = terms_[1];
    summed_ = summed_letters_.empty() ? 0 : summed_letters_[0];
    // The row letter: the last result letter found only on the left; the column letter likewise
    // on the right. Other such letters become batch letters that the other operand broadcasts.
    for (char c : result_) {
      const bool in_left = left_.find(c) != std::string::npos;
      const bool in_right = right_.find(c) != std::string::npos;
      if (in_left && !in_right) row_ = c;
      if (in_right && !in_left) column_ = c;
    }
  }

  // The result letters' extents; operands must have one dimension per letter, extents agreeing.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, terms_.size());
    std::map<char, uint32_t> extents;
    for (size_t operand = 0; operand < terms_.size(); ++operand) {
      const std::string& term = terms_[operand];
      const Shape& shape = input_shapes[operand];
      if (shape.size() != term.size()) {
        Fail(Concat("equation '", equation_, "' expects operand ", operand, " of rank ",
                    term.size(), " ('", term, "'), got ", ShapeToString(shape)));
      }
      for (size_t dim = 0; dim < term.size(); ++dim) {
        const char letter = term[dim];
        auto found = extents.find(letter);
        if (found == extents.end()) {
          extents[letter] = shape[dim];
          continue;
        }
        // Batch letters of a product broadcast a 1 (as torch does); every other pairing must
        // agree exactly.
        const bool batch =
            !by_definition_ && letter != summed_ && result_.find(letter) != std::string::npos;
        if (found->second == shape[dim]) continue;
        if (batch && (found->second == 1 || shape[dim] == 1)) {
          found->second = std::max(found->second, shape[dim]);
          continue;
        }
        Fail(Concat("equation '", equation_, "': letter '", letter, "' has extent ", found->second,
                    " in ", ShapeToString(input_shapes[0]), " but ", shape[dim], " in ",
                    ShapeToString(shape)));
      }
    }
    Shape output;
    for (char letter : result_) output.push_back(extents[letter]);
    ShapeElementCount(output);
    return {output};
  }

  // Maps the letters to a batched product over the operands as they lie and plans it, or plans
  // the definition's loop.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& context) const override {
    if (by_definition_) return PrepareDefinition(input_shapes, output_shapes);
    const Shape* shapes[3] = {&input_shapes[0], &input_shapes[1], &output_shapes[0]};
    const std::string* terms[3] = {&left_, &right_, &result_};
    std::vector<size_t> strides[3];
    for (int t = 0; t < 3; ++t) strides[t] = StorageStrides(*shapes[t]);
    // The step of `letter` in term t: 0 where the term lacks it or broadcasts it.
    const auto step = [&](int t, char letter) -> std::ptrdiff_t {
      const size_t dim = terms[t]->find(letter);
      if (dim == std::string::npos || (*shapes[t])[dim] == 1) return 0;
      return static_cast<std::ptrdiff_t>(strides[t][dim]);
    };
    const auto extent = [&](char letter) -> int {
      if (letter == 0) return 1;
      for (int t = 0; t < 3; ++t) {
        const size_t dim = terms[t]->find(letter);
        if (dim != std::string::npos && (*shapes[t])[dim] != 1) {
          return CheckedInt((*shapes[t])[dim], "einsum extent");
        }
      }
      return 1;
    };
    BatchedGemm gemm;
    gemm.m = extent(row_);
    gemm.n = extent(column_);
    gemm.k = extent(summed_);
    gemm.a_row = step(0, row_);
    gemm.a_col = step(0, summed_);
    gemm.b_row = step(1, summed_);
    gemm.b_col = step(1, column_);
    gemm.c_row = step(2, row_);
    gemm.c_col = step(2, column_);
    for (char letter : result_) {
      if (letter == row_ || letter == column_) continue;
      gemm.batch.push_back(static_cast<size_t>(extent(letter)));
      gemm.a_batch.push_back(step(0, letter));
      gemm.b_batch.push_back(step(1, letter));
      gemm.c_batch.push_back(step(2, letter));
    }
    auto state = std::make_unique<EinsumState>();
    state->plan = PlanBatchedGemm(gemm, context.threads);
    ReserveBatchedGemm(state->plan, context.workspace);
    return state;
  }

  // Runs the planned products, or the definition.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    if (by_definition_) {
      std::vector<const float*> operands;
      for (const Tensor* input : inputs) operands.push_back(input->data());
      RunEinsumByDefinition(context.state_as<EinsumDefinitionState>().plan, operands,
                            outputs[0]->data(), context.compute.pool);
      return;
    }
    RunBatchedGemm(context.state_as<EinsumState>().plan, inputs[0]->data(), inputs[1]->data(),
                   outputs[0]->data(), context.compute);
  }

 private:
  // Whether the equation is a batched matrix product (see the top of the file): two operands, at
  // most one summed letter, found in both, and no letter twice in one operand.
  bool IsBatchedProduct() const {
    if (terms_.size() != 2 || summed_letters_.size() > 1) return false;
    for (const std::string& term : terms_) {
      for (size_t i = 0; i < term.size(); ++i) {
        if (term.find(term[i], i + 1) != std::string::npos) return false;
      }
    }
    for (char c : summed_letters_) {
      if (terms_[0].find(c) == std::string::npos || terms_[1].find(c) == std::string::npos) {
        return false;
      }
    }
    return true;
  }

  // The definition's plan: each letter's extent and its step in every operand and the result
  // (a letter twice in one operand steps along its diagonal).
  std::unique_ptr<LayerState> PrepareDefinition(const std::vector<Shape>& input_shapes,
                                                const std::vector<Shape>& output_shapes) const {
    EinsumDefinition plan;
    const std::string letters = result_ + summed_letters_;
    plan.result_letters = result_.size();
    plan.extents.assign(letters.size(), 1);
    plan.operand_steps.assign(terms_.size(), std::vector<std::ptrdiff_t>(letters.size(), 0));
    plan.result_steps.assign(letters.size(), 0);
    for (size_t t = 0; t <= terms_.size(); ++t) {
      const bool result = t == terms_.size();
      const std::string& term = result ? result_ : terms_[t];
      const Shape& shape = result ? output_shapes[0] : input_shapes[t];
      const std::vector<size_t> strides = StorageStrides(shape);
      for (size_t dim = 0; dim < term.size(); ++dim) {
        const size_t letter = letters.find(term[dim]);
        plan.extents[letter] = shape[dim];
        const auto step = static_cast<std::ptrdiff_t>(strides[dim]);
        (result ? plan.result_steps[letter] : plan.operand_steps[t][letter]) += step;
      }
    }
    auto state = std::make_unique<EinsumDefinitionState>();
    state->plan = std::move(plan);
    return state;
  }

  std::string equation_;            // without spaces
  std::vector<std::string> terms_;  // one per operand
  std::string summed_letters_;      // the letters of the operands not in the result
  bool by_definition_ = false;      // not a batched product: run the definition
  std::string left_, right_, result_;
  char row_ = 0;     // the letter of the product's rows (0: none, a single row)
  char column_ = 0;  // the letter of its columns (0: none)
  char summed_ = 0;  // the summed letter (0: none, an outer product)
};

LUMEN_REGISTER_LAYER(EinsumLayer, "torch.einsum");

}  // namespace lumen
