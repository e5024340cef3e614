// The packed GEMM against the three-loop ReferenceGemm, on shapes that are and are not multiples
// of the micro-kernel's tile, with every packing routine and on 1 and 2 threads.
//
// The shapes are written in terms of kPanelRows and kPanelColumns, which depend on the
// instruction set, so that "one row short of a full panel" stays true on every machine. Leading
// dimensions are a little larger than the matrices everywhere, so that a routine mixing up a
// leading dimension with a size reads the wrong numbers and fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "math/micro_kernel.hpp"
#include "math/packed_gemm.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::RandomValues;
using test_support::TestContext;

// The packed GEMM adds the same k products as the reference in another order (in slices of the
// shared dimension, with fused multiply-adds). B is scaled so that C is of order 1 whatever k;
// then reordering moves a result by about 1e-6, and 1e-4 is a wide margin that a wrong element
// (off by order 0.1) cannot hide in.
constexpr float kTolerance = 1e-4f;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// C = A * B with A m x k and B k x n.
struct GemmShape {
  int m, n, k;
};

// Shows a shape as its test name in gtest's messages.
void PrintTo(const GemmShape& shape, std::ostream* stream) {
  *stream << "m" << shape.m << "_n" << shape.n << "_k" << shape.k;
}

// Handpicked edges (one short of a panel, exactly a panel, one more; one and several 256-deep
// slices of the shared dimension; more rows than PackedGemm packs at a time; the micro-kernel's
// narrower widths), then random shapes.
std::vector<GemmShape> Shapes() {
  std::vector<GemmShape> shapes = {
      {1, 1, 1},
      {kPanelRows - 1, kPanelColumns - 1, 7},
      {kPanelRows, kPanelColumns, 256},
      {kPanelRows + 1, kPanelColumns + 1, 257},
      {3 * kPanelRows + 5, 2 * kPanelColumns + 3, 300},
      {2, 5 * kPanelColumns, 600},
      {20 * kPanelRows + 7, 3, 40},
      // Enough row panels that each of the 8 tasks PackedGemm makes on 2 threads still packs
      // its rows in several blocks.
      {80 * kPanelRows + 3, 2, 5},
      // Last column panels that the micro-kernel's narrower widths (4 and 8 columns, where
      // panels are wider) compute: exactly 4 and 8 columns, one fewer, one more; full tiles and
      // edge tiles, one slice and two.
      {2 * kPanelRows, 2 * kPanelColumns + 4, 64},
      {2 * kPanelRows + 9, 4 * kPanelColumns + 8, 300},
      {kPanelRows, 3, 17},
      {kPanelRows + 3, kPanelColumns + 7, 260},
      {kPanelRows, 8, 9},
      {5, 9, 33},
      {kPanelRows - 2, 5, 520},
      // Last row panels of one vector plus 1 to kMostExtraRows rows (a 7x7 map's 49 pixels), or
      // of 1 to kMostExtraRows rows (a 14x14 map's 196), which MicroKernelWithExtraRows computes:
      // every count of extra rows, full and narrow widths, one slice and several.
      {kPanelRows + kPanelRows / 2 + 1, 2 * kPanelColumns, 300},
      {kPanelRows / 2 + 2, kPanelColumns - 1, 40},
      {kPanelRows / 2 + kMostExtraRows - 1, 3, 9},
      {2 * kPanelRows + kPanelRows / 2 + kMostExtraRows, kPanelColumns + 5, 530},
      {6 * kPanelRows + kMostExtraRows, 3 * kPanelColumns, 290},
      {kPanelRows + 1, kPanelColumns + 2, 20},
      {kMostExtraRows, 2, 300},
  };
  std::mt19937 generator(1234);
  std::uniform_int_distribution<int> rows(1, 200), columns(1, 40), depth(1, 700);
  for (int i = 0; i < 8; ++i) {
    shapes.push_back({rows(generator), columns(generator), depth(generator)});
  }
  return shapes;
}

class PackedGemmTest : public testing::TestWithParam<GemmShape> {
 protected:
  // Random A (m x k, leading dimension lda) and B (k x n, ldb), and their product by ReferenceGemm.
  void SetUp() override {
    const GemmShape shape = GetParam();
    m_ = shape.m;
    n_ = shape.n;
    k_ = shape.k;
    lda_ = m_ + 3;
    ldb_ = k_ + 2;
    ldc_ = m_ + 5;
    std::mt19937 generator(static_cast<unsigned>(m_) * 1000003u + n_ * 1009u + k_);
    a_ = RandomValues(static_cast<size_t>(lda_) * k_, &generator);
    const float bound = 1.0f / std::sqrt(static_cast<float>(k_));
    b_ = RandomValues(static_cast<size_t>(ldb_) * n_, &generator, -bound, bound);
    expected_.resize(static_cast<size_t>(m_) * n_);
    ReferenceGemm(m_, n_, k_, a_.data(), lda_, b_.data(), ldb_, expected_.data(), m_);
  }

  // A C of leading dimension ldc_, all NaN, so that elements nobody writes can be recognised.
  std::vector<float> UnwrittenC() const {
    return std::vector<float>(static_cast<size_t>(ldc_) * n_, kNan);
  }

  // The m x n matrix inside `c` (leading dimension ldc_), made contiguous.
  std::vector<float> Product(const std::vector<float>& c) const {
    std::vector<float> product;
    for (int j = 0; j < n_; ++j) {
      product.insert(product.end(), c.begin() + static_cast<size_t>(j) * ldc_,
                     c.begin() + static_cast<size_t>(j) * ldc_ + m_);
    }
    return product;
  }

  // EXPECTs the rows of `c` past m (the gap the leading dimension leaves) to be still unwritten.
  void ExpectGapUnwritten(const std::vector<float>& c) const {
    for (int j = 0; j < n_; ++j) {
      for (int i = m_; i < ldc_; ++i) {
        ASSERT_TRUE(std::isnan(c[static_cast<size_t>(j) * ldc_ + i]))
            << "row " << i << " col " << j;
      }
    }
  }

  // A packed into row panels by PackRows.
  std::vector<float> PackedA() const {
    std::vector<float> packed(PackedRowsSize(m_, k_), kNan);
    PackRows(a_.data(), lda_, m_, k_, packed.data());
    return packed;
  }

  int m_ = 0, n_ = 0, k_ = 0;
  int lda_ = 0, ldb_ = 0, ldc_ = 0;
  std::vector<float> a_, b_;
  std::vector<float> expected_;  // m x n, leading dimension m
};

TEST_P(PackedGemmTest, GemmPackedMatchesReference) {
  const std::vector<float> packed_a = PackedA();
  const PackedMatrix b(b_.data(), k_, n_, ldb_);
  std::vector<float> c = UnwrittenC();
  GemmPacked(m_, packed_a.data(), b, c.data(), ldc_);
  ExpectClose(Product(c), expected_, kTolerance, kTolerance, "GemmPacked");
  ExpectGapUnwritten(c);
}

// Convolutions hand different column panels of one product to different tasks: each call must
// write exactly the columns of its panels and leave every other column alone.
TEST_P(PackedGemmTest, GemmPackedComputesOnlyItsPanels) {
  const std::vector<float> packed_a = PackedA();
  const PackedMatrix b(b_.data(), k_, n_, ldb_);
  const int panels = b.panels();
  ASSERT_EQ(panels, (n_ + kPanelColumns - 1) / kPanelColumns);
  const std::vector<std::pair<int, int>> ranges = {
      {0, 1}, {panels - 1, panels}, {panels / 2, panels}, {1, panels}, {0, panels / 2}};
  for (const auto& [first_panel, end_panel] : ranges) {
    if (first_panel >= end_panel) continue;
    SCOPED_TRACE("panels [" + std::to_string(first_panel) + ", " + std::to_string(end_panel) + ")");
    std::vector<float> c = UnwrittenC();
    GemmPacked(m_, packed_a.data(), b, c.data(), ldc_, first_panel, end_panel);
    const std::vector<float> product = Product(c);
    const int first_column = first_panel * kPanelColumns;
    const int end_column = std::min(n_, end_panel * kPanelColumns);
    const auto column = [&](const std::vector<float>& matrix, int j) {
      return std::vector<float>(matrix.begin() + static_cast<size_t>(j) * m_,
                                matrix.begin() + static_cast<size_t>(j + 1) * m_);
    };
    for (int j = 0; j < n_; ++j) {
      if (j >= first_column && j < end_column) {
        ExpectClose(column(product, j), column(expected_, j), kTolerance, kTolerance,
                    "column " + std::to_string(j));
      } else {
        for (float value : column(product, j)) ASSERT_TRUE(std::isnan(value)) << "column " << j;
      }
    }
    ExpectGapUnwritten(c);
  }
}

// PackTransposed must give the same panels as the constructor, even when the object held a
// larger matrix before (it reuses its memory), on 1 and 2 threads (it copies in parallel).
TEST_P(PackedGemmTest, PackTransposedEqualsPackedMatrix) {
  const int ldbt = n_ + 2;
  std::vector<float> bt(static_cast<size_t>(ldbt) * k_, kNan);  // n x k: column p is row p of B
  for (int p = 0; p < k_; ++p) {
    for (int j = 0; j < n_; ++j) {
      bt[static_cast<size_t>(p) * ldbt + j] = b_[static_cast<size_t>(j) * ldb_ + p];
    }
  }
  const PackedMatrix constructed(b_.data(), k_, n_, ldb_);
  const size_t panel_floats = static_cast<size_t>(k_) * kPanelColumns;
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    TestContext context(threads);
    PackedMatrix b;
    std::mt19937 generator(99);
    const std::vector<float> larger =
        RandomValues(static_cast<size_t>(k_ + 3) * (n_ + 9), &generator);
    b.PackTransposed(larger.data(), k_ + 3, n_ + 9, n_ + 9, context.compute());
    b.PackTransposed(bt.data(), k_, n_, ldbt, context.compute());
    ASSERT_EQ(b.rows(), k_);
    ASSERT_EQ(b.cols(), n_);
    ASSERT_EQ(b.panels(), constructed.panels());
    for (int panel = 0; panel < b.panels(); ++panel) {
      EXPECT_TRUE(
          std::equal(b.panel(panel), b.panel(panel) + panel_floats, constructed.panel(panel)))
          << "panel " << panel;
    }
    const std::vector<float> packed_a = PackedA();
    std::vector<float> c = UnwrittenC();
    GemmPacked(m_, packed_a.data(), b, c.data(), ldc_);
    ExpectClose(Product(c), expected_, kTolerance, kTolerance, "GemmPacked of PackTransposed");
  }
}

// The epilogue finishes the tiles in registers: C = clamp(A * B + bias), after every slice of the
// shared dimension has been added, through GemmPacked (whole panels and a middle range of them)
// and PackedGemm; NaN in the bias passes through both clamps.
TEST_P(PackedGemmTest, EpilogueAddsTheBiasAndClampsOnce) {
  std::mt19937 generator(5);
  std::vector<float> bias = RandomValues(static_cast<size_t>(n_), &generator);
  for (float& value : bias) value *= 4.0f;  // pushes some sums below 0 and past 6
  if (n_ > 1) bias[1] = kNan;
  const std::vector<float> packed_a = PackedA();
  const PackedMatrix b(b_.data(), k_, n_, ldb_);
  for (LaneClamp clamp : {LaneClamp::kNone, LaneClamp::kRelu, LaneClamp::kRelu6}) {
    SCOPED_TRACE("clamp " + std::to_string(static_cast<int>(clamp)));
    std::vector<float> expected = expected_;
    for (int j = 0; j < n_; ++j) {
      for (int i = 0; i < m_; ++i) {
        float& value = expected[static_cast<size_t>(j) * m_ + i];
        value += bias[j];
        if (std::isnan(value)) continue;
        if (clamp != LaneClamp::kNone) value = std::max(value, 0.0f);
        if (clamp == LaneClamp::kRelu6) value = std::min(value, 6.0f);
      }
    }
    GemmEpilogue epilogue;
    epilogue.bias = bias.data();
    epilogue.clamp = clamp;
    std::vector<float> c = UnwrittenC();
    GemmPacked(m_, packed_a.data(), b, c.data(), ldc_, 0, -1, epilogue);
    ExpectClose(Product(c), expected, kTolerance, kTolerance, "GemmPacked with an epilogue");
    ExpectGapUnwritten(c);
    TestContext context(2);
    c = UnwrittenC();
    PackedGemm(m_, a_.data(), lda_, b, c.data(), ldc_, context.compute(), epilogue);
    ExpectClose(Product(c), expected, kTolerance, kTolerance, "PackedGemm with an epilogue");
    if (b.panels() > 2) {  // a middle range of panels reads the bias of its own columns
      c = UnwrittenC();
      GemmPacked(m_, packed_a.data(), b, c.data(), ldc_, 1, 2, epilogue);
      const std::vector<float> product = Product(c);
      for (int j = kPanelColumns; j < 2 * kPanelColumns; ++j) {
        for (int i = 0; i < m_; ++i) {
          const size_t at = static_cast<size_t>(j) * m_ + i;
          ASSERT_NEAR(product[at], expected[at], kTolerance) << "row " << i << " col " << j;
        }
      }
    }
  }
}

// PackedGemm packs A itself and spreads the work over the threads.
TEST_P(PackedGemmTest, PackedGemmMatchesReferenceOn1And2Threads) {
  const PackedMatrix b(b_.data(), k_, n_, ldb_);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    TestContext context(threads);
    std::vector<float> c = UnwrittenC();
    PackedGemm(m_, a_.data(), lda_, b, c.data(), ldc_, context.compute());
    ExpectClose(Product(c), expected_, kTolerance, kTolerance, "PackedGemm");
    ExpectGapUnwritten(c);
  }
}

INSTANTIATE_TEST_SUITE_P(PackedGemm, PackedGemmTest, testing::ValuesIn(Shapes()),
                         [](const testing::TestParamInfo<GemmShape>& info) {
                           return "m" + std::to_string(info.param.m) + "_n" +
                                  std::to_string(info.param.n) + "_k" +
                                  std::to_string(info.param.k);
                         });

}  // namespace
}  // namespace lumen
