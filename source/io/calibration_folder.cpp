#include "io/calibration_folder.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "io/npy_file.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"

namespace lumen {

std::vector<std::vector<Tensor>> ReadCalibrationFolder(const std::string& folder,
                                                       const Shape& input_shape) {
  std::error_code error;
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator entry(folder, error), end; !error && entry != end;
       entry.increment(error)) {
    const std::string extension = entry->path().extension().string();
    if (entry->is_regular_file(error) && (extension == ".npy" || extension == ".f32")) {
      files.push_back(entry->path());
    }
  }
  if (error) throw Error(Concat(folder, ": cannot list the calibration folder: ", error.message()));
  if (files.empty()) {
    throw Error(Concat(folder, ": no calibration file (.npy or .f32, one input each) in it"));
  }
  std::sort(files.begin(), files.end());
  std::vector<std::vector<Tensor>> samples;
  for (const std::filesystem::path& file : files) {
    const std::string path = file.string();
    Tensor tensor =
        file.extension() == ".npy" ? ReadNpyFile(path) : ReadTensorFile(path, input_shape);
    if (tensor.shape() != input_shape) {
      throw Error(Concat(path, ": a calibration input of shape ", ShapeToString(tensor.shape()),
                         ", the model's input is ", ShapeToString(input_shape)));
    }
    samples.push_back({std::move(tensor)});
  }
  return samples;
}

}  // namespace lumen
