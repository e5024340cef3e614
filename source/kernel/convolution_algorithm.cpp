#include "lumen/kernel/convolution_algorithm.hpp"

#include <omp.h>

#include <algorithm>

#include "lumen/math/packed_gemm.hpp"

namespace lumen {

void ConvolutionAlgorithm::FinishChannel(int channel, float* values, size_t count) const {
  const float bias = spec_.bias.empty() ? 0.0f : spec_.bias[channel];
  AddBiasAndActivate(spec_.activation, bias, values, count);
}

TaskGrid PlanTasks(int pixel_blocks, int panels) {
  TaskGrid grid;
  grid.pixel_blocks = pixel_blocks;
  const int wanted = 2 * omp_get_max_threads();  // a little slack for uneven tasks
  if (pixel_blocks < wanted) {
    grid.panel_groups = std::min(panels, (wanted + pixel_blocks - 1) / pixel_blocks);
  }
  grid.panels_per_group = (panels + grid.panel_groups - 1) / grid.panel_groups;
  grid.panel_groups = (panels + grid.panels_per_group - 1) / grid.panels_per_group;
  return grid;
}

bool PointwiseApplies(const ConvolutionSpec& spec) {
  const Window2d& w = spec.window;
  return w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 && w.stride_w == 1 &&
         w.pad_top == 0 && w.pad_bottom == 0 && w.pad_left == 0 && w.pad_right == 0;
}

bool DepthwiseApplies(const ConvolutionSpec& spec) {
  return spec.groups > 1 && spec.groups == spec.in_channels &&
         spec.out_channels % spec.in_channels == 0;
}

bool WinogradApplies(const ConvolutionSpec& spec) {
  const Window2d& w = spec.window;
  return spec.groups == 1 && w.kernel_h == 3 && w.kernel_w == 3 && w.stride_h == 1 &&
         w.stride_w == 1 && w.dilation_h == 1 && w.dilation_w == 1;
}

std::unique_ptr<ConvolutionAlgorithm> ChooseConvolutionAlgorithm(const ConvolutionSpec& spec) {
  if (DepthwiseApplies(spec)) return MakeDepthwiseConvolution(spec);
  if (PointwiseApplies(spec)) return MakePointwiseConvolution(spec);
  // Winograd pays for its transforms when there are enough channels to share them. Its GEMMs have
  // one row per tile, so it also needs enough tiles to fill most of a micro-kernel panel
  // (kPanelRows rows): F(4x4) where its 4x4 tiles do (ResNet's 28x28 and larger maps), else
  // F(2x2), whose 2x2 tiles are four times as many (14x14 maps), else im2col (7x7 maps). Measured
  // with bench/bench_convolution.cpp at ResNet18's and YOLOv5s's shapes.
  const int enough_tiles = 3 * kPanelRows / 4;
  const auto tiles = [&](int tile_size) {
    return ((spec.output_h + tile_size - 1) / tile_size) *
           ((spec.output_w + tile_size - 1) / tile_size);
  };
  if (WinogradApplies(spec) && spec.in_channels >= 16 && spec.out_channels >= 16) {
    if (tiles(4) >= enough_tiles) return MakeWinogradConvolution(spec, 4);
    if (tiles(2) >= enough_tiles) return MakeWinogradConvolution(spec, 2);
  }
  return MakeIm2colConvolution(spec);
}

}  // namespace lumen
