// torch.diag: a vector becomes a square matrix with it on a diagonal; a matrix gives the vector of
// one of its diagonals.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// diagonal k selects the diagonal above the main one (k > 0) or below it (k < 0), as in PyTorch:
// element i of the vector is the matrix's (i, i + k), or (i - k, i). Either way the diagonal is a
// strided line through the matrix, so both directions are one strided copy (after zeroing the
// matrix when building one).
class Diag : public StridedCopyLayer {
 public:
  // Reads diagonal (default 0).
  explicit Diag(const LayerConfig& config)
      : StridedCopyLayer(config), diagonal_(config.IntParam("diagonal", 0)) {}

  // (n + |k|, n + |k|) for a vector of n; the diagonal's length for a matrix (0 when k is outside
  // it, as PyTorch gives an empty vector).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const int64_t k = diagonal_;
    if (input.size() == 1) {
      const int64_t extent = input[0] + (k < 0 ? -k : k);
      if (extent > UINT32_MAX) Fail(Concat("the matrix would have extent ", extent));
      return {Shape{static_cast<uint32_t>(extent), static_cast<uint32_t>(extent)}};
    }
    if (input.size() != 2) {
      Fail(Concat("expects a vector or a matrix, got shape ", ShapeToString(input)));
    }
    return {Shape{Length(input)}};
  }

  // Plans the copy along the diagonal.
  StridedCopy Copy(const Shapes& input_shapes, const Shapes& output_shapes) const override {
    const bool build = input_shapes[0].size() == 1;
    const Shape& matrix = build ? output_shapes[0] : input_shapes[0];
    const std::vector<size_t> strides = StorageStrides(matrix);
    const auto row = static_cast<std::ptrdiff_t>(strides[0]);
    const auto column = static_cast<std::ptrdiff_t>(strides[1]);
    const std::ptrdiff_t start = diagonal_ >= 0 ? diagonal_ * column : -diagonal_ * row;
    StridedCopy copy;
    copy.extents = {build ? input_shapes[0][0] : Length(matrix)};
    copy.source_strides = {build ? 1 : row + column};
    copy.target_strides = {build ? row + column : 1};
    (build ? copy.target_offset : copy.source_offset) = start;
    return copy;
  }

  // Zeroes the matrix when building one: the copy writes only its diagonal.
  void Prefill(const InputTensors& inputs, Tensor* output) const override {
    if (inputs[0]->rank() == 1) output->Fill(0.0f);
  }

 private:
  // The length of diagonal k of a matrix.
  uint32_t Length(const Shape& matrix) const {
    const int64_t rows = matrix[0];
    const int64_t columns = matrix[1];
    const int64_t k = diagonal_;
    const int64_t length = k >= 0 ? std::min(rows, columns - k) : std::min(rows + k, columns);
    return static_cast<uint32_t>(std::max<int64_t>(length, 0));
  }

  int diagonal_;
};

LUMEN_REGISTER_LAYER(Diag, "torch.diag", "Tensor.diag");

}  // namespace lumen
