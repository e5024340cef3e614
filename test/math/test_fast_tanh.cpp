// FastTanh against its reference, the double-precision tanh: the Tanh activation (its layer, a
// convolution's fused epilogue, pnnx.Expression's tanh) trusts it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "math/fast_tanh.hpp"

namespace lumen {
namespace {

// The distance in representable floats between two finite floats of the same sign.
int64_t UlpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, sizeof(ia));
  std::memcpy(&ib, &b, sizeof(ib));
  return std::abs(static_cast<int64_t>(ia) - static_cast<int64_t>(ib));
}

TEST(FastTanh, StaysWithinOneUlpOfTanhOverADenseSweep) {
  // One float in 64 from 1e-30 to 50 (14 million of them, both signs), read off their bits so
  // that every binade is as dense: the polynomial near 0, the seam at 0.625, the exp formula and
  // the approach to 1.
  int64_t worst_ulp = 0;
  double worst_relative = 0;
  float worst_x = 0;
  const float start = 1e-30f;
  int32_t first, last;
  const float end = 50.0f;
  std::memcpy(&first, &start, sizeof(first));
  std::memcpy(&last, &end, sizeof(last));
  for (int32_t bits = first; bits < last; bits += 64) {
    float x;
    std::memcpy(&x, &bits, sizeof(x));
    for (const float signed_x : {x, -x}) {
      const double exact = std::tanh(static_cast<double>(signed_x));
      const float fast = FastTanh(signed_x);
      const int64_t ulp = UlpDistance(fast, static_cast<float>(exact));
      const double relative = std::abs(fast - exact) / std::abs(exact);
      if (ulp > worst_ulp) {
        worst_ulp = ulp;
        worst_x = signed_x;
      }
      worst_relative = std::max(worst_relative, relative);
    }
  }
  EXPECT_LE(worst_ulp, 1) << "worst at x = " << worst_x;
  EXPECT_LT(worst_relative, 2e-7);
}

TEST(FastTanh, KeepsTheSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(FastTanh(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(FastTanh(-0.0f)));
  EXPECT_EQ(FastTanh(inf), 1.0f);
  EXPECT_EQ(FastTanh(-inf), -1.0f);
  EXPECT_EQ(FastTanh(100.0f), 1.0f);
  EXPECT_EQ(FastTanh(-1e30f), -1.0f);
  EXPECT_TRUE(std::isnan(FastTanh(std::numeric_limits<float>::quiet_NaN())));
  // Subnormal inputs: tanh(x) is x itself there.
  const float tiny = std::numeric_limits<float>::denorm_min() * 5;
  EXPECT_EQ(FastTanh(tiny), tiny);
}

}  // namespace
}  // namespace lumen
