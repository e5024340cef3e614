// Raw float32 files: the format of the corpus's in*.f32 / out*.f32 and of lumen_run's outputs.
#ifndef LUMEN_IO_RAW_FILE_HPP_
#define LUMEN_IO_RAW_FILE_HPP_

#include <string>
#include <vector>

#include "lumen/tensor/tensor.hpp"

namespace lumen {

// Reads a file of raw little-endian float32 values; throws lumen::Error if it cannot, or if
// `expected_count` is not 0 and the file holds a different number of values.
std::vector<float> ReadFloatFile(const std::string& path, size_t expected_count = 0);

// Writes raw little-endian float32 values; throws lumen::Error if it cannot.
void WriteFloatFile(const std::string& path, const std::vector<float>& values);

// Reads a row-major (N, ...) float32 file of full shape `full_shape` as a batch of tensors.
TensorBatch ReadBatchFile(const std::string& path, const Shape& full_shape);

// Writes a batch as one row-major float32 file.
void WriteBatchFile(const std::string& path, const TensorBatch& batch);

}  // namespace lumen

#endif  // LUMEN_IO_RAW_FILE_HPP_
