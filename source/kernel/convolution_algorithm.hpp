// The algorithms that can compute a 2-D convolution, behind one interface.
//
// They all compute the same thing; they differ in speed. The Convolution layer picks one in
// Prepare from the layer's geometry and the input size (see ChooseConvolutionAlgorithm), and the
// tests compare every fast algorithm with the reference one on random shapes. Read them in this
// order:
//
//   reference    seven nested loops, straight from the definition: the ground truth
//   im2col       copy each receptive field into a column, then one GEMM per group
//   small-depth  a GEMM whose left operand is read in place from a padded copy of the input,
//                for stems, whose receptive field is a few dozen values, and few output channels
//   pointwise    a 1x1, stride-1 convolution needs no im2col: the input already is the matrix
//   depthwise    one input channel per output channel: direct loops, no GEMM
//   winograd     3x3 stride 1: F(4x4, 3x3) trades 144 multiplications per tile for 36,
//                F(2x2, 3x3) trades 36 for 16 and suits small feature maps
//
// What depends on what. An algorithm object holds what depends only on the weights (packed or
// transformed weights, the bias): it is built once per model and then only read, so sessions on
// any number of threads share it. What depends on the input size and the thread count (the
// output size, how the work is cut into blocks and tasks, how much scratch each thread needs) is
// a ConvolutionPlan, made once per session and input size by Plan. Run reads both and keeps
// nothing: its buffers are the session's per-thread scratch (ComputeContext::Scratch).
#ifndef LUMEN_KERNEL_CONVOLUTION_ALGORITHM_HPP_
#define LUMEN_KERNEL_CONVOLUTION_ALGORITHM_HPP_

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "base/compute_context.hpp"
#include "base/workspace.hpp"
#include "math/activation.hpp"
#include "math/packed_gemm.hpp"
#include "math/window.hpp"

namespace lumen {

// What defines one convolution whatever its input size: channels, window and weights.
struct ConvolutionSpec {
  int in_channels = 0;
  int out_channels = 0;
  int groups = 1;
  Window2d window;
  // PyTorch's (out, in/groups, kH, kW) weights, row-major.
  std::vector<float> weights;
  // One per output channel, or empty for no bias.
  std::vector<float> bias;
  // Multiply in bf16 (math/bf16_gemm): set by the layer for weights stored as bf16 on a CPU with
  // vdpbf16ps, where it does twice fp32's multiply-adds per instruction. Winograd F(2x2) then
  // multiplies its tiles in bf16 (F(4x4) stays fp32: its transforms amplify bf16's rounding),
  // im2col takes the layers pointwise and small-depth would (depthwise ones have no GEMM and stay
  // fp32), and the activations are rounded to bf16 as the GEMM packs them.
  bool bf16_products = false;
};

// The planes of one sample: each input channel is an input_h x input_w column-major matrix, each
// output channel an output_h x output_w one (the layout of a Tensor's fcube slices).
using ConvolutionShape = PlanePair;

// The shape for an input_h x input_w input: the output size as PyTorch computes it (0 when the
// window does not fit). Throws lumen::Error when a size, or a plane's element count, does not fit
// in an int.
ConvolutionShape MakeConvolutionShape(const Window2d& window, int input_h, int input_w);

// How a GEMM-based algorithm cuts its work into parallel tasks: blocks of output pixels times
// groups of output-channel panels. Channels are split only when there are too few pixel blocks to
// keep every thread busy (the small feature maps of a network's last layers).
struct TaskGrid {
  int pixel_blocks = 1;
  int panel_groups = 1;
  int panels_per_group = 1;
  // Number of parallel tasks: one per (pixel block, panel group) pair.
  int tasks() const { return pixel_blocks * panel_groups; }
};

// Plans the tasks for `pixel_blocks` blocks and `panels` column panels of weights on `threads`.
TaskGrid PlanTasks(int pixel_blocks, int panels, int threads);

// How one algorithm computes one input size on some number of threads, and what it applies to its
// output: made by ConvolutionAlgorithm::Plan (in a layer's Prepare), read by Run.
struct ConvolutionPlan {
  static constexpr size_t kSlots = static_cast<size_t>(ScratchSlot::kCount);

  ConvolutionShape shape;
  // Applied to every output element after the bias (the graph fuses a following activation here).
  Activation activation;
  // The unit of work, whose meaning is the algorithm's: im2col output columns per block,
  // pointwise pixels per task, Winograd tiles per block.
  int block = 0;
  // How pointwise tasks, and shared Winograd blocks, split over the threads.
  TaskGrid grid;
  // Pointwise and depthwise on large maps: each thread one contiguous share of the output
  // pixels, all channels (Schedule::kByThread), so that layers in a row find their input in the
  // cache of the core that wrote it.
  bool contiguous_shares = false;
  // Winograd: each thread takes whole blocks (many tiles), instead of all threads sharing each.
  bool private_blocks = false;
  // Small-depth: where each of a group's K taps lies in the padded input planes, from a tile's
  // origin (it depends on the padded planes' size, so on the input size).
  std::vector<size_t> tap_offsets;
  // Floats Run asks for in each scratch slot, per thread.
  std::array<size_t, kSlots> scratch_floats{};

  // The floats Run asks for in `slot`, per thread.
  size_t& scratch(ScratchSlot slot) { return scratch_floats[static_cast<size_t>(slot)]; }
  size_t scratch(ScratchSlot slot) const { return scratch_floats[static_cast<size_t>(slot)]; }

  // Grows every thread's scratch to the sizes above, so that Run does not allocate.
  void ReserveScratch(Workspace* workspace) const;
};

// The algorithms, by name.
enum class ConvolutionAlgorithmKind {
  kReference,
  kIm2col,
  kPointwise,
  kDepthwise,
  kWinograd4x4,
  kWinograd2x2,
  kSmallDepth,
};
inline constexpr size_t kConvolutionAlgorithmKinds = 7;

// Short name for profiles, tests and benchmarks ("im2col", "winograd", ...).
const char* ConvolutionAlgorithmName(ConvolutionAlgorithmKind kind);

// One way of computing a convolution, with its weights prepared for it. Built once per model,
// then read-only: Plan and Run may be called from any number of threads at once.
class ConvolutionAlgorithm {
 public:
  // Keeps the geometry and bias every algorithm needs (not the weights: each algorithm keeps them
  // in its own form).
  explicit ConvolutionAlgorithm(const ConvolutionSpec& spec);
  virtual ~ConvolutionAlgorithm() = default;
  ConvolutionAlgorithm(const ConvolutionAlgorithm&) = delete;
  ConvolutionAlgorithm& operator=(const ConvolutionAlgorithm&) = delete;

  // Which algorithm this is.
  virtual ConvolutionAlgorithmKind kind() const = 0;
  // Its short name.
  const char* name() const { return ConvolutionAlgorithmName(kind()); }

  // Plans runs on `shape` (from MakeConvolutionShape, with an output of at least 1x1) on
  // `threads` threads, ending with `activation`.
  virtual ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                               int threads) const = 0;

  // Computes activation(conv(input) + bias) for one sample: `input` holds in_channels planes of
  // the plan's input size one after another, `output` out_channels planes of its output size.
  // Scratch comes from the context's workspace (reserve it with plan.ReserveScratch first, or the
  // first run allocates it).
  virtual void Run(const ConvolutionPlan& plan, const float* input, float* output,
                   const ComputeContext& context) const = 0;

 protected:
  // The plan every algorithm starts from: shape, activation, no blocks, no scratch.
  static ConvolutionPlan BasicPlan(const ConvolutionShape& shape, const Activation& activation);
  // The bias of output `channel` (0 without a bias).
  float bias(int channel) const { return bias_.empty() ? 0.0f : bias_[channel]; }
  // Adds the bias of `channel` to `count` values and applies the activation, in place.
  void FinishChannel(const Activation& activation, int channel, float* values, size_t count) const;
  // True when the GEMM can finish output channels itself, in registers (GemmEpilogue): the
  // activation is none, ReLU or ReLU6. Then *epilogue adds the bias of the channels from
  // `first_channel` on (column j of C being channel first_channel + j) and clamps; otherwise
  // FinishChannel does it after the product.
  bool GemmFinishes(const Activation& activation, int first_channel, GemmEpilogue* epilogue) const;

  int in_channels_;
  int out_channels_;
  int groups_;
  Window2d window_;
  std::vector<float> bias_;  // empty for no bias
};

// Whether the specialised algorithms can compute `spec` (im2col, small-depth and reference always
// can).
bool PointwiseApplies(const ConvolutionSpec& spec);
bool DepthwiseApplies(const ConvolutionSpec& spec);
bool WinogradApplies(const ConvolutionSpec& spec);

// Builds `kind` for `spec`, preparing its weights; throws lumen::Error when the algorithm cannot
// compute this geometry (see the Applies functions).
std::unique_ptr<ConvolutionAlgorithm> MakeConvolutionAlgorithm(ConvolutionAlgorithmKind kind,
                                                               const ConvolutionSpec& spec);

// The fastest algorithm that applies to `spec` at `shape` (measured on ResNet18's and YOLOv5s's
// layers; see bench/bench_convolution.cpp).
ConvolutionAlgorithmKind ChooseConvolutionAlgorithm(const ConvolutionSpec& spec,
                                                    const ConvolutionShape& shape);

// Every algorithm ChooseConvolutionAlgorithm may pick for `spec` at some input size: one for most
// geometries; im2col and both Winograd sizes for 3x3 stride-1 ones, which it chooses between by
// the size of the map.
std::vector<ConvolutionAlgorithmKind> CandidateConvolutionAlgorithms(const ConvolutionSpec& spec);

}  // namespace lumen

#endif  // LUMEN_KERNEL_CONVOLUTION_ALGORITHM_HPP_
