#include "lumen/layer/yolo_detect.hpp"

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/math/fast_exp.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

// An anchor grid holds, per anchor, the same (w, h) at every cell, and sizes are positive; a grid
// holds cell coordinates, which vary across cells (or are <= 0 at a single cell).
bool IsAnchorGrid(const std::vector<int>& shape, const std::vector<float>& values) {
  const size_t cells = static_cast<size_t>(shape[2]) * shape[3];
  for (int anchor = 0; anchor < shape[1]; ++anchor) {
    const float* first = values.data() + anchor * cells * 2;
    for (size_t cell = 0; cell < cells; ++cell) {
      for (int component = 0; component < 2; ++component) {
        const float value = first[cell * 2 + component];
        if (value <= 0.0f || value != first[component]) return false;
      }
    }
  }
  return true;
}

}  // namespace

YoloDetect::YoloDetect(const RuntimeOperator& op) : Layer(op) {
  for (const auto& [key, attribute] : op.attributes) {
    if (key.rfind("m.", 0) == 0) continue;  // the convolutions, read below per level
    if (attribute.shape.size() == 1) {
      strides_ = op.AttributeFloats(key);
    } else if (attribute.shape.size() == 5 && attribute.shape[0] == 1 && attribute.shape[4] == 2) {
      grid_attributes_.push_back({attribute.shape, op.AttributeFloats(key)});
    } else {
      Fail(Concat("unexpected attribute '@", key, "'"));
    }
  }
  if (grid_attributes_.empty()) Fail("no grid attributes of shape (1,na,ny,nx,2)");
  anchors_ = grid_attributes_[0].shape[1];
  for (int level = 0; op.HasAttribute(Concat("m.", level, ".weight")); ++level) {
    const std::string prefix = Concat("m.", level, ".");
    const std::vector<int>& shape = op.Attribute(prefix + "weight").shape;
    if (shape.size() != 4 || shape[2] != 1 || shape[3] != 1 || shape[0] % anchors_ != 0) {
      Fail(Concat("@", prefix, "weight must be a 1x1 convolution with na*no outputs"));
    }
    Level entry;
    entry.channels = shape[1];
    const std::vector<float> weights = op.AttributeFloats(prefix + "weight");
    // (na*no, channels) row-major read column-major is the (channels x na*no) right-hand side.
    entry.packed_weights = PackedMatrix(weights.data(), shape[1], shape[0], shape[1]);
    entry.bias = op.AttributeFloats(prefix + "bias", {shape[0]});
    outputs_ = shape[0] / anchors_;
    levels_.push_back(std::move(entry));
  }
  if (levels_.empty() || strides_.size() != levels_.size()) {
    Fail(Concat("expected one stride per level, got ", strides_.size(), " strides for ",
                levels_.size(), " levels"));
  }
}

void YoloDetect::Prepare(const std::vector<Shape>& input_shapes,
                         const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, levels_.size(), 1);
  size_t rows = 0;
  for (size_t i = 0; i < levels_.size(); ++i) {
    Level& level = levels_[i];
    const Shape& input = input_shapes[i];
    if (input.size() != 4 || input[1] != static_cast<uint32_t>(level.channels)) {
      Fail(Concat("input ", i, " should be (N,", level.channels, ",H,W), got ",
                  ShapeToString(input)));
    }
    level.height = static_cast<int>(input[2]);
    level.width = static_cast<int>(input[3]);
    level.first_row = rows;
    rows += static_cast<size_t>(anchors_) * level.height * level.width;
    level.stride = strides_[i];
    level.grid.clear();
    level.anchor_grid.clear();
    // Each level has two attributes of shape (1, na, ny, nx, 2): its grid and its anchor grid.
    for (const GridAttribute& attribute : grid_attributes_) {
      if (attribute.shape[2] != level.height || attribute.shape[3] != level.width) continue;
      std::vector<float>& role =
          IsAnchorGrid(attribute.shape, attribute.values) ? level.anchor_grid : level.grid;
      if (!role.empty()) Fail(Concat("two grids of the same kind for input ", i));
      role = attribute.values;
    }
    if (level.grid.empty() || level.anchor_grid.empty()) {
      Fail(Concat("no grid and anchor grid of shape (1,", anchors_, ",", level.height, ",",
                  level.width, ",2) for input ", i));
    }
    // YOLOv5 >= 7.0 stores cell - 0.5 and decodes 2*y + grid; older versions stored the cell and
    // decoded 2*y - 0.5 + grid. Shift older grids so that one formula serves both.
    const float shift = -0.5f - level.grid[0];
    if (shift != 0.0f) {
      for (float& value : level.grid) value += shift;
    }
    level.convolved.assign(static_cast<size_t>(level.height) * level.width * anchors_ * outputs_,
                           0.0f);
  }
  const Shape expected{input_shapes[0][0], static_cast<uint32_t>(rows),
                       static_cast<uint32_t>(outputs_)};
  if (output_shapes[0] != expected) {
    Fail(Concat("the inputs give output ", ShapeToString(expected), " but the graph says ",
                ShapeToString(output_shapes[0])));
  }
}

void YoloDetect::Forward(const std::vector<const TensorBatch*>& inputs,
                         const std::vector<TensorBatch*>& outputs) {
  // LESSON 10 BEGIN: the 1x1 convolutions, sigmoid, then grid and anchor decoding
  for (size_t sample = 0; sample < outputs[0]->size(); ++sample) {
    Tensor& output = (*outputs[0])[sample];
    const size_t total_rows = output.rows();
    float* result = output.data();  // column-major (rows x no): column j holds feature j
    for (size_t i = 0; i < levels_.size(); ++i) {
      Level& level = levels_[i];
      const int cells = level.height * level.width;
      // The 1x1 convolution: (cells x channels) * (channels x na*no); see Convolution.
      PackedGemm(cells, (*inputs[i])[sample].data(), cells, level.packed_weights,
                 level.convolved.data(), cells);
      ParallelFor(anchors_ * outputs_, [&](int channel) {
        const int anchor = channel / outputs_;
        const int feature = channel % outputs_;
        // Sigmoid in place, over contiguous values: a loop the compiler vectorises. It is the
        // same sigmoid as nn.Sigmoid's layer (see activation.hpp).
        float* values = level.convolved.data() + static_cast<size_t>(channel) * cells;
        const float bias = level.bias[channel];
        for (int i = 0; i < cells; ++i) values[i] = 1.0f / (1.0f + FastExp(-(values[i] + bias)));
        // Then decode. Feature maps are column-major (x * ny + y) while output rows run y-major
        // (y * nx + x), so the read walks down columns and the write along rows.
        float* column =
            result + feature * total_rows + level.first_row + static_cast<size_t>(anchor) * cells;
        const float* grid = level.grid.data() + static_cast<size_t>(anchor) * cells * 2;
        const float* anchor_grid =
            level.anchor_grid.data() + static_cast<size_t>(anchor) * cells * 2;
        for (int y = 0; y < level.height; ++y) {
          for (int x = 0; x < level.width; ++x) {
            const int cell = y * level.width + x;
            const float score = values[x * level.height + y];
            if (feature < 2) {  // box centre: (2 sigmoid + grid offset) * stride
              column[cell] = (score * 2.0f + grid[cell * 2 + feature]) * level.stride;
            } else if (feature < 4) {  // box size: (2 sigmoid)^2 * anchor
              const float doubled = score * 2.0f;
              column[cell] = doubled * doubled * anchor_grid[cell * 2 + feature - 2];
            } else {  // objectness and class scores
              column[cell] = score;
            }
          }
        }
      });
    }
  }
  // LESSON 10 END
}

LUMEN_REGISTER_LAYER(YoloDetect, "models.yolo.Detect");

}  // namespace lumen
