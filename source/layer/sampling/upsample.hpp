// nn.Upsample / F.interpolate (and pnnx's F.upsample, F.upsample_nearest): resize feature maps,
// nearest or bilinear.
#ifndef LUMEN_LAYER_SAMPLING_UPSAMPLE_HPP_
#define LUMEN_LAYER_SAMPLING_UPSAMPLE_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Resizes (N, C, H, W) to (N, C, H', W') with PyTorch's exact coordinate rules. H' and W' are the
// given size, or floor(H * scale_factor) computed from the input actually given.
//
// Every output row (and column) reads one or two source rows with fixed weights, so Prepare
// computes those indices and weights once per axis and Forward only blends.
class Upsample : public Layer {
 public:
  // Reads mode, size or scale_factor, align_corners and recompute_scale_factor.
  explicit Upsample(const LayerConfig& config);
  // The input with its plane resized.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Computes the source indices and weights of every output row and column.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Resizes every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

  // Where one output row (or column) reads: source indices and their weights.
  struct Tap {
    int first = 0;
    int second = 0;
    float first_weight = 1.0f;
    float second_weight = 0.0f;
  };

 private:
  // Output extent along one axis (0: rows, 1: columns) for an input extent.
  int OutputExtent(int axis, uint32_t input_extent) const;
  // Computes the taps of one axis (0: rows, 1: columns).
  std::vector<Tap> ComputeTaps(int axis, int input_size, int output_size) const;

  bool bilinear_ = false;
  bool align_corners_ = false;
  std::vector<int> size_;              // empty when scale factors are given
  std::vector<double> scale_factors_;  // empty when a size is given
  bool recompute_scale_factor_ = false;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_SAMPLING_UPSAMPLE_HPP_
