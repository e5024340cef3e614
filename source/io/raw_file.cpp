#include "io/raw_file.hpp"

#include <sys/stat.h>

#include <fstream>
#include <new>

#include "lumen/error.hpp"

namespace lumen {

std::vector<float> ReadFloatFile(const std::string& path, size_t expected_count) {
  // A directory opens as a stream on Linux, and its "size" is whatever the file system says.
  struct stat info {};
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw Error(Concat(path, ": is a directory, not a float32 file"));
  }
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw Error(Concat(path, ": cannot open"));
  const std::streamsize bytes = file.tellg();
  if (bytes < 0) throw Error(Concat(path, ": cannot tell its size"));
  if (bytes % static_cast<std::streamsize>(sizeof(float)) != 0) {
    throw Error(Concat(path, ": size ", bytes, " bytes is not a whole number of float32 values"));
  }
  const size_t count = static_cast<size_t>(bytes) / sizeof(float);
  if (expected_count != 0 && count != expected_count) {
    throw Error(
        Concat(path, ": expected ", expected_count, " float32 values, the file holds ", count));
  }
  std::vector<float> values;
  try {
    values.resize(count);
  } catch (const std::bad_alloc&) {
    throw Error(Concat(path, ": cannot allocate ", bytes, " bytes to read it"));
  }
  file.seekg(0);
  file.read(reinterpret_cast<char*>(values.data()), bytes);
  if (!file) throw Error(Concat(path, ": read error"));
  return values;
}

void WriteFloatFile(const std::string& path, const std::vector<float>& values) {
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(float)));
  if (!file) throw Error(Concat(path, ": cannot write"));
}

Tensor ReadTensorFile(const std::string& path, const Shape& shape) {
  size_t count = 0;
  try {
    count = ShapeElementCount(shape);
  } catch (const Error& error) {
    throw Error(Concat(path, ": ", error.what()));
  }
  const std::vector<float> values = ReadFloatFile(path, count);
  try {
    return Tensor::FromRowMajor(values, shape);
  } catch (const std::bad_alloc&) {
    throw Error(Concat(path, ": cannot allocate ", count * sizeof(float),
                       " bytes for a tensor of shape ", ShapeToString(shape)));
  }
}

void WriteTensorFile(const std::string& path, const Tensor& tensor) {
  WriteFloatFile(path, tensor.ToRowMajor());
}

}  // namespace lumen
