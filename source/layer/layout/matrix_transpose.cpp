// torch.t / Tensor.t: the transpose of a matrix; a vector or a scalar is returned as it is.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/layout/permute.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// A Permute whose order swaps the two dimensions of a matrix (the identity below rank 2); PyTorch
// refuses inputs of rank above 2.
class MatrixTranspose : public Permute {
 public:
  // Takes no parameters.
  explicit MatrixTranspose(const LayerConfig& config) : Permute(config, NoDims{}) {}

 protected:
  // (1, 0) for a matrix, the identity for a vector or a scalar.
  std::vector<size_t> Order(size_t rank) const override {
    if (rank > 2) Fail(Concat("expects a tensor of rank 2 or less, got rank ", rank));
    if (rank == 2) return {1, 0};
    std::vector<size_t> order;
    for (size_t axis = 0; axis < rank; ++axis) order.push_back(axis);
    return order;
  }
};

}  // namespace

LUMEN_REGISTER_LAYER(MatrixTranspose, "torch.t", "Tensor.t");

}  // namespace lumen
