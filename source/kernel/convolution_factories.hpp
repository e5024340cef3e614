// The constructors of the convolution algorithms, one per source file; MakeConvolutionAlgorithm
// (convolution_algorithm.cpp) is the public way to reach them.
#ifndef LUMEN_SOURCE_KERNEL_CONVOLUTION_FACTORIES_HPP_
#define LUMEN_SOURCE_KERNEL_CONVOLUTION_FACTORIES_HPP_

#include <memory>
#include <vector>

#include "kernel/convolution_algorithm.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {

// Each builds its algorithm for `spec`; the specialised ones throw lumen::Error on a geometry
// their Applies function rejects.
std::unique_ptr<ConvolutionAlgorithm> MakeReferenceConvolution(const ConvolutionSpec& spec);
std::unique_ptr<ConvolutionAlgorithm> MakeIm2colConvolution(const ConvolutionSpec& spec);
std::unique_ptr<ConvolutionAlgorithm> MakePointwiseConvolution(const ConvolutionSpec& spec);
std::unique_ptr<ConvolutionAlgorithm> MakeDepthwiseConvolution(const ConvolutionSpec& spec);
std::unique_ptr<ConvolutionAlgorithm> MakeSmallDepthConvolution(const ConvolutionSpec& spec);
// Winograd F(tile_size x tile_size, 3x3), tile_size 4 or 2.
std::unique_ptr<ConvolutionAlgorithm> MakeWinogradConvolution(const ConvolutionSpec& spec,
                                                              int tile_size);

// Each group's weights packed as the right-hand side of its GEMM: a column-major K x
// out_channels / groups matrix, K = in_channels / groups * kH * kW. PyTorch's (out, in/groups, kH,
// kW) buffer already is that matrix, group after group; im2col, small-depth and pointwise share it.
std::vector<PackedMatrix> PackGroupWeights(const ConvolutionSpec& spec);

}  // namespace lumen

#endif  // LUMEN_SOURCE_KERNEL_CONVOLUTION_FACTORIES_HPP_
