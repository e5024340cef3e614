// Raw float32 files: the format of the corpus's in*.f32 / out*.f32 and of lumen_run's outputs.
#ifndef LUMEN_IO_RAW_FILE_HPP_
#define LUMEN_IO_RAW_FILE_HPP_

#include <string>
#include <vector>

#include "lumen/tensor.hpp"

namespace lumen {

// Reads a file of raw little-endian float32 values; throws lumen::Error if it cannot, or if
// `expected_count` is not 0 and the file holds a different number of values.
std::vector<float> ReadFloatFile(const std::string& path, size_t expected_count = 0);

// Writes raw little-endian float32 values; throws lumen::Error if it cannot.
void WriteFloatFile(const std::string& path, const std::vector<float>& values);

// Reads a row-major float32 file as a tensor of `shape`; throws lumen::Error if the file does not
// hold exactly that many values.
Tensor ReadTensorFile(const std::string& path, const Shape& shape);

// Writes a tensor as one row-major float32 file.
void WriteTensorFile(const std::string& path, const Tensor& tensor);

}  // namespace lumen

#endif  // LUMEN_IO_RAW_FILE_HPP_
