// The separable and the tiled max pooling against the reference one, on random planes and windows.
//
// A maximum involves no rounding, so they must agree exactly: the comparisons below use a
// tolerance of zero (with NaN matching NaN). MaxPoolSeparable and MaxPoolTiled need dilation 1, so
// every window here has dilation 1; the layer sends dilated windows to the reference. The tiled
// kernel runs wherever MaxPoolTiledApplies (output columns of at least 4 rows).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernel/max_pooling_kernels.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// One plane and one window.
struct PoolingCase {
  int input_h = 1, input_w = 1;
  Window2d window;
  bool ceil_mode = false;

  // A valid test name, such as in13x17_k3x3_s2x2_pad1_1_1_1_ceil.
  std::string Name() const {
    const Window2d& w = window;
    return "in" + std::to_string(input_h) + "x" + std::to_string(input_w) + "_k" +
           std::to_string(w.kernel_h) + "x" + std::to_string(w.kernel_w) + "_s" +
           std::to_string(w.stride_h) + "x" + std::to_string(w.stride_w) + "_pad" +
           std::to_string(w.pad_top) + "_" + std::to_string(w.pad_bottom) + "_" +
           std::to_string(w.pad_left) + "_" + std::to_string(w.pad_right) +
           (ceil_mode ? "_ceil" : "_floor");
  }
  // The plane's sizes, the output's by PyTorch's formula.
  PoolingPlane Plane() const {
    PoolingPlane plane;
    plane.input_h = input_h;
    plane.input_w = input_w;
    plane.output_h = window.OutputHeight(input_h, ceil_mode);
    plane.output_w = window.OutputWidth(input_w, ceil_mode);
    return plane;
  }
};

// Shows a case by its name in gtest's messages.
void PrintTo(const PoolingCase& pooling, std::ostream* stream) { *stream << pooling.Name(); }

// A case from its sizes; padding is (top, bottom, left, right).
PoolingCase Pool(int input_h, int input_w, int kernel_h, int kernel_w, int stride_h, int stride_w,
                 std::vector<int> padding, bool ceil_mode) {
  PoolingCase pooling;
  pooling.input_h = input_h;
  pooling.input_w = input_w;
  pooling.window.kernel_h = kernel_h;
  pooling.window.kernel_w = kernel_w;
  pooling.window.stride_h = stride_h;
  pooling.window.stride_w = stride_w;
  pooling.window.pad_top = padding[0];
  pooling.window.pad_bottom = padding[1];
  pooling.window.pad_left = padding[2];
  pooling.window.pad_right = padding[3];
  pooling.ceil_mode = ceil_mode;
  return pooling;
}

// Handpicked cases (the pooling layers of ResNet and YOLO, a 1x1 plane, a window as large as the
// plane, a stride larger than the window, ceil mode adding a last window that hangs over the
// edge, asymmetric padding), then random ones. Padding stays within half the kernel, as PyTorch
// requires, so that every window holds at least one input value.
std::vector<PoolingCase> Cases() {
  std::vector<PoolingCase> cases = {
      Pool(1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, false),
      Pool(1, 1, 3, 3, 1, 1, {1, 1, 1, 1}, false),
      Pool(5, 7, 2, 2, 2, 2, {0, 0, 0, 0}, false),
      Pool(5, 7, 2, 2, 2, 2, {0, 0, 0, 0}, true),
      Pool(13, 17, 3, 3, 2, 2, {1, 1, 1, 1}, false),
      Pool(13, 17, 3, 3, 2, 2, {1, 1, 1, 1}, true),
      Pool(17, 9, 5, 5, 1, 1, {2, 2, 2, 2}, false),
      Pool(13, 17, 3, 3, 3, 3, {0, 0, 0, 0}, true),
      Pool(5, 7, 5, 7, 1, 1, {0, 0, 0, 0}, false),
      Pool(17, 9, 2, 2, 3, 3, {0, 0, 0, 0}, true),
      Pool(32, 3, 2, 3, 1, 2, {1, 0, 0, 1}, false),
      Pool(17, 9, 1, 5, 2, 1, {0, 0, 2, 1}, true),
      Pool(17, 9, 5, 1, 3, 1, {2, 1, 0, 0}, true),
      // The stems' poolings (tiles of eight rows, the last overlapping the one before it, 3x3
      // stride 2 on its own path), and columns of a whole vector plus a few rows.
      Pool(55, 55, 3, 3, 2, 2, {0, 0, 0, 0}, true),
      Pool(112, 40, 3, 3, 2, 2, {1, 1, 1, 1}, false),
      Pool(33, 20, 2, 2, 2, 2, {0, 0, 0, 0}, false),
      Pool(30, 9, 3, 3, 1, 1, {1, 1, 1, 1}, false),
      Pool(41, 12, 4, 3, 3, 2, {2, 1, 1, 1}, true),
  };
  std::set<std::string> names;
  for (const PoolingCase& pooling : cases) names.insert(pooling.Name());
  std::mt19937 generator(4321);
  const auto uniform = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(generator);
  };
  while (cases.size() < 40) {
    const int kernel_h = uniform(1, 5), kernel_w = uniform(1, 5);
    const PoolingCase pooling =
        Pool(uniform(1, 24), uniform(1, 24), kernel_h, kernel_w, uniform(1, 4), uniform(1, 4),
             {uniform(0, kernel_h / 2), uniform(0, kernel_h / 2), uniform(0, kernel_w / 2),
              uniform(0, kernel_w / 2)},
             uniform(0, 1) == 1);
    const PoolingPlane plane = pooling.Plane();
    if (plane.output_h < 1 || plane.output_w < 1) continue;  // the window does not fit
    if (names.insert(pooling.Name()).second) cases.push_back(pooling);
  }
  return cases;
}

// What the kernels computed for one input plane (`tiled` empty where MaxPoolTiled does not apply).
struct Results {
  std::vector<float> reference, separable, tiled;
};

// Runs MaxPoolReference, MaxPoolSeparable and MaxPoolTiled on `input`. Every output starts as NaN
// (as does the scratch), so that an element never written, or a scratch value read before it is
// written, shows up as a NaN the reference does not have.
Results RunAll(const PoolingCase& pooling, const std::vector<float>& input) {
  const PoolingPlane plane = pooling.Plane();
  const size_t outputs = static_cast<size_t>(plane.output_h) * plane.output_w;
  Results results{std::vector<float>(outputs, kNan), std::vector<float>(outputs, kNan), {}};
  std::vector<float> scratch(MaxPoolSeparableScratchSize(plane), kNan);
  MaxPoolReference(pooling.window, plane, input.data(), results.reference.data());
  MaxPoolSeparable(pooling.window, plane, input.data(), results.separable.data(), scratch.data());
  if (MaxPoolTiledApplies(pooling.window, plane)) {
    results.tiled.assign(outputs, kNan);
    std::vector<float> tiled_scratch(MaxPoolTiledScratchSize(pooling.window, plane), kNan);
    MaxPoolTiled(pooling.window, plane, input.data(), results.tiled.data(), tiled_scratch.data());
  }
  return results;
}

// Expects both fast kernels to equal the reference exactly.
void ExpectAllAgree(const Results& results) {
  ExpectAgree(results.separable, "MaxPoolSeparable", results.reference, "MaxPoolReference", 0.0f,
              0.0f);
  if (!results.tiled.empty()) {
    ExpectAgree(results.tiled, "MaxPoolTiled", results.reference, "MaxPoolReference", 0.0f, 0.0f);
  }
}

class MaxPoolingKernelsTest : public testing::TestWithParam<PoolingCase> {
 protected:
  // A generator seeded from the case's name: fixed, and different for every case.
  static std::mt19937 Generator() {
    const std::string name = GetParam().Name();
    std::seed_seq seed(name.begin(), name.end());
    return std::mt19937(seed);
  }
  // Random values in [low, high) for the case's input plane.
  static std::vector<float> RandomPlane(std::mt19937* generator, float low, float high) {
    return RandomValues(static_cast<size_t>(GetParam().input_h) * GetParam().input_w, generator,
                        low, high);
  }
};

TEST_P(MaxPoolingKernelsTest, SeparableAndTiledMatchReference) {
  std::mt19937 generator = Generator();
  ExpectAllAgree(RunAll(GetParam(), RandomPlane(&generator, -1.0f, 1.0f)));
}

// Padding never wins: with every input negative, a kernel that let a zero of the padding into
// the maximum would return 0 at the borders.
TEST_P(MaxPoolingKernelsTest, PaddingNeverWinsOverNegativeValues) {
  std::mt19937 generator = Generator();
  const Results results = RunAll(GetParam(), RandomPlane(&generator, -2.0f, -1.0f));
  ExpectAllAgree(results);
  for (size_t i = 0; i < results.reference.size(); ++i) {
    EXPECT_LE(results.reference[i], -1.0f) << "reference output " << i;
    EXPECT_LE(results.separable[i], -1.0f) << "separable output " << i;
    if (!results.tiled.empty()) {
      EXPECT_LE(results.tiled[i], -1.0f) << "tiled output " << i;
    }
  }
}

// PyTorch's max_pool2d returns NaN for a window holding a NaN, wherever in the window it is, and
// the header promises the same; about one input in ten is NaN here.
TEST_P(MaxPoolingKernelsTest, NanPropagatesLikeTheReference) {
  std::mt19937 generator = Generator();
  std::vector<float> input = RandomPlane(&generator, -1.0f, 1.0f);
  std::bernoulli_distribution is_nan(0.1);
  for (float& value : input) {
    if (is_nan(generator)) value = kNan;
  }
  ExpectAllAgree(RunAll(GetParam(), input));
}

// Infinities are ordinary values to a maximum, but the tiled kernel detects NaN by summing what it
// reads, and +infinity plus -infinity is NaN too, whether an infinity was read or the sum of huge
// values overflowed to one: such a channel is pooled again by the definition, and must still
// equal the reference.
TEST_P(MaxPoolingKernelsTest, InfinitiesAndHugeValuesMatchTheReference) {
  std::mt19937 generator = Generator();
  std::vector<float> input = RandomPlane(&generator, -1.0f, 1.0f);
  const float specials[] = {std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
  std::uniform_int_distribution<int> pick(0, 3);
  std::bernoulli_distribution is_special(0.2);
  for (float& value : input) {
    if (is_special(generator)) value = specials[pick(generator)];
  }
  ExpectAllAgree(RunAll(GetParam(), input));
}

INSTANTIATE_TEST_SUITE_P(MaxPoolingKernels, MaxPoolingKernelsTest, testing::ValuesIn(Cases()),
                         [](const testing::TestParamInfo<PoolingCase>& info) {
                           return info.param.Name();
                         });

// One NaN in a 5x5 plane under a 3x3 window with stride 1 and padding 1: exactly the outputs
// whose window covers it are NaN, in all three kernels, whether the NaN comes before or after
// larger values in the window (the values around it are larger than every other input).
TEST(MaxPoolingKernels, OneNanMakesExactlyTheWindowsAroundItNan) {
  const PoolingCase pooling = Pool(5, 5, 3, 3, 1, 1, {1, 1, 1, 1}, false);
  std::mt19937 generator(5);
  std::vector<float> input = RandomValues(25, &generator, -1.0f, 1.0f);
  const int nan_row = 1, nan_column = 2;
  for (int x = nan_column - 1; x <= nan_column + 1; ++x) {
    for (int y = nan_row - 1; y <= nan_row + 1; ++y) input[x * 5 + y] = 100.0f + x + y;
  }
  input[nan_column * 5 + nan_row] = kNan;
  const Results results = RunAll(pooling, input);
  ASSERT_FALSE(results.tiled.empty()) << "a 5-row output is tiled";
  for (int x = 0; x < 5; ++x) {
    for (int y = 0; y < 5; ++y) {
      const bool covers_nan = std::abs(x - nan_column) <= 1 && std::abs(y - nan_row) <= 1;
      EXPECT_EQ(std::isnan(results.reference[x * 5 + y]), covers_nan)
          << "reference " << y << "," << x;
      EXPECT_EQ(std::isnan(results.separable[x * 5 + y]), covers_nan)
          << "separable " << y << "," << x;
      EXPECT_EQ(std::isnan(results.tiled[x * 5 + y]), covers_nan) << "tiled " << y << "," << x;
    }
  }
}

// Issue 9: a window of 2^30 x 2^30 taps, padded by 2^29 on each side, over a 5x5 plane. PyTorch
// accepts it (the padding is half the kernel) and gives one output, the maximum of the plane. Both
// kernels visit only the taps inside the input, so this takes microseconds, not 2^60 steps.
TEST(HostileMaxPoolingWindow, CostsNoMoreThanTheInput) {
  constexpr int kHuge = 1 << 30;
  PoolingCase pooling =
      Pool(5, 5, kHuge, kHuge, kHuge, kHuge, {kHuge / 2, kHuge / 2, kHuge / 2, kHuge / 2}, false);
  ASSERT_EQ(pooling.Plane().output_h, 1);
  ASSERT_EQ(pooling.Plane().output_w, 1);
  std::mt19937 generator(9);
  std::vector<float> input = RandomValues(25, &generator, -1.0f, 1.0f);
  input[13] = 5.0f;
  const Results results = RunAll(pooling, input);
  EXPECT_EQ(results.reference, std::vector<float>{5.0f});
  EXPECT_EQ(results.separable, std::vector<float>{5.0f});
  // Dilated (the reference kernel's job): of 2^30 taps 4 apart, only taps 0 and 1 (rows and
  // columns 0 and 4) land in the plane. (The layer refuses this window at shape inference; the
  // kernel is called directly with a 1x1 output.)
  pooling.window.dilation_h = pooling.window.dilation_w = 4;
  pooling.window.pad_top = pooling.window.pad_left = 0;
  pooling.window.pad_bottom = pooling.window.pad_right = 0;
  const PoolingPlane plane{5, 5, 1, 1};
  float output = kNan;
  input[0] = 7.0f;
  MaxPoolReference(pooling.window, plane, input.data(), &output);
  EXPECT_EQ(output, 7.0f);
  // Stride 1: six outputs per column, enough for the tiled kernel, but 2^60 taps each, which it
  // would visit one by one: it must leave the window to the others.
  const PoolingCase wide =
      Pool(5, 5, kHuge, kHuge, 1, 1, {kHuge / 2, kHuge / 2, kHuge / 2, kHuge / 2}, false);
  ASSERT_GE(wide.Plane().output_h, kMaxPoolTiledMinRows);
  EXPECT_FALSE(MaxPoolTiledApplies(wide.window, wide.Plane()));
}

}  // namespace
}  // namespace lumen
