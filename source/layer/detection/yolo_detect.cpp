// models.yolo.Detect: YOLOv5's detection head, kept as one operator by pnnx's moduleop option.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/fast_exp.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {

// For each feature level i (P3, P4, P5 at strides 8, 16, 32), on a feature map of ny x nx cells:
//   y = sigmoid(conv1x1_i(x_i)) seen as (na, no, ny, nx), no = 5 + classes
//   box centre  = (2 * y[0:2] + cell - 0.5) * stride_i
//   box size    = (2 * y[2:4])^2 * anchor_i           (anchor sizes in pixels)
//   objectness and class scores = y[4:]
// and the rows of all levels are concatenated into (N, na * sum(ny * nx), no): (N, 25200, 85) for
// a 640x640 image, (N, 6300, 85) for 320x320.
//
// The cell offsets are computed from the feature map given, as YOLOv5's Detect rebuilds its grid
// when the input size changes: the grids pnnx stores are only valid at the export's size. From
// the stored attributes (named differently by pnnx versions, so found by shape and content) the
// layer takes only the strides and each level's anchor sizes.
class YoloDetect : public Layer {
 public:
  // Reads the 1x1 convolutions (@m.i.weight/bias), the strides and each level's anchors.
  explicit YoloDetect(const LayerConfig& config);
  // (N, na * sum(ny * nx), no) for inputs (N, C_i, ny_i, nx_i) of any size.
  Shapes OutputShapes(const Shapes&) const override;
  // Sizes the buffer of the convolutions' results and reserves the GEMM's scratch.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Runs the convolutions and decodes every box.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  // One feature level.
  struct Level {
    int channels = 0;             // input channels of the 1x1 convolution
    PackedMatrix packed_weights;  // the 1x1 convolution: (channels x na*no), packed
    std::vector<float> bias;      // na*no
    std::vector<float> anchors;   // (na, 2): width and height in pixels
    float stride = 0.0f;
  };

  int anchors_ = 0;  // na
  int outputs_ = 0;  // no
  std::vector<Level> levels_;
};

namespace {

// Per session: the 1x1 convolutions' results for the largest level, (cells x na*no) column-major.
struct YoloDetectState : LayerState {
  std::vector<float> convolved;
  size_t bytes() const override { return convolved.size() * sizeof(float); }
};

// A grid-shaped attribute (1, na, ny, nx, 2), before we know its level and role.
struct GridAttribute {
  std::string name;
  std::vector<int> shape;
  std::vector<float> values;
  size_t cells() const { return static_cast<size_t>(shape[2]) * shape[3]; }
};

// An anchor grid holds, per anchor, the same (w, h) at every cell, and sizes are positive; a grid
// holds cell coordinates, which vary across cells (or are <= 0 at a single cell).
bool IsAnchorGrid(const GridAttribute& attribute) {
  const size_t cells = attribute.cells();
  for (int anchor = 0; anchor < attribute.shape[1]; ++anchor) {
    const float* first = attribute.values.data() + anchor * cells * 2;
    for (size_t cell = 0; cell < cells; ++cell) {
      for (int component = 0; component < 2; ++component) {
        const float value = first[cell * 2 + component];
        if (!(value > 0.0f) || value != first[component]) return false;
      }
    }
  }
  return true;
}

}  // namespace

YoloDetect::YoloDetect(const LayerConfig& config) : Layer(config) {
  std::vector<float> strides;
  std::vector<GridAttribute> grids;
  for (const std::string& name : config.AttributeNames()) {
    if (name.rfind("m.", 0) == 0) continue;  // the convolutions, read below per level
    const std::vector<int>& shape = config.GetAttribute(name).shape;
    if (shape.size() == 1) {
      if (!strides.empty()) Fail(Concat("two stride vectors: '@", name, "' and another"));
      strides = config.AttributeFloats(name);
    } else if (shape.size() == 5 && shape[0] == 1 && shape[1] > 0 && shape[2] > 0 && shape[3] > 0 &&
               shape[4] == 2) {
      grids.push_back({name, shape, config.AttributeFloats(name)});
    } else {
      Fail(Concat("unexpected attribute '@", name, "'"));
    }
  }
  if (grids.empty()) Fail("no grid attributes of shape (1,na,ny,nx,2)");
  anchors_ = grids[0].shape[1];
  for (const GridAttribute& grid : grids) {
    if (grid.shape[1] != anchors_) {
      Fail(Concat("'@", grid.name, "' has ", grid.shape[1], " anchors, '@", grids[0].name, "' has ",
                  anchors_));
    }
  }
  for (int level = 0; config.HasAttribute(Concat("m.", level, ".weight")); ++level) {
    const std::string prefix = Concat("m.", level, ".");
    const std::vector<int>& shape = config.GetAttribute(prefix + "weight").shape;
    if (shape.size() != 4 || shape[2] != 1 || shape[3] != 1 || shape[0] < 1 || shape[1] < 1 ||
        shape[0] % anchors_ != 0 || (outputs_ != 0 && shape[0] != anchors_ * outputs_)) {
      Fail(Concat("@", prefix, "weight must be a 1x1 convolution with na*no outputs"));
    }
    outputs_ = shape[0] / anchors_;
    Level entry;
    entry.channels = shape[1];
    const std::vector<float> weights = config.AttributeFloats(prefix + "weight");
    // (na*no, channels) row-major read column-major is the (channels x na*no) right-hand side.
    entry.packed_weights = PackedMatrix(weights.data(), shape[1], shape[0], shape[1]);
    entry.bias = config.AttributeFloats(prefix + "bias", {shape[0]});
    levels_.push_back(std::move(entry));
  }
  if (levels_.empty() || strides.size() != levels_.size()) {
    Fail(Concat("expected one stride per level, got ", strides.size(), " strides for ",
                levels_.size(), " levels"));
  }
  if (outputs_ < 5) Fail(Concat("each anchor needs at least 5 outputs, got ", outputs_));
  // Each level stores a grid and an anchor grid at the export's feature size. The grids are
  // rebuilt from the input in Forward; the anchor grids give the anchor sizes. The finest level
  // (smallest stride) has the largest map, so anchor grids sorted by size, largest first, belong
  // to the levels sorted by stride, smallest first.
  std::vector<GridAttribute> anchor_grids;
  for (GridAttribute& grid : grids) {
    if (IsAnchorGrid(grid)) anchor_grids.push_back(std::move(grid));
  }
  if (anchor_grids.size() != levels_.size()) {
    Fail(Concat("found ", anchor_grids.size(), " anchor grids (attributes of shape (1,na,ny,nx,2) ",
                "holding one positive size per anchor) for ", levels_.size(), " levels"));
  }
  std::stable_sort(
      anchor_grids.begin(), anchor_grids.end(),
      [](const GridAttribute& a, const GridAttribute& b) { return a.cells() > b.cells(); });
  std::vector<size_t> by_stride(levels_.size());
  std::iota(by_stride.begin(), by_stride.end(), 0);
  std::stable_sort(by_stride.begin(), by_stride.end(),
                   [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  for (size_t rank = 0; rank < by_stride.size(); ++rank) {
    Level& level = levels_[by_stride[rank]];
    level.stride = strides[by_stride[rank]];
    if (!(level.stride > 0.0f)) Fail(Concat("stride ", level.stride, " is not positive"));
    const GridAttribute& grid = anchor_grids[rank];
    for (int anchor = 0; anchor < anchors_; ++anchor) {
      const float* size = grid.values.data() + anchor * grid.cells() * 2;
      level.anchors.push_back(size[0]);
      level.anchors.push_back(size[1]);
    }
  }
}

Shapes YoloDetect::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, levels_.size());
  size_t rows = 0;
  for (size_t i = 0; i < levels_.size(); ++i) {
    const Shape& input = input_shapes[i];
    if (input.size() != 4 || input[1] != static_cast<uint32_t>(levels_[i].channels)) {
      Fail(Concat("input ", i, " has shape ", ShapeToString(input), ", expected (N,",
                  levels_[i].channels, ",H,W): level ", i, "'s 1x1 convolution reads ",
                  levels_[i].channels, " channels"));
    }
    if (input[0] != input_shapes[0][0]) {
      Fail(Concat("input ", i, " has shape ", ShapeToString(input), " but input 0 has ",
                  ShapeToString(input_shapes[0]), ": the batch sizes differ"));
    }
    // The GEMM counts a level's cells with ints.
    const size_t cells = CheckedMultiply(input[2], input[3], "YOLO feature map cells");
    if (cells > static_cast<size_t>(std::numeric_limits<int>::max())) {
      Fail(Concat("input ", i, " has shape ", ShapeToString(input), ": too many cells"));
    }
    rows = CheckedAdd(rows, CheckedMultiply(cells, static_cast<size_t>(anchors_), "YOLO rows"),
                      "YOLO rows");
  }
  if (rows > std::numeric_limits<uint32_t>::max()) {
    Fail(Concat("the inputs give ", rows, " boxes, more than a tensor dimension holds"));
  }
  return {Shape{input_shapes[0][0], static_cast<uint32_t>(rows), static_cast<uint32_t>(outputs_)}};
}

StatePointer YoloDetect::Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                                 const PrepareContext& context) const {
  auto state = std::make_unique<YoloDetectState>();
  size_t largest = 0;
  for (size_t i = 0; i < levels_.size(); ++i) {
    // At most INT_MAX: OutputShapes checked it.
    const int cells = static_cast<int>(size_t{input_shapes[i][2]} * input_shapes[i][3]);
    largest = std::max(largest, CheckedMultiply(static_cast<size_t>(cells),
                                                static_cast<size_t>(anchors_) * outputs_,
                                                "YOLO convolution results"));
    if (context.workspace != nullptr) {
      context.workspace->Reserve(ScratchSlot::kGemmPacking,
                                 PackedGemmScratchSize(cells, levels_[i].channels));
    }
  }
  state->convolved.assign(largest, 0.0f);
  return state;
}

void YoloDetect::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                         const ForwardContext& context) const {
  // LESSON 10 BEGIN: the 1x1 convolutions, sigmoid, then grid and anchor decoding
  float* convolved = context.state_as<YoloDetectState>().convolved.data();
  Tensor& output = *outputs[0];
  const size_t total_rows = output.rows();
  for (uint32_t sample = 0; sample < output.channels(); ++sample) {
    float* result = output.channel_data(sample);  // column-major (rows x no): column j = feature j
    size_t first_row = 0;
    for (size_t i = 0; i < levels_.size(); ++i) {
      const Level& level = levels_[i];
      const Tensor& input = *inputs[i];
      const int height = static_cast<int>(input.rows());
      const int width = static_cast<int>(input.cols());
      const int cells = height * width;
      // The 1x1 convolution: (cells x channels) * (channels x na*no); see Convolution.
      PackedGemm(cells, input.channel_data(static_cast<size_t>(sample) * level.channels), cells,
                 level.packed_weights, convolved, cells, context.compute);
      ParallelFor(
          context.compute.pool, anchors_ * outputs_,
          [&](std::ptrdiff_t channel) {
            const int anchor = static_cast<int>(channel) / outputs_;
            const int feature = static_cast<int>(channel) % outputs_;
            // Sigmoid in place, over contiguous values: a loop the compiler vectorises. It is the
            // same sigmoid as nn.Sigmoid's layer (see activation.hpp).
            float* values = convolved + static_cast<size_t>(channel) * cells;
            const float bias = level.bias[static_cast<size_t>(channel)];
            for (int c = 0; c < cells; ++c)
              values[c] = 1.0f / (1.0f + FastExpWithNarrowRange(-(values[c] + bias)));
            // Then decode. Feature maps are column-major (x * ny + y) while output rows run
            // y-major (y * nx + x), so the read walks down columns and the write along rows.
            float* column = result + static_cast<size_t>(feature) * total_rows + first_row +
                            static_cast<size_t>(anchor) * cells;
            const float anchor_size = feature == 2   ? level.anchors[anchor * 2]
                                      : feature == 3 ? level.anchors[anchor * 2 + 1]
                                                     : 0.0f;
            for (int y = 0; y < height; ++y) {
              for (int x = 0; x < width; ++x) {
                const float score = values[static_cast<size_t>(x) * height + y];
                float& target = column[static_cast<size_t>(y) * width + x];
                if (feature < 2) {  // box centre: (2 sigmoid + cell - 0.5) * stride
                  const float offset = static_cast<float>(feature == 0 ? x : y) - 0.5f;
                  target = (score * 2.0f + offset) * level.stride;
                } else if (feature < 4) {  // box size: (2 sigmoid)^2 * anchor
                  const float doubled = score * 2.0f;
                  target = doubled * doubled * anchor_size;
                } else {  // objectness and class scores
                  target = score;
                }
              }
            }
          },
          Schedule::kStatic);
      first_row += static_cast<size_t>(anchors_) * cells;
    }
  }
  // LESSON 10 END
}

LUMEN_REGISTER_LAYER(YoloDetect, "models.yolo.Detect");

}  // namespace lumen
