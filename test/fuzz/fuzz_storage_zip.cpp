// libFuzzer harness: the .pnnx.bin storage-zip reader. Any input must list and read its members
// or throw lumen::Error (scripts/fuzz.sh runs it).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input_files.hpp"
#include "lumen/error.hpp"
#include "pnnx/storage_zip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path =
      lumen::fuzz::WriteFuzzFile("storage.zip", reinterpret_cast<const char*>(data), size);
  try {
    lumen::StorageZip zip(path);
    std::vector<char> bytes;
    for (const std::string& name : zip.MemberNames()) {
      if (zip.MemberSize(name) > size) __builtin_trap();  // a member larger than the file
      zip.Read(name, &bytes);
    }
  } catch (const lumen::Error&) {
    // Bad input, reported as it should be.
  }
  return 0;
}
