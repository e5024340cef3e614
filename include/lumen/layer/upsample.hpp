// nn.Upsample / F.interpolate: resize feature maps, nearest or bilinear.
#ifndef LUMEN_LAYER_UPSAMPLE_HPP_
#define LUMEN_LAYER_UPSAMPLE_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// Resizes (N, C, H, W) to (N, C, H', W') with PyTorch's exact coordinate rules.
//
// Every output row (and column) reads one or two source rows with fixed weights, so Prepare
// computes those indices and weights once per axis and Forward only blends.
class Upsample : public Layer {
 public:
  // Reads mode, size or scale_factor, align_corners and recompute_scale_factor.
  explicit Upsample(const RuntimeOperator& op);
  // Checks the output size and computes the source indices and weights of every row and column.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Resizes every channel.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  // Where one output row (or column) reads: source indices and their weights.
  struct Tap {
    int first = 0;
    int second = 0;
    float first_weight = 1.0f;
    float second_weight = 0.0f;
  };
  // Computes the taps of one axis.
  std::vector<Tap> ComputeTaps(int input_size, int output_size, float scale_factor) const;

  bool bilinear_ = false;
  bool align_corners_ = false;
  std::vector<int> size_;             // empty when scale factors are given
  std::vector<float> scale_factors_;  // empty when a size is given
  bool recompute_scale_factor_ = false;
  std::vector<Tap> row_taps_;
  std::vector<Tap> col_taps_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_UPSAMPLE_HPP_
