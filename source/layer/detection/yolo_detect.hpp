// models.yolo.Detect: YOLOv5's detection head, kept as one operator by pnnx's moduleop option.
#ifndef LUMEN_LAYER_DETECTION_YOLO_DETECT_HPP_
#define LUMEN_LAYER_DETECTION_YOLO_DETECT_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {

// For each feature level i (P3, P4, P5 at strides 8, 16, 32), on a feature map of ny x nx cells:
//   y = sigmoid(conv1x1_i(x_i)) seen as (na, no, ny, nx), no = 5 + classes
//   box centre  = (2 * y[0:2] + cell - 0.5) * stride_i
//   box size    = (2 * y[2:4])^2 * anchor_i           (anchor sizes in pixels)
//   objectness and class scores = y[4:]
// and the rows of all levels are concatenated into (N, na * sum(ny * nx), no): (N, 25200, 85) for
// a 640x640 image, (N, 6300, 85) for 320x320.
//
// The cell offsets are computed from the feature map given, as YOLOv5's Detect rebuilds its grid
// when the input size changes: the grids pnnx stores are only valid at the export's size. From
// the stored attributes (named differently by pnnx versions, so found by shape and content) the
// layer takes only the strides and each level's anchor sizes.
class YoloDetect : public Layer {
 public:
  // Reads the 1x1 convolutions (@m.i.weight/bias), the strides and each level's anchors.
  explicit YoloDetect(const LayerConfig& config);
  // (N, na * sum(ny * nx), no) for inputs (N, C_i, ny_i, nx_i) of any size.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Sizes the buffer of the convolutions' results and reserves the GEMM's scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Runs the convolutions and decodes every box.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  // One feature level.
  struct Level {
    int channels = 0;             // input channels of the 1x1 convolution
    PackedMatrix packed_weights;  // the 1x1 convolution: (channels x na*no), packed
    std::vector<float> bias;      // na*no
    std::vector<float> anchors;   // (na, 2): width and height in pixels
    float stride = 0.0f;
  };

  int anchors_ = 0;  // na
  int outputs_ = 0;  // no
  std::vector<Level> levels_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_DETECTION_YOLO_DETECT_HPP_
