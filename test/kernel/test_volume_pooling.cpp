// 3-D pooling by depth pass (each depth slice pooled by the 2-D kernel, then the pooled slices
// combined along depth) against the definitions over the whole box, on random volumes and
// windows: the maximum against MaxPoolWithIndices (which walks every box element), the averages
// against a sum over the box written out here, and the indices against the values they point to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel/adaptive_pooling.hpp"
#include "kernel/average_pooling.hpp"
#include "kernel/max_pooling_kernels.hpp"
#include "kernel/volume_pooling.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;

// One random volume and window (padding within half the kernel, as PyTorch requires).
struct VolumeCase {
  Window3d window;
  PoolingVolume volume;
  bool ceil_mode = false;
  AverageDivisor divisor;
};

// The height (`height` true) or width axis of a 2-D window, as a WindowAxis.
WindowAxis AxisOf(const Window2d& w, bool height) {
  return height ? WindowAxis{w.kernel_h, w.stride_h, w.dilation_h, w.pad_top, w.pad_bottom}
                : WindowAxis{w.kernel_w, w.stride_w, w.dilation_w, w.pad_left, w.pad_right};
}

// Random cases whose window fits the input; `dilated` lets the window dilate (max pooling only).
std::vector<VolumeCase> Cases(bool dilated) {
  std::mt19937 generator(2025);
  const auto uniform = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(generator);
  };
  const auto random_axis = [&]() {
    WindowAxis axis;
    axis.kernel = uniform(1, 4);
    axis.stride = uniform(1, 3);
    axis.dilation = dilated ? uniform(1, 2) : 1;
    axis.pad_before = uniform(0, axis.kernel / 2);
    axis.pad_after = axis.pad_before;
    return axis;
  };
  std::vector<VolumeCase> cases;
  while (cases.size() < 30) {
    VolumeCase pooling;
    pooling.ceil_mode = uniform(0, 1) == 1;
    pooling.divisor.count_include_pad = uniform(0, 1) == 1;
    pooling.divisor.divisor_override = uniform(0, 3) == 0 ? 7 : 0;
    pooling.window.depth = random_axis();
    const WindowAxis height = random_axis(), width = random_axis();
    Window2d& plane = pooling.window.plane;
    plane = Window2d{height.kernel,    width.kernel,   height.stride,     width.stride,
                     height.dilation,  width.dilation, height.pad_before, height.pad_after,
                     width.pad_before, width.pad_after};
    PoolingVolume& volume = pooling.volume;
    volume.input_d = uniform(1, 9);
    volume.plane.input_h = uniform(1, 9);
    volume.plane.input_w = uniform(1, 9);
    volume.output_d = pooling.window.depth.OutputSize(volume.input_d, pooling.ceil_mode);
    volume.plane.output_h = plane.OutputHeight(volume.plane.input_h, pooling.ceil_mode);
    volume.plane.output_w = plane.OutputWidth(volume.plane.input_w, pooling.ceil_mode);
    if (volume.output_d > 0 && volume.plane.output_h > 0 && volume.plane.output_w > 0) {
      cases.push_back(pooling);
    }
  }
  return cases;
}

// Element (d, h, w) of a channel stored as column-major slices.
float At(const PoolingVolume& volume, const std::vector<float>& values, int64_t d, int64_t h,
         int64_t w) {
  return values[static_cast<size_t>((d * volume.plane.input_w + w) * volume.plane.input_h + h)];
}

// Where output (d, h, w) lives.
size_t OutputAt(const PoolingVolume& volume, int64_t d, int64_t h, int64_t w) {
  return static_cast<size_t>((d * volume.plane.output_w + w) * volume.plane.output_h + h);
}

// The 3-D average by its definition: the box's sum over the input divided by PyTorch's divisor.
std::vector<float> AverageByDefinition(const VolumeCase& pooling, const std::vector<float>& input) {
  const PoolingVolume& volume = pooling.volume;
  const WindowAxis axes[3] = {pooling.window.depth, AxisOf(pooling.window.plane, true),
                              AxisOf(pooling.window.plane, false)};
  const int inputs[3] = {volume.input_d, volume.plane.input_h, volume.plane.input_w};
  std::vector<float> output(volume.OutputSize());
  for (int od = 0; od < volume.output_d; ++od) {
    for (int oh = 0; oh < volume.plane.output_h; ++oh) {
      for (int ow = 0; ow < volume.plane.output_w; ++ow) {
        const int out[3] = {od, oh, ow};
        int64_t begin[3], end[3], padded_count = 1, count = 1;
        for (int a = 0; a < 3; ++a) {
          const int64_t start = int64_t{out[a]} * axes[a].stride - axes[a].pad_before;
          const int64_t stop =
              std::min<int64_t>(start + axes[a].kernel, int64_t{inputs[a]} + axes[a].pad_after);
          padded_count *= stop - start;
          begin[a] = std::max<int64_t>(start, 0);
          end[a] = std::min<int64_t>(stop, inputs[a]);
          count *= end[a] - begin[a];
        }
        double sum = 0.0;
        for (int64_t d = begin[0]; d < end[0]; ++d) {
          for (int64_t h = begin[1]; h < end[1]; ++h) {
            for (int64_t w = begin[2]; w < end[2]; ++w) sum += At(volume, input, d, h, w);
          }
        }
        const int64_t divisor = pooling.divisor.divisor_override != 0
                                    ? pooling.divisor.divisor_override
                                : pooling.divisor.count_include_pad ? padded_count
                                                                    : count;
        output[OutputAt(volume, od, oh, ow)] = static_cast<float>(sum / divisor);
      }
    }
  }
  return output;
}

// Every index points to an input element equal to its output (NaN to a NaN).
void ExpectIndicesPointToTheMaxima(const PoolingVolume& volume, const std::vector<float>& input,
                                   const std::vector<float>& output,
                                   const std::vector<float>& indices) {
  for (size_t i = 0; i < output.size(); ++i) {
    const int64_t position = static_cast<int64_t>(indices[i]);
    const int64_t w = position % volume.plane.input_w;
    const int64_t h = position / volume.plane.input_w % volume.plane.input_h;
    const int64_t d = position / volume.plane.input_w / volume.plane.input_h;
    const float value = At(volume, input, d, h, w);
    EXPECT_TRUE(value == output[i] || (std::isnan(value) && std::isnan(output[i])))
        << "output " << i << " index " << position;
  }
}

TEST(VolumePooling, DepthPassMaximumMatchesTheDefinitionAndItsIndices) {
  std::mt19937 generator(7);
  for (const VolumeCase& pooling : Cases(/*dilated=*/true)) {
    const PoolingVolume& volume = pooling.volume;
    std::vector<float> input = RandomValues(volume.InputSize(), &generator);
    input[input.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> reference(volume.OutputSize()), indices(volume.OutputSize());
    MaxPoolWithIndices(pooling.window, volume, true, input.data(), reference.data(),
                       indices.data());
    ExpectIndicesPointToTheMaxima(volume, input, reference, indices);
    std::vector<float> fast(volume.OutputSize());
    std::vector<float> slices(VolumeScratchSize(volume));
    PoolVolume(
        volume, input.data(), fast.data(), slices.data(),
        [&](const float* slice, float* pooled) {
          MaxPoolReference(pooling.window.plane, volume.plane, slice, pooled);
        },
        [&](int64_t index, const float* pooled, float* output) {
          MaxOfSlices(pooled, volume.OutputSliceSize(),
                      SlidingTaps(pooling.window.depth, volume.input_d, index), output);
        });
    ExpectAgree(fast, "depth pass", reference, "MaxPoolWithIndices", 0.0f, 0.0f);
  }
}

TEST(VolumePooling, DepthPassAverageMatchesTheDefinition) {
  std::mt19937 generator(8);
  for (const VolumeCase& pooling : Cases(/*dilated=*/false)) {
    const PoolingVolume& volume = pooling.volume;
    const std::vector<float> input = RandomValues(volume.InputSize(), &generator);
    std::vector<float> fast(volume.OutputSize());
    std::vector<float> slices(VolumeScratchSize(volume));
    AveragePoolVolume(pooling.window, pooling.divisor, volume, input.data(), fast.data(),
                      slices.data());
    ExpectAgree(fast, "depth pass", AverageByDefinition(pooling, input), "definition", 1e-6f,
                1e-5f);
  }
}

TEST(VolumePooling, AdaptiveDepthPassMatchesTheDefinition) {
  std::mt19937 generator(9);
  for (int trial = 0; trial < 20; ++trial) {
    const auto uniform = [&](int low, int high) {
      return std::uniform_int_distribution<int>(low, high)(generator);
    };
    PoolingVolume volume;
    volume.input_d = uniform(1, 9);
    volume.plane = PoolingPlane{uniform(1, 9), uniform(1, 9), uniform(1, 5), uniform(1, 5)};
    volume.output_d = uniform(1, 5);
    const std::vector<float> input = RandomValues(volume.InputSize(), &generator);
    std::vector<float> maxima(volume.OutputSize()), indices(volume.OutputSize());
    AdaptiveMaxPoolWithIndices(volume, true, input.data(), maxima.data(), indices.data());
    ExpectIndicesPointToTheMaxima(volume, input, maxima, indices);
    std::vector<float> slices(VolumeScratchSize(volume));
    std::vector<float> fast_maxima(volume.OutputSize()), fast_means(volume.OutputSize());
    std::vector<float> means(volume.OutputSize());
    AdaptivePoolVolume(volume, /*maximum=*/true, input.data(), fast_maxima.data(), slices.data());
    ExpectAgree(fast_maxima, "depth pass", maxima, "AdaptiveMaxPoolWithIndices", 0.0f, 0.0f);
    AdaptivePoolVolume(volume, /*maximum=*/false, input.data(), fast_means.data(), slices.data());
    // The definition: each box's mean.
    for (int od = 0; od < volume.output_d; ++od) {
      const AdaptiveWindow d = AdaptiveWindowOf(od, volume.input_d, volume.output_d);
      for (int oh = 0; oh < volume.plane.output_h; ++oh) {
        const AdaptiveWindow h = AdaptiveWindowOf(oh, volume.plane.input_h, volume.plane.output_h);
        for (int ow = 0; ow < volume.plane.output_w; ++ow) {
          const AdaptiveWindow w =
              AdaptiveWindowOf(ow, volume.plane.input_w, volume.plane.output_w);
          double sum = 0.0;
          for (int64_t z = d.begin; z < d.end; ++z) {
            for (int64_t y = h.begin; y < h.end; ++y) {
              for (int64_t x = w.begin; x < w.end; ++x) sum += At(volume, input, z, y, x);
            }
          }
          means[OutputAt(volume, od, oh, ow)] =
              static_cast<float>(sum / ((d.end - d.begin) * (h.end - h.begin) * (w.end - w.begin)));
        }
      }
    }
    ExpectAgree(fast_means, "depth pass", means, "definition", 1e-6f, 1e-5f);
  }
}

}  // namespace
}  // namespace lumen
