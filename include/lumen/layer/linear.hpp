// nn.Linear: y = x W^T + b over the last dimension.
#ifndef LUMEN_LAYER_LINEAR_HPP_
#define LUMEN_LAYER_LINEAR_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {

// A fully connected layer applied to the last dimension of inputs of any rank.
//
// Each channel of a sample is a column-major (rows x in_features) matrix X; PyTorch's row-major
// (out, in) weight buffer, read column-major, is W^T as an (in x out) matrix; so Y = X * W^T is one
// GEMM with no transposes (a matrix-vector product when there is a single row).
class Linear : public Layer {
 public:
  // Reads in_features, out_features, bias and the weights.
  explicit Linear(const RuntimeOperator& op);
  // Checks the input's last dimension is in_features and the output's is out_features.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Multiplies each channel of each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  int in_features_ = 0;
  int out_features_ = 0;
  std::vector<float> weights_;   // (out, in) row-major == (in x out) column-major
  PackedMatrix packed_weights_;  // the same, packed for PackedGemm
  std::vector<float> bias_;      // empty without bias
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LINEAR_HPP_
