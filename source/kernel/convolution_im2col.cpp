// im2col + GEMM: the general algorithm, for any stride, padding, dilation and groups.
//
// Layout trick: an output sample is a cube whose channels are contiguous column-major H x W
// matrices, so a group's output channels form one column-major (H*W) x C_out matrix. With the
// im2col matrix A ((H_out*W_out) x K, one row per output pixel, one column per (input channel,
// ky, kx)) and PyTorch's weight buffer read as a column-major K x C_out matrix B (packed once),
// A * B is the group's output.
//
// The whole im2col matrix of a 640x640 YOLO layer is tens of megabytes, far beyond any cache, so
// the output is computed in blocks of whole output columns, about a megabyte of im2col rows each.
//
// With bf16 products (ConvolutionSpec::bf16_products) the GEMM is math/bf16_gemm's, which rounds
// the im2col rows to bf16 as it packs them and finishes the output with any activation; a 1x1,
// stride-1 layer then needs no im2col at all: its input planes already are the rows.
#include <algorithm>
#include <cstdint>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "convolution_factories.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "math/bf16_gemm.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

class Im2colConvolution : public ConvolutionAlgorithm {
 public:
  // Packs each group's weights, a column-major K x C_out/groups matrix (in bf16 pairs for bf16
  // products).
  explicit Im2colConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec),
        kernel_size_(CheckedInt(
            int64_t{spec.in_channels / spec.groups} * spec.window.kernel_h * spec.window.kernel_w,
            "convolution GEMM depth")),
        rows_are_input_(spec.bf16_products && PointwiseApplies(spec)) {
    if (!spec.bf16_products) {
      weights_ = PackGroupWeights(spec);
      return;
    }
    const int group_out = spec.out_channels / spec.groups;
    for (int group = 0; group < spec.groups; ++group) {
      bf16_weights_.emplace_back(
          spec.weights.data() + static_cast<size_t>(group) * group_out * kernel_size_, group_out,
          kernel_size_, kernel_size_);
    }
  }
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kIm2col; }

  // Blocks of whole output columns, about 1 MB of im2col rows each (at least one column): large
  // enough that each pass over the packed weights computes many rows, small enough to stay in the
  // L2 caches while the GEMM packs them (4 MB blocks, which spill to L3, made ResNet18's first
  // layer 1.6 times slower on 2 threads).
  //
  // With enough blocks for every thread, each thread takes whole blocks (private_blocks) and
  // builds, multiplies and finishes them on its own, in its own scratch: no thread waits for
  // another inside the layer, and a block never leaves its core's cache. Otherwise (small maps,
  // where the weights dominate) the threads share each block, as PackedGemm splits it.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int threads) const override {
    ConvolutionPlan plan = BasicPlan(shape, activation);
    const int64_t column_floats = int64_t{shape.output_h} * kernel_size_;
    const int output_w = std::max(shape.output_w, 1);
    plan.block = static_cast<int>(std::clamp<int64_t>(262144 / column_floats, 1, output_w));
    int blocks = (output_w + plan.block - 1) / plan.block;
    threads = std::max(threads, 1);
    plan.private_blocks = threads > 1 && blocks * groups_ >= 2 * threads;
    if (plan.private_blocks && groups_ == 1) {
      // A multiple of the threads, the columns spread evenly: every thread gets the same share.
      blocks = (blocks + threads - 1) / threads * threads;
      plan.block = (output_w + blocks - 1) / blocks;
    }
    const int pixels = plan.block * shape.output_h;
    plan.scratch(ScratchSlot::kFirst) =
        rows_are_input_ ? 0
                        : CheckedMultiply(static_cast<size_t>(pixels),
                                          static_cast<size_t>(kernel_size_), "im2col block size");
    plan.scratch(ScratchSlot::kGemmPacking) = bf16_weights_.empty()
                                                  ? PackedGemmScratchSize(pixels, kernel_size_)
                                                  : Bf16GemmScratchSize(pixels, bf16_weights_[0]);
    return plan;
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    const int blocks = (plan.shape.output_w + plan.block - 1) / plan.block;
    if (plan.private_blocks) {
      // Each task is one block on one thread: the loops inside RunBlock run on that thread.
      ParallelFor(
          context.pool, static_cast<std::ptrdiff_t>(groups_) * blocks,
          [&](std::ptrdiff_t task) {
            RunBlock(plan, input, output, static_cast<int>(task / blocks),
                     static_cast<int>(task % blocks) * plan.block, context);
          },
          Schedule::kDynamic);
      return;
    }
    for (int group = 0; group < groups_; ++group) {
      for (int block = 0; block < blocks; ++block) {
        RunBlock(plan, input, output, group, block * plan.block, context);
      }
    }
  }

 private:
  // One block of output columns of one group: im2col rows into the calling thread's scratch, the
  // GEMM, which adds the bias and applies a ReLU or ReLU6 itself (other activations after it).
  // Called from a parallel loop (private blocks), the inner loops run on the calling thread;
  // called alone, the threads share each step.
  void RunBlock(const ConvolutionPlan& plan, const float* input, float* output, int group,
                int first_column, const ComputeContext& context) const {
    const ConvolutionShape& s = plan.shape;
    const int group_out = out_channels_ / groups_;
    const int area = s.output_h * s.output_w;
    const int first_pixel = first_column * s.output_h;
    const int pixels = std::min(plan.block, s.output_w - first_column) * s.output_h;
    // (pixels x K) * (K x group_out) -> rows [first_pixel, +pixels) of the group's outputs
    float* result = output + static_cast<size_t>(group) * group_out * area + first_pixel;
    if (rows_are_input_) {  // 1x1, stride 1: the group's input planes are the rows
      Bf16Gemm(pixels, input + static_cast<size_t>(group) * kernel_size_ * area + first_pixel, area,
               bf16_weights_[group], bias_.empty() ? nullptr : bias_.data() + group * group_out,
               plan.activation, result, area, context);
      return;
    }
    float* columns = context.Scratch(ScratchSlot::kFirst, plan.scratch(ScratchSlot::kFirst));
    Im2Col(s, input, group, first_column, pixels, columns, context);
    if (!bf16_weights_.empty()) {
      Bf16Gemm(pixels, columns, pixels, bf16_weights_[group],
               bias_.empty() ? nullptr : bias_.data() + group * group_out, plan.activation, result,
               area, context);
      return;
    }
    GemmEpilogue epilogue;
    if (GemmFinishes(plan.activation, group * group_out, &epilogue)) {
      PackedGemm(pixels, columns, pixels, weights_[group], result, area, context, epilogue);
      return;
    }
    PackedGemm(pixels, columns, pixels, weights_[group], result, area, context);
    ParallelFor(context.pool, group_out, [&](std::ptrdiff_t channel) {
      FinishChannel(plan.activation, group * group_out + static_cast<int>(channel),
                    result + static_cast<size_t>(channel) * area, pixels);
    });
  }

  // Fills `columns` with the (pixels x K) column-major im2col rows of the output columns starting
  // at first_column, for one group: column k holds input channel `channel` shifted by (ky, kx),
  // and each output column is one contiguous run of rows read from one input column.
  void Im2Col(const ConvolutionShape& s, const float* input, int group, int first_column,
              int pixels, float* columns, const ComputeContext& context) const {
    // LESSON 07 BEGIN: one im2col column per (channel, ky, kx), for the block's pixels
    const Window2d& w = window_;
    const int kernel_area = w.kernel_h * w.kernel_w;
    const int output_h = s.output_h;
    const int block_columns = pixels / output_h;
    ParallelFor(context.pool, kernel_size_, [&](std::ptrdiff_t index) {
      const int k = static_cast<int>(index);
      const int channel = group * (in_channels_ / groups_) + k / kernel_area;
      const int ky = (k % kernel_area) / w.kernel_w;
      const int kx = k % w.kernel_w;
      const int row_offset = ky * w.dilation_h - w.pad_top;
      const int col_offset = kx * w.dilation_w - w.pad_left;
      // Output rows whose input row (oy * stride + row_offset) lies inside the image.
      const int first_row = std::clamp((-row_offset + w.stride_h - 1) / w.stride_h, 0, output_h);
      const int end_row =
          std::clamp((s.input_h - row_offset + w.stride_h - 1) / w.stride_h, first_row, output_h);
      const float* source = input + static_cast<size_t>(channel) * s.input_h * s.input_w;
      float* column = columns + static_cast<size_t>(k) * pixels;
      for (int c = 0; c < block_columns; ++c) {
        float* target = column + c * output_h;
        const int ix = (first_column + c) * w.stride_w + col_offset;
        if (ix < 0 || ix >= s.input_w) {
          std::fill(target, target + output_h, 0.0f);
          continue;
        }
        const float* input_column = source + ix * s.input_h;  // contiguous rows
        std::fill(target, target + first_row, 0.0f);
        if (w.stride_h == 2) {
          // The usual stride, spelled as a constant: the compiler then vectorises the loop
          // (two loads and a shuffle per vector) instead of reading one float at a time.
          for (int oy = first_row; oy < end_row; ++oy) {
            target[oy] = input_column[oy * 2 + row_offset];
          }
        } else {
          for (int oy = first_row; oy < end_row; ++oy) {
            target[oy] = input_column[oy * w.stride_h + row_offset];
          }
        }
        std::fill(target + end_row, target + output_h, 0.0f);
      }
    });
    // LESSON 07 END
  }

  int kernel_size_;                              // K: (in_channels / groups) * kH * kW
  bool rows_are_input_;                          // bf16 1x1 stride 1: no im2col
  std::vector<PackedMatrix> weights_;            // one per group (fp32 products)
  std::vector<Bf16PackedWeights> bf16_weights_;  // one per group (bf16 products)
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeIm2colConvolution(const ConvolutionSpec& spec) {
  return std::make_unique<Im2colConvolution>(spec);
}

}  // namespace lumen
