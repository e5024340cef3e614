// What the pooling layers share: shape inference (a feature map keeps every dimension but its
// spatial ones, which the window slides over) and the walk that hands each channel's volume to a
// kernel of kernel/. 1-D, 2-D and 3-D poolings are one machinery: a 2-D map is a volume of depth
// 1, and a 1-D signal (C,L) is a C x L plane pooled with a window of height 1, which leaves C
// alone.
#ifndef LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_
#define LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_

#include <cstddef>
#include <memory>
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

// Base of the max, average and adaptive poolings: one pooled output per input (and with
// return_indices, for the max poolings, a second one holding each maximum's flattened position in
// its channel, as floats, as PyTorch returns them), computed channel by channel. Subclasses say
// how large the output is and how one channel's volume is pooled.
class PoolingLayer : public Layer {
 public:
  // The pooled shape, twice with return_indices.
  Shapes OutputShapes(const Shapes&) const override;
  // Reserves the kernel's scratch (none with return_indices).
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Pools every channel.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 protected:
  // Reads return_indices when `indices_allowed` (the max poolings); `dimensions` is 1, 2 or 3.
  PoolingLayer(const LayerConfig& config, int dimensions, bool indices_allowed);

  // The one pooled output's shape for these (checked) inputs.
  virtual Shape PooledOutput(const std::vector<Shape>& input_shapes) const = 0;
  // Reserves what PoolChannel asks the compute context's scratch for; by default the depth
  // pass's scratch in the first slot.
  virtual void ReserveScratch(const PoolingVolume& volume, Workspace* workspace) const;
  // Pools one channel's `volume` from `input` into `output`.
  virtual void PoolChannel(const PoolingVolume& volume, const float* input, float* output,
                           const ComputeContext& compute) const = 0;
  // The same, writing each maximum's position into `indices` (only with return_indices).
  virtual void PoolChannelWithIndices(const PoolingVolume& volume, const float* input,
                                      float* output, float* indices) const;

  int dimensions() const { return dimensions_; }

 private:
  int dimensions_;               // 1, 2 or 3
  bool return_indices_ = false;  // a second output with the maxima's positions
};

// Both adaptive poolings (nn.AdaptiveAvgPool1d/2d/3d, nn.AdaptiveMaxPool1d/2d/3d): output cell
// (i, j) pools input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same columns (windows that may
// overlap; kernel/adaptive_pooling.hpp), and depth slices likewise, over every channel of a 1-D,
// 2-D or 3-D feature map, batched or not. Each op's file (adaptive_average_pooling.cpp,
// adaptive_max_pooling.cpp) makes its layer of it.
class AdaptivePooling : public PoolingLayer {
 protected:
  // Reads output_size (a tuple, an int, or None entries meaning "keep the input size") and, for
  // the maximum, return_indices.
  AdaptivePooling(const LayerConfig& config, bool maximum);

  // The input resized to output_size (None entries resolved against the input).
  Shape PooledOutput(const std::vector<Shape>& input_shapes) const override;
  // A global average pool (squeeze-and-excitation's) in one pass over every channel, else
  // PoolingLayer's channel by channel.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // Pools each output cell's window of every depth slice, then across depth.
  void PoolChannel(const PoolingVolume& volume, const float* input, float* output,
                   const ComputeContext& compute) const override;

 private:
  FeatureMapSize requested_;  // 0 (None): same as the input
  bool maximum_;              // the maximum of each window, else its average
};

}  // namespace lumen

#endif  // LUMEN_LAYER_POOLING_POOLING_LAYER_HPP_
