// torch.transpose / Tensor.transpose: swap two dimensions, a Permute whose order is built from
// dim0 and dim1 for the input's rank.
#include "layer/layer_registry.hpp"
#include "layer/layout/permute.hpp"
#include "lumen/error.hpp"

namespace lumen {

namespace {

// Swaps dim0 and dim1 of the whole tensor (either may be the batch, or negative).
class Transpose : public Permute {
 public:
  // Reads dim0 and dim1.
  explicit Transpose(const LayerConfig& config)
      : Permute(config, NoDims{}), dim0_(config.IntParam("dim0")), dim1_(config.IntParam("dim1")) {}

 protected:
  // The identity order with dim0 and dim1 swapped.
  std::vector<size_t> Order(size_t rank) const override {
    std::vector<size_t> order;
    for (size_t axis = 0; axis < rank; ++axis) order.push_back(axis);
    std::swap(order[Axis(dim0_, rank)], order[Axis(dim1_, rank)]);
    return order;
  }

 private:
  int dim0_;
  int dim1_;
};

}  // namespace

LUMEN_REGISTER_LAYER(Transpose, "torch.transpose", "Tensor.transpose");

}  // namespace lumen
