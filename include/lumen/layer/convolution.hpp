// nn.Conv2d: 2-D convolution with stride, padding, dilation, groups and bias.
#ifndef LUMEN_LAYER_CONVOLUTION_HPP_
#define LUMEN_LAYER_CONVOLUTION_HPP_

#include <memory>
#include <vector>

#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/layer/layer.hpp"

namespace lumen {

// The layer reads and checks the parameters; the arithmetic is done by a ConvolutionAlgorithm
// (include/lumen/kernel/convolution_algorithm.hpp) chosen in Prepare, once the input size is known.
class Convolution : public Layer {
 public:
  // Reads the nn.Conv2d parameters and weights; throws lumen::Error on inconsistent ones.
  explicit Convolution(const RuntimeOperator& op);
  // Checks the input is (N, in_channels, H, W) and the output has the size the window gives;
  // chooses the algorithm.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Convolves each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

  // Applies `activation` to the output as well (call before Prepare): the graph uses this to fuse
  // a following ReLU or SiLU into the convolution, saving one pass over memory.
  void FuseActivation(const Activation& activation) { spec_.activation = activation; }

  // The chosen algorithm's name (valid after Prepare), for profiles.
  const char* algorithm_name() const { return algorithm_ ? algorithm_->name() : "none"; }

 private:
  ConvolutionSpec spec_;
  std::unique_ptr<ConvolutionAlgorithm> algorithm_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_CONVOLUTION_HPP_
