// One model's attention, recurrent and product layers serve several sessions at once, each at its
// own input shapes: the layers are const and keep every per-run buffer in the session, so
// concurrent runs must give exactly what each session gives alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "support/kernel_testing.hpp"
#include "support/run_on_threads.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using test_support::RandomValues;

// Runs the corpus model `name` in two sessions (2 threads each) on two threads at once, at two
// sets of input shapes, `runs` times, and EXPECTs every output to equal that session's first run
// bit for bit.
void ExpectConcurrentSessionsAgree(const std::string& name,
                                   const std::vector<std::vector<Shape>>& shapes, int runs) {
  const std::shared_ptr<const Model> model = Model::Load(
      lumen::test_support::SourceDirectory() + "/tmp/models/" + name + "/model.pnnx.param");
  std::mt19937 generator(5);
  std::vector<std::vector<Tensor>> inputs(shapes.size());
  for (size_t session = 0; session < shapes.size(); ++session) {
    for (const Shape& shape : shapes[session]) {
      inputs[session].push_back(
          Tensor::FromRowMajor(RandomValues(ShapeElementCount(shape), &generator), shape));
    }
  }
  std::vector<std::vector<Tensor>> first(shapes.size());
  std::vector<int> mismatches(shapes.size(), 0);
  test_support::RunOnThreads(static_cast<int>(shapes.size()), [&](int index) {
    SessionOptions options;
    options.threads = 2;
    Session session(model, options);
    first[index] = session.Run(inputs[index]);
    std::vector<Tensor> outputs;
    for (int run = 0; run < runs; ++run) {
      session.Run(inputs[index], &outputs);
      for (size_t output = 0; output < outputs.size(); ++output) {
        if (outputs[output].ToRowMajor() != first[index][output].ToRowMajor()) {
          ++mismatches[index];
        }
      }
    }
  });
  for (size_t index = 0; index < shapes.size(); ++index) {
    EXPECT_EQ(mismatches[index], 0) << name << " session " << index;
    // A run alone in a fresh session gives the same numbers.
    Session alone(model);
    const std::vector<Tensor> reference = alone.Run(inputs[index]);
    ASSERT_EQ(reference.size(), first[index].size());
    for (size_t output = 0; output < reference.size(); ++output) {
      ASSERT_EQ(reference[output].shape(), first[index][output].shape());
      const std::vector<float> got = first[index][output].ToRowMajor();
      const std::vector<float> expected = reference[output].ToRowMajor();
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], expected[i], 1e-5f) << name << " output " << output << " at " << i;
      }
    }
  }
}

TEST(SequenceLayersConcurrent, AttentionWithWeightsAtTwoShapes) {
  ExpectConcurrentSessionsAgree("mha_need_weights_b2", {{{2, 7, 32}}, {{3, 40, 32}}}, 20);
}

TEST(SequenceLayersConcurrent, LstmAtTwoShapes) {
  ExpectConcurrentSessionsAgree("lstm_2l_bidir_bf", {{{1, 8, 16}}, {{4, 30, 16}}}, 20);
}

TEST(SequenceLayersConcurrent, MatMulAtTwoShapes) {
  ExpectConcurrentSessionsAgree("matmul_broadcast",
                                {{{2, 1, 5, 7}, {3, 7, 4}}, {{4, 3, 50, 70}, {3, 70, 40}}}, 20);
}

}  // namespace
}  // namespace lumen
