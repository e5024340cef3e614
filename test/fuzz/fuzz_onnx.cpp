// libFuzzer harness: an ONNX model, from its bytes to a run. The input is the .onnx file (seeds:
// test/data/onnx/*/model.onnx, the hostile files and the small tmp/onnx exports). It is written as
// model.onnx into a folder of this process's own, so that external-data paths resolve against a
// folder holding nothing else; the model is loaded, a session plans it at its declared shapes
// within a small memory budget, fills the inputs and runs. Anything but a lumen::Error is a
// finding (scripts/fuzz.sh runs it).
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input_files.hpp"
#include "lumen/base/error.hpp"
#include "lumen/runtime/model.hpp"
#include "lumen/runtime/session.hpp"

namespace {

// The most a session may plan: far above the small models of the seeds, far below the memory
// libFuzzer allows a process (-rss_limit_mb, 2 GB by default).
constexpr size_t kMemoryBudget = size_t{64} << 20;

// This process's folder for the model file, made once.
const std::string& ModelFolder() {
  static const std::string folder = [] {
    std::string path = lumen::fuzz::FuzzFilePath("onnx");
    mkdir(path.c_str(), 0700);
    return path;
  }();
  return folder;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ModelFolder() + "/model.onnx";
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) std::abort();  // the harness's own failure, not the input's
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
  try {
    const std::shared_ptr<const lumen::Model> model = lumen::Model::Load(path);
    lumen::SessionOptions options;
    options.threads = 1;
    options.max_memory_bytes = kMemoryBudget;
    lumen::Session session(model, options);
    for (size_t i = 0; i < model->input_names().size(); ++i) {
      lumen::Tensor& input = session.input(i);
      for (size_t j = 0; j < input.size(); ++j) input.data()[j] = static_cast<float>(j % 7) - 3;
    }
    session.Run();
  } catch (const lumen::Error&) {
    // Bad input, reported as it should be.
  }
  return 0;
}
