// What both image demos do before a run: read the image, find the model's input
// size, and turn OpenCV's 8-bit BGR pixels into the (1, 3, H, W) RGB tensor
// PyTorch models are exported for.
#ifndef LUMEN_DEMOS_COMMON_IMAGE_INPUT_HPP_
#define LUMEN_DEMOS_COMMON_IMAGE_INPUT_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/tensor.hpp"

namespace lumen {
namespace demo {

// The image at `path` as 8-bit BGR (OpenCV's order); throws lumen::Error when
// it cannot be read.
inline cv::Mat ReadImage(const std::string &path) {
  // OpenCV logs its own warning ("imread_(...): can't open/read file") before
  // returning an empty image: check the file first, and keep OpenCV quiet, so
  // that Lumen's one message is all the user sees.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(Concat(path, ": is a directory, not an image"));
  }
  if (!std::ifstream(path, std::ios::binary)) {
    throw Error(Concat(path, ": cannot open the image (no such file, or not readable)"));
  }
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
  cv::Mat image = cv::imread(path, cv::IMREAD_COLOR);
  if (image.empty()) {
    throw Error(Concat(path, ": cannot read the image (not a format OpenCV decodes)"));
  }
  return image;
}

// An input size in pixels.
struct ImageSize {
  int width = 0;
  int height = 0;
};

// The size to feed `model`, whose first input must be (N,3,H,W): `size` x
// `size` when `size` is positive (--size), else the size the model was exported
// at.
inline ImageSize ModelInputSize(const Model &model, int size) {
  const std::vector<int> export_shape = model.export_input_shapes().at(0);
  if (export_shape.size() != 4 || export_shape[1] != 3) {
    throw Error("expected a model with an (N,3,H,W) input");
  }
  const ImageSize input{size > 0 ? size : export_shape[3], size > 0 ? size : export_shape[2]};
  if (input.height < 1 || input.width < 1) {
    throw Error("the model does not say its input size: give --size");
  }
  return input;
}

// An 8-bit BGR image as a (1, 3, rows, cols) RGB tensor whose channel c holds
// (value / 255 - mean[c]) / standard_deviation[c]; the defaults keep value /
// 255.
inline Tensor ImageToTensor(const cv::Mat &bgr, const std::array<float, 3> &mean = {0, 0, 0},
                            const std::array<float, 3> &standard_deviation = {1, 1, 1}) {
  const int height = bgr.rows;
  const int width = bgr.cols;
  std::vector<float> chw(3 * static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    const cv::Vec3b *row = bgr.ptr<cv::Vec3b>(y);
    for (int x = 0; x < width; ++x) {
      for (int channel = 0; channel < 3; ++channel) {  // OpenCV is BGR, the model wants RGB
        const float value = row[x][2 - channel] / 255.0f;
        chw[(static_cast<size_t>(channel) * height + y) * width + x] =
            (value - mean[channel]) / standard_deviation[channel];
      }
    }
  }
  return Tensor::FromRowMajor(chw.data(),
                              {1, 3, static_cast<uint32_t>(height), static_cast<uint32_t>(width)});
}

}  // namespace demo
}  // namespace lumen

#endif  // LUMEN_DEMOS_COMMON_IMAGE_INPUT_HPP_
