// MatrixVector (the fast kernel) against MatrixVectorReference (plain loops) on random shapes:
// row counts around its 4-row blocks, lengths around its 16-float steps, and a row stride wider
// than the rows (a group's slice of a larger weight).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "math/matrix_vector.hpp"

namespace lumen {
namespace {

TEST(MatrixVector, MatchesTheReferenceOnRandomShapes) {
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (const int count : {1, 3, 4, 5, 8, 13, 1000}) {
    for (const int n : {1, 7, 15, 16, 17, 33, 1280}) {
      const size_t row_stride = static_cast<size_t>(n) + (count % 3);
      std::vector<float> rows(count * row_stride);
      std::vector<float> x(n);
      for (float& value : rows) value = uniform(generator);
      for (float& value : x) value = uniform(generator);
      std::vector<float> fast(count, NAN);
      std::vector<float> reference(count, NAN);
      MatrixVector(rows.data(), row_stride, count, x.data(), n, fast.data());
      MatrixVectorReference(rows.data(), row_stride, count, x.data(), n, reference.data());
      for (int r = 0; r < count; ++r) {
        // The two sum in different orders: allow float rounding over n terms of size <= 1.
        ASSERT_NEAR(fast[r], reference[r], 1e-6f * n + 1e-6f)
            << "row " << r << " of " << count << ", length " << n;
      }
    }
  }
}

TEST(MatrixVector, ReadsOnlyEachRowsFirstNFloats) {
  // Row stride 5, length 3: the two floats between rows are NaN and must not reach the result.
  const std::vector<float> rows = {1, 2, 3, NAN, NAN, 4, 5, 6, NAN, NAN};
  const std::vector<float> x = {1, 10, 100};
  std::vector<float> y(2);
  MatrixVector(rows.data(), 5, 2, x.data(), 3, y.data());
  EXPECT_FLOAT_EQ(y[0], 321.0f);
  EXPECT_FLOAT_EQ(y[1], 654.0f);
}

}  // namespace
}  // namespace lumen
