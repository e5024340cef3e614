// Winograd F(4x4, 3x3) for 3x3 stride-1 convolutions (Lavin and Gray, 2015).
//
// A 3x3 convolution producing a 4x4 output tile reads a 6x6 input tile. Directly that costs
// 16 * 9 = 144 multiplications per (input channel, output channel) pair; in the Winograd domain it
// is 36 element-wise products:
//
//     Y = A^T [ (G g G^T) * (B^T d B) ] A        g: 3x3 kernel, d: 6x6 input tile, Y: 4x4 output
//
// Summed over input channels, the element-wise products become 36 independent matrix products:
// for each of the 36 positions xi of the 6x6 tile, M_xi (tiles x C_out) = V_xi (tiles x C_in) *
// U_xi (C_in x C_out). So the algorithm is: transform the weights once (U), transform the input
// (V), run 36 GEMMs, transform back (A^T M A), add the bias and apply the activation.
#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

constexpr int kTile = 4;       // output tile size
constexpr int kInputTile = 6;  // kTile + 3 - 1
constexpr int kPositions = kInputTile * kInputTile;

// The three 1-D transforms; the 2-D ones apply them to columns, then to rows.
// g (3) -> G g (6)
void KernelTransform(const float* g, int step, float* out, int out_step) {
  out[0 * out_step] = g[0] / 4.0f;
  out[1 * out_step] = -(g[0] + g[step] + g[2 * step]) / 6.0f;
  out[2 * out_step] = -(g[0] - g[step] + g[2 * step]) / 6.0f;
  out[3 * out_step] = g[0] / 24.0f + g[step] / 12.0f + g[2 * step] / 6.0f;
  out[4 * out_step] = g[0] / 24.0f - g[step] / 12.0f + g[2 * step] / 6.0f;
  out[5 * out_step] = g[2 * step];
}

// d (6) -> B^T d (6)
void InputTransform(const float* d, int step, float* out, int out_step) {
  const float d0 = d[0], d1 = d[step], d2 = d[2 * step];
  const float d3 = d[3 * step], d4 = d[4 * step], d5 = d[5 * step];
  out[0 * out_step] = 4.0f * d0 - 5.0f * d2 + d4;
  out[1 * out_step] = -4.0f * d1 - 4.0f * d2 + d3 + d4;
  out[2 * out_step] = 4.0f * d1 - 4.0f * d2 - d3 + d4;
  out[3 * out_step] = -2.0f * d1 - d2 + 2.0f * d3 + d4;
  out[4 * out_step] = 2.0f * d1 - d2 - 2.0f * d3 + d4;
  out[5 * out_step] = 4.0f * d1 - 5.0f * d3 + d5;
}

// m (6) -> A^T m (4)
void OutputTransform(const float* m, int step, float* out, int out_step) {
  const float m0 = m[0], m1 = m[step], m2 = m[2 * step];
  const float m3 = m[3 * step], m4 = m[4 * step], m5 = m[5 * step];
  out[0 * out_step] = m0 + m1 + m2 + m3 + m4;
  out[1 * out_step] = m1 - m2 + 2.0f * (m3 - m4);
  out[2 * out_step] = m1 + m2 + 4.0f * (m3 + m4);
  out[3 * out_step] = m1 - m2 + 8.0f * (m3 - m4) + m5;
}

class WinogradConvolution : public ConvolutionAlgorithm {
 public:
  explicit WinogradConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec),
        tiles_h_((spec.output_h + kTile - 1) / kTile),
        tiles_w_((spec.output_w + kTile - 1) / kTile),
        tiles_(tiles_h_ * tiles_w_),
        transformed_input_(static_cast<size_t>(kPositions) * tiles_ * spec.in_channels),
        products_(static_cast<size_t>(kPositions) * tiles_ * spec.out_channels) {
    // U_xi[c, k] = (G g_kc G^T)[xi]: per position a column-major C_in x C_out matrix, packed.
    const int in = spec.in_channels;
    const int out = spec.out_channels;
    std::vector<float> transformed(static_cast<size_t>(kPositions) * in * out);
    for (int k = 0; k < out; ++k) {
      for (int c = 0; c < in; ++c) {
        const float* g = spec.weights.data() + (static_cast<size_t>(k) * in + c) * 9;
        float columns[6 * 3];  // G g: 6 rows x 3 columns, row-major
        for (int j = 0; j < 3; ++j) KernelTransform(g + j, 3, columns + j, 3);
        float tile[kPositions];  // (G g) G^T: 6 x 6, row-major
        for (int i = 0; i < 6; ++i) KernelTransform(columns + i * 3, 1, tile + i * 6, 1);
        for (int xi = 0; xi < kPositions; ++xi) {
          transformed[(static_cast<size_t>(xi) * out + k) * in + c] = tile[xi];
        }
      }
    }
    for (int xi = 0; xi < kPositions; ++xi) {
      transformed_weights_.emplace_back(transformed.data() + static_cast<size_t>(xi) * in * out, in,
                                        out, in);
    }
    spec_.weights.clear();
  }

  const char* name() const override { return "winograd"; }

  void Run(const Tensor& input, Tensor* output) override {
    TransformInput(input);
    const int in = spec_.in_channels;
    // 36 independent GEMMs: spread them over the threads, each GEMM single-threaded (PackedGemm
    // runs on the calling thread inside a parallel region).
#pragma omp parallel for schedule(dynamic, 1)
    for (int xi = 0; xi < kPositions; ++xi) {
      PackedGemm(tiles_, transformed_input_.data() + static_cast<size_t>(xi) * tiles_ * in, tiles_,
                 transformed_weights_[xi],
                 products_.data() + static_cast<size_t>(xi) * tiles_ * spec_.out_channels, tiles_);
    }
    TransformOutput(output);
  }

 private:
  // V_xi[t, c] = (B^T d_tc B)[xi], stored per position as a column-major tiles x C_in matrix.
  void TransformInput(const Tensor& input) {
    const int in = spec_.in_channels;
    const size_t position_stride = static_cast<size_t>(tiles_) * in;
#pragma omp parallel for schedule(static)
    for (int c = 0; c < in; ++c) {
      const float* source = input.channel_data(c);  // column-major input_h x input_w
      for (int ty = 0; ty < tiles_h_; ++ty) {
        for (int tx = 0; tx < tiles_w_; ++tx) {
          // Load the 6x6 tile (row-major) with zeros outside the image.
          float d[kPositions];
          const int top = ty * kTile - spec_.window.pad_top;
          const int left = tx * kTile - spec_.window.pad_left;
          for (int j = 0; j < kInputTile; ++j) {
            const int x = left + j;
            const bool column_inside = x >= 0 && x < spec_.input_w;
            for (int i = 0; i < kInputTile; ++i) {
              const int y = top + i;
              d[i * 6 + j] = column_inside && y >= 0 && y < spec_.input_h
                                 ? source[x * spec_.input_h + y]
                                 : 0.0f;
            }
          }
          float columns[kPositions];  // B^T d
          for (int j = 0; j < 6; ++j) InputTransform(d + j, 6, columns + j, 6);
          float tile[kPositions];  // (B^T d) B
          for (int i = 0; i < 6; ++i) InputTransform(columns + i * 6, 1, tile + i * 6, 1);
          float* target =
              transformed_input_.data() + static_cast<size_t>(c) * tiles_ + ty * tiles_w_ + tx;
          for (int xi = 0; xi < kPositions; ++xi) target[xi * position_stride] = tile[xi];
        }
      }
    }
  }

  // Y = A^T M A for every tile of every output channel, then bias and activation.
  void TransformOutput(Tensor* output) {
    const int out = spec_.out_channels;
    const size_t position_stride = static_cast<size_t>(tiles_) * out;
    const int output_h = spec_.output_h;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < out; ++k) {
      float* target = output->channel_data(k);  // column-major output_h x output_w
      for (int ty = 0; ty < tiles_h_; ++ty) {
        for (int tx = 0; tx < tiles_w_; ++tx) {
          const float* source =
              products_.data() + static_cast<size_t>(k) * tiles_ + ty * tiles_w_ + tx;
          float m[kPositions];
          for (int xi = 0; xi < kPositions; ++xi) m[xi] = source[xi * position_stride];
          float columns[4 * 6];  // A^T m: 4 x 6
          for (int j = 0; j < 6; ++j) OutputTransform(m + j, 6, columns + j, 6);
          float tile[kTile * kTile];  // (A^T m) A: 4 x 4, row-major
          for (int i = 0; i < 4; ++i) OutputTransform(columns + i * 6, 1, tile + i * 4, 1);
          // The last row and column of tiles may hang over the output's edge.
          const int rows = std::min(kTile, output_h - ty * kTile);
          const int cols = std::min(kTile, spec_.output_w - tx * kTile);
          for (int j = 0; j < cols; ++j) {
            float* column = target + (tx * kTile + j) * output_h + ty * kTile;
            for (int i = 0; i < rows; ++i) column[i] = tile[i * 4 + j];
          }
        }
      }
      FinishChannel(k, target, static_cast<size_t>(output_h) * spec_.output_w);
    }
  }

  int tiles_h_, tiles_w_, tiles_;
  std::vector<PackedMatrix> transformed_weights_;  // U: 36 packed C_in x C_out matrices
  std::vector<float> transformed_input_;           // V: 36 x (tiles x C_in)
  std::vector<float> products_;                    // M: 36 x (tiles x C_out)
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeWinogradConvolution(const ConvolutionSpec& spec) {
  if (!WinogradApplies(spec)) throw Error("Winograd F(4x4,3x3) needs a 3x3, stride-1 convolution");
  return std::make_unique<WinogradConvolution>(spec);
}

}  // namespace lumen
