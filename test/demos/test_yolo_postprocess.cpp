// YOLO post-processing: NMS against torchvision, decoding rules, letterbox geometry.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/source_directory.hpp"
#include "yolo_postprocess.hpp"

namespace lumen {
namespace yolo {
namespace {

TEST(YoloPostprocess, NmsKeepsWhatTorchvisionKeeps) {
  // Written by scripts/make_yolo_nms_case.py with torchvision.ops.batched_nms.
  std::ifstream file(lumen::test_support::SourceDirectory() + "/test/data/yolo/nms_case.txt");
  ASSERT_TRUE(file) << "missing test/data/yolo/nms_case.txt";
  float iou = 0;
  std::vector<Detection> candidates;
  std::vector<int> expected;
  for (std::string line; std::getline(file, line);) {
    std::istringstream stream(line);
    std::string keyword;
    stream >> keyword;
    if (keyword == "iou") {
      stream >> iou;
    } else if (keyword == "box") {
      Detection detection;
      stream >> detection.box.x1 >> detection.box.y1 >> detection.box.x2 >> detection.box.y2 >>
          detection.score >> detection.class_index;
      candidates.push_back(detection);
    } else if (keyword == "keep") {
      for (int index; stream >> index;) expected.push_back(index);
    }
  }
  ASSERT_EQ(candidates.size(), 300u);
  ASSERT_LT(expected.size(), candidates.size()) << "the case should suppress something";

  const std::vector<Detection> kept = NonMaximumSuppression(candidates, iou, 1000);
  ASSERT_EQ(kept.size(), expected.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    // torchvision returns indices sorted by decreasing score, as our NMS orders its output.
    EXPECT_EQ(kept[i].score, candidates[expected[i]].score) << "rank " << i;
    EXPECT_EQ(kept[i].class_index, candidates[expected[i]].class_index) << "rank " << i;
  }
  EXPECT_EQ(NonMaximumSuppression(candidates, iou, 10).size(), 10u);
}

TEST(YoloPostprocess, IntersectionOverUnion) {
  EXPECT_FLOAT_EQ(IntersectionOverUnion({0, 0, 10, 10}, {0, 0, 10, 10}), 1.0f);
  EXPECT_FLOAT_EQ(IntersectionOverUnion({0, 0, 10, 10}, {5, 0, 15, 10}), 50.0f / 150.0f);
  EXPECT_FLOAT_EQ(IntersectionOverUnion({0, 0, 10, 10}, {10, 10, 20, 20}), 0.0f);
}

TEST(YoloPostprocess, DecodeUsesObjectnessTimesClassProbability) {
  // Rows: cx, cy, w, h, objectness, three class probabilities.
  const std::vector<float> rows = {
      50, 40, 20, 10, 0.9f, 0.1f, 0.8f, 0.3f,  // score 0.72 for class 1
      10, 10, 4,  4,  0.2f, 0.9f, 0.1f, 0.1f,  // objectness 0.2 fails a 0.25 threshold
      10, 10, 4,  4,  0.5f, 0.4f, 0.1f, 0.1f,  // 0.5 * 0.4 = 0.2 fails too
  };
  const std::vector<Detection> detections = DecodeDetections(rows.data(), 3, 8, 0.25f);
  ASSERT_EQ(detections.size(), 1u);
  EXPECT_EQ(detections[0].class_index, 1);
  EXPECT_FLOAT_EQ(detections[0].score, 0.72f);
  EXPECT_FLOAT_EQ(detections[0].box.x1, 40);
  EXPECT_FLOAT_EQ(detections[0].box.y1, 35);
  EXPECT_FLOAT_EQ(detections[0].box.x2, 60);
  EXPECT_FLOAT_EQ(detections[0].box.y2, 45);
}

TEST(YoloPostprocess, LetterboxFitsAndMapsBack) {
  // A 1280x720 image into 640x640: scale 0.5, 640x360 content, 140 rows of padding above.
  const Letterbox letterbox = ComputeLetterbox(1280, 720, 640, 640);
  EXPECT_FLOAT_EQ(letterbox.scale, 0.5f);
  EXPECT_EQ(letterbox.resized_width, 640);
  EXPECT_EQ(letterbox.resized_height, 360);
  EXPECT_EQ(letterbox.pad_left, 0);
  EXPECT_EQ(letterbox.pad_top, 140);
  const Box mapped = MapToImage({100, 150, 200, 600}, letterbox, 1280, 720);
  EXPECT_FLOAT_EQ(mapped.x1, 200);
  EXPECT_FLOAT_EQ(mapped.y1, 20);
  EXPECT_FLOAT_EQ(mapped.x2, 400);
  EXPECT_FLOAT_EQ(mapped.y2, 720);  // clipped to the image
  // An odd padding: YOLOv5 puts the smaller half on top (round(d - 0.1)).
  EXPECT_EQ(ComputeLetterbox(640, 639, 640, 640).pad_top, 0);
  EXPECT_EQ(ComputeLetterbox(640, 637, 640, 640).pad_top, 1);
}

}  // namespace
}  // namespace yolo
}  // namespace lumen
