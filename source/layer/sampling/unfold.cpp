// nn.Unfold / F.unfold: every sliding block of a feature map, flattened into a column (im2col).
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel/patches.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/window.hpp"
#include "lumen/error.hpp"

namespace lumen {

// (N, C, H, W) -> (N, C * kh * kw, L), L the number of blocks (unbatched: (C, H, W) -> (C*kh*kw,
// L)): row c * kh * kw + ki * kw + kj of column l holds input channel c at block l's tap (ki, kj),
// 0 over the padding.
class Unfold : public Layer {
 public:
  // Reads kernel_size, dilation, padding and stride (1 by default).
  explicit Unfold(const LayerConfig& config)
      : Layer(config), window_(ReadWindow2d(config, /*stride_defaults_to_kernel=*/false)) {}

  // (N, C*kh*kw, L) for an (N, C, H, W) input, (C*kh*kw, L) for (C, H, W).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t rank = input.size();
    if ((rank != 3 && rank != 4) || input[rank - 1] == 0 || input[rank - 2] == 0 ||
        input[rank - 2] > uint32_t{std::numeric_limits<int>::max()} ||
        input[rank - 1] > uint32_t{std::numeric_limits<int>::max()}) {
      Fail(Concat("expected a (C,H,W) or (N,C,H,W) input with non-empty H and W, got ",
                  ShapeToString(input)));
    }
    const int blocks_h = window_.OutputHeight(static_cast<int>(input[rank - 2]));
    const int blocks_w = window_.OutputWidth(static_cast<int>(input[rank - 1]));
    if (blocks_h < 1 || blocks_w < 1) {
      Fail(Concat("input ", ShapeToString(input), " holds no block of the window"));
    }
    const uint64_t rows = uint64_t{input[rank - 3]} * window_.kernel_h * window_.kernel_w;
    const uint64_t blocks = uint64_t{static_cast<uint32_t>(blocks_h)} * blocks_w;
    if (rows > std::numeric_limits<uint32_t>::max() ||
        blocks > std::numeric_limits<uint32_t>::max()) {
      Fail(Concat("input ", ShapeToString(input), " unfolds to too many elements"));
    }
    Shape output{static_cast<uint32_t>(rows), static_cast<uint32_t>(blocks)};
    if (rank == 4) output.insert(output.begin(), input[0]);
    return {output};
  }

  // Copies every in-plane tap of every block; padding taps stay 0.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    const Tensor& input = *inputs[0];
    const float* planes = input.data();
    float* columns = outputs[0]->data();
    outputs[0]->Fill(0.0f);
    const Shape& shape = input.shape();
    ForEachPatchElement(window_, static_cast<int>(input.rows()), static_cast<int>(input.cols()),
                        input.channels(), shape[shape.size() - 3],
                        [&](int64_t plane_element, int64_t column_element) {
                          columns[column_element] = planes[plane_element];
                        });
  }

 private:
  Window2d window_;
};

LUMEN_REGISTER_LAYER(Unfold, "nn.Unfold", "F.unfold");

}  // namespace lumen
