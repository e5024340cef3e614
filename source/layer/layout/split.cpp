// torch.split / torch.chunk / torch.tensor_split: cut a tensor into pieces along one dimension
// (one output per piece).
#include <algorithm>
#include <memory>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// The inverse of Concatenate: output k takes its (extent_k * inner) floats of every block. The
// pieces are computed from the input's extent at run time with PyTorch's rules, so another input
// size gives other pieces; the number of pieces must still equal the operator's outputs.
class Split : public Layer {
 public:
  // Reads dim and one of: split_size_or_sections (torch.split: an int size or a list of sizes),
  // chunks (torch.chunk), sections or indices (torch.tensor_split).
  explicit Split(const LayerConfig& config);
  // The input's shape with each piece's extent along dim.
  Shapes OutputShapes(const Shapes&) const override;
  // Computes where each piece starts for these shapes.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Copies every piece out.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  // How the operator cuts.
  enum class Mode {
    kSize,      // torch.split with an int: pieces of size_, the last one shorter
    kSizes,     // torch.split with a list: these sizes, which must add up to the extent
    kChunks,    // torch.chunk: ceil(extent / chunks) per piece, so maybe fewer pieces
    kSections,  // torch.tensor_split with an int: sections pieces, the first ones 1 longer
    kIndices,   // torch.tensor_split with a list: cut before each index
  };
  // One piece: its first index along dim and its extent.
  struct Piece {
    size_t start;
    size_t extent;
  };
  // The pieces PyTorch makes of an extent along dim; fails when their number differs from the
  // operator's outputs, or list sizes do not add up to the extent.
  std::vector<Piece> Pieces(const Shape& input) const;

  int dim_ = 0;
  Mode mode_ = Mode::kSize;
  int size_ = 0;             // kSize, kChunks, kSections
  std::vector<int> values_;  // kSizes, kIndices
  size_t output_count_ = 0;
};

namespace {

// Per session: where each piece lies in the input's blocks.
struct SplitState : LayerState {
  size_t outer = 0;
  size_t inner = 0;
  size_t extent = 0;
  std::vector<size_t> starts;   // per output: first index along dim
  std::vector<size_t> extents;  // per output
};

// Below this many elements the copy stays on one thread.
constexpr size_t kParallelElements = 1 << 15;

}  // namespace

Split::Split(const LayerConfig& config)
    : Layer(config), dim_(config.IntParam("dim", 0)), output_count_(config.output_count()) {
  const auto positive = [&](const char* key) {
    const int value = config.IntParam(key);
    if (value < 1) Fail(Concat(key, " must be positive, got ", value));
    return value;
  };
  if (config.HasParam("chunks")) {
    mode_ = Mode::kChunks;
    size_ = positive("chunks");
  } else if (config.HasParam("sections")) {
    mode_ = Mode::kSections;
    size_ = positive("sections");
  } else if (config.HasParam("indices")) {
    mode_ = Mode::kIndices;
    values_ = config.IntArrayParam("indices");
  } else if (config.Param("split_size_or_sections").type() == Parameter::Type::kInt) {
    mode_ = Mode::kSize;
    size_ = positive("split_size_or_sections");
  } else {
    mode_ = Mode::kSizes;
    values_ = config.IntArrayParam("split_size_or_sections");
    for (int size : values_) {
      if (size < 0) Fail(Concat("split sizes must not be negative, got ", size));
    }
  }
}

std::vector<Split::Piece> Split::Pieces(const Shape& input) const {
  const size_t extent = input[Axis(dim_, input.size())];
  const auto wrong_count = [&](size_t count) {
    Fail(Concat("input ", ShapeToString(input), " splits into ", count, " piece(s) along dim ",
                dim_, " but the operator has ", output_count_, " output(s)"));
  };
  std::vector<Piece> pieces;
  const auto add = [&](size_t start, size_t size) { pieces.push_back({start, size}); };
  switch (mode_) {
    case Mode::kSize:
    case Mode::kChunks: {
      // torch.chunk is torch.split with ceil(extent / chunks): it may give fewer pieces than asked.
      const size_t asked = static_cast<size_t>(size_);
      const size_t size = mode_ == Mode::kSize ? asked : (extent + asked - 1) / asked;
      // An empty dimension gives one empty piece for split, `chunks` empty pieces for chunk.
      const size_t count =
          extent > 0 ? (extent + size - 1) / size : (mode_ == Mode::kSize ? 1 : asked);
      // Count first: hostile sizes must not build billions of pieces.
      if (count != output_count_) wrong_count(count);
      for (size_t k = 0; k < count; ++k) {
        const size_t start = std::min(k * size, extent);
        add(start, std::min(size, extent - start));
      }
      break;
    }
    case Mode::kSizes: {
      size_t start = 0;
      for (int size : values_) {
        add(start, static_cast<size_t>(size));
        start = CheckedAdd(start, static_cast<size_t>(size), "split sizes");
      }
      if (start != extent) {
        Fail(Concat("split sizes ", Parameter::FromIntArray(values_).text(), " add up to ", start,
                    " but dim ", dim_, " of input ", ShapeToString(input), " has extent ", extent));
      }
      break;
    }
    case Mode::kSections: {
      // The first extent % sections pieces are one longer.
      const size_t sections = static_cast<size_t>(size_);
      if (sections != output_count_) wrong_count(sections);
      size_t start = 0;
      for (size_t k = 0; k < sections; ++k) {
        const size_t size = extent / sections + (k < extent % sections ? 1 : 0);
        add(start, size);
        start += size;
      }
      break;
    }
    case Mode::kIndices: {
      // Pieces x[:i0], x[i0:i1], ..., x[ik:], each bound resolved like a Python slice bound.
      const auto resolve = [extent](int index) {
        const int64_t signed_extent = static_cast<int64_t>(extent);
        int64_t resolved = index < 0 ? index + signed_extent : index;
        return static_cast<size_t>(std::clamp<int64_t>(resolved, 0, signed_extent));
      };
      size_t start = 0;
      for (size_t k = 0; k <= values_.size(); ++k) {
        const size_t end = k < values_.size() ? std::max(resolve(values_[k]), start) : extent;
        add(start, end - start);
        if (k < values_.size()) start = resolve(values_[k]);
      }
      break;
    }
  }
  if (pieces.size() != output_count_) wrong_count(pieces.size());
  return pieces;
}

Shapes Split::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  const size_t axis = Axis(dim_, input.size());
  std::vector<Shape> outputs;
  for (const Piece& piece : Pieces(input)) {
    outputs.push_back(input);
    outputs.back()[axis] = static_cast<uint32_t>(piece.extent);
  }
  return outputs;
}

StatePointer Split::Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                            const PrepareContext& /*context*/) const {
  const Shape& input = input_shapes[0];
  const size_t axis = Axis(dim_, input.size());
  auto state = std::make_unique<SplitState>();
  // (outer, extent, inner) blocks around dim, computed without dividing by the extent, which may
  // be 0 (then there is nothing to copy).
  state->inner = StorageStrides(input)[axis];
  state->extent = input[axis];
  const size_t block = state->extent * state->inner;
  state->outer = block == 0 ? 0 : ShapeElementCount(input) / block;
  for (const Piece& piece : Pieces(input)) {
    state->starts.push_back(piece.start);
    state->extents.push_back(piece.extent);
  }
  return state;
}

void Split::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                    const ForwardContext& context) const {
  const SplitState& state = context.state_as<SplitState>();
  const float* source = inputs[0]->data();
  // One task per (block, piece): each copies one contiguous run.
  const size_t pieces = outputs.size();
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(state.outer * pieces),
      [&](std::ptrdiff_t task) {
        const size_t block = static_cast<size_t>(task) / pieces;
        const size_t k = static_cast<size_t>(task) % pieces;
        const size_t run = state.extents[k] * state.inner;
        const float* from = source + (block * state.extent + state.starts[k]) * state.inner;
        std::copy(from, from + run, outputs[k]->data() + block * run);
      },
      Schedule::kStatic, inputs[0]->size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(Split, "torch.split", "Tensor.split", "torch.chunk", "Tensor.chunk",
                     "torch.tensor_split", "Tensor.tensor_split");

}  // namespace lumen
