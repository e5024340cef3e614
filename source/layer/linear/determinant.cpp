// torch.det / torch.linalg.det: the determinant of each square matrix of the last two dimensions
// (*, n, n) -> (*), by Gaussian elimination with partial pivoting in double (the product of the
// pivots, its sign flipped by each row swap), as LAPACK's LU that PyTorch calls computes it.
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the copy of one matrix that elimination overwrites, and the output's strides.
struct DeterminantState : LayerState {
  std::vector<double> matrix;
  std::vector<size_t> output_strides;
  size_t bytes() const override { return matrix.size() * sizeof(double); }
};

}  // namespace

// The determinant of every matrix of a batch.
class Determinant : public Layer {
 public:
  using Layer::Layer;
  // (*, n, n) -> (*).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    if (input.size() < 2 || input[input.size() - 1] != input[input.size() - 2]) {
      Fail(Concat("the input must be square matrices (*, n, n), got ", ShapeToString(input)));
    }
    return {Shape(input.begin(), input.end() - 2)};
  }

  // Sizes the copy of one matrix.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext&) const override {
    auto state = std::make_unique<DeterminantState>();
    const size_t n = input_shapes[0].back();
    state->matrix.resize(n * n);
    state->output_strides = StorageStrides(output_shapes[0]);
    return state;
  }

  // Eliminates each matrix in the state's copy.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const Tensor& input = *inputs[0];
    const size_t n = input.shape().back();
    const Shape& batch_shape = outputs[0]->shape();
    DeterminantState& state = context.state_as<DeterminantState>();
    std::vector<double>& matrix = state.matrix;
    // Output element `batch` (row-major over *) sits at the output's strides; rank <= kMaxRank.
    const std::vector<size_t>& strides = state.output_strides;
    uint32_t index[kMaxRank] = {};
    const size_t count = outputs[0]->size();
    for (size_t batch = 0; batch < count; ++batch) {
      // Matrix `batch` is slice `batch` of the input, column-major: (r, c) at c * n + r.
      const float* source = input.data() + batch * n * n;
      for (size_t i = 0; i < n * n; ++i) matrix[i] = source[i];
      size_t offset = 0;
      for (size_t d = 0; d < batch_shape.size(); ++d) offset += index[d] * strides[d];
      outputs[0]->data()[offset] = static_cast<float>(DeterminantOf(&matrix, n));
      for (size_t d = batch_shape.size(); d-- > 0;) {
        if (++index[d] < batch_shape[d]) break;
        index[d] = 0;
      }
    }
  }

 private:
  // The determinant of the column-major n x n `matrix`, which it overwrites.
  static double DeterminantOf(std::vector<double>* matrix, size_t n) {
    std::vector<double>& a = *matrix;
    const auto at = [&](size_t row, size_t column) -> double& { return a[column * n + row]; };
    double determinant = 1.0;
    for (size_t k = 0; k < n; ++k) {
      size_t pivot = k;
      for (size_t r = k + 1; r < n; ++r) {
        if (std::fabs(at(r, k)) > std::fabs(at(pivot, k))) pivot = r;
      }
      if (at(pivot, k) == 0.0) return 0.0;
      if (pivot != k) {
        for (size_t c = 0; c < n; ++c) std::swap(at(k, c), at(pivot, c));
        determinant = -determinant;
      }
      determinant *= at(k, k);
      for (size_t r = k + 1; r < n; ++r) {
        const double factor = at(r, k) / at(k, k);
        for (size_t c = k + 1; c < n; ++c) at(r, c) -= factor * at(k, c);
      }
    }
    return determinant;
  }
};

LUMEN_REGISTER_LAYER(Determinant, "torch.det", "torch.linalg.det", "Tensor.det");

}  // namespace lumen
