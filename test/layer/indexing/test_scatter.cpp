// torch.scatter and torch.scatter_reduce by hand, with PyTorch's results for every reduction with
// and without include_self, and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lumen/error.hpp"
#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::Arange;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RowMajorOutput;
using test_support::RunLayer;
using ::testing::HasSubstr;

// x = arange(6).reshape(2, 3), index = [[1,0,1],[1,1,0]], src = [[10,20,30],[40,50,60]] along
// dim 0: positions (1,0) and (1,1) receive two values each.
class ScatterTest : public ::testing::Test {
 protected:
  std::vector<float> Scatter(const std::string& type, const std::vector<std::string>& params) {
    return RowMajorOutput(type, params, {x_, index_, source_});
  }
  const Tensor x_ = Arange({2, 3});
  const Tensor index_ = Tensor::FromRowMajor({1, 0, 1, 1, 1, 0}, {2, 3});
  const Tensor source_ = Tensor::FromRowMajor({10, 20, 30, 40, 50, 60}, {2, 3});
};

TEST_F(ScatterTest, ReplacesAsPyTorch) {
  // The later of two values for one position wins (PyTorch's CPU order).
  EXPECT_EQ(Scatter("torch.scatter", {"dim=0"}), std::vector<float>({0, 20, 60, 40, 50, 30}));
  EXPECT_EQ(RowMajorOutput("torch.scatter", {"dim=0", "value=7"}, {x_, index_}),
            std::vector<float>({0, 7, 7, 7, 7, 7}));
  EXPECT_EQ(Scatter("torch.scatter", {"dim=0", "reduce=multiply"}),
            std::vector<float>({0, 20, 120, 1200, 200, 150}));
  // A negative index counts from the end (ONNX's ScatterElements allows it).
  EXPECT_EQ(RowMajorOutput(
                "torch.scatter", {"dim=1"},
                {x_, Tensor::FromRowMajor({-1, 0}, {2, 1}), Tensor::FromRowMajor({8, 9}, {2, 1})}),
            std::vector<float>({0, 1, 8, 9, 4, 5}));
}

TEST_F(ScatterTest, ReducesAsPyTorch) {
  const std::vector<std::pair<std::string, std::vector<float>>> with_self = {
      {"sum", {0, 21, 62, 53, 54, 35}},
      {"prod", {0, 20, 120, 1200, 200, 150}},
      {"mean", {0, 10.5f, 31, 53 / 3.0f, 27, 17.5f}},
      {"amax", {0, 20, 60, 40, 50, 30}},
      {"amin", {0, 1, 2, 3, 4, 5}}};
  for (const auto& expected : with_self) {
    EXPECT_EQ(Scatter("torch.scatter_reduce", {"dim=0", "reduce=" + expected.first}),
              expected.second)
        << expected.first;
  }
  const std::vector<std::pair<std::string, std::vector<float>>> without_self = {
      {"sum", {0, 20, 60, 50, 50, 30}},
      {"prod", {0, 20, 60, 400, 50, 30}},
      {"mean", {0, 20, 60, 25, 50, 30}},
      {"amax", {0, 20, 60, 40, 50, 30}},
      {"amin", {0, 20, 60, 10, 50, 30}}};
  for (const auto& expected : without_self) {
    EXPECT_EQ(Scatter("torch.scatter_reduce",
                      {"dim=0", "reduce=" + expected.first, "include_self=False"}),
              expected.second)
        << expected.first;
  }
}

TEST_F(ScatterTest, RefusesBadArguments) {
  EXPECT_THAT(LayerError(MakeOperator("torch.scatter_reduce", {"dim=0", "reduce=add"}, {}, 3),
                         {{2, 3}, {2, 3}, {2, 3}}),
              HasSubstr("reduce must be 'sum', 'prod', 'mean', 'amax' or 'amin', got 'add'"));
  EXPECT_THAT(LayerError(MakeOperator("torch.scatter", {"dim=0", "reduce=sum"}, {}, 3),
                         {{2, 3}, {2, 3}, {2, 3}}),
              HasSubstr("reduce must be 'add' or 'multiply'"));
  EXPECT_THAT(LayerError(MakeOperator("torch.scatter", {"dim=0"}, {}, 3), {{2, 3}, {2, 4}, {2, 4}}),
              HasSubstr("must be no larger than src"));
  EXPECT_THAT(LayerError(MakeOperator("torch.scatter", {"dim=0"}, {}, 3), {{2, 3}, {2}, {2, 3}}),
              HasSubstr("must have the same rank"));
  try {
    RunLayer(MakeOperator("torch.scatter", {"dim=1"}, {}, 3),
             {x_, Tensor::FromRowMajor({3, 0}, {2, 1}), Tensor::FromRowMajor({8, 9}, {2, 1})});
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("index 3 is out of bounds for dim 1 of extent 3"));
  }
}

}  // namespace
}  // namespace lumen
