// Model and Session on small hand-written graphs: linking, topological order, shape inference at
// any input shape, memory sharing, extract, the memory budget, and the errors each reports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"
#include "support/error_of.hpp"
#include "support/kernel_testing.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

// A model built from the text of a param file (no weights).
std::shared_ptr<const Model> ModelFromText(const std::string& text, bool fuse = true) {
  Graph graph = ParsePnnxParam(text, "graph.param");
  ResolvePnnxInputsAndOutputs(&graph);
  RuntimeGraphOptions options;
  options.fuse = fuse;
  return ModelInternals::Wrap(std::make_unique<RuntimeGraph>(std::move(graph), options));
}

using test_support::ErrorOf;

std::string BuildError(const std::string& text) {
  return ErrorOf([&] { ModelFromText(text); });
}

// A tensor of `shape` holding -5, -4, -3, ... in row-major order.
Tensor Ramp(const Shape& shape) {
  std::vector<float> values(ShapeElementCount(shape));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 5.0f;
  return Tensor::FromRowMajor(values, shape);
}

std::vector<float> Relu(std::vector<float> values) {
  for (float& value : values) value = std::max(value, 0.0f);
  return values;
}

const char* kReluGraph =
    "7767517\n3 2\n"
    "pnnx.Input in 0 1 0 #0=(4,2,3)f32\n"
    "nn.ReLU relu 1 1 0 1 #0=(4,2,3)f32 #1=(4,2,3)f32\n"
    "pnnx.Output out 1 0 1 #1=(4,2,3)f32\n";

TEST(Session, RunsTheWholeBatchAsOneOperand) {
  Session session(ModelFromText(kReluGraph));
  const Tensor input = Ramp({4, 2, 3});
  const std::vector<Tensor> outputs = session.Run({input});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(outputs[0].ToRowMajor(), Relu(input.ToRowMajor()));
}

TEST(Session, RunsAScalarToAScalar) {
  // A rank-0 output was copied into an empty Tensor(), whose shape () matches a scalar's.
  Session session(ModelFromText(kReluGraph));
  for (float value : {-2.0f, 3.0f}) {
    const std::vector<Tensor> outputs = session.Run({Tensor::FromRowMajor({value}, {})});
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].shape(), Shape{});
    EXPECT_EQ(outputs[0].ToRowMajor(), Relu({value}));
  }
  std::vector<Tensor> reused(1);
  session.Run({Tensor::FromRowMajor({5.0f}, {})}, &reused);
  EXPECT_EQ(reused[0].ToRowMajor(), std::vector<float>{5.0f});
}

TEST(Session, AcceptsInputShapesOtherThanTheExportsAndReplans) {
  Session session(ModelFromText(kReluGraph));
  for (const Shape& shape : {Shape{4, 2, 3}, Shape{1, 7, 5}, Shape{3, 2, 3, 2}, Shape{4, 2, 3}}) {
    const Tensor input = Ramp(shape);
    const std::vector<Tensor> outputs = session.Run({input});
    EXPECT_EQ(outputs[0].shape(), shape);
    EXPECT_EQ(outputs[0].ToRowMajor(), Relu(input.ToRowMajor())) << ShapeToString(shape);
    EXPECT_EQ(session.input_shapes(), std::vector<Shape>{shape});
  }
}

TEST(Session, PlansAtTheExportShapesByDefault) {
  Session session(ModelFromText(kReluGraph));
  Tensor& input = session.input(0);
  EXPECT_EQ(input.shape(), (Shape{4, 2, 3}));
  input.Fill(-1.0f);
  session.Run();
  EXPECT_EQ(session.output(0).ToRowMajor(), std::vector<float>(24, 0.0f));
}

TEST(Session, NeedsShapesForAnInputTheFileLeavesOpen) {
  Session session(
      ModelFromText("7767517\n3 2\n"
                    "pnnx.Input in 0 1 0 #0=(?,3)f32\n"
                    "nn.ReLU relu 1 1 0 1\n"
                    "pnnx.Output out 1 0 1\n"));
  EXPECT_THAT(ErrorOf([&] { session.input(0); }), HasSubstr("input '0' has no fixed shape"));
  const std::vector<Tensor> outputs = session.Run({Ramp({5, 3})});
  EXPECT_EQ(outputs[0].ToRowMajor(), Relu(Ramp({5, 3}).ToRowMajor()));
}

TEST(Session, RefusesAWrongInputCountAndBadOptions) {
  Session session(ModelFromText(kReluGraph));
  EXPECT_EQ(ErrorOf([&] { session.Run(std::vector<Tensor>{}); }),
            "the model has 1 input(s) but 0 were given");
  EXPECT_THAT(ErrorOf([&] { session.output(3); }), HasSubstr("output"));
  SessionOptions options;
  options.threads = -2;
  EXPECT_THAT(ErrorOf([&] { Session bad(ModelFromText(kReluGraph), options); }),
              HasSubstr("thread count must be between 1 and 1024"));
}

TEST(Model, SortsOperatorsWrittenOutOfOrder) {
  const auto model = ModelFromText(
      "7767517\n4 3\n"
      "pnnx.Output out 1 0 2 #2=(1,3)f32\n"
      "nn.ReLU second 1 1 1 2 #1=(1,3)f32 #2=(1,3)f32\n"
      "nn.Sigmoid first 1 1 0 1 #0=(1,3)f32 #1=(1,3)f32\n"
      "pnnx.Input in 0 1 0 #0=(1,3)f32\n");
  std::vector<std::string> names;
  for (const auto& step : ModelInternals::Graph(*model).steps()) names.push_back(step.name);
  EXPECT_EQ(names, (std::vector<std::string>{"first", "second"}));
}

TEST(Model, ReportsACycle) {
  EXPECT_EQ(BuildError("7767517\n4 3\n"
                       "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
                       "nn.Sigmoid a 1 1 2 1 #1=(1,3)f32\n"
                       "nn.Tanh b 1 1 1 2 #2=(1,3)f32\n"
                       "pnnx.Output out 1 0 2\n"),
            "the graph has a cycle; these operators can never run:\n"
            "  nn.Sigmoid 'a' (line 4)\n  nn.Tanh 'b' (line 5)");
}

TEST(Model, ListsEveryUnsupportedOperatorAtOnce) {
  EXPECT_EQ(BuildError("7767517\n4 3\n"
                       "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
                       "nn.Frobnicate first 1 1 0 1 #1=(1,3)f32\n"
                       "torch.whatever second 1 1 1 2 #2=(1,3)f32\n"
                       "pnnx.Output out 1 0 2\n"),
            "the model uses operators Lumen does not implement:\n"
            "  nn.Frobnicate 'first' (line 4)\n  torch.whatever 'second' (line 5)");
}

TEST(Model, ListsEveryOperatorThatCannotBeBuilt) {
  EXPECT_EQ(BuildError("7767517\n4 3\n"
                       "pnnx.Input in 0 1 0 #0=(1,3,4,4)f32\n"
                       "nn.LeakyReLU leaky 1 1 0 1 negative_slope=x #1=(1,3,4,4)f32\n"
                       "nn.ELU elu 1 1 1 2 alpha=(1,2) #2=(1,3,4,4)f32\n"
                       "pnnx.Output out 1 0 2\n"),
            "cannot build some layers:\n"
            "  nn.LeakyReLU 'leaky': parameter 'negative_slope': expected a float, got string 'x'\n"
            "  nn.ELU 'elu': parameter 'alpha': expected a float, got int list '(1,2)'");
}

TEST(Model, RefusesAnOperandWithTwoProducersOrNone) {
  EXPECT_THAT(BuildError("7767517\n4 3\n"
                         "pnnx.Input in 0 1 0\n"
                         "nn.ReLU a 1 1 0 1\n"
                         "nn.ReLU b 1 1 0 1\n"
                         "pnnx.Output out 1 0 1\n"),
              HasSubstr("graph.param:5: operand '1' is already produced on line 4"));
  EXPECT_THAT(
      BuildError("7767517\n3 2\n"
                 "pnnx.Input in 0 1 0\n"
                 "nn.ReLU a 1 1 7 1\n"
                 "pnnx.Output out 1 0 1\n"),
      HasSubstr("graph.param:4: operator 'a' reads operand '7', which no operator produces"));
}

TEST(Session, SharesMemoryAndKeepsInputsForTheNextRun) {
  // A chain of ReLUs: the planner reuses memory, but the input must survive for Run again.
  std::string text = "7767517\n7 6\npnnx.Input in 0 1 0 #0=(1,64)f32\n";
  for (int i = 0; i < 5; ++i) {
    text += "nn.ReLU r" + std::to_string(i) + " 1 1 " + std::to_string(i) + " " +
            std::to_string(i + 1) + " #" + std::to_string(i + 1) + "=(1,64)f32\n";
  }
  text += "pnnx.Output out 1 0 5\n";
  Session session(ModelFromText(text));
  const std::vector<float> first = session.Run({Ramp({1, 64})})[0].ToRowMajor();
  EXPECT_LT(session.planned_activation_bytes(), session.separate_activation_bytes());
  session.Run();  // the inputs are still in place
  EXPECT_EQ(session.output(0).ToRowMajor(), first);
  EXPECT_EQ(first[0], 0.0f);
  EXPECT_EQ(first[63], 58.0f);
}

// in -> relu (1) and sigmoid (2), joined along the channels (3), then negated by ReLU's mirror:
// the concatenation's inputs are produced by steps, read once, so they are written in place.
const char* kConcatenationGraph =
    "7767517\n6 5\n"
    "pnnx.Input in 0 1 0 #0=(1,2,3,2)f32\n"
    "nn.ReLU r 1 1 0 1 #1=(1,2,3,2)f32\n"
    "nn.Sigmoid s 1 1 0 2 #2=(1,2,3,2)f32\n"
    "torch.cat cat 2 1 1 2 3 dim=1 #3=(1,4,3,2)f32\n"
    "nn.Tanh t 1 1 3 4 #4=(1,4,3,2)f32\n"
    "pnnx.Output out 1 0 4\n";

// tanh(cat(relu(x), sigmoid(x)) along dim) for a ramp x of `shape`, computed here.
std::vector<float> ExpectedConcatenation(const Shape& shape, size_t dim) {
  const std::vector<float> x = Ramp(shape).ToRowMajor();
  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= shape[d];
  for (size_t d = dim; d < shape.size(); ++d) inner *= shape[d];
  std::vector<float> expected;
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) expected.push_back(std::max(x[o * inner + i], 0.0f));
    for (size_t i = 0; i < inner; ++i) {
      expected.push_back(1.0f / (1.0f + std::exp(-x[o * inner + i])));
    }
  }
  for (float& value : expected) value = std::tanh(value);
  return expected;
}

TEST(Session, ConcatenationInputsAreWrittenInPlace) {
  Session session(ModelFromText(kConcatenationGraph));
  session.KeepAllOperands();
  const std::vector<float> got = session.Run({Ramp({1, 2, 3, 2})})[0].ToRowMajor();
  const std::vector<float> expected = ExpectedConcatenation({1, 2, 3, 2}, 1);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6f) << i;
  // relu's and sigmoid's outputs are the two halves of the concatenation's.
  const float* joined = session.operand("3").data();
  EXPECT_EQ(session.operand("1").data(), joined);
  EXPECT_EQ(session.operand("2").data(), joined + 12);
  // A second run on other values: nothing stale is left in place.
  const Tensor other = Tensor::FromRowMajor(std::vector<float>(12, 1.0f), {1, 2, 3, 2});
  const std::vector<float> ones = session.Run({other})[0].ToRowMajor();
  EXPECT_NEAR(ones[0], std::tanh(1.0f), 1e-6f);
  EXPECT_NEAR(ones[23], std::tanh(1.0f / (1.0f + std::exp(-1.0f))), 1e-6f);
}

TEST(Session, ConcatenationCopiesWhatCannotBeInPlace) {
  // Joined along dim 2 of (2, ...): the inputs interleave in the output, so they keep their own
  // memory and the step copies them.
  std::string text = kConcatenationGraph;
  text.replace(text.find("dim=1"), 5, "dim=2");
  for (const char* shape : {"(1,2,3,2)", "(1,4,3,2)"}) {
    for (size_t at = text.find(shape); at != std::string::npos; at = text.find(shape)) {
      text.replace(at, 9, shape[3] == '2' ? "(2,1,3,2)" : "(2,1,6,2)");
    }
  }
  Session session(ModelFromText(text));
  session.KeepAllOperands();
  const std::vector<float> got = session.Run({Ramp({2, 1, 3, 2})})[0].ToRowMajor();
  const std::vector<float> expected = ExpectedConcatenation({2, 1, 3, 2}, 2);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6f) << i;
  EXPECT_NE(session.operand("1").data(), session.operand("3").data());
  // The graph's input joined with itself: read twice, never moved.
  Session twice(
      ModelFromText("7767517\n3 2\n"
                    "pnnx.Input in 0 1 0 #0=(1,2,2)f32\n"
                    "torch.cat cat 2 1 0 0 1 dim=1 #1=(1,4,2)f32\n"
                    "pnnx.Output out 1 0 1\n"));
  const std::vector<float> doubled = twice.Run({Ramp({1, 2, 2})})[0].ToRowMajor();
  EXPECT_EQ(doubled, (std::vector<float>{-5, -4, -3, -2, -5, -4, -3, -2}));
}

// in -> sigmoid (1) -> tanh (2) -> relu (3, the output), and a side branch relu (4) of 1 that no
// output needs.
const char* kBranchGraph =
    "7767517\n6 5\n"
    "pnnx.Input in 0 1 0 #0=(2,3)f32\n"
    "nn.Sigmoid s 1 1 0 1 #1=(2,3)f32\n"
    "nn.Tanh t 1 1 1 2 #2=(2,3)f32\n"
    "nn.ReLU r 1 1 2 3 #3=(2,3)f32\n"
    "nn.ReLU side 1 1 1 4 #4=(2,3)f32\n"
    "pnnx.Output out 1 0 3\n";

TEST(Session, ExtractsAnIntermediateOperandAndKeepsIt) {
  Session session(ModelFromText(kBranchGraph));
  const Tensor input = Ramp({2, 3});
  session.Run({input});
  std::vector<float> expected = input.ToRowMajor();
  for (float& value : expected) value = 1.0f / (1.0f + std::exp(-value));
  const Tensor& sigmoid = session.Extract("1");
  ASSERT_EQ(sigmoid.shape(), (Shape{2, 3}));
  const std::vector<float> got = sigmoid.ToRowMajor();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6f) << i;
  // Kept out of memory reuse: still readable after another run.
  session.Run();
  EXPECT_EQ(session.operand("1").ToRowMajor(), got);
  // An operand no output needs is computed on demand.
  EXPECT_EQ(session.Extract("4").ToRowMajor(), got);
  EXPECT_EQ(ErrorOf([&] { session.Extract("nope"); }), "the model has no operand 'nope'");
}

TEST(Session, ExtractRunsOnlyTheOperatorsTheOperandNeeds) {
  Session session(ModelFromText(kBranchGraph));
  session.set_profiling(true);
  session.SetInputShapes({{2, 3}});
  session.input(0).Fill(0.0f);
  EXPECT_EQ(session.Extract("1").ToRowMajor(), std::vector<float>(6, 0.5f));
  // Only the sigmoid ran: the profile has a time for it alone.
  std::vector<std::string> ran;
  for (const OperatorProfile& profile : session.Profile()) {
    if (profile.milliseconds > 0) ran.push_back(profile.description);
  }
  EXPECT_LE(ran.size(), 1u);
  for (const std::string& description : ran) EXPECT_THAT(description, HasSubstr("nn.Sigmoid"));
}

TEST(Session, ExtractBeforeAnyInputIsRefusedNotZeros) {
  Session session(ModelFromText(kBranchGraph));
  EXPECT_THAT(ErrorOf([&] { session.Extract("1"); }), HasSubstr("no inputs were given yet"));
  session.SetInputShapes({{2, 3}});  // planned, but the inputs are still the plan's zeros
  EXPECT_THAT(ErrorOf([&] { session.Extract("1"); }), HasSubstr("no inputs were given yet"));
}

// The steps that ran in the last (profiled) run, by description.
std::vector<std::string> StepsThatRan(const Session& session) {
  std::vector<std::string> ran;
  for (const OperatorProfile& profile : session.Profile()) {
    if (profile.milliseconds > 0) ran.push_back(profile.description);
  }
  return ran;
}

TEST(Session, RunByOutputNamesReturnsThoseInOrderComputingOnlyWhatTheyNeed) {
  Session session(ModelFromText(kBranchGraph));
  session.set_profiling(true);
  const Tensor input = Ramp({2, 3});
  const std::vector<Tensor> full = session.Run({input});
  // The side branch alone: sigmoid and the side relu run, tanh and the output's relu do not.
  Session fresh(ModelFromText(kBranchGraph));
  fresh.set_profiling(true);
  const std::vector<Tensor> side = fresh.Run({input}, {"4"});
  ASSERT_EQ(side.size(), 1u);
  std::vector<float> sigmoid = input.ToRowMajor();
  for (float& value : sigmoid) value = 1.0f / (1.0f + std::exp(-value));
  const std::vector<float> got = side[0].ToRowMajor();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], sigmoid[i], 1e-6f) << i;
  for (const std::string& ran : StepsThatRan(fresh)) {
    EXPECT_THAT(ran, ::testing::AnyOf(HasSubstr("'s'"), HasSubstr("'side'"))) << ran;
  }
  // Several names, in the order asked; the graph output and an input by name too.
  const std::vector<Tensor> both = session.Run({input}, {"3", "1", "0"});
  ASSERT_EQ(both.size(), 3u);
  EXPECT_EQ(both[0].ToRowMajor(), full[0].ToRowMajor());
  EXPECT_EQ(both[1].ToRowMajor(), got);
  EXPECT_EQ(both[2].ToRowMajor(), input.ToRowMajor());
  EXPECT_EQ(ErrorOf([&] {
              session.Run({input}, {"3", "nope"});
            }),
            "the model has no operand 'nope'");
}

TEST(Model, DescribesItsInputsAndOutputs) {
  const auto model = ModelFromText(kBranchGraph);
  ASSERT_EQ(model->inputs().size(), 1u);
  const TensorInfo input = model->inputs()[0];
  EXPECT_EQ(input.name, "0");
  EXPECT_EQ(input.shape, (std::vector<int>{2, 3}));
  EXPECT_EQ(input.dim_names, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(input.declared_type, "float32");
  EXPECT_EQ(input.type, "float32");
  ASSERT_EQ(model->outputs().size(), 1u);
  EXPECT_EQ(model->outputs()[0].name, "3");
  EXPECT_EQ(model->outputs()[0].shape, (std::vector<int>{2, 3}));
}

TEST(Model, DescribesTheSymbolicExtentsOfAnOnnxFile) {
  // add exported with dynamic axes: in0, in1 (size0, 4, size1, size2) -> out0.
  const auto model =
      Model::Load(test_support::SourceDirectory() + "/tmp/onnx/add_dynamic_1x4x9x11/model.onnx");
  ASSERT_EQ(model->inputs().size(), 2u);
  const TensorInfo input = model->inputs()[1];
  EXPECT_EQ(input.name, "in1");
  EXPECT_EQ(input.shape, (std::vector<int>{-1, 4, -1, -1}));
  EXPECT_EQ(input.dim_names, (std::vector<std::string>{"size0", "", "size1", "size2"}));
  EXPECT_EQ(input.declared_type, "float32");
  ASSERT_EQ(model->outputs().size(), 1u);
  const TensorInfo output = model->outputs()[0];
  EXPECT_EQ(output.name, "out0");
  EXPECT_EQ(output.shape, (std::vector<int>{-1, 4, -1, -1}));
  EXPECT_EQ(output.dim_names[0], "out0_axis0");
  EXPECT_EQ(output.dim_names[1], "");
}

TEST(Model, SaysWhatTypeTheFileDeclaresAndWhatLumenReturns) {
  // TopK's indices are int64 in the file; Lumen returns them as float32, as every output.
  const auto model = Model::Load(test_support::SourceDirectory() + "/tmp/onnx/op_topk/model.onnx");
  ASSERT_EQ(model->outputs().size(), 2u);
  EXPECT_EQ(model->outputs()[0].declared_type, "float32");
  EXPECT_EQ(model->outputs()[1].declared_type, "int64");
  EXPECT_EQ(model->outputs()[1].type, "float32");
}

// The descriptions of the steps the current plan runs, in order.
std::vector<std::string> PlannedSteps(const Session& session) {
  std::vector<std::string> descriptions;
  for (const OperatorProfile& profile : session.Profile()) {
    descriptions.push_back(profile.description);
  }
  return descriptions;
}

// Four steps no output needs come first in the file (and in the steps' order), then an output
// computed at once (relu), then a chain of three steps to the second output. The plan leaves the
// four out, so a step's position in the plan is its index minus 4: lifetimes counted in step
// indices put the early output's life before the chain's and let the chain overwrite it.
const char* kStepsLeftOutBeforeAnEarlyOutput =
    "7767517\n11 9\n"
    "pnnx.Input in 0 1 0 #0=(2,3)f32\n"
    "nn.Sigmoid unused0 1 1 0 10 #10=(2,3)f32\n"
    "nn.Tanh unused1 1 1 10 11 #11=(2,3)f32\n"
    "nn.Sigmoid unused2 1 1 11 12 #12=(2,3)f32\n"
    "nn.Tanh unused3 1 1 12 13 #13=(2,3)f32\n"
    "nn.ReLU early 1 1 0 1 #1=(2,3)f32\n"
    "nn.Sigmoid s 1 1 0 2 #2=(2,3)f32\n"
    "nn.Tanh t 1 1 2 3 #3=(2,3)f32\n"
    "nn.ReLU r 1 1 3 4 #4=(2,3)f32\n"
    "pnnx.Output out0 1 0 1\n"
    "pnnx.Output out1 1 0 4\n";

TEST(Session, KeepsAnEarlyOutputAfterStepsThePlanLeavesOut) {
  Session session(ModelFromText(kStepsLeftOutBeforeAnEarlyOutput));
  session.SetInputShapes({{2, 3}});
  EXPECT_EQ(PlannedSteps(session),
            (std::vector<std::string>{"nn.ReLU 'early' (line 8)", "nn.Sigmoid 's' (line 9)",
                                      "nn.Tanh 't' (line 10)", "nn.ReLU 'r' (line 11)"}));
  const Tensor input = Ramp({2, 3});
  std::vector<float> chain = input.ToRowMajor();
  for (float& value : chain) value = std::max(std::tanh(1.0f / (1.0f + std::exp(-value))), 0.0f);
  const auto expect_outputs = [&](const Tensor& early, const Tensor& last) {
    EXPECT_EQ(early.ToRowMajor(), Relu(input.ToRowMajor())) << "the early output, relu(in)";
    test_support::ExpectClose(last.ToRowMajor(), chain, 1e-6f, 0.0f,
                              "the last output, relu(tanh(sigmoid(in)))");
  };
  const std::vector<Tensor> outputs = session.Run({input});
  expect_outputs(outputs[0], outputs[1]);
  session.Run();  // again, on the input the session kept
  SCOPED_TRACE("second run");
  expect_outputs(session.output(0), session.output(1));
}

// A split whose first half nobody reads: the step is needed for its second half. Left out of the
// plan, the ReLU would read an operand no step writes and no memory holds, so the plan is
// checked before anything runs.
TEST(Session, RunsAStepWhenAnyOfItsOutputsIsNeeded) {
  Session session(ModelFromText(
      "7767517\n4 4\n"
      "pnnx.Input in 0 1 0 #0=(1,5)f32\n"
      "torch.split split 1 2 0 1 2 dim=1 split_size_or_sections=(2,3) #1=(1,2)f32 #2=(1,3)f32\n"
      "nn.ReLU relu 1 1 2 3 #3=(1,3)f32\n"
      "pnnx.Output out 1 0 3\n"));
  session.SetInputShapes({{1, 5}});
  ASSERT_EQ(PlannedSteps(session),
            (std::vector<std::string>{"torch.split 'split' (line 4)", "nn.ReLU 'relu' (line 5)"}))
      << "the split must run: the ReLU reads its second output";
  const std::vector<Tensor> outputs =
      session.Run({Tensor::FromRowMajor({1, -2, -3, 4, -5}, {1, 5})});
  EXPECT_EQ(outputs[0].ToRowMajor(), (std::vector<float>{0, 4, 0}));
}

TEST(Session, KeepAllOperandsListsAndKeepsEveryOperand) {
  Session session(ModelFromText(kBranchGraph, /*fuse=*/false));
  session.KeepAllOperands();
  session.Run({Ramp({2, 3})});
  std::vector<std::string> names;
  for (const OperandReport& report : session.Operands()) {
    names.push_back(report.name);
    EXPECT_EQ(report.shape, (Shape{2, 3})) << report.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(session.operand("2").shape(), (Shape{2, 3}));
}

TEST(Session, RefusesAPlanAboveTheMemoryBudgetBeforeAllocating) {
  SessionOptions options;
  options.max_memory_bytes = 1 << 20;
  Session session(ModelFromText(kReluGraph), options);
  // 2 x 400 MB would be needed: refused with the sizes, nothing allocated.
  EXPECT_THAT(ErrorOf([&] {
                session.SetInputShapes({{1, 3, 10000, 10000}});
              }),
              HasSubstr("more than the memory budget of 1 MB"));
  EXPECT_THAT(ErrorOf([&] {
                session.SetInputShapes({{1, 4194304, 2097152, 2097152}});
              }),
              HasSubstr("overflow"));
  // A plan that fits still works afterwards.
  EXPECT_EQ(session.Run({Ramp({4, 2, 3})})[0].ToRowMajor(), Relu(Ramp({4, 2, 3}).ToRowMajor()));
}

TEST(Session, ManySessionsShareOneModel) {
  const auto model = ModelFromText(kReluGraph);
  Session first(model);
  Session second(model);
  const Tensor input = Ramp({4, 2, 3});
  const std::vector<float> a = first.Run({input})[0].ToRowMajor();
  const std::vector<float> b = second.Run({Ramp({1, 2, 3})})[0].ToRowMajor();
  EXPECT_EQ(a, Relu(input.ToRowMajor()));
  EXPECT_EQ(b.size(), 6u);
  EXPECT_EQ(first.input_shapes(), std::vector<Shape>{Shape({4, 2, 3})});
}

}  // namespace
}  // namespace lumen
