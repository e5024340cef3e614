// YOLOv5 post-processing without any image library: letterbox geometry, decoding the head's rows
// into scored boxes, and class-wise non-maximum suppression.
#ifndef LUMEN_DEMOS_YOLO_YOLO_POSTPROCESS_HPP_
#define LUMEN_DEMOS_YOLO_YOLO_POSTPROCESS_HPP_

#include <cstddef>
#include <vector>

namespace lumen {
namespace yolo {

// An axis-aligned box in pixels: top-left and bottom-right corners.
struct Box {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

// One detected object.
struct Detection {
  Box box;
  float score = 0;  // objectness * class probability
  int class_index = 0;
};

// How an image was fitted into the network input: resized by `scale` keeping its aspect ratio,
// then padded by `pad_left` / `pad_top` pixels (and the rest on the other sides) to the input size.
struct Letterbox {
  float scale = 1;
  int resized_width = 0, resized_height = 0;
  int pad_left = 0, pad_top = 0;
};

// YOLOv5's letterbox geometry for an image_width x image_height image and a target input size.
Letterbox ComputeLetterbox(int image_width, int image_height, int target_width, int target_height);

// Maps a box from network-input pixels back to the original image, clipped to it.
Box MapToImage(const Box& box, const Letterbox& letterbox, int image_width, int image_height);

// Intersection over union of two boxes (0 when either is empty).
float IntersectionOverUnion(const Box& a, const Box& b);

// Reads row-major (row_count x row_size) head output rows (cx, cy, w, h, objectness, class
// probabilities...) and keeps each row's best class when objectness * probability exceeds
// `confidence_threshold` (and objectness alone does too), as YOLOv5's NMS does.
std::vector<Detection> DecodeDetections(const float* rows, size_t row_count, size_t row_size,
                                        float confidence_threshold);

// Class-wise greedy NMS: repeatedly keeps the best remaining box and drops the boxes of the same
// class that overlap it by more than `iou_threshold`; returns at most `max_detections`, best first.
std::vector<Detection> NonMaximumSuppression(std::vector<Detection> candidates, float iou_threshold,
                                             size_t max_detections);

}  // namespace yolo
}  // namespace lumen

#endif  // LUMEN_DEMOS_YOLO_YOLO_POSTPROCESS_HPP_
