#include "lumen/layer/linear.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {

Linear::Linear(const RuntimeOperator& op) : Layer(op) {
  in_features_ = op.IntParam("in_features");
  out_features_ = op.IntParam("out_features");
  if (in_features_ < 1 || out_features_ < 1) Fail("in_features and out_features must be positive");
  weights_ = op.AttributeFloats("weight", {out_features_, in_features_});
  // PyTorch's (out, in) buffer read column-major is W^T, the (in x out) right-hand side.
  packed_weights_ = PackedMatrix(weights_.data(), in_features_, out_features_, in_features_);
  if (op.BoolParam("bias", false)) bias_ = op.AttributeFloats("bias", {out_features_});
}

void Linear::Prepare(const std::vector<Shape>& input_shapes,
                     const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (input.size() < 2 || input.back() != static_cast<uint32_t>(in_features_)) {
    Fail(Concat("expected an input of shape (N,...,", in_features_, "), got ",
                ShapeToString(input)));
  }
  Shape expected = input;
  expected.back() = static_cast<uint32_t>(out_features_);
  if (output_shapes[0] != expected) {
    Fail(Concat("input ", ShapeToString(input), " gives output ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
}

void Linear::Forward(const std::vector<const TensorBatch*>& inputs,
                     const std::vector<TensorBatch*>& outputs) {
  // LESSON 09 BEGIN: x W^T + b for every row of every sample
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    const int rows = static_cast<int>(input.rows());
    for (uint32_t channel = 0; channel < input.channels(); ++channel) {
      const float* x = input.channel_data(channel);
      float* result = output.channel_data(channel);
      if (rows == 1) {
        // One vector (a classifier's head): a dot product per output feature, a matrix-vector
        // product that a GEMM's 32-row tiles would mostly waste.
        ParallelFor((out_features_ + 63) / 64, [&](std::ptrdiff_t block) {
          const int end = std::min(out_features_, static_cast<int>(block + 1) * 64);
          for (int feature = static_cast<int>(block) * 64; feature < end; ++feature) {
            const float* w = weights_.data() + static_cast<size_t>(feature) * in_features_;
            float sum = 0.0f;
            for (int i = 0; i < in_features_; ++i) sum += w[i] * x[i];
            result[feature] = sum + (bias_.empty() ? 0.0f : bias_[feature]);
          }
        });
        continue;
      }
      PackedGemm(rows, x, rows, packed_weights_, result, rows);
      if (bias_.empty()) continue;
      for (int feature = 0; feature < out_features_; ++feature) {
        for (int row = 0; row < rows; ++row) result[feature * rows + row] += bias_[feature];
      }
    }
  }
  // LESSON 09 END
}

LUMEN_REGISTER_LAYER(Linear, "nn.Linear");

}  // namespace lumen
