// The adaptive pooling kernels: the fast average against its reference on planes of many sizes
// (shrinking, growing, uneven windows, a global pool), and both kernels against the sliding-window
// kernels where the adaptive windows are regular (an extent divisible by the output's).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel/adaptive_pooling.hpp"
#include "kernel/average_pooling.hpp"
#include "kernel/max_pooling_kernels.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Input and output sizes: a global pool (ResNet's 7x7 to 1x1, a long plane), uneven windows
// (7 to 4), growing (5 to 7), one extent kept, and sizes whose runs leave a remainder after the
// eight running sums.
const std::vector<PoolingPlane> kPlanes = {
    {7, 7, 1, 1},  {7, 7, 4, 4},   {5, 6, 7, 7},  {11, 13, 4, 5}, {1, 1, 1, 1},
    {33, 2, 1, 1}, {23, 19, 3, 7}, {9, 9, 9, 3},  {6, 5, 1, 1},   {40, 40, 6, 6},
    {3, 50, 3, 1}, {16, 16, 8, 8}, {17, 4, 2, 4}, {2, 3, 5, 2},
};

// A test name part such as 7x7_to_4x4.
std::string Name(const PoolingPlane& plane) {
  return std::to_string(plane.input_h) + "x" + std::to_string(plane.input_w) + "_to_" +
         std::to_string(plane.output_h) + "x" + std::to_string(plane.output_w);
}

// Output buffers start as NaN, so that an element never written shows up.
std::vector<float> Unwritten(const PoolingPlane& plane) {
  return std::vector<float>(static_cast<size_t>(plane.output_h) * plane.output_w, kNan);
}

TEST(AdaptivePooling, WindowsArePyTorchs) {
  // 7 rows into 4: [0,2) [1,4) [3,6) [5,7), overlapping and of two sizes.
  const int64_t begins[] = {0, 1, 3, 5};
  const int64_t ends[] = {2, 4, 6, 7};
  for (int64_t i = 0; i < 4; ++i) {
    const AdaptiveWindow window = AdaptiveWindowOf(i, 7, 4);
    EXPECT_EQ(window.begin, begins[i]) << "output row " << i;
    EXPECT_EQ(window.end, ends[i]) << "output row " << i;
  }
  // Growing 5 into 7: windows of one or two rows that cover every input row.
  for (int64_t i = 0; i < 7; ++i) {
    const AdaptiveWindow window = AdaptiveWindowOf(i, 5, 7);
    EXPECT_GE(window.end - window.begin, 1);
    EXPECT_LE(window.end - window.begin, 2);
  }
  // Large maps: index * extent does not fit in an int.
  const AdaptiveWindow last = AdaptiveWindowOf(99999, 100000, 100000);
  EXPECT_EQ(last.begin, 99999);
  EXPECT_EQ(last.end, 100000);
}

TEST(AdaptivePooling, GlobalAverageMatchesReferenceChannelByChannel) {
  // Squeeze-and-excitation's shapes (many channels of a small plane), a long plane, one pixel, and
  // areas that leave a remainder after the eight running sums.
  std::mt19937 generator(7);
  for (const auto& [channels, h, w] : std::vector<std::array<int, 3>>{
           {504, 5, 5}, {3, 40, 40}, {17, 1, 1}, {9, 7, 3}, {1, 33, 2}}) {
    const PoolingPlane plane{h, w, 1, 1};
    const int64_t area = int64_t{h} * w;
    const std::vector<float> input = RandomValues(static_cast<size_t>(channels * area), &generator);
    std::vector<float> fast(static_cast<size_t>(channels) + 1, kNan);  // one past: not written
    std::vector<float> reference(static_cast<size_t>(channels), kNan);
    GlobalAveragePool(input.data(), channels, area, fast.data());
    for (int channel = 0; channel < channels; ++channel) {
      AdaptiveAveragePoolReference(plane, input.data() + channel * area, &reference[channel]);
    }
    EXPECT_TRUE(std::isnan(fast.back())) << "wrote past the last channel";
    fast.pop_back();
    ExpectAgree(fast, "GlobalAveragePool", reference, "AdaptiveAveragePoolReference", 1e-6f, 1e-5f,
                std::to_string(channels) + "x" + Name(plane));
  }
}

TEST(AdaptivePooling, AverageMatchesReference) {
  std::mt19937 generator(2024);
  for (const PoolingPlane& plane : kPlanes) {
    const std::vector<float> input =
        RandomValues(static_cast<size_t>(plane.input_h) * plane.input_w, &generator);
    std::vector<float> fast = Unwritten(plane);
    std::vector<float> reference = Unwritten(plane);
    AdaptiveAveragePool(plane, input.data(), fast.data());
    AdaptiveAveragePoolReference(plane, input.data(), reference.data());
    // The fast kernel adds in another order: float rounding only.
    ExpectAgree(fast, "AdaptiveAveragePool", reference, "AdaptiveAveragePoolReference", 1e-6f,
                1e-5f, Name(plane));
  }
}

// Where the output's extents divide the input's, every adaptive window is the window of a
// sliding pooling with kernel = stride = input / output, so the kernels must agree with
// AveragePool and MaxPoolReference, which know nothing of adaptive windows.
TEST(AdaptivePooling, RegularWindowsMatchTheSlidingKernels) {
  std::mt19937 generator(7);
  for (const PoolingPlane& plane : kPlanes) {
    if (plane.input_h % plane.output_h != 0 || plane.input_w % plane.output_w != 0) continue;
    Window2d window;
    window.kernel_h = window.stride_h = plane.input_h / plane.output_h;
    window.kernel_w = window.stride_w = plane.input_w / plane.output_w;
    std::vector<float> input =
        RandomValues(static_cast<size_t>(plane.input_h) * plane.input_w, &generator);
    input[input.size() / 3] = kNan;  // NaN wins in both maxima
    std::vector<float> adaptive = Unwritten(plane);
    std::vector<float> sliding = Unwritten(plane);
    AdaptiveMaxPool(plane, input.data(), adaptive.data());
    MaxPoolReference(window, plane, input.data(), sliding.data());
    ExpectAgree(adaptive, "AdaptiveMaxPool", sliding, "MaxPoolReference", 0.0f, 0.0f, Name(plane));
    input[input.size() / 3] = 0.5f;
    adaptive = Unwritten(plane);
    sliding = Unwritten(plane);
    AdaptiveAveragePoolReference(plane, input.data(), adaptive.data());
    AveragePool(window, AverageDivisor{}, plane, input.data(), sliding.data());
    ExpectAgree(adaptive, "AdaptiveAveragePoolReference", sliding, "AveragePool", 0.0f, 0.0f,
                Name(plane));
  }
}

// Overlapping windows: a NaN makes exactly the cells whose windows hold it NaN.
TEST(AdaptivePooling, MaxNanMakesExactlyTheWindowsHoldingItNan) {
  const PoolingPlane plane{7, 7, 4, 4};
  std::mt19937 generator(3);
  std::vector<float> input = RandomValues(49, &generator);
  const int nan_row = 3, nan_column = 5;  // row 3 lies in output rows 1 and 2
  input[nan_column * 7 + nan_row] = kNan;
  std::vector<float> output = Unwritten(plane);
  AdaptiveMaxPool(plane, input.data(), output.data());
  for (int x = 0; x < 4; ++x) {
    const AdaptiveWindow columns = AdaptiveWindowOf(x, 7, 4);
    for (int y = 0; y < 4; ++y) {
      const AdaptiveWindow rows = AdaptiveWindowOf(y, 7, 4);
      const bool holds = rows.begin <= nan_row && nan_row < rows.end &&
                         columns.begin <= nan_column && nan_column < columns.end;
      EXPECT_EQ(std::isnan(output[x * 4 + y]), holds) << "cell " << y << "," << x;
    }
  }
}

}  // namespace
}  // namespace lumen
