// nn.MaxPool1d, nn.MaxPool2d and nn.MaxPool3d: the maximum over each sliding window.
#include <vector>

#include "kernel/max_pooling_kernels.hpp"
#include "kernel/volume_pooling.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"
#include "math/window.hpp"

namespace lumen {

// Max pooling with stride, padding (which never wins: it counts as -infinity), dilation and
// ceil_mode, over every channel of a 1-D, 2-D or 3-D feature map, batched or not. With
// return_indices a second output holds each maximum's flattened position in its channel (as
// floats), as PyTorch returns them.
class MaxPooling : public PoolingLayer {
 public:
  // Reads the nn.MaxPool1d/2d/3d parameters.
  explicit MaxPooling(const LayerConfig& config)
      : PoolingLayer(config, PooledDimensions(config.type()), /*indices_allowed=*/true),
        sliding_(ReadSlidingWindow(config, dimensions())) {}

 protected:
  // The input pooled (PyTorch's size formula, computed in 64 bits: a window too large for the
  // input is refused here, before anything runs).
  Shape PooledOutput(const std::vector<Shape>& input_shapes) const override {
    return SlidingPooledShape(*this, input_shapes, sliding_);
  }
  // Reserves the plane kernel's (tiled or separable) and the depth pass's scratch.
  void ReserveScratch(const PoolingVolume& volume, Workspace* workspace) const override;
  // Pools each depth slice (tiled on large maps, separably on small ones when dilation is 1, else
  // by the definition), then across depth.
  void PoolChannel(const PoolingVolume& volume, const float* input, float* output,
                   const ComputeContext& compute) const override;
  // The maximum of each window, with its position.
  void PoolChannelWithIndices(const PoolingVolume& volume, const float* input, float* output,
                              float* indices) const override {
    MaxPoolWithIndices(sliding_.window, volume, dimensions() != 1, input, output, indices);
  }

 private:
  // True when each depth slice can be pooled separably (rows, then columns).
  bool Separable() const {
    return sliding_.window.plane.dilation_h == 1 && sliding_.window.plane.dilation_w == 1;
  }

  // Floats of scratch the kernel for `plane` needs: the tiled one for large maps, the separable
  // one for small maps, none for the reference.
  size_t PlaneScratchSize(const PoolingPlane& plane) const {
    const Window2d& window = sliding_.window.plane;
    if (MaxPoolTiledApplies(window, plane)) return MaxPoolTiledScratchSize(window, plane);
    return Separable() ? MaxPoolSeparableScratchSize(plane) : 0;
  }

  SlidingWindow sliding_;  // the window, ceil_mode, 1-D, 2-D or 3-D
};

void MaxPooling::ReserveScratch(const PoolingVolume& volume, Workspace* workspace) const {
  workspace->Reserve(ScratchSlot::kFirst, PlaneScratchSize(volume.plane));
  workspace->Reserve(ScratchSlot::kSecond, VolumeScratchSize(volume));
}

void MaxPooling::PoolChannel(const PoolingVolume& volume, const float* input, float* output,
                             const ComputeContext& compute) const {
  const Window3d& window = sliding_.window;
  const bool tiled = MaxPoolTiledApplies(window.plane, volume.plane);
  const bool separable = Separable();
  float* plane_scratch = compute.Scratch(ScratchSlot::kFirst, PlaneScratchSize(volume.plane));
  float* slices = compute.Scratch(ScratchSlot::kSecond, VolumeScratchSize(volume));
  const size_t slice_size = volume.OutputSliceSize();
  PoolVolume(
      volume, input, output, slices,
      [&](const float* slice, float* pooled) {
        if (tiled) {
          MaxPoolTiled(window.plane, volume.plane, slice, pooled, plane_scratch);
        } else if (separable) {
          MaxPoolSeparable(window.plane, volume.plane, slice, pooled, plane_scratch);
        } else {
          MaxPoolReference(window.plane, volume.plane, slice, pooled);
        }
      },
      [&](int64_t index, const float* pooled, float* target) {
        MaxOfSlices(pooled, slice_size, SlidingTaps(window.depth, volume.input_d, index), target);
      });
}

LUMEN_REGISTER_LAYER(MaxPooling, "nn.MaxPool2d", "F.max_pool2d", "nn.MaxPool1d", "F.max_pool1d",
                     "nn.MaxPool3d", "F.max_pool3d");

}  // namespace lumen
