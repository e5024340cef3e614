// nn.Fold / F.fold: sums columns of sliding blocks back into a feature map (col2im), the inverse
// layout of nn.Unfold.
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel/patches.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/window.hpp"
#include "lumen/error.hpp"

namespace lumen {

// (N, C * kh * kw, L) -> (N, C, H, W) with (H, W) = output_size (unbatched: (C*kh*kw, L) ->
// (C, H, W)): each input value is added to the output position its (tap, block) covers, so
// overlapping blocks sum; taps over the padding are dropped.
class Fold : public Layer {
 public:
  // Reads output_size, kernel_size, dilation, padding and stride (1 by default).
  explicit Fold(const LayerConfig& config)
      : Layer(config),
        window_(ReadWindow2d(config, /*stride_defaults_to_kernel=*/false)),
        output_size_(config.IntPairParam("output_size")) {
    if (output_size_[0] < 1 || output_size_[1] < 1) {
      Fail(Concat("output_size must be positive, got '", config.Param("output_size").text(), "'"));
    }
  }

  // (N, C, H, W) for an (N, C*kh*kw, L) input whose L is the number of blocks of (H, W).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t rank = input.size();
    const int64_t taps = int64_t{window_.kernel_h} * window_.kernel_w;
    const int64_t blocks =
        int64_t{window_.OutputHeight(output_size_[0])} * window_.OutputWidth(output_size_[1]);
    if ((rank != 2 && rank != 3) || input[rank - 2] == 0 || input[rank - 2] % taps != 0 ||
        input[rank - 1] != blocks) {
      Fail(Concat("expected a (C*kh*kw,L) or (N,C*kh*kw,L) input with C*kh*kw a multiple of ", taps,
                  " and L = ", blocks, " blocks, got ", ShapeToString(input)));
    }
    Shape output{static_cast<uint32_t>(input[rank - 2] / taps),
                 static_cast<uint32_t>(output_size_[0]), static_cast<uint32_t>(output_size_[1])};
    if (rank == 3) output.insert(output.begin(), input[0]);
    return {output};
  }

  // Adds every column's in-plane taps into the output planes.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    Tensor& output = *outputs[0];
    const float* columns = inputs[0]->data();
    float* planes = output.data();
    output.Fill(0.0f);
    const Shape& shape = output.shape();
    ForEachPatchElement(window_, output_size_[0], output_size_[1], output.channels(),
                        shape[shape.size() - 3],
                        [&](int64_t plane_element, int64_t column_element) {
                          planes[plane_element] += columns[column_element];
                        });
  }

 private:
  Window2d window_;
  std::vector<int> output_size_;  // (H, W)
};

LUMEN_REGISTER_LAYER(Fold, "nn.Fold", "F.fold");

}  // namespace lumen
