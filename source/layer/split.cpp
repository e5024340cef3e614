#include "lumen/layer/split.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/tensor/strided.hpp"

namespace lumen {

Split::Split(const RuntimeOperator& op) : Layer(op) {
  dim_ = op.IntParam("dim", 0);
  if (op.HasParam("chunks")) {
    chunks_ = op.IntParam("chunks");
    if (chunks_ < 1) Fail("chunks must be positive");
    return;
  }
  const RuntimeParameter& sizes = op.Param("split_size_or_sections");
  if (sizes.type() == RuntimeParameter::Type::kInt) {
    split_size_ = sizes.AsInt();
    if (split_size_ < 1) Fail("split_size must be positive");
  } else {
    sections_ = op.IntArrayParam("split_size_or_sections");
  }
}

void Split::Prepare(const std::vector<Shape>& input_shapes,
                    const std::vector<Shape>& output_shapes) {
  if (input_shapes.size() != 1 || output_shapes.empty()) {
    Fail("expected one input and one or more outputs");
  }
  const Shape& input = input_shapes[0];
  const size_t axis = SampleAxis(dim_, input.size());
  const Shape sample(input.begin() + 1, input.end());
  const AxisSplit split = SplitAroundAxis(sample, axis);
  outer_ = split.outer;
  inner_ = split.inner;
  input_extent_ = split.extent;
  // The piece sizes PyTorch makes: fixed-size pieces with a shorter last one, or the sections.
  std::vector<size_t> pieces;
  if (!sections_.empty()) {
    pieces.assign(sections_.begin(), sections_.end());
  } else {
    const size_t size = chunks_ ? (input_extent_ + chunks_ - 1) / chunks_ : split_size_;
    for (size_t start = 0; start < input_extent_; start += std::max<size_t>(size, 1)) {
      pieces.push_back(std::min(size, input_extent_ - start));
    }
  }
  size_t total = 0;
  for (size_t piece : pieces) total += piece;
  if (total != input_extent_ || pieces.size() != output_shapes.size()) {
    Fail(Concat("splitting extent ", input_extent_, " of ", ShapeToString(input), " gives ",
                pieces.size(), " pieces of total ", total, ", the graph has ", output_shapes.size(),
                " outputs"));
  }
  starts_.clear();
  extents_ = pieces;
  size_t start = 0;
  for (size_t k = 0; k < pieces.size(); ++k) {
    Shape expected = input;
    expected[axis + 1] = static_cast<uint32_t>(pieces[k]);
    if (expected != output_shapes[k]) {
      Fail(Concat("piece ", k, " should be ", ShapeToString(expected), " but the graph says ",
                  ShapeToString(output_shapes[k])));
    }
    starts_.push_back(start);
    start += pieces[k];
  }
}

void Split::Forward(const std::vector<const TensorBatch*>& inputs,
                    const std::vector<TensorBatch*>& outputs) {
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const float* source = (*inputs[0])[sample].data();
    for (size_t k = 0; k < outputs.size(); ++k) {
      float* target = (*outputs[k])[sample].data();
      const size_t piece = extents_[k] * inner_;
      for (size_t block = 0; block < outer_; ++block) {
        const float* from = source + (block * input_extent_ + starts_[k]) * inner_;
        std::copy(from, from + piece, target + block * piece);
      }
    }
  }
}

LUMEN_REGISTER_LAYER(Split, "torch.split", "Tensor.split", "torch.chunk", "Tensor.chunk");

}  // namespace lumen
