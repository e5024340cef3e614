// lumen_yolo: detect objects in an image with a YOLOv5 PNNX model and draw them.
//
//   lumen_yolo [MODEL [WEIGHTS]] [--image PATH] [--names FILE] [--confidence 0.25]
//              [--iou 0.45] [--max-detections 300] [--output PATH] [--threads T] [--size S]
//
// Pipeline: letterbox the image into the model's input size (keeping its aspect ratio, grey
// padding), scale to [0,1] RGB, run the graph, keep rows whose score passes the threshold, run
// class-wise NMS, map the boxes back to the image, print them and save an annotated copy.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "common/demo_arguments.hpp"
#include "common/demo_support.hpp"
#include "common/image_input.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "yolo_postprocess.hpp"

namespace {

using lumen::Concat;
using lumen::Error;
using lumen::demo::ImageSize;
using lumen::demo::ReadLines;

const std::string kDemoDirectory = std::string(LUMEN_SOURCE_DIR) + "/demos/yolo";
const std::string kModelDirectory = std::string(LUMEN_SOURCE_DIR) + "/tmp/models/yolov5s_detect";

struct Options {
  std::string image = kDemoDirectory + "/astronaut.jpg";
  lumen::demo::ModelArguments model{{}, kModelDirectory + "/model.pnnx.param", ""};
  std::string names = kDemoDirectory + "/coco_classes.txt";
  std::string output = "yolo_detections.jpg";
  float confidence = 0.25f;
  float iou = 0.45f;
  int max_detections = 300;
  int threads = 0;
  int size = 0;  // 0: the model's export size
};

// Letterboxes a BGR image into a (1, 3, height, width) RGB tensor with values in [0, 1].
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
  return lumen::demo::ImageToTensor(padded);
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
  const std::vector<std::string> names = ReadLines(options.names, "class names");
  cv::Mat image = lumen::demo::ReadImage(options.image);

  lumen::ModelOptions model_options;
  model_options.weights_path = options.model.bin;
  const auto model = lumen::Model::Load(options.model.param, model_options);
  const ImageSize size = lumen::demo::ModelInputSize(*model, options.size);
  const int width = size.width;
  const int height = size.height;
  const lumen::yolo::Letterbox letterbox =
      lumen::yolo::ComputeLetterbox(image.cols, image.rows, width, height);
  lumen::SessionOptions session_options;
  session_options.threads = options.threads;
  lumen::Session session(model, session_options);
  const lumen::Tensor input = MakeInput(image, letterbox, width, height);

  const auto start = std::chrono::steady_clock::now();
  const std::vector<lumen::Tensor> outputs = session.Run({input});
  const double milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  const lumen::Tensor& head = outputs.at(0);  // (1, rows, 5 + classes)
  if (head.rank() != 3 || head.cols() != names.size() + 5) {
    throw Error(Concat("expected an output of shape (1,rows,", names.size() + 5, ") for ",
                       names.size(), " classes, got ", lumen::ShapeToString(head.shape())));
  }
  const std::vector<float> rows = head.ToRowMajor();
  std::vector<lumen::yolo::Detection> detections = lumen::yolo::NonMaximumSuppression(
      lumen::yolo::DecodeDetections(rows.data(), head.rows(), head.cols(), options.confidence),
      options.iou, options.max_detections);

  std::printf(
      "%s on %s (%dx%d, letterboxed to %dx%d): %.1f ms, %zu detections (confidence > %g, "
      "IoU %g)\n",
      options.model.param.c_str(), options.image.c_str(), image.cols, image.rows, width, height,
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
  if (options.model.param == Options().model.param) {
    std::printf(
        "note: the bundled model has random weights (scores stay below 0.001, boxes mean\n"
        "      nothing); README.md shows how to export pretrained YOLOv5s with pnnx\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("lumen_yolo: detect objects with a YOLOv5 model exported by pnnx, draw them");
  Options options;
  app.add_option("--image", options.image, "the image")->capture_default_str();
  lumen::demo::AddModelArguments(app, "lumen_yolo", &options.model);
  app.add_option("--names", options.names, "class names, one per line")->capture_default_str();
  app.add_option("--confidence", options.confidence, "score threshold")
      ->check(CLI::Range(0.0f, 1.0f))
      ->capture_default_str();
  app.add_option("--iou", options.iou, "NMS overlap threshold")
      ->check(CLI::Range(0.0f, 1.0f))
      ->capture_default_str();
  app.add_option("--max-detections", options.max_detections, "most boxes kept")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--output", options.output, "the annotated image to write")->capture_default_str();
  app.add_option("--threads", options.threads, "threads (0, the default: every core)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--size", options.size,
                 "letterbox into S x S (a multiple of 32; default: the model's export size)")
      ->check(CLI::Range(32, 8192));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  if (options.size % 32 != 0) {
    std::fprintf(stderr, "lumen_yolo: --size must be a multiple of 32, got %d\n", options.size);
    return 2;
  }
  try {
    lumen::demo::ResolveModelArguments(app, &options.model);
    return Run(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "lumen_yolo: %s\n", error.what());
    return 2;
  }
}
