// torch.transpose: swap two dimensions, a Permute whose permutation is built from dim0 and dim1.
#include "lumen/layer/layer_registry.hpp"
#include "lumen/layer/permute.hpp"

namespace lumen {
namespace {

// Swaps dim0 and dim1 (the batch dimension cannot be one of them).
class Transpose : public Permute {
 public:
  // Reads dim0 and dim1.
  explicit Transpose(const RuntimeOperator& op)
      : Permute(op, {}), dim0_(op.IntParam("dim0")), dim1_(op.IntParam("dim1")) {}

  // Builds the permutation for the input's rank, then checks like Permute.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override {
    CheckArity(input_shapes, output_shapes, 1, 1);
    const size_t rank = input_shapes[0].size();
    dims_.clear();
    for (size_t i = 0; i < rank; ++i) dims_.push_back(static_cast<int>(i));
    std::swap(dims_[SampleAxis(dim0_, rank) + 1], dims_[SampleAxis(dim1_, rank) + 1]);
    Permute::Prepare(input_shapes, output_shapes);
  }

 private:
  int dim0_;
  int dim1_;
};

LUMEN_REGISTER_LAYER(Transpose, "torch.transpose", "Tensor.transpose");

}  // namespace
}  // namespace lumen
