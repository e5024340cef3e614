// What the whole-model fuzz harnesses (PNNX and ONNX) do with a model once their reader has
// loaded it: plan a session within a small memory budget, fill the inputs, run.
#ifndef LUMEN_TEST_FUZZ_FUZZ_RUN_MODEL_HPP_
#define LUMEN_TEST_FUZZ_FUZZ_RUN_MODEL_HPP_

#include <cstddef>
#include <memory>

#include "lumen/model.hpp"
#include "lumen/session.hpp"

namespace lumen {
namespace fuzz {

// The most a session may plan: far above the small models of the seeds, far below the memory
// libFuzzer allows a process (-rss_limit_mb, 2 GB by default), so that the fuzzer finds bugs, not
// the machine's memory size.
constexpr size_t kMemoryBudget = size_t{64} << 20;

// Runs `model` once at its declared shapes on one thread with small, varied input values. Throws
// lumen::Error for what the model cannot do, which the harnesses count as a clean refusal.
inline void RunModel(const std::shared_ptr<const Model>& model) {
  SessionOptions options;
  options.threads = 1;
  options.max_memory_bytes = kMemoryBudget;
  Session session(model, options);
  for (size_t i = 0; i < model->input_names().size(); ++i) {
    Tensor& input = session.input(i);
    for (size_t j = 0; j < input.size(); ++j) input.data()[j] = static_cast<float>(j % 7) - 3;
  }
  session.Run();
}

}  // namespace fuzz
}  // namespace lumen

#endif  // LUMEN_TEST_FUZZ_FUZZ_RUN_MODEL_HPP_
