// lumen_run's parts without its command line: latency statistics, --shape, the made-up inputs
// and the JSON text --json prints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../../demos/run/json_text.hpp"
#include "../../demos/run/model_inputs.hpp"
#include "../../demos/run/timing_report.hpp"
#include "lumen/error.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"
#include "support/error_of.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

using test_support::ErrorOf;

// Two inputs: '0' (an image) with open extents, '1' (a scale) fully declared; pnnx names the
// operands by number.
std::shared_ptr<const Model> TwoInputModel() {
  Graph graph = ParsePnnxParam(
      "7767517\n5 4\n"
      "pnnx.Input image 0 1 0 #0=(?,3,?,?)f32\n"
      "pnnx.Input scale 0 1 1 #1=(1,3,1,1)f32\n"
      "pnnx.Expression mul 2 1 0 1 2 expr=mul(@0,@1)\n"
      "nn.ReLU relu 1 1 2 3\n"
      "pnnx.Output out 1 0 3\n",
      "graph.param");
  ResolvePnnxInputsAndOutputs(&graph);
  return ModelInternals::Wrap(std::make_unique<RuntimeGraph>(std::move(graph)));
}

TEST(LatencyStatisticsTest, MinMedianNearestRankP90Max) {
  const run::LatencyStatistics ten = run::StatisticsOf({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_EQ(ten.runs, 10);
  EXPECT_DOUBLE_EQ(ten.min, 1);
  EXPECT_DOUBLE_EQ(ten.median, 5.5);
  EXPECT_DOUBLE_EQ(ten.p90, 9);  // 9 of the 10 runs took 9 ms or less
  EXPECT_DOUBLE_EQ(ten.max, 10);
  EXPECT_DOUBLE_EQ(ten.mean, 5.5);
  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  EXPECT_DOUBLE_EQ(run::StatisticsOf(twenty).p90, 18);
  EXPECT_DOUBLE_EQ(run::StatisticsOf(twenty).median, 10.5);
  const run::LatencyStatistics one = run::StatisticsOf({4.0});
  EXPECT_DOUBLE_EQ(one.p90, 4.0);
  EXPECT_DOUBLE_EQ(one.median, 4.0);
  EXPECT_THROW(run::StatisticsOf({}), Error);
}

TEST(LatencyStatisticsTest, TextStartsAsBenchShReadsIt) {
  const run::LatencyStatistics latency = run::StatisticsOf({2, 1, 3});
  const std::string text = run::LatencyText(latency, 2);
  EXPECT_EQ(text.rfind("median 2.000 ms, min 1.000 ms, p90 3.000 ms, max 3.000 ms (3 runs", 0), 0u)
      << text;
  EXPECT_THAT(text, HasSubstr("BLAS: "));
}

TEST(ShapeOptionsTest, ParsesNamesAndRefusesMalformedOnes) {
  const auto shapes = run::ParseShapeOptions({"image:1,3,224,224", "input:0:2,5"});
  EXPECT_EQ(shapes.at("image"), (Shape{1, 3, 224, 224}));
  EXPECT_EQ(shapes.at("input:0"), (Shape{2, 5}));  // a name with a colon: the last one splits
  EXPECT_THAT(ErrorOf([] { run::ParseShapeOptions({"1,3,224,224"}); }), HasSubstr("NAME:SHAPE"));
  EXPECT_THAT(ErrorOf([] { run::ParseShapeOptions({":1,3"}); }), HasSubstr("NAME:SHAPE"));
  EXPECT_THAT(ErrorOf([] { run::ParseShapeOptions({"x:1,-3"}); }), HasSubstr("bad shape"));
  EXPECT_THAT(ErrorOf([] { run::ParseShapeOptions({"x:1", "x:2"}); }), HasSubstr("twice"));
}

TEST(ShapeOptionsTest, OpenExtentsNeedAShapeAndTheErrorSaysWhichToWrite) {
  const auto model = TwoInputModel();
  EXPECT_THAT(ErrorOf([&] { run::ResolveInputShapes(*model, {}); }),
              HasSubstr("input '0' has shape (?,3,?,?) in the model file: give every extent "
                        "with --shape 0:1,3,1,1"));
  const std::vector<Shape> shapes = run::ResolveInputShapes(*model, {{"0", {2, 3, 8, 8}}});
  EXPECT_EQ(shapes, (std::vector<Shape>{{2, 3, 8, 8}, {1, 3, 1, 1}}));
  // A --shape overrides a declared shape too.
  EXPECT_EQ(run::ResolveInputShapes(*model, {{"0", {1, 3, 2, 2}}, {"1", {1, 3, 2, 2}}})[1],
            (Shape{1, 3, 2, 2}));
  EXPECT_THAT(ErrorOf([&] {
                run::ResolveInputShapes(*model, {{"images", {1, 3, 2, 2}}});
              }),
              HasSubstr("the model's inputs are '0', '1'"));
}

TEST(MadeUpInputsTest, SameValuesEveryTimeInZeroToOne) {
  const Tensor first = run::RandomTensor({2, 3, 5}, 7);
  const Tensor again = run::RandomTensor({2, 3, 5}, 7);
  const Tensor other = run::RandomTensor({2, 3, 5}, 8);
  EXPECT_EQ(first.ToRowMajor(), again.ToRowMajor());
  EXPECT_NE(first.ToRowMajor(), other.ToRowMajor());
  const std::vector<float> values = first.ToRowMajor();
  EXPECT_GE(*std::min_element(values.begin(), values.end()), 0.0f);
  EXPECT_LT(*std::max_element(values.begin(), values.end()), 1.0f);
  EXPECT_NE(values[0], values[1]);
}

TEST(MadeUpInputsTest, InputsAboveTheBudgetAreRefusedBeforeAllocation) {
  EXPECT_THAT(ErrorOf([] {
                run::CheckInputFitsBudget("input 'x'", {1024, 1024}, 1024);
              }),
              HasSubstr("input 'x': an input of shape (1024,1024) needs 4 MB"));
  EXPECT_THAT(ErrorOf([] {
                run::CheckInputFitsBudget("x", {4294967295u, 4294967295u, 4}, 1);
              }),
              HasSubstr("x: "));
  EXPECT_EQ(ErrorOf([] { run::CheckInputFitsBudget("x", {16}, 64); }), "");
}

TEST(JsonTextTest, EscapesStringsAndWritesNestedValues) {
  EXPECT_EQ(run::JsonString("a\"b\\c\nd"), "\"a\\\"b\\\\c\\u000ad\"");
  EXPECT_EQ(run::JsonNumber(1.5), "1.5");
  EXPECT_EQ(run::JsonNumber(std::nan("")), "null");
  EXPECT_EQ(run::JsonShape(std::vector<int>{-1, 3}), "[-1, 3]");
  EXPECT_EQ(run::JsonObject().Add("a", "1").Add("b", run::JsonArray({"true", "null"})).Text(),
            "{\"a\": 1, \"b\": [true, null]}");
}

}  // namespace
}  // namespace lumen
