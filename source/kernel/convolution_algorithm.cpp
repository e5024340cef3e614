#include "lumen/kernel/convolution_algorithm.hpp"

#include <omp.h>

#include <algorithm>

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
  // Winograd pays for its transforms when there are enough channels to share them, and enough
  // 4x4 tiles that padding the last row and column of tiles wastes little.
  const int tiles = ((spec.output_h + 3) / 4) * ((spec.output_w + 3) / 4);
  if (WinogradApplies(spec) && spec.in_channels >= 16 && spec.out_channels >= 16 && tiles >= 16) {
    return MakeWinogradConvolution(spec);
  }
  return MakeIm2colConvolution(spec);
}

}  // namespace lumen
