// Small-depth convolutions: a GEMM whose left operand is read straight from the padded input. It
// suits a small im2col depth K (input channels per group x kernel taps): a network's stem (3 input
// channels and a 3x3 to 9x9 window, K = 27..243), a single-channel input, the narrow groups of
// RegNet's grouped convolutions (8 channels, K = 72), a ViT's patch embedding; and few output
// channels, whatever K (an image-to-image net's last layer back to RGB: 16 -> 3 with a 9x9 window,
// K = 1296). ChooseConvolutionAlgorithm takes it for at most 8 input channels per group and for
// at most a micro-kernel panel of output channels per group.
//
// Why not im2col? With a small K each output pixel costs few multiply-adds, and with few output
// channels each gathered value feeds few of them, so the copies around them weigh as much as the
// arithmetic: im2col gathers K values per pixel into a megabyte block, and PackedGemm reads the
// block back to pack it into row panels. Here nothing is gathered. The input is copied once into
// padded, phase-split planes (kernel/padded_plane.hpp), where the values that tap k reads for a
// run of output rows of one column are contiguous: im2col's row panel for those pixels is already
// there, at a fixed offset per tap (the plan's tap_offsets). The micro-kernel is PackedGemm's
// (math/micro_kernel.hpp: a tile of kPanelRows pixels times kPanelColumns output channels in
// registers, the packed weights broadcast one by one), with its loads of A taken at offsets[k] from
// the tile's origin instead of from a packed panel.
//
// A tile never spans two output columns, so a map whose columns are shorter than a tile
// (output_h < kPanelRows) leaves part of every tile empty; ChooseConvolutionAlgorithm keeps
// ungrouped maps whose columns are shorter than half a tile on im2col, whose row panels run on
// from one column into the next (grouped ones gain more from skipping im2col's GEMM per group).
#include <algorithm>
#include <cstdint>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "convolution_factories.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "kernel/padded_plane.hpp"
#include "math/micro_kernel.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// The tile: kRows output pixels by kColumns output channels, the shape of PackedGemm's
// micro-kernel and of the weights' column panels.
constexpr int kRows = kPanelRows;
constexpr int kColumns = kPanelColumns;

// Floats from one padded input plane to the next: the plane rounded up to an odd number of
// 64-byte lines. A tile reads the same rows of many planes at once, and planes a multiple of 32
// lines apart (a 130 x 130 plane is 1056.25 lines) fall into two sets of the L1 cache's 64: a
// 32 -> 4 layer at 128 x 128 ran at 9 GFLOP/s, slower than im2col. An odd count spreads them
// over all 64.
size_t PlaneStride(const PaddedPlane& plane) {
  constexpr size_t kLineFloats = 16;
  const size_t lines = (plane.plane_floats() + kLineFloats - 1) / kLineFloats;
  return (lines | 1) * kLineFloats;
}

class SmallDepthConvolution : public ConvolutionAlgorithm {
 public:
  // Packs each group's weights, a column-major K x C_out/groups matrix, as im2col does.
  explicit SmallDepthConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec), weights_(PackGroupWeights(spec)), depth_(weights_[0].rows()) {}
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kSmallDepth; }

  // The padded planes of every input channel, in the calling thread's scratch; the work is cut
  // into tasks of plan.block output columns of one group, about four per thread.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int threads) const override {
    ConvolutionPlan plan = BasicPlan(shape, activation);
    const int64_t tasks_wanted = 4 * int64_t{std::max(threads, 1)};
    const int64_t blocks_wanted = (tasks_wanted + groups_ - 1) / groups_;
    plan.block = static_cast<int>(std::max<int64_t>(1, shape.output_w / blocks_wanted));
    const PaddedPlane plane = PaddedPlaneFor(window_, shape);
    plan.scratch(ScratchSlot::kFirst) =
        CheckedMultiply(PlaneStride(plane), static_cast<size_t>(in_channels_),
                        "small-depth convolution padded input") +
        kRows;
    // Where each of a group's K taps lies, from a tile's origin in the group's first plane.
    plan.tap_offsets.resize(depth_);
    const int kernel_area = window_.kernel_h * window_.kernel_w;
    for (int k = 0; k < depth_; ++k) {
      plan.tap_offsets[k] =
          k / kernel_area * PlaneStride(plane) +
          plane.TapOffset(window_, (k % kernel_area) / window_.kernel_w, k % window_.kernel_w);
    }
    return plan;
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    const ConvolutionShape& s = plan.shape;
    const PaddedPlane plane = PaddedPlaneFor(window_, s);
    // Every task reads these planes: they live in the calling thread's scratch.
    float* padded = context.Scratch(ScratchSlot::kFirst, plan.scratch(ScratchSlot::kFirst));
    const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
    ParallelFor(context.pool, in_channels_, [&](std::ptrdiff_t channel) {
      float* target = padded + channel * PlaneStride(plane);
      std::fill(target, target + PlaneStride(plane), 0.0f);
      CopyIntoPlane(input + channel * input_area, s.input_h, s.input_w, window_.pad_top,
                    window_.pad_left, plane, target);
    });
    // The tail that a last, partial tile reads past the last plane.
    std::fill(padded + in_channels_ * PlaneStride(plane),
              padded + plan.scratch(ScratchSlot::kFirst), 0.0f);
    const size_t* offsets = plan.tap_offsets.data();
    const int blocks = (s.output_w + plan.block - 1) / plan.block;
    ParallelFor(
        context.pool, static_cast<std::ptrdiff_t>(groups_) * blocks,
        [&](std::ptrdiff_t task) {
          const int group = static_cast<int>(task / blocks);
          const int first_column = static_cast<int>(task % blocks) * plan.block;
          const int end_column = std::min(s.output_w, first_column + plan.block);
          const float* group_planes =
              padded + static_cast<size_t>(group) * (in_channels_ / groups_) * PlaneStride(plane);
          // Bias and ReLU / ReLU6 in the micro-kernel's registers; other activations after the
          // block, whose columns of each channel are one contiguous run, still in the cache.
          const int group_out = out_channels_ / groups_;
          GemmEpilogue epilogue;
          const bool finished = GemmFinishes(plan.activation, group * group_out, &epilogue);
          for (int column = first_column; column < end_column; ++column) {
            RunColumn(plane, group_planes, offsets, group, column, s, epilogue, output);
          }
          if (finished) return;
          const size_t area = static_cast<size_t>(s.output_h) * s.output_w;
          const size_t first_pixel = static_cast<size_t>(first_column) * s.output_h;
          for (int channel = group * group_out; channel < (group + 1) * group_out; ++channel) {
            FinishChannel(plan.activation, channel, output + channel * area + first_pixel,
                          static_cast<size_t>(end_column - first_column) * s.output_h);
          }
        },
        Schedule::kDynamic);
  }

 private:
  // Output column `column` of every output channel of `group`, finished by `epilogue` (whose bias
  // starts at the group's first channel): tiles of kRows pixels times column panels of weights.
  void RunColumn(const PaddedPlane& plane, const float* group_planes, const size_t* offsets,
                 int group, int column, const ConvolutionShape& s, const GemmEpilogue& epilogue,
                 float* output) const {
    const size_t area = static_cast<size_t>(s.output_h) * s.output_w;
    const int group_out = out_channels_ / groups_;
    const PackedMatrix& weights = weights_[group];
    const float* column_origin =
        group_planes + static_cast<size_t>(column) * window_.stride_w * plane.column_floats();
    float* result = output + static_cast<size_t>(group) * group_out * area +
                    static_cast<size_t>(column) * s.output_h;
    for (int panel = 0; panel < weights.panels(); ++panel) {
      const int cols = std::min(kColumns, group_out - panel * kColumns);
      for (int first_row = 0; first_row < s.output_h; first_row += kRows) {
        // A's rows for tap k: the tile's pixels in tap k's padded plane, at offsets[k] from the
        // tile's origin. The rows past the column's end (read from the next phase or column, or
        // the plane's tail) are not stored.
        const float* origin = column_origin + first_row;
        MicroKernel(
            depth_, [origin, offsets](int k) { return origin + offsets[k]; }, weights.panel(panel),
            weights.panel(panel), result + panel * kColumns * area + first_row, area,
            std::min(kRows, s.output_h - first_row), cols, false,
            epilogue.FromColumn(panel * kColumns));
      }
    }
  }

  std::vector<PackedMatrix> weights_;  // one per group
  int depth_;                          // K: (in_channels / groups) * kH * kW
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeSmallDepthConvolution(const ConvolutionSpec& spec) {
  return std::make_unique<SmallDepthConvolution>(spec);
}

}  // namespace lumen
