// Calibration folders, as lumen_quantize reads them: one file per sample of a one-input model,
// `.npy` (float32, the input's shape) or `.f32` (raw row-major float32 at the input's shape).
#ifndef LUMEN_IO_CALIBRATION_FOLDER_HPP_
#define LUMEN_IO_CALIBRATION_FOLDER_HPP_

#include <string>
#include <vector>

#include "lumen/tensor.hpp"

namespace lumen {

// Reads every `.npy` and `.f32` file of `folder`, in name order, as one sample each (a list of one
// input, as lumen::Quantize takes them); `.f32` files are read at `input_shape`. Other files are
// skipped. Throws lumen::Error naming the folder when it cannot be listed or holds no such file,
// and naming the file when one cannot be read or does not hold `input_shape`.
std::vector<std::vector<Tensor>> ReadCalibrationFolder(const std::string& folder,
                                                       const Shape& input_shape);

}  // namespace lumen

#endif  // LUMEN_IO_CALIBRATION_FOLDER_HPP_
