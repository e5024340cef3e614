// F.affine_grid: the sampling grid of an affine transform, for F.grid_sample.
#include <cstdint>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// PyTorch's base grid coordinate of pixel `index` of `steps` along one axis: linspace(-1, 1,
// steps) (computed from both ends, as torch.linspace does), scaled by (steps - 1) / steps
// without align_corners so that it points at pixel centres.
float BaseCoordinate(int64_t index, int64_t steps, bool align_corners) {
  if (steps <= 1) return 0.0f;
  const float step = 2.0f / static_cast<float>(steps - 1);
  const float value = index < steps / 2 ? -1.0f + step * static_cast<float>(index)
                                        : 1.0f - step * static_cast<float>(steps - 1 - index);
  // range * (steps - 1) / steps, multiplied then divided, as PyTorch writes it.
  return align_corners ? value : value * static_cast<float>(steps - 1) / static_cast<float>(steps);
}

}  // namespace

// theta (N, 2, 3) and size (N, C, H, W) give a grid (N, H, W, 2) whose point (h, w) is
// theta[n] @ (x_w, y_h, 1); theta (N, 3, 4) and size (N, C, D, H, W) give (N, D, H, W, 3) from
// (x_w, y_h, z_d, 1).
class AffineGrid : public Layer {
 public:
  // Reads size and align_corners.
  explicit AffineGrid(const LayerConfig& config)
      : Layer(config), size_(config.IntArrayParam("size")) {
    align_corners_ = config.HasParam("align_corners") && !config.Param("align_corners").IsNone() &&
                     config.BoolParam("align_corners");
    if (size_.size() != 4 && size_.size() != 5) {
      Fail(
          Concat("size must be (N,C,H,W) or (N,C,D,H,W), got '", config.Param("size").text(), "'"));
    }
    for (int extent : size_) {
      if (extent < 1) Fail("size must be positive");
    }
  }

  // (N, H, W, 2) or (N, D, H, W, 3) for a theta of (N, 2, 3) or (N, 3, 4).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& theta = input_shapes[0];
    const uint32_t axes = static_cast<uint32_t>(size_.size() - 2);
    if (theta != Shape{static_cast<uint32_t>(size_[0]), axes, axes + 1}) {
      Fail(Concat("expected theta (", size_[0], ",", axes, ",", axes + 1, "), got ",
                  ShapeToString(theta)));
    }
    Shape output{static_cast<uint32_t>(size_[0])};
    for (size_t i = 2; i < size_.size(); ++i) output.push_back(static_cast<uint32_t>(size_[i]));
    output.push_back(axes);
    return {output};
  }

  // Transforms every base grid point by its sample's theta.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    const int64_t axes = static_cast<int64_t>(size_.size()) - 2;
    const int64_t depth = axes == 3 ? size_[2] : 1;
    const int64_t height = size_[size_.size() - 2], width = size_.back();
    const float* theta = inputs[0]->data();
    float* grid = outputs[0]->data();
    for (int64_t n = 0; n < size_[0]; ++n) {
      // theta[n] is an axes x (axes + 1) column-major matrix: row r, column c at c * axes + r.
      const float* matrix = theta + n * axes * (axes + 1);
      for (int64_t d = 0; d < depth; ++d) {
        const float z = BaseCoordinate(d, depth, align_corners_);
        for (int64_t h = 0; h < height; ++h) {
          const float y = BaseCoordinate(h, height, align_corners_);
          // The grid's last two axes (W, axes) are stored column-major.
          float* row = grid + ((n * depth + d) * height + h) * width * axes;
          for (int64_t w = 0; w < width; ++w) {
            const float point[4] = {BaseCoordinate(w, width, align_corners_), y,
                                    axes == 3 ? z : 1.0f, 1.0f};
            for (int64_t r = 0; r < axes; ++r) {
              float value = 0.0f;
              for (int64_t c = 0; c <= axes; ++c) value += point[c] * matrix[c * axes + r];
              row[r * width + w] = value;
            }
          }
        }
      }
    }
  }

 private:
  std::vector<int> size_;  // (N, C, H, W) or (N, C, D, H, W)
  bool align_corners_ = false;
};

LUMEN_REGISTER_LAYER(AffineGrid, "F.affine_grid");

}  // namespace lumen
