// models.yolo.Detect: YOLOv5's detection head, kept as one operator by pnnx's moduleop option.
#ifndef LUMEN_LAYER_YOLO_DETECT_HPP_
#define LUMEN_LAYER_YOLO_DETECT_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {

// For each feature level i (P3, P4, P5 at strides 8, 16, 32):
//   y = sigmoid(conv1x1_i(x_i)) seen as (na, no, ny, nx), no = 5 + classes
//   box centre  = (2 * y[0:2] + grid_i) * stride_i     (grid_i = cell index - 0.5)
//   box size    = (2 * y[2:4])^2 * anchor_grid_i       (anchor sizes in pixels)
//   objectness and class scores = y[4:]
// and the rows of all levels are concatenated into (N, na * sum(ny * nx), no) = (N, 25200, 85)
// for a 640x640 input. Grids, anchors and strides come from the operator's attributes, found by
// their shapes and contents because pnnx versions name them differently.
class YoloDetect : public Layer {
 public:
  // Reads the 1x1 convolutions (@m.i.weight/bias) and keeps the other attributes for Prepare.
  explicit YoloDetect(const RuntimeOperator& op);
  // Matches each level's grid and anchor grid to its input size, and checks the output shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Runs the convolutions and decodes every box.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  // One feature level.
  struct Level {
    int channels = 0;
    int height = 0, width = 0;
    size_t first_row = 0;            // where this level's rows start in the output
    PackedMatrix packed_weights;     // the 1x1 convolution: (channels x na*no), packed
    std::vector<float> bias;         // na*no
    std::vector<float> grid;         // (na, ny, nx, 2) row-major: cell offsets
    std::vector<float> anchor_grid;  // (na, ny, nx, 2) row-major: anchor sizes in pixels
    float stride = 0.0f;
    std::vector<float> convolved;  // workspace: (ny*nx) x (na*no), column-major
  };
  // A grid-shaped attribute, before we know which level and role it has.
  struct GridAttribute {
    std::vector<int> shape;
    std::vector<float> values;
  };

  int anchors_ = 0;  // na
  int outputs_ = 0;  // no
  std::vector<float> strides_;
  std::vector<GridAttribute> grid_attributes_;
  std::vector<Level> levels_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_YOLO_DETECT_HPP_
