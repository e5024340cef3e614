// lumen_resnet: classify an image with an ImageNet classifier exported by pnnx (ResNet18 by
// default) and print the five most likely classes.
//
//   lumen_resnet [--image PATH] [--param P --bin B] [--labels FILE] [--top K] [--threads T]
//
// Pre-processing follows torchvision's ImageNet recipe: resize the shorter side to 256/224 of the
// model's input size, crop the centre to the input size, scale to [0,1] RGB and normalise each
// channel with ImageNet's mean and standard deviation. The model outputs logits; softmax turns
// them into probabilities.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "common/demo_support.hpp"
#include "lumen/base/error.hpp"
#include "lumen/base/threads.hpp"
#include "lumen/runtime/runtime_graph.hpp"

namespace {

using lumen::Concat;
using lumen::Error;
using lumen::demo::ParseCount;
using lumen::demo::ReadLines;

const std::string kDemoDirectory = std::string(LUMEN_SOURCE_DIR) + "/demos/resnet";
const std::string kModelDirectory = std::string(LUMEN_SOURCE_DIR) + "/tmp/models/resnet18";

// torchvision's ImageNet normalisation, in RGB order.
constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStandardDeviation[3] = {0.229f, 0.224f, 0.225f};

struct Options {
  std::string image = kDemoDirectory + "/chelsea.jpg";
  std::string param = kModelDirectory + "/model.pnnx.param";
  std::string bin = kModelDirectory + "/model.pnnx.bin";
  std::string labels = kDemoDirectory + "/imagenet_classes.txt";
  int top = 5;
  int threads = 0;
};

constexpr const char* kUsage =
    "usage: lumen_resnet [--image PATH] [--param P --bin B] [--labels FILE] [--top K]\n"
    "                    [--threads T]\n";

Options ParseOptions(int argc, char** argv) {
  Options options;
  lumen::demo::ParseCommandLine(
      argc, argv,
      {{"--image", [&](const std::string& value) { options.image = value; }},
       {"--param", [&](const std::string& value) { options.param = value; }},
       {"--bin", [&](const std::string& value) { options.bin = value; }},
       {"--labels", [&](const std::string& value) { options.labels = value; }},
       {"--top", [&](const std::string& value) { options.top = ParseCount(value, "--top"); }},
       {"--threads",
        [&](const std::string& value) { options.threads = ParseCount(value, "--threads"); }}},
      kUsage);
  return options;
}

// Resizes, centre-crops and normalises a BGR image into a (3, height, width) RGB tensor.
lumen::Tensor MakeInput(const cv::Mat& image, int width, int height) {
  // torchvision evaluates at 224 after resizing to 256: keep that ratio for other input sizes.
  const double resize_to = std::round(std::min(width, height) * 256.0 / 224.0);
  const double scale = resize_to / std::min(image.cols, image.rows);
  const int resized_width = std::max(width, static_cast<int>(std::round(image.cols * scale)));
  const int resized_height = std::max(height, static_cast<int>(std::round(image.rows * scale)));
  cv::Mat resized;
  // INTER_AREA averages over the source pixels when shrinking, like torchvision's antialiasing.
  cv::resize(image, resized, cv::Size(resized_width, resized_height), 0, 0,
             scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
  const cv::Rect crop((resized_width - width) / 2, (resized_height - height) / 2, width, height);
  const cv::Mat cropped = resized(crop);

  std::vector<float> chw(3 * static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    const cv::Vec3b* row = cropped.ptr<cv::Vec3b>(y);
    for (int x = 0; x < width; ++x) {
      for (int channel = 0; channel < 3; ++channel) {  // OpenCV is BGR, the model wants RGB
        const float value = row[x][2 - channel] / 255.0f;
        chw[(static_cast<size_t>(channel) * height + y) * width + x] =
            (value - kMean[channel]) / kStandardDeviation[channel];
      }
    }
  }
  return lumen::Tensor::FromRowMajor(
      chw.data(), {3, static_cast<uint32_t>(height), static_cast<uint32_t>(width)});
}

// Softmax of the logits, subtracting the largest first so that exp never overflows.
std::vector<float> Softmax(const std::vector<float>& logits) {
  const float largest = *std::max_element(logits.begin(), logits.end());
  std::vector<float> probabilities(logits.size());
  double sum = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    probabilities[i] = std::exp(logits[i] - largest);
    sum += probabilities[i];
  }
  for (float& probability : probabilities) probability = static_cast<float>(probability / sum);
  return probabilities;
}

int Run(const Options& options) {
  if (options.threads > 0) lumen::SetNumThreads(options.threads);
  const std::vector<std::string> labels = ReadLines(options.labels, "labels");
  const cv::Mat image = cv::imread(options.image, cv::IMREAD_COLOR);
  if (image.empty()) throw Error(Concat(options.image, ": cannot read the image"));

  lumen::RuntimeGraph graph(options.param, options.bin);
  graph.Build();
  // The input size comes from the model (exported with a fixed inputshape), not from a constant.
  const lumen::Shape& input_shape = graph.input_shapes().at(0);
  if (input_shape.size() != 4 || input_shape[1] != 3) {
    throw Error(Concat("expected a model with an (N,3,H,W) input, got ",
                       lumen::ShapeToString(input_shape)));
  }
  const int height = static_cast<int>(input_shape[2]);
  const int width = static_cast<int>(input_shape[3]);
  // A model exported with batch N runs N samples: give every one the same image.
  const lumen::TensorBatch batch(input_shape[0], MakeInput(image, width, height));

  const auto start = std::chrono::steady_clock::now();
  const std::vector<lumen::TensorBatch> outputs = graph.Forward({batch});
  const double milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  const std::vector<float> logits = outputs.at(0).at(0).ToRowMajor();
  if (logits.size() != labels.size()) {
    throw Error(Concat("the model gives ", logits.size(), " scores but ", options.labels, " names ",
                       labels.size(), " classes"));
  }
  const std::vector<float> probabilities = Softmax(logits);
  std::vector<size_t> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t top = std::min<size_t>(options.top, order.size());
  std::partial_sort(order.begin(), order.begin() + top, order.end(),
                    [&](size_t a, size_t b) { return probabilities[a] > probabilities[b]; });

  std::printf("%s on %s (%dx%d, cropped to %dx%d): %.1f ms\n", options.param.c_str(),
              options.image.c_str(), image.cols, image.rows, width, height, milliseconds);
  std::printf("top-%zu:\n", top);
  for (size_t rank = 0; rank < top; ++rank) {
    const size_t index = order[rank];
    std::printf("  %4zu  %-30s %.4f\n", index, labels[index].c_str(), probabilities[index]);
  }
  if (options.param == Options().param) {
    std::printf(
        "note: the bundled model has random weights, so these classes mean nothing; README.md\n"
        "      shows how to export pretrained ResNet18 with pnnx and pass it with --param/--bin\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(ParseOptions(argc, argv));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "lumen_resnet: %s\n", error.what());
    return 1;
  }
}
