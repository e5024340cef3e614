// F.nll_loss and F.cross_entropy against PyTorch: every reduction, a weight per class,
// ignore_index (negative too), rank 2 and rank 3 inputs, the log_prob output; shape errors and
// targets that are no class.
//
// The expected numbers were printed by /usr/bin/python3 (torch) with:
//   x = torch.tensor([0.1,-0.5,1.2,0.7,-1.0,0.3,2.0,-0.2,0.4,0.9,-0.8,0.05]).reshape(2,3,2)
//   t = torch.tensor([[0,1],[2,1]]); w = torch.tensor([0.5,2.0,1.5])
//   F.nll_loss(x, t, weight=w, ignore_index=1, reduction=r)   for r in none, sum, mean
//   F.nll_loss(x, t)
//   x2 = torch.tensor([1.0,2.0,0.5,-1.0, 0.0,0.3,-0.7,2.2, 1.5,-0.4,0.8,0.1]).reshape(3,4)
//   t2 = torch.tensor([3,-1,0])
//   F.cross_entropy(x2, t2, ignore_index=-1); F.log_softmax(x2, 1)
//   F.cross_entropy(x2, t2, weight=torch.tensor([1.,2.,3.,4.]), ignore_index=-1, reduction='sum')
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using test_support::RunLayerError;
using ::testing::HasSubstr;

// The operands, made when a test asks (not at program start: in course lesson 02's tree, where
// the tensor is the student's to write, a tensor built before main would end the program).
Tensor Scores() {
  return Tensor::FromRowMajor(
      {0.1f, -0.5f, 1.2f, 0.7f, -1.0f, 0.3f, 2.0f, -0.2f, 0.4f, 0.9f, -0.8f, 0.05f}, {2, 3, 2});
}
Tensor Targets() { return Tensor::FromRowMajor(std::vector<float>{0, 1, 2, 1}, {2, 2}); }
Tensor Weights() { return Tensor::FromRowMajor(std::vector<float>{0.5f, 2.0f, 1.5f}, {3}); }

void ExpectNear(const std::vector<float>& got, const std::vector<float>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6f) << "at " << i;
}

TEST(NllLoss, EveryReductionWithWeightAndIgnoreIndex) {
  const Node none = MakeOperator("F.nll_loss", {"reduction=none", "ignore_index=1"}, {}, 3);
  EXPECT_EQ(InferShapes(none, {{2, 3, 2}, {2, 2}, {3}}), (std::vector<Shape>{{2, 2}}));
  ExpectNear(RunLayer(none, {Scores(), Targets(), Weights()})[0].ToRowMajor(),
             {-0.05f, 0.0f, 1.2000000476837158f, 0.0f});
  const Node sum = MakeOperator("F.nll_loss", {"reduction=sum", "ignore_index=1"}, {}, 3);
  EXPECT_EQ(InferShapes(sum, {{2, 3, 2}, {2, 2}, {3}}), (std::vector<Shape>{Shape{}}));
  ExpectNear(RunLayer(sum, {Scores(), Targets(), Weights()})[0].ToRowMajor(),
             {1.1500000953674316f});
  const Node mean = MakeOperator("F.nll_loss", {"reduction=mean", "ignore_index=1"}, {}, 3);
  ExpectNear(RunLayer(mean, {Scores(), Targets(), Weights()})[0].ToRowMajor(),
             {0.5750000476837158f});
}

TEST(NllLoss, MeanWithoutWeight) {
  const Node mean = MakeOperator("F.nll_loss", {}, {}, 2);
  ExpectNear(RunLayer(mean, {Scores(), Targets()})[0].ToRowMajor(), {-0.22499999403953552f});
}

TEST(CrossEntropy, NegativeIgnoreIndexAndLogProb) {
  const Tensor scores = Tensor::FromRowMajor(
      {1.0f, 2.0f, 0.5f, -1.0f, 0.0f, 0.3f, -0.7f, 2.2f, 1.5f, -0.4f, 0.8f, 0.1f}, {3, 4});
  const Tensor targets = Tensor::FromRowMajor({3, -1, 0}, {3});
  const Node op = MakeOperator("F.cross_entropy", {"ignore_index=-1"}, {}, 2, 2);
  EXPECT_EQ(InferShapes(op, {{3, 4}, {3}}), (std::vector<Shape>{Shape{}, {3, 4}}));
  const std::vector<Tensor> outputs = RunLayer(op, {scores, targets});
  ExpectNear(outputs[0].ToRowMajor(), {2.0666065216064453f});
  ExpectNear(
      outputs[1].ToRowMajor(),
      {-1.495181918144226f, -0.4951818883419037f, -1.995181918144226f, -3.4951817989349365f,
       -2.4741370677948f, -2.1741371154785156f, -3.1741371154785156f, -0.2741369903087616f,
       -0.6380312442779541f, -2.5380311012268066f, -1.33803129196167f, -2.0380311012268066f});
  const Node weighted =
      MakeOperator("F.cross_entropy", {"ignore_index=-1", "reduction=sum"}, {}, 3);
  const Tensor weights = Tensor::FromRowMajor({1, 2, 3, 4}, {4});
  ExpectNear(RunLayer(weighted, {scores, targets, weights})[0].ToRowMajor(), {14.618758201599121f});
}

TEST(NllLoss, RefusesMismatchedShapesAndTargetsThatAreNoClass) {
  const Node op = MakeOperator("F.nll_loss", {}, {}, 3);
  EXPECT_THAT(LayerError(op, {{2, 3, 2}, {2, 3}, {3}}),
              HasSubstr("the target must have the input's shape without its class dimension"));
  EXPECT_THAT(LayerError(op, {{2, 3, 2}, {2, 2}, {4}}),
              HasSubstr("the weight must have one value per class, (3)"));
  EXPECT_THAT(LayerError(MakeOperator("F.nll_loss", {"reduction=avg"}, {}, 2), {{2, 3}, {2}}),
              HasSubstr("reduction must be none, sum or mean"));
  const Tensor bad_targets = Tensor::FromRowMajor({0, 3, 2, 1}, {2, 2});
  EXPECT_THAT(RunLayerError(MakeOperator("F.nll_loss", {}, {}, 2), {Scores(), bad_targets}),
              HasSubstr("target 3 is not a class in [0, 3)"));
}

}  // namespace
}  // namespace lumen
