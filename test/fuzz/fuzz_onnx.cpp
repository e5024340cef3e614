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
#include "fuzz_run_model.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // This process's folder for the model file, made on the first input.
  static const int folder_made = mkdir(lumen::fuzz::FuzzFilePath("onnx").c_str(), 0700);
  (void)folder_made;
  const std::string path =
      lumen::fuzz::WriteFuzzFile("onnx/model.onnx", reinterpret_cast<const char*>(data), size);
  try {
    lumen::fuzz::RunModel(lumen::Model::Load(path));
  } catch (const lumen::Error&) {
    // Bad input, reported as it should be.
  }
  return 0;
}
