// What the pooling layers share: shape inference (a feature map keeps every dimension but its
// spatial ones, which the window slides over) and the walk that hands each channel's volume to a
// kernel of kernel/. 1-D, 2-D and 3-D poolings are one machinery: a 2-D map is a volume of depth
// 1, and a 1-D signal (C,L) is a C x L plane pooled with a window of height 1, which leaves C
// alone.
#ifndef LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_
#define LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_

#include <cstddef>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "kernel/volume_pooling.hpp"
#include "layer/layer.hpp"
#include "math/window.hpp"

namespace lumen {

// Depth, height and width of a feature map's spatial extent (depth 1 below 3-D; for a 1-D
// signal, the height is its C).
struct FeatureMapSize {
  int depth = 1;
  int height = 0;
  int width = 0;
};

// The number of spatial dimensions an operator type pools: 1, 2 or 3, read from its "1d" / "2d" /
// "3d" suffix (nn.MaxPool3d, F.adaptive_avg_pool1d, ...).
int PooledDimensions(const std::string& type);

// Checks that `input_shapes` is one feature map of PyTorch's unbatched or batched form for a
// `dimensions`-D pooling ((C,L) or (N,C,L); (C,H,W) or (N,C,H,W); (C,D,H,W) or (N,C,D,H,W)) whose
// spatial extent is non-empty and fits in ints, and returns that extent. Throws lumen::Error
// naming `layer` and the shape otherwise.
FeatureMapSize FeatureMapExtent(const Layer& layer, const std::vector<Shape>& input_shapes,
                                int dimensions);

// `input` with its spatial extent replaced by `output`. Throws lumen::Error naming `layer` and the
// shapes when the output would be empty, which PyTorch refuses too.
Shape PooledShape(const Layer& layer, const Shape& input, const FeatureMapSize& output,
                  int dimensions);

// What a sliding pooling (nn.MaxPool1d/2d/3d, nn.AvgPool1d/2d/3d) reads from its config.
struct SlidingWindow {
  int dimensions = 2;  // 1: a window of height 1 over the C x L plane; 3: a depth axis too
  Window3d window;     // depth 1 below 3-D
  bool ceil_mode = false;
};

// Reads kernel_size, stride (the kernel's by default), padding, dilation and ceil_mode as
// `dimensions`-D parameters. Throws lumen::Error naming the operator when the padding is more than
// half the kernel, which PyTorch refuses too (and which guarantees that every window holds an
// input value).
SlidingWindow ReadSlidingWindow(const LayerConfig& config, int dimensions);

// The output shape of a sliding pooling: `input_shapes`' one feature map (checked as
// FeatureMapExtent does) pooled by PyTorch's size formula.
Shape SlidingPooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                         const SlidingWindow& sliding);

// An adaptive pooling's output_size: `dimensions` extents given as a tuple, an int (the same on
// every axis), or a tuple with None or 0 entries (pnnx writes None as 0), which keep that input
// extent (0 here). Throws lumen::Error naming the operator on anything else.
FeatureMapSize ReadAdaptiveOutputSize(const LayerConfig& config, int dimensions);

// The output shape of an adaptive pooling: `input_shapes`' one feature map (checked as
// FeatureMapExtent does) resized to `requested`, whose 0 (None) extents keep the input's.
Shape AdaptivePooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                          const FeatureMapSize& requested, int dimensions);

// The geometry of one channel's volume of `input` pooled into `output` (`dimensions` says whether
// the third-to-last dimension is a depth).
PoolingVolume VolumeOf(const Shape& input, const Shape& output, int dimensions);

// Calls pool_volume(input volume, output volume) for each channel of `input` and `output` (N*C
// volumes of `volume`'s extents), spread over `pool` (may be null) when the input is large enough
// to be worth sharing.
template <typename PoolVolume>
void ForEachVolume(const Tensor& input, Tensor* output, const PoolingVolume& volume,
                   ThreadPool* pool, PoolVolume pool_volume) {
  // Below this many input elements the volumes are pooled on one thread.
  constexpr size_t kParallelElements = 1 << 12;
  const size_t input_size = volume.InputSize();
  const size_t output_size = volume.OutputSize();
  ParallelFor(
      pool, static_cast<std::ptrdiff_t>(input.size() / input_size),
      [&](std::ptrdiff_t channel) {
        pool_volume(input.data() + channel * input_size, output->data() + channel * output_size);
      },
      Schedule::kStatic, input.size() >= kParallelElements);
}

}  // namespace lumen

#endif  // LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_
