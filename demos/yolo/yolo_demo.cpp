// lumen_yolo: detect objects in an image with a YOLOv5 PNNX model and draw them.
//
//   lumen_yolo [--image PATH] [--param P --bin B] [--names FILE] [--confidence 0.25] [--iou 0.45]
//              [--max-detections 300] [--output PATH] [--threads T]
//
// Pipeline: letterbox the image into the model's input size (keeping its aspect ratio, grey
// padding), scale to [0,1] RGB, run the graph, keep rows whose score passes the threshold, run
// class-wise NMS, map the boxes back to the image, print them and save an annotated copy.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "common/demo_support.hpp"
#include "lumen/base/error.hpp"
#include "lumen/base/threads.hpp"
#include "lumen/runtime/runtime_graph.hpp"
#include "yolo_postprocess.hpp"

namespace {

using lumen::Concat;
using lumen::Error;
using lumen::demo::ParseCount;
using lumen::demo::ParseFraction;
using lumen::demo::ReadLines;

const std::string kDemoDirectory = std::string(LUMEN_SOURCE_DIR) + "/demos/yolo";
const std::string kModelDirectory = std::string(LUMEN_SOURCE_DIR) + "/tmp/models/yolov5s_detect";

struct Options {
  std::string image = kDemoDirectory + "/astronaut.jpg";
  std::string param = kModelDirectory + "/model.pnnx.param";
  std::string bin = kModelDirectory + "/model.pnnx.bin";
  std::string names = kDemoDirectory + "/coco_classes.txt";
  std::string output = "yolo_detections.jpg";
  float confidence = 0.25f;
  float iou = 0.45f;
  int max_detections = 300;
  int threads = 0;
};

constexpr const char* kUsage =
    "usage: lumen_yolo [--image PATH] [--param P --bin B] [--names FILE] [--confidence C]\n"
    "                  [--iou I] [--max-detections N] [--output PATH] [--threads T]\n";

Options ParseOptions(int argc, char** argv) {
  Options options;
  lumen::demo::ParseCommandLine(
      argc, argv,
      {{"--image", [&](const std::string& value) { options.image = value; }},
       {"--param", [&](const std::string& value) { options.param = value; }},
       {"--bin", [&](const std::string& value) { options.bin = value; }},
       {"--names", [&](const std::string& value) { options.names = value; }},
       {"--output", [&](const std::string& value) { options.output = value; }},
       {"--confidence",
        [&](const std::string& value) {
          options.confidence = ParseFraction(value, "--confidence");
        }},
       {"--iou", [&](const std::string& value) { options.iou = ParseFraction(value, "--iou"); }},
       {"--max-detections",
        [&](const std::string& value) {
          options.max_detections = ParseCount(value, "--max-detections");
        }},
       {"--threads",
        [&](const std::string& value) { options.threads = ParseCount(value, "--threads"); }}},
      kUsage);
  return options;
}

// Letterboxes a BGR image into a (3, height, width) RGB tensor with values in [0, 1].
lumen::Tensor MakeInput(const cv::Mat& image, const lumen::yolo::Letterbox& letterbox, int width,
                        int height) {
  cv::Mat resized;
  cv::resize(image, resized, cv::Size(letterbox.resized_width, letterbox.resized_height), 0, 0,
             cv::INTER_LINEAR);
  cv::Mat padded;
  const int pad_right = width - letterbox.resized_width - letterbox.pad_left;
  const int pad_bottom = height - letterbox.resized_height - letterbox.pad_top;
  cv::copyMakeBorder(resized, padded, letterbox.pad_top, pad_bottom, letterbox.pad_left, pad_right,
                     cv::BORDER_CONSTANT, cv::Scalar(114, 114, 114));
  std::vector<float> chw(3 * static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    const cv::Vec3b* row = padded.ptr<cv::Vec3b>(y);
    for (int x = 0; x < width; ++x) {
      for (int channel = 0; channel < 3; ++channel) {  // OpenCV is BGR, the model wants RGB
        chw[(static_cast<size_t>(channel) * height + y) * width + x] = row[x][2 - channel] / 255.0f;
      }
    }
  }
  return lumen::Tensor::FromRowMajor(
      chw.data(), {3, static_cast<uint32_t>(height), static_cast<uint32_t>(width)});
}

void Draw(cv::Mat& image, const lumen::yolo::Detection& detection, const std::string& label) {
  // A stable colour per class, so that boxes of one class look alike.
  const cv::Scalar color((detection.class_index * 67) % 256, (detection.class_index * 131) % 256,
                         (detection.class_index * 199 + 80) % 256);
  const cv::Point top_left(static_cast<int>(detection.box.x1), static_cast<int>(detection.box.y1));
  const cv::Point bottom_right(static_cast<int>(detection.box.x2),
                               static_cast<int>(detection.box.y2));
  cv::rectangle(image, top_left, bottom_right, color, 2);
  char text[96];
  std::snprintf(text, sizeof(text), "%s %.2g", label.c_str(), detection.score);
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, 0.5, 1, &baseline);
  const cv::Point origin(top_left.x, std::max(top_left.y, size.height + 4));
  cv::rectangle(image, origin - cv::Point(0, size.height + 4), origin + cv::Point(size.width, 0),
                color, cv::FILLED);
  cv::putText(image, text, origin - cv::Point(0, 2), cv::FONT_HERSHEY_SIMPLEX, 0.5,
              cv::Scalar(255, 255, 255), 1, cv::LINE_AA);
}

int Run(const Options& options) {
  if (options.threads > 0) lumen::SetNumThreads(options.threads);
  const std::vector<std::string> names = ReadLines(options.names, "class names");
  cv::Mat image = cv::imread(options.image, cv::IMREAD_COLOR);
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
  const lumen::yolo::Letterbox letterbox =
      lumen::yolo::ComputeLetterbox(image.cols, image.rows, width, height);
  lumen::TensorBatch batch(input_shape[0], MakeInput(image, letterbox, width, height));

  const auto start = std::chrono::steady_clock::now();
  const std::vector<lumen::TensorBatch> outputs = graph.Forward({batch});
  const double milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  const lumen::Tensor& head = outputs.at(0).at(0);  // (rows, 5 + classes) for the first sample
  if (head.rank() != 2 || head.cols() != names.size() + 5) {
    throw Error(Concat("expected an output of shape (rows,", names.size() + 5, ") for ",
                       names.size(), " classes, got ", lumen::ShapeToString(head.shape())));
  }
  const std::vector<float> rows = head.ToRowMajor();
  std::vector<lumen::yolo::Detection> detections = lumen::yolo::NonMaximumSuppression(
      lumen::yolo::DecodeDetections(rows.data(), head.rows(), head.cols(), options.confidence),
      options.iou, options.max_detections);

  std::printf(
      "%s on %s (%dx%d, letterboxed to %dx%d): %.1f ms, %zu detections (confidence > %g, "
      "IoU %g)\n",
      options.param.c_str(), options.image.c_str(), image.cols, image.rows, width, height,
      milliseconds, detections.size(), options.confidence, options.iou);
  for (lumen::yolo::Detection& detection : detections) {
    detection.box = lumen::yolo::MapToImage(detection.box, letterbox, image.cols, image.rows);
    const std::string& label = names.at(detection.class_index);
    std::printf("%-14s %.4f  box %.1f %.1f %.1f %.1f\n", label.c_str(), detection.score,
                detection.box.x1, detection.box.y1, detection.box.x2, detection.box.y2);
    Draw(image, detection, label);
  }
  if (!cv::imwrite(options.output, image)) {
    throw Error(Concat(options.output, ": cannot write the annotated image"));
  }
  std::printf("annotated image: %s\n", options.output.c_str());
  if (options.param == Options().param) {
    std::printf(
        "note: the bundled model has random weights (scores stay below 0.001, boxes mean\n"
        "      nothing); README.md shows how to export pretrained YOLOv5s with pnnx\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(ParseOptions(argc, argv));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "lumen_yolo: %s\n", error.what());
    return 1;
  }
}
