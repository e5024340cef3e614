// 1x1, stride 1, no padding: each output pixel mixes the input channels of the same pixel, and an
// input sample already is the column-major (H*W) x C_in matrix im2col would build. Blocks of
// pixels are packed and multiplied by the packed weights, block by block across the threads.
#include <algorithm>

#include "convolution_factories.hpp"
#include "lumen/base/error.hpp"
#include "lumen/base/thread_pool.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

class PointwiseConvolution : public ConvolutionAlgorithm {
 public:
  // Packs each group's weights, a column-major C_in/groups x C_out/groups matrix.
  explicit PointwiseConvolution(const ConvolutionSpec& spec) : ConvolutionAlgorithm(spec) {
    const int group_in = spec.in_channels / spec.groups;
    const int group_out = spec.out_channels / spec.groups;
    for (int group = 0; group < spec.groups; ++group) {
      weights_.emplace_back(spec.weights.data() + static_cast<size_t>(group) * group_out * group_in,
                            group_in, group_out, group_in);
    }
    // A task's packed pixels stay within about 256 KB, at most 16 panels.
    const int panels = std::clamp(65536 / (kPanelRows * group_in), 1, 16);
    block_pixels_ = panels * kPanelRows;
  }
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kPointwise; }

  // Tasks of block_pixels_ pixels times a group of weight panels (see PlanTasks).
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int threads) const override {
    ConvolutionPlan plan = BasicPlan(shape, activation);
    const int area = shape.output_h * shape.output_w;
    plan.block = block_pixels_;
    plan.grid =
        PlanTasks((area + block_pixels_ - 1) / block_pixels_, weights_[0].panels(), threads);
    plan.scratch(ScratchSlot::kFirst) =
        PackedRowsSize(std::min(block_pixels_, area), in_channels_ / groups_);
    return plan;
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    // LESSON 11 BEGIN: a 1x1 convolution is a GEMM: no im2col needed
    const int group_in = in_channels_ / groups_;
    const int group_out = out_channels_ / groups_;
    const int area = plan.shape.output_h * plan.shape.output_w;
    const TaskGrid& grid = plan.grid;
    const int tasks = grid.tasks() * groups_;
    ParallelFor(
        context.pool, tasks,
        [&](std::ptrdiff_t task_index) {
          const int task = static_cast<int>(task_index);
          const int group = task / grid.tasks();
          const int block = task % grid.tasks() / grid.panel_groups;
          const int first_panel = task % grid.panel_groups * grid.panels_per_group;
          const int end_panel =
              std::min(first_panel + grid.panels_per_group, weights_[group].panels());
          const int first_pixel = block * plan.block;
          const int pixels = std::min(plan.block, area - first_pixel);
          float* packed = context.Scratch(ScratchSlot::kFirst, PackedRowsSize(pixels, group_in));
          PackRows(input + static_cast<size_t>(group) * group_in * area + first_pixel, area, pixels,
                   group_in, packed);
          float* result = output + static_cast<size_t>(group) * group_out * area + first_pixel;
          GemmPacked(pixels, packed, weights_[group], result, area, first_panel, end_panel);
          const int end_channel = std::min(group_out, end_panel * kPanelColumns);
          for (int channel = first_panel * kPanelColumns; channel < end_channel; ++channel) {
            FinishChannel(plan.activation, group * group_out + channel,
                          result + static_cast<size_t>(channel) * area, pixels);
          }
        },
        Schedule::kDynamic);
    // LESSON 11 END
  }

 private:
  int block_pixels_ = 0;               // output pixels per task, a multiple of kPanelRows
  std::vector<PackedMatrix> weights_;  // one per group: C_in/groups x C_out/groups
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakePointwiseConvolution(const ConvolutionSpec& spec) {
  if (!PointwiseApplies(spec)) throw Error("pointwise convolution needs 1x1, stride 1, no padding");
  return std::make_unique<PointwiseConvolution>(spec);
}

}  // namespace lumen
