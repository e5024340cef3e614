// Tensor.reshape / Tensor.view / torch.reshape: the same elements in a new shape; lumen.Reshape
// (ONNX's Reshape): the same, to the shape input 1 holds, known when a session plans.
#include <algorithm>
#include <limits>
#include <vector>

#include "base/checked_math.hpp"
#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// "(1,-1,10)": a target shape as written, for messages.
template <typename Extent>
std::string TargetToString(const std::vector<Extent>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + ")";
}

}  // namespace

// What both reshapes share: resolving a target shape against the input's element count.
class ReshapingLayer : public ViewLayer {
 protected:
  using ViewLayer::ViewLayer;
  // Fails unless `target` has at most kMaxRank extents, at most one -1 and no other negative or
  // oversized extent.
  void CheckTarget(const std::vector<int64_t>& target) const;
  // `target` with its -1 resolved (the elements left, as in PyTorch); fails unless it passes
  // CheckTarget and holds the input's element count.
  Shape Reshaped(const Shape& input, const std::vector<int64_t>& target) const;
};

void ReshapingLayer::CheckTarget(const std::vector<int64_t>& target) const {
  if (target.size() > kMaxRank) {
    Fail(Concat("shape ", TargetToString(target), " has more than ", kMaxRank, " dimensions"));
  }
  if (std::count(target.begin(), target.end(), -1) > 1) {
    Fail(Concat("only one dimension of shape can be -1, got ", TargetToString(target)));
  }
  for (int64_t extent : target) {
    if (extent < -1 || extent > std::numeric_limits<uint32_t>::max()) {
      Fail(Concat("invalid extent ", extent, " in shape ", TargetToString(target)));
    }
  }
}

Shape ReshapingLayer::Reshaped(const Shape& input, const std::vector<int64_t>& target) const {
  CheckTarget(target);
  const size_t count = ShapeElementCount(input);
  size_t known = 1;
  bool has_unknown = false;
  for (int64_t extent : target) {
    if (extent == -1) {
      has_unknown = true;
    } else {
      known = CheckedMultiply(known, static_cast<size_t>(extent), "reshape target element count");
    }
  }
  const auto refuse = [&] {
    Fail(Concat("cannot reshape input ", ShapeToString(input), " (", count, " elements) to shape ",
                TargetToString(target)));
  };
  size_t inferred = 0;
  if (has_unknown) {
    // -1 takes whatever is left, as in PyTorch; it must divide exactly, and is ambiguous when the
    // other extents hold no element.
    if (known == 0 || count % known != 0) refuse();
    inferred = count / known;
    if (inferred > std::numeric_limits<uint32_t>::max()) refuse();
  } else if (known != count) {
    refuse();
  }
  Shape shape;
  for (int64_t extent : target) {
    shape.push_back(extent == -1 ? static_cast<uint32_t>(inferred) : static_cast<uint32_t>(extent));
  }
  return shape;
}

// Reshape with PyTorch's row-major semantics. The target is the whole shape, batch included, and
// one extent may be -1 (inferred from the element count). pnnx writes the shape traced at export
// (`shape=(1,3,85,80,80)`), so at another input size a hard-coded extent may no longer fit: the
// layer then fails, as PyTorch would, naming the input and the target shape. (No guessing: a
// traced shape that should have followed the input size is the export's problem; YOLOv5's head
// reshapes inside the Detect op, so it needs no rule here.)
class Reshape : public ReshapingLayer {
 public:
  // Reads shape (an int list, or a single int for a 1-D target); checks it (at most one -1).
  explicit Reshape(const LayerConfig& config);

 protected:
  // The target shape with -1 resolved; fails unless it holds the input's element count.
  Shape ViewShape(const Shape& input) const override { return Reshaped(input, shape_); }

 private:
  std::vector<int64_t> shape_;
};

Reshape::Reshape(const LayerConfig& config) : ReshapingLayer(config) {
  const Parameter& shape = config.Param("shape");
  const std::vector<int> extents = shape.type() == Parameter::Type::kInt
                                       ? std::vector<int>{shape.AsInt()}
                                       : config.IntArrayParam("shape");
  shape_.assign(extents.begin(), extents.end());
  CheckTarget(shape_);
}

// ONNX's Reshape: the target is the values of input 1, where 0 copies the input's extent at that
// position (unless allowzero=1, where 0 is an extent) and one extent may be -1.
class OperandReshape : public ReshapingLayer {
 public:
  // Reads allowzero.
  explicit OperandReshape(const LayerConfig& config)
      : ReshapingLayer(config), allow_zero_(config.IntParam("allowzero", 0) != 0) {}
  // The shape depends on input 1's values: it is known only when a session plans.
  Shapes OutputShapes(const Shapes& /*input_shapes*/) const override { FailWithoutValues(); }
  // The target is input 1's values.
  std::vector<size_t> ShapeValueInputs() const override { return {1}; }
  // Input 1's values with 0 and -1 resolved.
  Shapes OutputShapesFromValues(const Shapes& input_shapes,
                                const InputTensors& input_values) const override {
    // LESSON 16 BEGIN: input 1's values as the target; 0 copies the input's extent but allowzero
    CheckInputCount(input_shapes, 2);
    const Shape& input = input_shapes[0];
    if (input_shapes[1].size() != 1) {
      Fail(Concat("the shape (input 1) must be 1-D, got ", ShapeToString(input_shapes[1])));
    }
    std::vector<int64_t> target = IntegerValues(*input_values[1], "the shape (input 1)");
    for (size_t i = 0; i < target.size() && !allow_zero_; ++i) {
      if (target[i] != 0) continue;
      if (i >= input.size()) {
        Fail(Concat("shape ", TargetToString(target), " copies extent ", i, " of input ",
                    ShapeToString(input), ", which has no such dimension"));
      }
      target[i] = input[i];
    }
    return {Reshaped(input, target)};
    // LESSON 16 END
  }

 private:
  bool allow_zero_;
};

LUMEN_REGISTER_LAYER(Reshape, "Tensor.reshape", "Tensor.view", "torch.reshape");
LUMEN_REGISTER_LAYER(OperandReshape, "lumen.Reshape");

}  // namespace lumen
