// Tensor.reshape / Tensor.view / torch.reshape: the same elements in a new shape.
#include <limits>
#include <vector>

#include "base/checked_math.hpp"
#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Reshape with PyTorch's row-major semantics. The target is the whole shape, batch included, and
// one extent may be -1 (inferred from the element count). pnnx writes the shape traced at export
// (`shape=(1,3,85,80,80)`), so at another input size a hard-coded extent may no longer fit: the
// layer then fails, as PyTorch would, naming the input and the target shape. (No guessing: a
// traced shape that should have followed the input size is the export's problem; YOLOv5's head
// reshapes inside the Detect op, so it needs no rule here.)
class Reshape : public ViewLayer {
 public:
  // Reads shape (an int list, or a single int for a 1-D target); checks that every extent is -1
  // or non-negative and that at most one is -1.
  explicit Reshape(const LayerConfig& config);

 protected:
  // The target shape with -1 resolved; fails unless it holds the input's element count.
  Shape ViewShape(const Shape& input) const override;

 private:
  std::vector<int> shape_;
};

namespace {

// "(1,-1,10)": the target as the file writes it, for messages.
std::string TargetToString(const std::vector<int>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + ")";
}

}  // namespace

Reshape::Reshape(const LayerConfig& config) : ViewLayer(config) {
  const Parameter& shape = config.Param("shape");
  shape_ = shape.type() == Parameter::Type::kInt ? std::vector<int>{shape.AsInt()}
                                                 : config.IntArrayParam("shape");
  if (shape_.size() > kMaxRank) {
    Fail(Concat("shape ", TargetToString(shape_), " has more than ", kMaxRank, " dimensions"));
  }
  int unknown = 0;
  for (int extent : shape_) {
    if (extent == -1) {
      ++unknown;
    } else if (extent < 0) {
      Fail(Concat("invalid extent ", extent, " in shape ", TargetToString(shape_)));
    }
  }
  if (unknown > 1)
    Fail(Concat("only one dimension of shape can be -1, got ", TargetToString(shape_)));
}

Shape Reshape::ViewShape(const Shape& input) const {
  const size_t count = ShapeElementCount(input);
  size_t known = 1;
  bool has_unknown = false;
  for (int extent : shape_) {
    if (extent == -1) {
      has_unknown = true;
    } else {
      known = CheckedMultiply(known, static_cast<size_t>(extent), "reshape target element count");
    }
  }
  const auto refuse = [&] {
    Fail(Concat("cannot reshape input ", ShapeToString(input), " (", count, " elements) to shape ",
                TargetToString(shape_)));
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
  Shape target;
  for (int extent : shape_) {
    target.push_back(extent == -1 ? static_cast<uint32_t>(inferred)
                                  : static_cast<uint32_t>(extent));
  }
  return target;
}

LUMEN_REGISTER_LAYER(Reshape, "Tensor.reshape", "Tensor.view", "torch.reshape");

}  // namespace lumen
