// nn.Linear: y = x W^T + b over the last dimension.
#ifndef LUMEN_LAYER_LINEAR_LINEAR_HPP_
#define LUMEN_LAYER_LINEAR_LINEAR_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "math/activation.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {

// A fully connected layer applied to the last dimension of an input of any rank:
// (..., in_features) -> (..., out_features).
//
// Each fcube slice of the input is a column-major (rows x in_features) matrix X; PyTorch's
// row-major (out, in) weight buffer, read column-major, is W^T as an (in x out) matrix; so
// Y = X * W^T is one GEMM per slice with no transposes, or dot products when a slice is a single
// row (a classifier's head). Slices of few rows (a channels-last feature map: ConvNeXt's
// (1, 24, 24, 32) is 24 slices of 24 rows) are stacked into one taller GEMM, whose row panels are
// full, instead of many GEMMs that each end in a partly empty panel.
class Linear : public Layer {
 public:
  // Reads in_features, out_features, bias and the weights, and packs the weights once.
  explicit Linear(const LayerConfig& config);
  // The input's shape with its last dimension in_features replaced by out_features.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Reserves the GEMM's packing scratch for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Multiplies every slice, then adds the bias and applies the fused activation.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;
  // Applies `activation` after the bias, while the output is still in cache.
  bool FuseActivation(const Activation& activation) override;
  // Per pixel of a channels-last map, x W^T + b is a 1x1 nn.Conv2d on the channels-first map,
  // with the same weights: PyTorch's (out, in) buffer is the (out, in, 1, 1) kernel.
  std::unique_ptr<Layer> ChannelsFirstForm() const override;

 private:
  // Adds the bias to output features [first, end) of a column-major (rows x out) slice and
  // applies the activation.
  void FinishFeatures(float* result, int rows, int first, int end) const;
  // Y = X W^T + b for slices of few rows: gathers groups of slices into one column-major matrix,
  // multiplies it in one GEMM, and scatters the result back with the bias and activation.
  void ForwardStacked(const Tensor& input, Tensor& output, const ComputeContext& compute) const;

  int in_features_ = 0;
  int out_features_ = 0;
  std::vector<float> weights_;   // (out, in) row-major: one row per output feature
  PackedMatrix packed_weights_;  // the same as the (in x out) right-hand side, packed
  std::vector<float> bias_;      // empty without bias
  Activation activation_;        // identity unless a following activation was fused
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LINEAR_LINEAR_HPP_
