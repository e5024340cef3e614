// What the 2-D pooling layers share: shape inference (a (C,H,W) or (N,C,H,W) feature map keeps
// every dimension but its last two, the plane the window slides over) and the walk that hands
// each plane to a kernel of kernel/, which pools one plane.
#ifndef LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_
#define LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_

#include <cstddef>
#include <vector>

#include "base/thread_pool.hpp"
#include "kernel/pooling_plane.hpp"
#include "layer/layer.hpp"
#include "math/window.hpp"

namespace lumen {

// Height and width of a feature map's plane.
struct PlaneSize {
  int height = 0;
  int width = 0;
};

// Checks that `input_shapes` is one feature map of rank 3 or 4 (PyTorch's unbatched and batched
// forms) whose plane is non-empty and fits in ints, and returns the plane. Throws lumen::Error
// naming `layer` and the shape otherwise.
//
// With `one_dimensional`, the input is a 1-D signal, (C,L) or (N,C,L), and the "plane" is its
// last two dimensions, C x L: a 1-D pooling is a 2-D pooling of that plane with a window of
// height 1, which leaves C alone.
PlaneSize FeatureMapPlane(const Layer& layer, const std::vector<Shape>& input_shapes,
                          bool one_dimensional = false);

// `input` with its plane replaced by output_h x output_w. Throws lumen::Error naming `layer` and
// the shapes when the output would be empty, which PyTorch refuses too.
Shape PooledShape(const Layer& layer, const Shape& input, int output_h, int output_w);

// What a sliding pooling (nn.MaxPool2d, nn.AvgPool2d and their 1-D forms) reads from its config.
struct SlidingWindow {
  bool one_dimensional = false;  // a 1-D pooling: a window of height 1 over the C x L plane
  Window2d window;
  bool ceil_mode = false;
};

// Reads kernel_size, stride (the kernel's by default), padding, dilation and ceil_mode, as 1-D
// parameters when `one_dimensional`. Throws lumen::Error naming the operator when the padding is
// more than half the kernel, which PyTorch refuses too (and which guarantees that every window
// holds an input value).
SlidingWindow ReadSlidingWindow(const LayerConfig& config, bool one_dimensional);

// The output shape of a sliding pooling: `input_shapes`' one feature map (checked as
// FeatureMapPlane does) with its plane pooled by PyTorch's size formula.
Shape SlidingPooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                         const SlidingWindow& sliding);

// An adaptive pooling's output_size: a pair, an int (square), or a pair with None entries, which
// keep that input extent (0 here). Throws lumen::Error naming the operator on anything else.
PlaneSize ReadAdaptiveOutputSize(const LayerConfig& config);

// The output shape of an adaptive pooling: `input_shapes`' one feature map (checked as
// FeatureMapPlane does) with its plane resized to `requested`, whose 0 (None) extents keep the
// input's.
Shape AdaptivePooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                          const PlaneSize& requested);

// The geometry of one plane of `input` pooled into `output`.
PoolingPlane PlaneOf(const Tensor& input, const Tensor& output);

// Calls pool_plane(input plane, output plane) for each of the N*C planes of `input` and `output`,
// spread over `pool` (may be null) when the input is large enough to be worth sharing.
template <typename PoolPlane>
void ForEachPlane(const Tensor& input, Tensor* output, ThreadPool* pool, PoolPlane pool_plane) {
  // Below this many input elements the planes are pooled on one thread.
  constexpr size_t kParallelElements = 1 << 12;
  ParallelFor(
      pool, static_cast<std::ptrdiff_t>(input.channels()),
      [&](std::ptrdiff_t channel) {
        pool_plane(input.channel_data(channel), output->channel_data(channel));
      },
      Schedule::kStatic, input.size() >= kParallelElements);
}

}  // namespace lumen

#endif  // LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_
