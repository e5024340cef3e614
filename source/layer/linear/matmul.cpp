// torch.matmul (and the stricter torch.bmm and torch.mm): matrix products with NumPy-style
// broadcasting of the batch dimensions, and 1-D operands promoted to a row (left) or a column
// (right) whose dimension is then removed from the result, exactly as PyTorch does.
//
// Every product runs on the packed GEMM through a BatchedGemm plan (math/batched_gemm.hpp): the
// operands are read in place as strided matrices, whatever their shapes.
#include <memory>
#include <string>
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

// What a session keeps per shape: how to run the products.
struct MatMulState : LayerState {
  BatchedGemmPlan plan;
};

}  // namespace

// torch.matmul / torch.bmm / torch.mm: C = A @ B over broadcast batch dimensions.
class MatMulLayer : public Layer {
 public:
  // The op type decides which ranks are accepted: any (matmul), 3 (bmm), 2 (mm).
  explicit MatMulLayer(const LayerConfig& config) : Layer(config) {
    if (config.type() == "torch.bmm") required_rank_ = 3;
    if (config.type() == "torch.mm") required_rank_ = 2;
  }

  // The broadcast batch dimensions, then A's rows unless A is 1-D and B's columns unless B is.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& a = input_shapes[0];
    const Shape& b = input_shapes[1];
    const std::string shapes = Concat(ShapeToString(a), " @ ", ShapeToString(b));
    if (required_rank_ != 0 && (a.size() != required_rank_ || b.size() != required_rank_)) {
      Fail(Concat("expected two ", required_rank_, "-D operands, got ", shapes));
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
    if (required_rank_ == 3 && a_batch != b_batch) {
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
    return {output};
  }

  // Describes the products as strided matrices over the operands and plans how to run them.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override {
    const Shape& a = input_shapes[0];
    const Shape& b = input_shapes[1];
    const Shape& c = output_shapes[0];
    const std::vector<size_t> a_strides = StorageStrides(a);
    const std::vector<size_t> b_strides = StorageStrides(b);
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
    return state;
  }

  // Runs the planned products.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    RunBatchedGemm(context.state_as<MatMulState>().plan, inputs[0]->data(), inputs[1]->data(),
                   outputs[0]->data(), context.compute);
  }

 private:
  size_t required_rank_ = 0;  // 0: any rank (torch.matmul)
};

LUMEN_REGISTER_LAYER(MatMulLayer, "torch.matmul", "Tensor.matmul", "torch.bmm", "torch.mm");

}  // namespace lumen
