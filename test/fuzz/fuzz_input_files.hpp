// Files for the fuzz harnesses: Lumen's readers take paths, so each input is written to a file of
// the fuzzing process's own (in /dev/shm when there is one, to keep the disk out of the loop).
#ifndef LUMEN_TEST_FUZZ_FUZZ_INPUT_FILES_HPP_
#define LUMEN_TEST_FUZZ_FUZZ_INPUT_FILES_HPP_

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace lumen {
namespace fuzz {

// A path for this process's file called `name`.
inline std::string FuzzFilePath(const std::string& name) {
  static const std::string directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return directory + "/lumen_fuzz_" + std::to_string(getpid()) + "_" + name;
}

// Writes `size` bytes to this process's file `name` and returns its path.
inline std::string WriteFuzzFile(const std::string& name, const char* bytes, size_t size) {
  const std::string path = FuzzFilePath(name);
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) std::abort();  // the harness's own failure, not the input's
  if (size > 0 && std::fwrite(bytes, 1, size, file) != size) std::abort();
  std::fclose(file);
  return path;
}

}  // namespace fuzz
}  // namespace lumen

#endif  // LUMEN_TEST_FUZZ_FUZZ_INPUT_FILES_HPP_
