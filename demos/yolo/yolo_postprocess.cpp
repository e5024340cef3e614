#include "yolo_postprocess.hpp"

#include <algorithm>
#include <cmath>

namespace lumen {
namespace yolo {

Letterbox ComputeLetterbox(int image_width, int image_height, int target_width, int target_height) {
  Letterbox letterbox;
  letterbox.scale = std::min(static_cast<float>(target_width) / image_width,
                             static_cast<float>(target_height) / image_height);
  letterbox.resized_width = static_cast<int>(std::round(image_width * letterbox.scale));
  letterbox.resized_height = static_cast<int>(std::round(image_height * letterbox.scale));
  // YOLOv5 splits the padding in two halves, rounding the first half down (round(d - 0.1)).
  const float pad_x = (target_width - letterbox.resized_width) / 2.0f;
  const float pad_y = (target_height - letterbox.resized_height) / 2.0f;
  letterbox.pad_left = static_cast<int>(std::round(pad_x - 0.1f));
  letterbox.pad_top = static_cast<int>(std::round(pad_y - 0.1f));
  return letterbox;
}

Box MapToImage(const Box& box, const Letterbox& letterbox, int image_width, int image_height) {
  const auto x = [&](float value) {
    return std::clamp((value - letterbox.pad_left) / letterbox.scale, 0.0f,
                      static_cast<float>(image_width));
  };
  const auto y = [&](float value) {
    return std::clamp((value - letterbox.pad_top) / letterbox.scale, 0.0f,
                      static_cast<float>(image_height));
  };
  return {x(box.x1), y(box.y1), x(box.x2), y(box.y2)};
}

float IntersectionOverUnion(const Box& a, const Box& b) {
  // LESSON 10 BEGIN: overlap area over union area of two boxes
  const float width = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  const float height = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  if (width <= 0 || height <= 0) return 0;
  const float intersection = width * height;
  const float area_a = (a.x2 - a.x1) * (a.y2 - a.y1);
  const float area_b = (b.x2 - b.x1) * (b.y2 - b.y1);
  return intersection / (area_a + area_b - intersection);
  // LESSON 10 END
}

std::vector<Detection> DecodeDetections(const float* rows, size_t row_count, size_t row_size,
                                        float confidence_threshold) {
  std::vector<Detection> detections;
  for (size_t r = 0; r < row_count; ++r) {
    const float* row = rows + r * row_size;
    const float objectness = row[4];
    if (objectness <= confidence_threshold) continue;
    const float* probabilities = row + 5;
    const size_t best =
        std::max_element(probabilities, probabilities + row_size - 5) - probabilities;
    const float score = objectness * probabilities[best];
    if (score <= confidence_threshold) continue;
    // (centre x, centre y, width, height) -> corners
    const Box box{row[0] - row[2] / 2, row[1] - row[3] / 2, row[0] + row[2] / 2,
                  row[1] + row[3] / 2};
    detections.push_back({box, score, static_cast<int>(best)});
  }
  return detections;
}

std::vector<Detection> NonMaximumSuppression(std::vector<Detection> candidates, float iou_threshold,
                                             size_t max_detections) {
  // LESSON 10 BEGIN: keep the best box, drop same-class boxes that overlap it
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Detection& a, const Detection& b) { return a.score > b.score; });
  std::vector<Detection> kept;
  std::vector<bool> suppressed(candidates.size(), false);
  for (size_t i = 0; i < candidates.size() && kept.size() < max_detections; ++i) {
    if (suppressed[i]) continue;
    kept.push_back(candidates[i]);
    for (size_t j = i + 1; j < candidates.size(); ++j) {
      if (!suppressed[j] && candidates[j].class_index == candidates[i].class_index &&
          IntersectionOverUnion(candidates[i].box, candidates[j].box) > iou_threshold) {
        suppressed[j] = true;
      }
    }
  }
  return kept;
  // LESSON 10 END
}

}  // namespace yolo
}  // namespace lumen
