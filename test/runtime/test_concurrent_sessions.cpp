// One model, many sessions at once: 4 sessions, each in its own thread, 50 runs each, must give
// bit for bit what one session gives alone. Layers are shared and read-only; everything a run
// writes belongs to its session (run this test under ThreadSanitizer: scripts/sanitize.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

void ExpectConcurrentRunsIdentical(const std::string& case_name, int sessions, int runs,
                                   int threads_per_session) {
  const GoldenCase golden =
      ReadGoldenCase(lumen::test_support::SourceDirectory() + "/tmp/models/" + case_name);
  ModelOptions model_options;
  model_options.weights_path = golden.bin_path;
  const std::shared_ptr<const Model> model = Model::Load(golden.param_path, model_options);
  std::vector<Tensor> inputs;
  for (const auto& input : golden.inputs) inputs.push_back(ReadTensorFile(input.path, input.shape));
  SessionOptions options;
  options.threads = threads_per_session;
  const std::vector<Tensor> expected = Session(model, options).Run(inputs);

  std::vector<int> mismatches(sessions, 0);
  std::vector<std::thread> threads;
  for (int s = 0; s < sessions; ++s) {
    threads.emplace_back([&, s] {
      Session session(model, options);  // made in the thread that uses it
      std::vector<Tensor> outputs;
      for (int run = 0; run < runs; ++run) {
        session.Run(inputs, &outputs);
        for (size_t i = 0; i < outputs.size(); ++i) {
          if (outputs[i].shape() != expected[i].shape() ||
              !std::equal(outputs[i].data(), outputs[i].data() + outputs[i].size(),
                          expected[i].data())) {
            ++mismatches[s];
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int s = 0; s < sessions; ++s) EXPECT_EQ(mismatches[s], 0) << "session " << s;
}

TEST(ConcurrentSessions, ResNet18FourSessionsFiftyRunsEach) {
  ExpectConcurrentRunsIdentical("resnet18", 4, 50, 1);
}

TEST(ConcurrentSessions, ResidualBlockBatch4TwoThreadsPerSession) {
  ExpectConcurrentRunsIdentical("resblock_b4", 4, 50, 2);
}

}  // namespace
}  // namespace lumen
