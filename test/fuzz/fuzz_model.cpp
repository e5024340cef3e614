// libFuzzer harness: a whole model, from its files to a run. The input is the param text, a NUL
// byte, then the bin bytes (seeds: tmp/models/*/ and test/data/layers/*/ joined that way). The
// model is loaded, a session plans it at its export shapes within a small memory budget (so the
// fuzzer finds bugs, not the machine's memory size), fills the inputs and runs. Anything but a
// lumen::Error is a finding (scripts/fuzz.sh runs it).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_input_files.hpp"
#include "fuzz_run_model.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  const void* separator = std::memchr(bytes, '\0', size);
  const size_t param_size = separator != nullptr
                                ? static_cast<size_t>(static_cast<const char*>(separator) - bytes)
                                : size;
  const size_t bin_start = separator != nullptr ? param_size + 1 : size;
  const std::string param = lumen::fuzz::WriteFuzzFile("model.pnnx.param", bytes, param_size);
  const std::string bin =
      lumen::fuzz::WriteFuzzFile("model.pnnx.bin", bytes + bin_start, size - bin_start);
  try {
    lumen::ModelOptions model_options;
    model_options.weights_path = bin;
    lumen::fuzz::RunModel(lumen::Model::Load(param, model_options));
  } catch (const lumen::Error&) {
    // Bad input, reported as it should be.
  }
  return 0;
}
