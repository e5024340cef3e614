// What the convolution layers share: reading the padding mode and a window parameter for any
// number of axes, and viewing an input of any spatial rank as a volume.
//
// A (N, C, D, H, W) tensor is N*C*D column-major H x W planes (tensor.hpp), and so is a
// (N, C, H, W) one with D = 1: both are volumes as they are. A (N, C, L) tensor keeps its channels
// innermost, so a 1-D operator stages it as one row of L per channel (a plane of height 1).
#ifndef LUMEN_LAYER_CONVOLUTION_CONVOLUTION_AXES_HPP_
#define LUMEN_LAYER_CONVOLUTION_CONVOLUTION_AXES_HPP_

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "layer/layer_config.hpp"
#include "lumen/tensor.hpp"
#include "math/padding.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// The spatial axes of a convolution op type: 1 for "nn.Conv1d" or "F.conv_transpose1d", 2 for the
// 2-D ones, 3 for the 3-D ones (from the digit before the final 'd').
int SpatialRankOf(const std::string& type);

// padding_mode: zeros (kConstant), reflect, replicate or circular; throws lumen::Error naming the
// operator for any other.
PaddingMode ReadPaddingMode(const LayerConfig& config);

// The window parameter `key` of an operator with `rank` spatial axes (`rank` ints, or one int for
// all) as (depth, height, width): a missing parameter gives `fallback` on each of the rank axes;
// the axes the operator lacks get `leading`. Throws lumen::Error on a wrong count.
std::array<int, 3> ReadAxes(const LayerConfig& config, const std::string& key, int rank,
                            int fallback, int leading);

// An input of `rank` spatial axes, with or without its batch, as (samples, C, D, H, W) and its
// storage strides (0 along the axes it lacks). The caller has checked the rank.
struct VolumeView {
  Shape shape;
  std::vector<std::ptrdiff_t> strides;
};
VolumeView ViewAsVolume(const Shape& input, int rank);

// The output shape of an operator of `rank` spatial axes: `input` (batched or not) with `channels`
// along its channel axis and its spatial axes' extents taken from `extents` (depth, height, width;
// the axes the operator lacks are not read).
Shape VolumeOutputShape(const Shape& input, int rank, int channels,
                        const std::array<int, 3>& extents);

// Copies (samples, C, L) rows of L, one per channel, into a (N, C, L) or (C, L) tensor's layout
// (channels innermost): how a 1-D operator returns what the volume kernels wrote.
StridedCopy RowsToChannelsInnermost(const Shape& output);

// The opposite: a (N, C, L) or (C, L) input's layout into (samples, C, L) rows.
StridedCopy ChannelsInnermostToRows(const Shape& input);

}  // namespace lumen

#endif  // LUMEN_LAYER_CONVOLUTION_CONVOLUTION_AXES_HPP_
