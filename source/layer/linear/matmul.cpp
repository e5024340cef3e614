// torch.matmul (and the stricter torch.bmm, torch.mm and torch.mv): matrix products with
// NumPy-style broadcasting of the batch dimensions, and 1-D operands promoted to a row (left) or a
// column (right) whose dimension is then removed from the result, exactly as PyTorch does.
//
// Two more spellings of a product plus a broadcast addend run here too: F.linear (x W^T + b, with
// the weight and bias as operands: the weight is read transposed, in place) and torch.addmm
// (beta * input + alpha * mat1 @ mat2).
//
// Every product runs on the packed GEMM through a BatchedGemm plan (math/batched_gemm.hpp): the
// operands are read in place as strided matrices, whatever their shapes.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/checked_math.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/batched_gemm.hpp"
#include "tensor/broadcast.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// What a session keeps per shape: how to run the products, and how to walk the addend.
struct MatMulState : LayerState {
  BatchedGemmPlan plan;
  std::unique_ptr<BroadcastWalk> addend;  // F.linear's bias, torch.addmm's input; null: none
};

}  // namespace

// torch.matmul / torch.bmm / torch.mm / torch.mv: C = A @ B over broadcast batch dimensions;
// F.linear and torch.addmm: the same plus an addend.
class MatMulLayer : public Layer {
 public:
  // The op type decides which ranks are accepted: any (matmul), 3 (bmm), 2 (mm), 2 and 1 (mv),
  // and where the operands and the addend are.
  explicit MatMulLayer(const LayerConfig& config) : Layer(config) {
    const std::string& type = config.type();
    if (type == "torch.bmm") a_rank_ = b_rank_ = 3;
    if (type == "torch.mm") a_rank_ = b_rank_ = 2;
    if (type == "torch.mv") a_rank_ = 2, b_rank_ = 1;
    input_count_ = 2;
    if (type == "F.linear") {
      // F.linear(input, weight, bias): the weight (out, in) is B^T.
      transposed_b_ = true;
      if (config.input_count() == 3) addend_input_ = 2, input_count_ = 3;
    } else if (type == "torch.addmm") {
      // torch.addmm(input, mat1, mat2, beta, alpha).
      a_rank_ = b_rank_ = 2;
      a_input_ = 1, b_input_ = 2, addend_input_ = 0, input_count_ = 3;
      alpha_ = config.FloatParam("alpha", 1.0f);
      beta_ = config.FloatParam("beta", 1.0f);
    }
  }

  // The broadcast batch dimensions, then A's rows unless A is 1-D and B's columns unless B is.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, input_count_);
    const Shape& a = input_shapes[a_input_];
    const Shape b = ProductB(input_shapes[b_input_]);
    const std::string shapes = Concat(ShapeToString(a), " @ ", ShapeToString(b));
    if ((a_rank_ != 0 && a.size() != a_rank_) || (b_rank_ != 0 && b.size() != b_rank_)) {
      Fail(a_rank_ == b_rank_
               ? Concat("expected two ", a_rank_, "-D operands, got ", shapes)
               : Concat("expected a ", a_rank_, "-D and a ", b_rank_, "-D operand, got ", shapes));
    }
    if (a.empty() || b.empty())
      Fail(Concat("operands must have at least one dimension, got ", shapes));
    const uint32_t a_columns = a.back();
    const uint32_t b_rows = b.size() == 1 ? b[0] : b[b.size() - 2];
    if (a_columns != b_rows) {
      Fail(Concat("inner dimensions differ in ", shapes, ": expected the right operand to have ",
                  a_columns, " rows (the left one's columns), got ", b_rows));
    }
    const Shape a_batch(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
    const Shape b_batch(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
    if (a_rank_ == 3 && b_rank_ == 3 && a_batch != b_batch) {
      Fail(Concat("batch sizes differ in ", shapes, " (torch.bmm does not broadcast)"));
    }
    Shape output;
    try {
      output = BroadcastShapes(a_batch, b_batch);
    } catch (const Error&) {
      Fail(Concat("batch dimensions ", ShapeToString(a_batch), " and ", ShapeToString(b_batch),
                  " of ", shapes, " cannot be broadcast together"));
    }
    if (a.size() >= 2) output.push_back(a[a.size() - 2]);
    if (b.size() >= 2) output.push_back(b.back());
    ShapeElementCount(output);  // throws if the result is too large
    if (addend_input_ >= 0) {
      const Shape& addend = input_shapes[addend_input_];
      bool fits = addend.size() <= output.size();
      try {
        fits = fits && BroadcastShapes(output, addend) == output;
      } catch (const Error&) {
        fits = false;
      }
      if (!fits) {
        Fail(Concat("the ", transposed_b_ ? "bias " : "input ", ShapeToString(addend),
                    " does not broadcast to the product's shape ", ShapeToString(output)));
      }
    }
    return {output};
  }

  // Describes the products as strided matrices over the operands and plans how to run them.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& context) const override {
    const Shape& a = input_shapes[a_input_];
    const Shape b = ProductB(input_shapes[b_input_]);
    const Shape& c = output_shapes[0];
    const std::vector<size_t> a_strides = StorageStrides(a);
    std::vector<size_t> b_strides = StorageStrides(input_shapes[b_input_]);
    if (transposed_b_ && b.size() == 2) std::swap(b_strides[0], b_strides[1]);
    const std::vector<size_t> c_strides = StorageStrides(c);
    const bool a_vector = a.size() == 1;
    const bool b_vector = b.size() == 1;
    BatchedGemm gemm;
    gemm.m = a_vector ? 1 : CheckedInt(a[a.size() - 2], "matmul rows");
    gemm.k = CheckedInt(a.back(), "matmul depth");
    gemm.n = b_vector ? 1 : CheckedInt(b.back(), "matmul columns");
    const auto stride = [](const std::vector<size_t>& strides, size_t dim) {
      return static_cast<std::ptrdiff_t>(strides[dim]);
    };
    gemm.a_row = a_vector ? 1 : stride(a_strides, a.size() - 2);
    gemm.a_col = stride(a_strides, a.size() - 1);
    gemm.b_row = b_vector ? 1 : stride(b_strides, b.size() - 2);
    gemm.b_col = b_vector ? 1 : stride(b_strides, b.size() - 1);
    // The result's matrix dimensions: the last two, or the last one when a vector operand's
    // dimension was removed, or none for a dot product.
    if (!a_vector && !b_vector) {
      gemm.c_row = stride(c_strides, c.size() - 2);
      gemm.c_col = stride(c_strides, c.size() - 1);
    } else if (a_vector && !b_vector) {
      gemm.c_col = stride(c_strides, c.size() - 1);
    } else if (b_vector && !a_vector) {
      gemm.c_row = stride(c_strides, c.size() - 1);
    }
    const size_t batch_rank = c.size() - (a_vector ? 0 : 1) - (b_vector ? 0 : 1);
    const size_t a_batch_rank = a_vector ? 0 : a.size() - 2;
    const size_t b_batch_rank = b_vector ? 0 : b.size() - 2;
    for (size_t dim = 0; dim < batch_rank; ++dim) {
      gemm.batch.push_back(c[dim]);
      gemm.c_batch.push_back(stride(c_strides, dim));
      // Batch dimensions align at the right; a missing or size-1 one is broadcast (step 0).
      const auto operand_step = [&](const Shape& shape, const std::vector<size_t>& strides,
                                    size_t rank) -> std::ptrdiff_t {
        if (dim + rank < batch_rank) return 0;
        const size_t own = dim + rank - batch_rank;
        return shape[own] == 1 ? 0 : stride(strides, own);
      };
      gemm.a_batch.push_back(operand_step(a, a_strides, a_batch_rank));
      gemm.b_batch.push_back(operand_step(b, b_strides, b_batch_rank));
    }
    auto state = std::make_unique<MatMulState>();
    state->plan = PlanBatchedGemm(gemm, context.threads);
    ReserveBatchedGemm(state->plan, context.workspace);
    if (addend_input_ >= 0) {
      state->addend =
          std::make_unique<BroadcastWalk>(c, std::vector<Shape>{c, input_shapes[addend_input_]});
    }
    return state;
  }

  // Runs the planned products, then scales them and adds the addend.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const MatMulState& state = context.state_as<MatMulState>();
    float* output = outputs[0]->data();
    RunBatchedGemm(state.plan, inputs[a_input_]->data(), inputs[b_input_]->data(), output,
                   context.compute);
    if (!state.addend) return;
    const float* addend = inputs[addend_input_]->data();
    const size_t stride = state.addend->inner_stride(1);
    const float alpha = alpha_;
    const float beta = beta_;
    state.addend->ForEachRun(
        [&](const BroadcastWalk::Run& run) {
          float* target = output + run.result_offset;
          const float* source = addend + run.operand_offsets[1];
          // As torch.addmm: beta 0 ignores the input (its NaNs too), alpha 1 leaves the product.
          for (size_t i = 0; i < run.count; ++i) {
            const float scaled = alpha == 1.0f ? target[i] : alpha * target[i];
            target[i] = beta == 0.0f ? scaled : scaled + beta * source[i * stride];
          }
        },
        context.compute.pool);
  }

  // torch.matmul / torch.bmm / torch.mm of the two operands, with no addend, factor or transpose.
  bool MultipliesMatrices() const override {
    return (a_rank_ == 0 || a_rank_ == b_rank_) && input_count_ == 2 && addend_input_ < 0 &&
           !transposed_b_ && a_input_ == 0 && b_input_ == 1 && alpha_ == 1.0f;
  }

 private:
  // The right operand as the product sees it: F.linear's (out, in) weight is read as (in, out).
  Shape ProductB(const Shape& b) const {
    if (!transposed_b_ || b.size() != 2) return b;
    return {b[1], b[0]};
  }

  size_t a_rank_ = 0, b_rank_ = 0;  // 0: any rank (torch.matmul)
  size_t input_count_ = 2;
  int a_input_ = 0, b_input_ = 1;
  int addend_input_ = -1;      // F.linear's bias, torch.addmm's input; -1: none
  bool transposed_b_ = false;  // F.linear: the second operand is B^T
  float alpha_ = 1.0f, beta_ = 1.0f;
};

LUMEN_REGISTER_LAYER(MatMulLayer, "torch.matmul", "Tensor.matmul", "torch.bmm", "torch.mm",
                     "torch.mv", "F.linear", "torch.addmm");

}  // namespace lumen
