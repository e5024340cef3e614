// 1x1, stride 1, no padding: each output pixel mixes the input channels of the same pixel, and an
// input sample already is the column-major (H*W) x C_in matrix im2col would build. Blocks of
// pixels are multiplied by the packed weights, block by block across the threads: read in place
// for layers of few input channels, packed into row panels first for the others.
// A 1x1 map (squeeze-and-excitation's two layers, a head after global pooling) is one pixel:
// there a GEMM's row panels would be 1/16 used, so it is a matrix-vector product instead.
#include <algorithm>

#include "base/thread_pool.hpp"
#include "convolution_factories.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "lumen/error.hpp"
#include "math/matrix_vector.hpp"
#include "math/micro_kernel.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// Output channels per task of the one-pixel path.
constexpr int kChannelBlock = 64;

// Up to this many input channels (per group) the micro-kernel reads its left operand straight
// from the input planes, one stream per channel: packing them first cost 6% of MobileNetV2's time
// (mostly 8 to 48 channels on large maps). More streams than this would fight over the L1
// cache's sets, which is what packing avoids (see PackRows)...
constexpr int kUnpackedMostChannels = 48;

// ... except where few panels of weights would reuse the packed rows: up to this many (42 output
// channels with AVX-512), the packing copy cost more than the scattered reads, which prefetching
// the next row panel's lines hides (MultiplyFromPlanes). BM_Convolution, one core: MobileNetV2's
// 144->24 on 56x56 0.92x, 192->32 on 28x28 0.90x, the time packing took there (30% of the first).
constexpr int kUnpackedMostPanels = 3;

// C = A * B for the `rows` (a multiple of kPanelRows) pixels at `a` of `depth` planes `plane`
// floats apart, B's column panels [first_panel, end_panel), C column-major with leading dimension
// `plane`, finished by `epilogue`. Each step also asks for the lines of the same channel in the
// next row panel: one stream per channel is more than the hardware prefetcher follows (without
// it, MobileNetV2's 24->144 and 144->24 on 56x56 took 1.12x the time).
void MultiplyFromPlanes(const float* a, int plane, int rows, int depth, const PackedMatrix& b,
                        float* c, int first_panel, int end_panel, const GemmEpilogue& epilogue) {
  for (int first_row = 0; first_row < rows; first_row += kPanelRows) {
    const float* origin = a + first_row;
    for (int panel = first_panel; panel < end_panel; ++panel) {
      const int first_column = panel * kPanelColumns;
      MicroKernel(
          depth,
          [origin, plane](int p) {
            const float* row = origin + static_cast<size_t>(p) * plane;
            __builtin_prefetch(row + kPanelRows);
            __builtin_prefetch(row + kPanelRows + kPanelRows / 2);
            return row;
          },
          b.panel(panel), b.panel(panel), c + static_cast<size_t>(first_column) * plane + first_row,
          static_cast<size_t>(plane), kPanelRows, std::min(kPanelColumns, b.cols() - first_column),
          false, epilogue.FromColumn(first_column));
    }
  }
}

class PointwiseConvolution : public ConvolutionAlgorithm {
 public:
  // Packs each group's weights, a column-major C_in/groups x C_out/groups matrix.
  // Also keeps them as they are, (C_out, C_in/groups) row-major, for one-pixel maps.
  explicit PointwiseConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec), weight_rows_(spec.weights), weights_(PackGroupWeights(spec)) {
    const int group_in = spec.in_channels / spec.groups;
    // A task's packed pixels stay within about 256 KB, at most 16 panels.
    const int panels = std::clamp(65536 / (kPanelRows * group_in), 1, 16);
    block_pixels_ = panels * kPanelRows;
  }
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kPointwise; }

  // Tasks of at most block_pixels_ pixels times a group of weight panels (see PlanTasks); on a
  // one-pixel map (plan.block = 0) tasks of kChannelBlock output channels. A map of at least four
  // row panels per thread is split into one contiguous share of pixels per thread instead, every
  // panel in each task (plan.contiguous_shares): the layers before and after it split their maps
  // alike (the depthwise kernel its columns), so each core reads what it wrote, from its own
  // cache. MobileNetV2 at two threads spent 0.67-0.91x its one-thread time in its projections,
  // whose input the other core had written half of.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int threads) const override {
    ConvolutionPlan plan = BasicPlan(shape, activation);
    const int area = shape.output_h * shape.output_w;
    if (area == 1) return plan;
    plan.block = block_pixels_;
    const int row_panels = (area + kPanelRows - 1) / kPanelRows;
    const int pixel_blocks =
        (row_panels + block_pixels_ / kPanelRows - 1) / (block_pixels_ / kPanelRows);
    if (threads > 1 && groups_ == 1 && row_panels >= 4 * threads) {
      plan.contiguous_shares = true;
      plan.grid.pixel_blocks = (pixel_blocks + threads - 1) / threads * threads;
      plan.grid.panels_per_group = weights_[0].panels();
    } else {
      plan.grid = PlanTasks(pixel_blocks, weights_[0].panels(), threads);
    }
    plan.scratch(ScratchSlot::kFirst) =
        PackedRowsSize(std::min(block_pixels_, area), in_channels_ / groups_);
    return plan;
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    if (plan.block == 0) return RunOnePixel(plan, input, output, context);
    // LESSON 11 BEGIN: a 1x1 convolution is a GEMM: no im2col needed
    const int tasks = plan.grid.tasks() * groups_;
    if (plan.contiguous_shares) {
      // Thread t's share: tasks t * tasks / shares onwards, in order (one group, so pixel
      // blocks in order).
      const int shares = context.pool == nullptr ? 1 : std::min(context.pool->threads(), tasks);
      ParallelFor(
          context.pool, shares,
          [&](std::ptrdiff_t share) {
            const int end = static_cast<int>((share + 1) * tasks / shares);
            for (int task = static_cast<int>(share * tasks / shares); task < end; ++task) {
              RunTask(plan, task, input, output, context);
            }
          },
          Schedule::kByThread);
    } else {
      ParallelFor(
          context.pool, tasks,
          [&](std::ptrdiff_t task) {
            RunTask(plan, static_cast<int>(task), input, output, context);
          },
          Schedule::kDynamic);
    }
    // LESSON 11 END
  }

 private:
  // One task of plan.grid (numbered group by group): a block of pixels, times a group of panels.
  // The pixel blocks are balanced runs of whole row panels (the last one may end short of a panel
  // with the map).
  void RunTask(const ConvolutionPlan& plan, int task, const float* input, float* output,
               const ComputeContext& context) const {
    // LESSON 11 BEGIN: one task: a block of pixels times the task's panels of weights
    const int group_in = in_channels_ / groups_;
    const int group_out = out_channels_ / groups_;
    const int area = plan.shape.output_h * plan.shape.output_w;
    const TaskGrid& grid = plan.grid;
    const int group = task / grid.tasks();
    const int block = task % grid.tasks() / grid.panel_groups;
    const int first_panel = task % grid.panel_groups * grid.panels_per_group;
    const int end_panel = std::min(first_panel + grid.panels_per_group, weights_[group].panels());
    const int64_t row_panels = (area + kPanelRows - 1) / kPanelRows;
    const int first_pixel = static_cast<int>(block * row_panels / grid.pixel_blocks) * kPanelRows;
    const int end_pixel =
        std::min(area, static_cast<int>((block + 1) * row_panels / grid.pixel_blocks) * kPanelRows);
    const int pixels = end_pixel - first_pixel;
    const float* planes = input + static_cast<size_t>(group) * group_in * area + first_pixel;
    float* result = output + static_cast<size_t>(group) * group_out * area + first_pixel;
    // Bias and ReLU / ReLU6 in the GEMM's registers; other activations in a pass after it
    // (a pass for ReLU6 took 5% of MobileNetV2's time).
    GemmEpilogue epilogue;
    const bool finished = GemmFinishes(plan.activation, group * group_out, &epilogue);
    // Few input channels or output channels: the micro-kernel reads its rows straight from the
    // input planes (a row panel at step p is kPanelRows pixels of channel p, contiguous), skipping
    // the packing copy; the block's last, partial panel is packed, since its rows would run past
    // the last plane.
    int packed_from = 0;
    if (group_in <= kUnpackedMostChannels || weights_[group].panels() <= kUnpackedMostPanels) {
      packed_from = pixels / kPanelRows * kPanelRows;
      MultiplyFromPlanes(planes, area, packed_from, group_in, weights_[group], result, first_panel,
                         end_panel, epilogue);
    }
    if (packed_from < pixels) {
      float* packed =
          context.Scratch(ScratchSlot::kFirst, PackedRowsSize(pixels - packed_from, group_in));
      PackRows(planes + packed_from, area, pixels - packed_from, group_in, packed);
      GemmPacked(pixels - packed_from, packed, weights_[group], result + packed_from, area,
                 first_panel, end_panel, epilogue);
    }
    const int end_channel = std::min(group_out, end_panel * kPanelColumns);
    for (int channel = first_panel * kPanelColumns; channel < end_channel && !finished; ++channel) {
      FinishChannel(plan.activation, group * group_out + channel,
                    result + static_cast<size_t>(channel) * area, pixels);
    }
    // LESSON 11 END
  }

  // One pixel: out[c] = activation(W[c] . in[c's group] + bias[c]), kChannelBlock channels a task.
  void RunOnePixel(const ConvolutionPlan& plan, const float* input, float* output,
                   const ComputeContext& context) const {
    const int group_in = in_channels_ / groups_;
    const int group_out = out_channels_ / groups_;
    const int blocks = (out_channels_ + kChannelBlock - 1) / kChannelBlock;
    const size_t products = static_cast<size_t>(out_channels_) * group_in;
    ParallelFor(
        context.pool, blocks,
        [&](std::ptrdiff_t block) {
          const int first = static_cast<int>(block) * kChannelBlock;
          const int end = std::min(out_channels_, first + kChannelBlock);
          // A block may cross groups: each run of channels of one group reads that group's input.
          for (int channel = first; channel < end;) {
            const int group = channel / group_out;
            const int run_end = std::min(end, (group + 1) * group_out);
            MatrixVector(weight_rows_.data() + static_cast<size_t>(channel) * group_in, group_in,
                         run_end - channel, input + static_cast<size_t>(group) * group_in, group_in,
                         output + channel);
            channel = run_end;
          }
          for (int channel = first; channel < end; ++channel) {
            FinishChannel(plan.activation, channel, output + channel, 1);
          }
        },
        Schedule::kStatic, products >= (1 << 15));
  }

  std::vector<float> weight_rows_;     // (C_out, C_in/groups), row-major
  std::vector<PackedMatrix> weights_;  // one per group: C_in/groups x C_out/groups
  int block_pixels_ = 0;               // output pixels per task, a multiple of kPanelRows
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakePointwiseConvolution(const ConvolutionSpec& spec) {
  if (!PointwiseApplies(spec)) throw Error("pointwise convolution needs 1x1, stride 1, no padding");
  return std::make_unique<PointwiseConvolution>(spec);
}

}  // namespace lumen
