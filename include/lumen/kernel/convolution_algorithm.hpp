// The algorithms that can compute a 2-D convolution, behind one interface.
//
// They all compute the same thing; they differ in speed. The Convolution layer picks one in
// Prepare from the layer's geometry (see ChooseConvolutionAlgorithm), and the tests compare every
// fast algorithm with the reference one on random shapes. Read them in this order:
//
//   reference    seven nested loops, straight from the definition: the ground truth
//   im2col       copy each receptive field into a column, then one GEMM per group
//   pointwise    a 1x1, stride-1 convolution needs no im2col: the input already is the matrix
//   depthwise    one input channel per output channel: direct loops, no GEMM
//   winograd     3x3 stride 1: F(4x4, 3x3) trades 144 multiplications per tile for 36,
//                F(2x2, 3x3) trades 36 for 16 and suits small feature maps
#ifndef LUMEN_KERNEL_CONVOLUTION_ALGORITHM_HPP_
#define LUMEN_KERNEL_CONVOLUTION_ALGORITHM_HPP_

#include <memory>
#include <string>
#include <vector>

#include "lumen/layer/activation.hpp"
#include "lumen/layer/window.hpp"
#include "lumen/tensor/tensor.hpp"

namespace lumen {

// Everything that defines one convolution: channels, window, sizes, weights and what follows it.
struct ConvolutionSpec {
  int in_channels = 0;
  int out_channels = 0;
  int groups = 1;
  Window2d window;
  int input_h = 0, input_w = 0;
  int output_h = 0, output_w = 0;
  // PyTorch's (out, in/groups, kH, kW) weights, row-major.
  std::vector<float> weights;
  // One per output channel, or empty for no bias.
  std::vector<float> bias;
  // Applied to every output element after the bias (the graph fuses a following activation here).
  Activation activation;
};

// How a GEMM-based algorithm cuts its work into parallel tasks: blocks of output pixels times
// groups of output-channel panels. Channels are split only when there are too few pixel blocks to
// keep every thread busy (the small feature maps of a network's last layers).
struct TaskGrid {
  int pixel_blocks = 1;
  int panel_groups = 1;
  int panels_per_group = 1;
  // Number of parallel tasks: one per (pixel block, panel group) pair.
  int tasks() const { return pixel_blocks * panel_groups; }
};

// Plans the tasks for `pixel_blocks` blocks and `panels` column panels of weights.
TaskGrid PlanTasks(int pixel_blocks, int panels);

// One way of computing a convolution. Built once per layer (weights may be rearranged then),
// run once per sample.
class ConvolutionAlgorithm {
 public:
  // Keeps the geometry, weights, bias and fused activation every algorithm needs.
  explicit ConvolutionAlgorithm(const ConvolutionSpec& spec) : spec_(spec) {}
  virtual ~ConvolutionAlgorithm() = default;
  // Short name for profiles and benchmarks ("im2col", "winograd", ...).
  virtual const char* name() const = 0;
  // Computes activation(conv(input) + bias) into `output`, which has the output shape.
  virtual void Run(const Tensor& input, Tensor* output) = 0;

 protected:
  // Adds the bias of `channel` to `count` values and applies the activation, in place.
  void FinishChannel(int channel, float* values, size_t count) const;

  ConvolutionSpec spec_;
};

// The algorithms, each usable where its name says (the factory functions throw lumen::Error on a
// geometry they cannot handle).
std::unique_ptr<ConvolutionAlgorithm> MakeReferenceConvolution(const ConvolutionSpec& spec);
std::unique_ptr<ConvolutionAlgorithm> MakeIm2colConvolution(const ConvolutionSpec& spec);
std::unique_ptr<ConvolutionAlgorithm> MakePointwiseConvolution(const ConvolutionSpec& spec);
std::unique_ptr<ConvolutionAlgorithm> MakeDepthwiseConvolution(const ConvolutionSpec& spec);
// Winograd F(tile_size x tile_size, 3x3), tile_size 4 or 2.
std::unique_ptr<ConvolutionAlgorithm> MakeWinogradConvolution(const ConvolutionSpec& spec,
                                                              int tile_size = 4);

// Whether the specialised algorithms can compute `spec` (im2col and reference always can).
bool PointwiseApplies(const ConvolutionSpec& spec);
bool DepthwiseApplies(const ConvolutionSpec& spec);
bool WinogradApplies(const ConvolutionSpec& spec);

// Picks the fastest algorithm that applies (measured on ResNet18's and YOLOv5s's layers; see
// bench/bench_convolution.cpp).
std::unique_ptr<ConvolutionAlgorithm> ChooseConvolutionAlgorithm(const ConvolutionSpec& spec);

}  // namespace lumen

#endif  // LUMEN_KERNEL_CONVOLUTION_ALGORITHM_HPP_
