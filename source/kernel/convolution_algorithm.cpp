#include "kernel/convolution_algorithm.hpp"

#include <glog/logging.h>

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "base/checked_math.hpp"
#include "convolution_factories.hpp"
#include "kernel/padded_plane.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// Winograd pays for its transforms only when there are enough channels to share them: the input
// transform is shared by the output channels, the output transform by the input channels. 8 output
// channels are enough (measured on the super-resolution net's 32 -> 9 layer).
bool WinogradMayPayOff(const ConvolutionSpec& spec) {
  return WinogradApplies(spec) && spec.in_channels >= 16 && spec.out_channels >= 8;
}

// The small-depth algorithm reads its left operand straight from padded copies of the input
// planes. That beats im2col's gather when each copied value feeds many taps of few planes: a
// stem's 3 channels (ResNet18's 7x7 stem runs at 75 GFLOP/s instead of 44 on one AVX2 core), 8
// (a plain 8 -> 16 3x3 layer: 62 instead of 44), RegNet's groups of 8 (37 instead of 22, 1.7-2.7
// times faster at every map size down to 7x7, where im2col pays a GEMM per group). Not when the
// tiles read from dozens of planes at once (ResNet's 64-channel 1x1 stride-2 shortcut: 42 instead
// of 68). Its tiles of kPanelRows rows stay within one output column, so ChooseConvolutionAlgorithm
// keeps ungrouped maps whose columns are shorter than half a tile on im2col, whose row panels run
// on from one column into the next.
bool SmallDepthMayPayOff(const ConvolutionSpec& spec) {
  return spec.in_channels / spec.groups <= 8;
}

// Few output channels: at most one micro-kernel panel of them per group.
bool FewOutputs(const ConvolutionSpec& spec) {
  return spec.out_channels / spec.groups <= kPanelColumns;
}

// With few output channels each value im2col gathers feeds only that many products, and the
// small-depth algorithm, which gathers nothing, wins at any depth (one AVX2 core: the style
// transfer net's 16 -> 3 9x9 layer at 128x128 3.5-4.4 ms instead of 14-15, 64 -> 6 3x3 at 56x56
// 0.5 instead of 1.5, 256 -> 4 3x3 stride 2 at 28x28 0.25 instead of 0.84) while a group's padded
// input planes stay within a few megabytes: 64 -> 6 at 128x128 (4.3 MB of planes) took 11.5 ms
// instead of im2col's 6.4, 32 -> 4 there (2.1 MB) 2.0 instead of 3.2.
constexpr size_t kFewOutputsMaxPaddedBytes = size_t{5} << 19;  // 2.5 MiB

// Where Winograd would run, the small-depth algorithm also wins with few outputs, but only while a
// group's padded planes stay in the L2 cache: DenseNet-121's 48 -> 12 3x3 layers (0.1-0.34 MB of
// planes) took 0.068 ms instead of Winograd's 0.138 at 20x20, 0.38 instead of 0.43 at 40x40, 0.048
// instead of 0.065 at 10x10 (one Emerald Rapids core, BM_Convolution); the super-resolution net's
// 32 -> 9 at 128x128 (2.2 MB of planes) 1.9-2.1 ms instead of 1.3-1.9.
constexpr size_t kFewOutputsOverWinogradMaxPaddedBytes = size_t{1} << 20;  // 1 MiB

// Whether few outputs make the small-depth algorithm pay off, its padded planes being at most
// `max_padded_bytes`.
bool FewOutputsMayPayOff(const ConvolutionSpec& spec, const ConvolutionShape& shape,
                         size_t max_padded_bytes = kFewOutputsMaxPaddedBytes) {
  if (!FewOutputs(spec)) return false;
  const double padded_bytes =
      static_cast<double>(PaddedPlaneFor(spec.window, shape).plane_floats()) *
      (spec.in_channels / spec.groups) * sizeof(float);
  return padded_bytes <= static_cast<double>(max_padded_bytes);
}

}  // namespace

ConvolutionShape MakeConvolutionShape(const Window2d& window, int input_h, int input_w) {
  ConvolutionShape shape;
  shape.input_h = input_h;
  shape.input_w = input_w;
  shape.output_h = window.OutputHeight(input_h);
  shape.output_w = window.OutputWidth(input_w);
  // The kernels index a plane, and a window's position in the padded input plus one stride, with
  // ints; channel offsets are computed in size_t.
  CheckedInt(int64_t{input_h} * input_w, "convolution input plane size");
  CheckedInt(int64_t{shape.output_h} * shape.output_w, "convolution output plane size");
  CheckedInt(int64_t{input_h} + window.pad_top + window.pad_bottom + window.stride_h,
             "convolution padded input height plus stride");
  CheckedInt(int64_t{input_w} + window.pad_left + window.pad_right + window.stride_w,
             "convolution padded input width plus stride");
  return shape;
}

TaskGrid PlanTasks(int pixel_blocks, int panels, int threads) {
  TaskGrid grid;
  grid.pixel_blocks = pixel_blocks;
  const int wanted = 2 * std::max(threads, 1);  // a little slack for uneven tasks
  if (pixel_blocks < wanted) {
    grid.panel_groups = std::min(panels, (wanted + pixel_blocks - 1) / pixel_blocks);
  }
  grid.panels_per_group = (panels + grid.panel_groups - 1) / grid.panel_groups;
  grid.panel_groups = (panels + grid.panels_per_group - 1) / grid.panels_per_group;
  return grid;
}

void ConvolutionPlan::ReserveScratch(Workspace* workspace) const {
  for (size_t slot = 0; slot < kSlots; ++slot) {
    if (scratch_floats[slot] > 0) {
      workspace->Reserve(static_cast<ScratchSlot>(slot), scratch_floats[slot]);
    }
  }
}

const char* ConvolutionAlgorithmName(ConvolutionAlgorithmKind kind) {
  // In the order of the enum.
  static constexpr const char* kNames[] = {"reference", "im2col",       "pointwise",  "depthwise",
                                           "winograd",  "winograd-2x2", "small-depth"};
  static_assert(std::size(kNames) == kConvolutionAlgorithmKinds, "one name per algorithm");
  const size_t index = static_cast<size_t>(kind);
  return index < kConvolutionAlgorithmKinds ? kNames[index] : "unknown";
}

ConvolutionAlgorithm::ConvolutionAlgorithm(const ConvolutionSpec& spec)
    : in_channels_(spec.in_channels),
      out_channels_(spec.out_channels),
      groups_(spec.groups),
      window_(spec.window),
      bias_(spec.bias) {}

ConvolutionPlan ConvolutionAlgorithm::BasicPlan(const ConvolutionShape& shape,
                                                const Activation& activation) {
  ConvolutionPlan plan;
  plan.shape = shape;
  plan.activation = activation;
  return plan;
}

void ConvolutionAlgorithm::FinishChannel(const Activation& activation, int channel, float* values,
                                         size_t count) const {
  AddBiasAndActivate(activation, bias(channel), values, count);
}

bool ConvolutionAlgorithm::GemmFinishes(const Activation& activation, int first_channel,
                                        GemmEpilogue* epilogue) const {
  if (!IsLaneClamp(activation, &epilogue->clamp)) return false;
  epilogue->bias = bias_.empty() ? nullptr : bias_.data() + first_channel;
  return true;
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

std::vector<PackedMatrix> PackGroupWeights(const ConvolutionSpec& spec) {
  const int depth = CheckedInt(
      int64_t{spec.in_channels / spec.groups} * spec.window.kernel_h * spec.window.kernel_w,
      "convolution GEMM depth");
  const int group_out = spec.out_channels / spec.groups;
  std::vector<PackedMatrix> packed;
  for (int group = 0; group < spec.groups; ++group) {
    packed.emplace_back(spec.weights.data() + static_cast<size_t>(group) * group_out * depth, depth,
                        group_out, depth);
  }
  return packed;
}

std::unique_ptr<ConvolutionAlgorithm> MakeConvolutionAlgorithm(ConvolutionAlgorithmKind kind,
                                                               const ConvolutionSpec& spec) {
  // The layer checks what a model file gives it; a spec that reaches here inconsistent is a bug.
  CHECK(spec.groups >= 1 && spec.in_channels >= 1 && spec.out_channels >= 1 &&
        spec.in_channels % spec.groups == 0 && spec.out_channels % spec.groups == 0)
      << "convolution channels " << spec.in_channels << " -> " << spec.out_channels << ", groups "
      << spec.groups;
  CHECK_EQ(spec.weights.size(), static_cast<size_t>(spec.out_channels) *
                                    (spec.in_channels / spec.groups) * spec.window.kernel_h *
                                    spec.window.kernel_w);
  CHECK(spec.bias.empty() || spec.bias.size() == static_cast<size_t>(spec.out_channels));
  switch (kind) {
    case ConvolutionAlgorithmKind::kReference:
      return MakeReferenceConvolution(spec);
    case ConvolutionAlgorithmKind::kIm2col:
      return MakeIm2colConvolution(spec);
    case ConvolutionAlgorithmKind::kPointwise:
      return MakePointwiseConvolution(spec);
    case ConvolutionAlgorithmKind::kDepthwise:
      return MakeDepthwiseConvolution(spec);
    case ConvolutionAlgorithmKind::kWinograd4x4:
      return MakeWinogradConvolution(spec, 4);
    case ConvolutionAlgorithmKind::kWinograd2x2:
      return MakeWinogradConvolution(spec, 2);
    case ConvolutionAlgorithmKind::kSmallDepth:
      return MakeSmallDepthConvolution(spec);
  }
  LOG(FATAL) << "unknown convolution algorithm " << static_cast<int>(kind);
}

ConvolutionAlgorithmKind ChooseConvolutionAlgorithm(const ConvolutionSpec& spec,
                                                    const ConvolutionShape& shape) {
  if (DepthwiseApplies(spec)) return ConvolutionAlgorithmKind::kDepthwise;
  if (PointwiseApplies(spec) && !spec.bf16_products) return ConvolutionAlgorithmKind::kPointwise;
  // Winograd pays for its transforms when there are enough channels to share them. Its GEMMs have
  // one row per tile, so it also needs enough tiles to fill most of a micro-kernel panel
  // (kPanelRows rows): F(4x4) where its 4x4 tiles do (ResNet's 28x28 and larger maps), else
  // F(2x2), whose 2x2 tiles are four times as many (14x14 maps, and 7x7 ones with AVX-512's
  // panels: below), else im2col (7x7 maps with AVX2's). Measured
  // with bench/bench_convolution.cpp at ResNet18's and YOLOv5s's shapes.
  const int enough_tiles = 3 * kPanelRows / 4;
  const auto tiles = [&](int tile_size) {
    return int64_t{(shape.output_h + tile_size - 1) / tile_size} *
           ((shape.output_w + tile_size - 1) / tile_size);
  };
  // With bf16 products the same choice: F(2x2) then multiplies in bf16, F(4x4) stays fp32 (see
  // kernel/convolution_winograd.cpp), which F(2x2) in bf16 would not beat (1.8x its products at
  // 2x the rate, and more transforms per output).
  // AVX-512's 32-row panels: a 7x7 map's 16 tiles half fill one, yet F(2x2) beats im2col, whose
  // 49 rows fill two panels to 77% (ResNet18's 512 -> 512 on one Emerald Rapids core, nine
  // interleaved runs: 2.40 ms against 2.78, two cores 1.54 against 1.78). Not in bf16, where
  // im2col's AMX products keep up (0.78 ms against F(2x2)'s 1.05 on one core).
  const int enough_2x2_tiles =
      kPanelRows >= 32 && !spec.bf16_products ? kPanelRows / 2 : enough_tiles;
  if (WinogradMayPayOff(spec)) {
    const bool few_outputs_in_cache =
        !spec.bf16_products &&
        FewOutputsMayPayOff(spec, shape, kFewOutputsOverWinogradMaxPaddedBytes);
    if (tiles(4) >= enough_tiles) {
      return few_outputs_in_cache ? ConvolutionAlgorithmKind::kSmallDepth
                                  : ConvolutionAlgorithmKind::kWinograd4x4;
    }
    if (tiles(2) >= enough_2x2_tiles) {
      return few_outputs_in_cache ? ConvolutionAlgorithmKind::kSmallDepth
                                  : ConvolutionAlgorithmKind::kWinograd2x2;
    }
  }
  // A small-depth layer with bf16 weights multiplies them in fp32 (they are exact there): its
  // direct kernel beats rounding a stem's im2col rows to bf16 (ResNet18's 3 -> 64 7x7 stem on one
  // Emerald Rapids core: 2.0 ms against 3.4 through AMX, whose products are the smaller part).
  if ((SmallDepthMayPayOff(spec) || (FewOutputsMayPayOff(spec, shape) && !spec.bf16_products)) &&
      (spec.groups > 1 || shape.output_h >= kPanelRows / 2)) {
    return ConvolutionAlgorithmKind::kSmallDepth;
  }
  return ConvolutionAlgorithmKind::kIm2col;
}

std::vector<ConvolutionAlgorithmKind> CandidateConvolutionAlgorithms(const ConvolutionSpec& spec) {
  if (DepthwiseApplies(spec)) return {ConvolutionAlgorithmKind::kDepthwise};
  if (PointwiseApplies(spec) && !spec.bf16_products) return {ConvolutionAlgorithmKind::kPointwise};
  if (WinogradMayPayOff(spec)) {
    std::vector<ConvolutionAlgorithmKind> candidates = {ConvolutionAlgorithmKind::kWinograd4x4,
                                                        ConvolutionAlgorithmKind::kWinograd2x2,
                                                        ConvolutionAlgorithmKind::kIm2col};
    // (With AVX-512's 14-column panels a layer can have few outputs and enough for Winograd.)
    if (FewOutputs(spec) && !spec.bf16_products) {
      candidates.push_back(ConvolutionAlgorithmKind::kSmallDepth);
    }
    return candidates;
  }
  if (SmallDepthMayPayOff(spec) || (FewOutputs(spec) && !spec.bf16_products)) {
    return {ConvolutionAlgorithmKind::kSmallDepth, ConvolutionAlgorithmKind::kIm2col};
  }
  return {ConvolutionAlgorithmKind::kIm2col};
}

}  // namespace lumen
