// lumen_resnet: classify an image with an ImageNet classifier exported by pnnx (ResNet18 by
// default) and print the five most likely classes.
//
//   lumen_resnet [MODEL [WEIGHTS]] [--image PATH] [--labels FILE] [--top K] [--threads T]
//                [--size S]        (MODEL: a .pnnx.param or .onnx; --param/--bin are aliases)
//
// Pre-processing follows torchvision's ImageNet recipe: resize the shorter side to 256/224 of the
// model's input size, crop the centre to the input size, scale to [0,1] RGB and normalise each
// channel with ImageNet's mean and standard deviation. The model outputs logits; softmax turns
// them into probabilities.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "common/demo_arguments.hpp"
#include "common/demo_support.hpp"
#include "common/image_input.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"

namespace {

using lumen::Concat;
using lumen::Error;
using lumen::demo::ImageSize;
using lumen::demo::ReadLines;

const std::string kDemoDirectory = std::string(LUMEN_SOURCE_DIR) + "/demos/resnet";
const std::string kModelDirectory = std::string(LUMEN_SOURCE_DIR) + "/tmp/models/resnet18";

// torchvision's ImageNet normalisation, in RGB order.
constexpr std::array<float, 3> kMean = {0.485f, 0.456f, 0.406f};
constexpr std::array<float, 3> kStandardDeviation = {0.229f, 0.224f, 0.225f};

struct Options {
  std::string image = kDemoDirectory + "/chelsea.jpg";
  lumen::demo::ModelArguments model{{}, kModelDirectory + "/model.pnnx.param", ""};
  std::string labels = kDemoDirectory + "/imagenet_classes.txt";
  int top = 5;
  int threads = 0;
  int size = 0;  // 0: the model's export size
};

// Resizes, centre-crops and normalises a BGR image into a (1, 3, height, width) RGB tensor.
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
  return lumen::demo::ImageToTensor(resized(crop), kMean, kStandardDeviation);
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
  const std::vector<std::string> labels = ReadLines(options.labels, "labels");
  const cv::Mat image = lumen::demo::ReadImage(options.image);

  lumen::ModelOptions model_options;
  model_options.weights_path = options.model.bin;
  const auto model = lumen::Model::Load(options.model.param, model_options);
  const ImageSize size = lumen::demo::ModelInputSize(*model, options.size);
  const int width = size.width;
  const int height = size.height;
  lumen::SessionOptions session_options;
  session_options.threads = options.threads;
  lumen::Session session(model, session_options);
  const lumen::Tensor input = MakeInput(image, width, height);

  const auto start = std::chrono::steady_clock::now();
  const std::vector<lumen::Tensor> outputs = session.Run({input});
  const double milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  const std::vector<float> logits = outputs.at(0).ToRowMajor();
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

  std::printf("%s on %s (%dx%d, cropped to %dx%d): %.1f ms\n", options.model.param.c_str(),
              options.image.c_str(), image.cols, image.rows, width, height, milliseconds);
  std::printf("top-%zu:\n", top);
  for (size_t rank = 0; rank < top; ++rank) {
    const size_t index = order[rank];
    std::printf("  %4zu  %-30s %.4f\n", index, labels[index].c_str(), probabilities[index]);
  }
  if (options.model.param == Options().model.param) {
    std::printf(
        "note: the bundled model has random weights, so these classes mean nothing; README.md\n"
        "      shows how to export pretrained ResNet18 with pnnx and pass it as MODEL [WEIGHTS]\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("lumen_resnet: classify an image with an ImageNet classifier exported by pnnx");
  Options options;
  app.add_option("--image", options.image, "the image to classify")->capture_default_str();
  lumen::demo::AddModelArguments(app, "lumen_resnet", &options.model);
  app.add_option("--labels", options.labels, "class names, one per line")->capture_default_str();
  app.add_option("--top", options.top, "how many classes to print")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--threads", options.threads, "threads (0, the default: every core)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--size", options.size,
                 "input height and width (default: the model's export size; any size works)")
      ->check(CLI::Range(8, 8192));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    lumen::demo::ResolveModelArguments(app, &options.model);
    return Run(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "lumen_resnet: %s\n", error.what());
    return 2;
  }
}
