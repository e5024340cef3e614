// AddBiasAndActivate, a convolution's last step on each output channel where its kernel does not
// finish it in registers: ReLU and ReLU6 against the definitions PyTorch uses, bit for bit, NaN
// and -0.0 included (as the kernels' in-register clamps, math/simd.hpp, give them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "math/activation.hpp"

namespace lumen {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfinity = std::numeric_limits<float>::infinity();

// The bits of a float: equal bits are equal values, NaN and the sign of zero included.
uint32_t BitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// max(x, 0) keeping NaN and -0.0, as torch.relu does; min(that, 6) for ReLU6 (torch.clamp).
float Relu(float x) { return std::isnan(x) ? x : (x < 0.0f ? 0.0f : x); }
float Relu6(float x) {
  const float positive = Relu(x);
  return std::isnan(positive) ? positive : (positive > 6.0f ? 6.0f : positive);
}

// Every length from 0 to 19 (whole vectors, tails, both), values around both bounds.
TEST(AddBiasAndActivate, ClampsLikeReluAndRelu6WithNanAndSignedZeros) {
  const std::vector<float> pattern = {-0.0f, 0.0f,  -1.5f,     2.5f,       6.0f,   6.5f,    kNan,
                                      -kNan, 5.99f, kInfinity, -kInfinity, 1e-40f, -1e-40f, 3.0f,
                                      -7.0f, 0.25f, 100.0f,    -0.5f,      5.5f};
  for (Activation::Kind kind : {Activation::Kind::kRelu, Activation::Kind::kRelu6}) {
    Activation activation;
    activation.kind = kind;
    for (float bias : {0.0f, 0.5f, -0.0f}) {
      for (size_t count = 0; count <= pattern.size(); ++count) {
        std::vector<float> values(pattern.begin(), pattern.begin() + count);
        AddBiasAndActivate(activation, bias, values.data(), values.size());
        for (size_t i = 0; i < count; ++i) {
          const float sum = pattern[i] + bias;
          const float expected = kind == Activation::Kind::kRelu ? Relu(sum) : Relu6(sum);
          ASSERT_EQ(std::isnan(values[i]), std::isnan(expected)) << "element " << i;
          if (!std::isnan(expected)) {
            ASSERT_EQ(BitsOf(values[i]), BitsOf(expected))
                << "element " << i << ": " << pattern[i] << " + " << bias << " gave " << values[i]
                << ", expected " << expected;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace lumen
