// libFuzzer harness: the .pnnx.param text reader. Any input must give a Graph or a lumen::Error,
// never a crash, a sanitizer report or a hang (scripts/fuzz.sh runs it).
#include <cstddef>
#include <cstdint>
#include <string>

#include "lumen/error.hpp"
#include "pnnx/param_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    lumen::ParsePnnxParam(text, "fuzz.pnnx.param");
  } catch (const lumen::Error&) {
    // Bad input, reported as it should be.
  }
  return 0;
}
