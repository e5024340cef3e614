// torch.cat: join 1..N tensors along one dimension.
#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Concatenation along any dimension of the whole tensors (dim 0, the batch, included).
//
// Around the joined dimension a tensor is (outer, extent, inner) blocks in memory (strided.hpp),
// so the output's block o is input 0's block o, then input 1's, ...: one copy per input and block.
// Every input must have the same rank and the same extents outside dim, as PyTorch requires.
class Concatenate : public Layer {
 public:
  // Reads dim.
  explicit Concatenate(const LayerConfig& config);
  // The first input's shape with the extents along dim summed; fails, naming the expected and the
  // actual shape, when an input's rank or another extent differs.
  Shapes OutputShapes(const Shapes&) const override;
  // Computes the block sizes for these shapes.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // True when the dimensions before dim all have extent 1: one block, the inputs back to back.
  bool OutputIsInputsBackToBack(const Shapes& input_shapes) const override;
  // Copies each input's blocks into place (those a session stored in place already stay).
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  int dim_ = 0;
};

namespace {

// Per session: how the blocks of the inputs interleave in the output.
struct ConcatenateState : LayerState {
  size_t output_block = 0;           // floats per output block
  std::vector<size_t> block_sizes;   // floats per block, per input (extent * inner)
  std::vector<size_t> block_starts;  // where each input's part starts inside an output block
};

// Below this many elements the copy stays on one thread.
constexpr size_t kParallelElements = 1 << 15;

}  // namespace

Concatenate::Concatenate(const LayerConfig& config)
    : Layer(config), dim_(config.IntParam("dim", 0)) {
  if (config.input_count() == 0) Fail("expected one or more inputs, got 0");
}

Shapes Concatenate::OutputShapes(const Shapes& input_shapes) const {
  if (input_shapes.empty()) Fail("expected one or more inputs, got 0");
  const Shape& first = input_shapes[0];
  const size_t axis = Axis(dim_, first.size());
  Shape output = first;
  uint64_t joined = 0;
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    const Shape& input = input_shapes[i];
    // Same rank, same extents outside dim: anything else would read outside an input.
    Shape expected = first;
    if (input.size() == first.size()) expected[axis] = input[axis];
    if (input != expected) {
      Shape pattern = first;
      std::string text = "(";
      for (size_t d = 0; d < pattern.size(); ++d) {
        if (d > 0) text += ",";
        text += d == axis ? std::string("*") : std::to_string(pattern[d]);
      }
      Fail(Concat("input ", i, " has shape ", ShapeToString(input), ", expected ", text + ")",
                  " (input 0 is ", ShapeToString(first), "; only dim ", dim_, " may differ)"));
    }
    joined += input[axis];
  }
  if (joined > std::numeric_limits<uint32_t>::max()) {
    Fail(Concat("the inputs join to an extent of ", joined, " along dim ", dim_,
                ", above 2^32 - 1"));
  }
  output[axis] = static_cast<uint32_t>(joined);
  return {output};
}

StatePointer Concatenate::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                  const PrepareContext& /*context*/) const {
  const Shape& output = output_shapes[0];
  const size_t axis = Axis(dim_, output.size());
  auto state = std::make_unique<ConcatenateState>();
  for (const Shape& input : input_shapes) {
    // An input's block is its extent along dim times the memory stride of dim (not
    // SplitAroundAxis, which divides by the extent, and an input may be empty along dim).
    const size_t inner = StorageStrides(input)[axis];
    state->block_starts.push_back(state->output_block);
    state->block_sizes.push_back(CheckedMultiply(input[axis], inner, "concatenated block"));
    state->output_block += state->block_sizes.back();
  }
  return state;
}

bool Concatenate::OutputIsInputsBackToBack(const Shapes& input_shapes) const {
  if (input_shapes.empty()) return false;
  const size_t axis = Axis(dim_, input_shapes[0].size());
  for (const Shape& input : input_shapes) {
    // One block: the block (extent along dim times dim's memory stride) is the whole input.
    const size_t block = size_t{input[axis]} * StorageStrides(input)[axis];
    if (block == 0 || block != ShapeElementCount(input)) return false;
  }
  return true;
}

void Concatenate::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                          const ForwardContext& context) const {
  const ConcatenateState& state = context.state_as<ConcatenateState>();
  float* target = outputs[0]->data();
  const size_t total = outputs[0]->size();
  // The output in fixed chunks, so that the threads share the work however few blocks there are
  // (joining on dim 0 gives one block per input).
  constexpr size_t kChunk = 1 << 14;
  const auto chunks = static_cast<std::ptrdiff_t>((total + kChunk - 1) / kChunk);
  ParallelFor(
      context.compute.pool, chunks,
      [&](std::ptrdiff_t chunk) {
        size_t position = static_cast<size_t>(chunk) * kChunk;
        const size_t end = std::min(total, position + kChunk);
        size_t block = position / state.output_block;
        size_t within = position % state.output_block;
        size_t input = 0;
        while (within >= state.block_starts[input] + state.block_sizes[input]) ++input;
        while (position < end) {
          const size_t size = state.block_sizes[input];
          const size_t offset = within - state.block_starts[input];
          const size_t count = std::min(size - offset, end - position);
          const float* source = inputs[input]->data() + block * size + offset;
          // A session may have stored the input in its place already (OutputIsInputsBackToBack).
          if (source != target + position) std::copy(source, source + count, target + position);
          position += count;
          within += count;
          if (offset + count == size) {
            // Next input with elements in this block, or the next block.
            do {
              if (++input == inputs.size()) {
                input = 0;
                within = 0;
                ++block;
              }
            } while (state.block_sizes[input] == 0 && position < end);
          }
        }
      },
      Schedule::kStatic, total >= kParallelElements);
}

LUMEN_REGISTER_LAYER(Concatenate, "torch.cat", "torch.concat");

}  // namespace lumen
