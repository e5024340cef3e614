// 3-D convolution (nn.Conv3d): the 2-D convolution's spec and GEMM path with one more axis.
//
// A 3-D sample (C, D, H, W) lives in a Tensor as C*D column-major H x W planes (tensor.hpp), so
// one channel is D planes one after another and a group's output channels form one column-major
// (D_out*W_out*H_out) x C_out matrix, as in 2-D. Two kernels compute it:
//
//   reference   the definition, loop by loop: the ground truth
//   vol2col     copy each receptive field into a row of a (pixels x K) matrix, K = C_in/groups *
//               kD * kH * kW, then one GEMM per group with the packed weights
#ifndef LUMEN_KERNEL_CONVOLUTION_VOLUME_HPP_
#define LUMEN_KERNEL_CONVOLUTION_VOLUME_HPP_

#include <cstddef>
#include <vector>

#include "base/compute_context.hpp"
#include "base/workspace.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {

// What defines one 3-D convolution: the 2-D spec (channels, groups, the H x W window, bias) whose
// weights are PyTorch's (out, in/groups, kD, kH, kW), row-major, and the depth window.
struct VolumeConvolutionSpec {
  ConvolutionSpec plane;
  WindowAxis depth;  // padding before: the front
};

// One sample's extents: input (D, H, W) and output (D', H', W').
struct VolumeShape {
  int input_d = 0, input_h = 0, input_w = 0;
  int output_d = 0, output_h = 0, output_w = 0;
};

// The shape for a D x H x W input, as PyTorch computes it (an output extent is 0 when the window
// does not fit). Throws lumen::Error when a size does not fit in an int.
VolumeShape MakeVolumeShape(const VolumeConvolutionSpec& spec, int input_d, int input_h,
                            int input_w);

// The definition: out[o][z][y][x] = bias[o] + sum over the group's input channels c and the
// kernel taps of weight * in[c][z*sd - pad + kz*dd][...] (zero outside). `input` holds one
// sample's in_channels*D planes, `output` receives out_channels*D' planes.
void ReferenceVolumeConvolution(const VolumeConvolutionSpec& spec, const VolumeShape& shape,
                                const float* input, float* output, const ComputeContext& context);

// How VolumeConvolution runs one input size: how many output columns (D' x W' positions, all H'
// rows each) one GEMM takes, and the scratch that needs per thread.
struct VolumeConvolutionPlan {
  VolumeShape shape;
  int block = 1;
  size_t columns_floats = 0;
  size_t packing_floats = 0;
  // Grows the calling thread's scratch to these sizes, so that Run does not allocate.
  void ReserveScratch(Workspace* workspace) const;
};

// Plans runs of `spec` (its weights are not read) at `shape`, whose output is not empty.
VolumeConvolutionPlan PlanVolumeConvolution(const VolumeConvolutionSpec& spec,
                                            const VolumeShape& shape);

// vol2col + GEMM, with each group's weights packed once; read-only after construction, so
// sessions share it.
class VolumeConvolution {
 public:
  // Packs the weights of `spec` (its weights must be (out, in/groups, kD, kH, kW)).
  explicit VolumeConvolution(const VolumeConvolutionSpec& spec);

  // Computes conv(input) + bias for one sample, as ReferenceVolumeConvolution does.
  void Run(const VolumeConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const;

 private:
  // Fills `columns` with the (pixels x K) column-major vol2col rows of the output columns
  // [first_column, first_column + block_columns) of one group.
  void Vol2Col(const VolumeShape& s, const float* input, int group, int first_column,
               int block_columns, float* columns, const ComputeContext& context) const;

  VolumeConvolutionSpec spec_;         // weights dropped once packed
  int kernel_size_ = 0;                // K: (in_channels / groups) * kD * kH * kW
  std::vector<PackedMatrix> weights_;  // one per group
};

}  // namespace lumen

#endif  // LUMEN_KERNEL_CONVOLUTION_VOLUME_HPP_
