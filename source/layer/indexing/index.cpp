// Tensor.index: x[[2, 1], [0, 1]], x[..., [1, 0]], x[[True, False]] — indexing with constant lists
// (PyTorch's advanced indexing), as pnnx writes it: `expr=[[2,1],[0,1]]`, one entry per leading
// dimension, None for a full slice (an ellipsis becomes one None per dimension it covers).
//
// The rules are NumPy's: the index lists broadcast together to one shape B (here a vector or a
// scalar); when the indexed dimensions are next to each other B takes their place in the output,
// otherwise B comes first and the sliced dimensions follow. A bool list selects the positions where
// it is True. Negative positions count from the end.
#include <algorithm>
#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

namespace {

// Per session: the input storage offset every element starts from, for each output dimension the
// offset each of its positions adds, and the output's storage strides.
struct IndexState : LayerState {
  size_t base_offset = 0;
  std::vector<std::vector<size_t>> offsets;
  std::vector<size_t> output_strides;
};

}  // namespace

// Gathers every output element from the input position its coordinates select.
class Index : public Layer {
 public:
  // Reads expr: a list whose entries are None, an int, or a list of ints or of bools.
  explicit Index(const LayerConfig& config) : Layer(config) {
    const Parameter& expr = config.Param("expr");
    if (expr.type() != Parameter::Type::kStringArray) {
      Fail(Concat("expected expr to be a list of index lists, got '", expr.text(), "'"));
    }
    for (const std::string& text : expr.AsStringArray()) entries_.push_back(ReadEntry(text));
  }

  // The sliced dimensions with the broadcast index shape in place of (or before) the indexed ones.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    return {Plan(input_shapes[0]).output};
  }

  // Turns the index lists into per-dimension offset tables for this input shape.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<IndexState>();
    IndexPlan plan = Plan(input_shapes[0]);
    state->base_offset = plan.base_offset;
    state->offsets = std::move(plan.offsets);
    state->output_strides = StorageStrides(output_shapes[0]);
    return state;
  }

  // One pass over the output in row-major order.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const IndexState& state = context.state_as<IndexState>();
    const float* input = inputs[0]->data();
    float* output = outputs[0]->data();
    ForEachCoordinate(outputs[0]->shape(), [&](const Coordinates& coordinates) {
      size_t from = state.base_offset;
      for (size_t d = 0; d < state.offsets.size(); ++d) from += state.offsets[d][coordinates[d]];
      output[StorageOffsetOf(coordinates, state.output_strides)] = input[from];
    });
  }

 private:
  // One entry of expr: a full slice, a scalar position (the dimension goes), or a list.
  struct Entry {
    enum class Kind { kSlice, kScalar, kPositions, kMask } kind = Kind::kSlice;
    std::vector<int> values;  // positions, or 0/1 for a mask
  };

  // The output shape and, per output dimension, the input offsets of its positions.
  struct IndexPlan {
    Shape output;
    size_t base_offset = 0;  // where scalar indices alone put every element
    std::vector<std::vector<size_t>> offsets;
  };

  Entry ReadEntry(const std::string& text) const {
    Entry entry;
    if (text == "None") return entry;
    const Parameter value = Parameter::Parse(text);
    if (value.type() == Parameter::Type::kInt) {
      entry.kind = Entry::Kind::kScalar;
      entry.values = {value.AsInt()};
    } else if (value.type() == Parameter::Type::kIntArray) {
      entry.kind = Entry::Kind::kPositions;
      entry.values = value.AsIntArray();
    } else if (value.type() == Parameter::Type::kStringArray) {
      entry.kind = Entry::Kind::kMask;
      for (const std::string& item : value.AsStringArray()) {
        if (item != "True" && item != "False") {
          Fail(Concat("index entry '", text, "' mixes bools with other values or nests lists ",
                      "(only lists of ints or of bools are supported)"));
        }
        entry.values.push_back(item == "True" ? 1 : 0);
      }
    } else {
      Fail(Concat("index entry '", text, "' is not None, an int, or a list of ints or bools"));
    }
    return entry;
  }

  IndexPlan Plan(const Shape& input) const {
    if (entries_.size() > input.size()) {
      Fail(Concat(entries_.size(), " index entries for an input of rank ", input.size(), " (",
                  ShapeToString(input), ")"));
    }
    const std::vector<size_t> strides = StorageStrides(input);
    // Each indexed dimension's positions, resolved; the broadcast length of them all.
    std::vector<std::vector<size_t>> positions(input.size());
    std::vector<bool> indexed(input.size(), false);
    bool any_list = false;
    size_t length = 1;
    size_t first_indexed = input.size(), last_indexed = 0;
    for (size_t d = 0; d < entries_.size(); ++d) {
      const Entry& entry = entries_[d];
      if (entry.kind == Entry::Kind::kSlice) continue;
      indexed[d] = true;
      first_indexed = std::min(first_indexed, d);
      last_indexed = d;
      positions[d] = Resolve(entry, input[d], d);
      if (entry.kind == Entry::Kind::kScalar) continue;
      any_list = true;
      const size_t count = positions[d].size();
      if (count != 1 && length != 1 && count != length) {
        Fail(Concat("index lists of lengths ", length, " and ", count, " do not broadcast"));
      }
      if (count != 1) length = count;
    }
    // The broadcast dimension: one entry per index position, its offset summed over the indexed
    // dimensions (a list of one, or a scalar, repeats its position).
    std::vector<size_t> broadcast_offsets(any_list ? length : 1, 0);
    for (size_t d = 0; d < input.size(); ++d) {
      if (!indexed[d]) continue;
      for (size_t b = 0; b < broadcast_offsets.size(); ++b) {
        const size_t position = positions[d].size() == 1 ? positions[d][0] : positions[d][b];
        broadcast_offsets[b] += position * strides[d];
      }
    }
    bool adjacent = true;
    for (size_t d = first_indexed; d <= last_indexed && d < input.size(); ++d) {
      adjacent = adjacent && indexed[d];
    }
    IndexPlan plan;
    // With lists, the broadcast dimension takes the indexed dimensions' place when they are next
    // to each other, else it comes first; scalars alone remove their dimensions.
    const auto add_broadcast = [&] {
      if (!any_list) {
        plan.base_offset = broadcast_offsets[0];
        return;
      }
      plan.output.push_back(static_cast<uint32_t>(length));
      plan.offsets.push_back(broadcast_offsets);
    };
    if (!adjacent) add_broadcast();
    for (size_t d = 0; d < input.size(); ++d) {
      if (adjacent && d == first_indexed) add_broadcast();
      if (indexed[d]) continue;
      plan.output.push_back(input[d]);
      plan.offsets.emplace_back(input[d]);
      for (size_t i = 0; i < input[d]; ++i) plan.offsets.back()[i] = i * strides[d];
    }
    return plan;
  }

  // The input positions an entry selects along a dimension of `extent`, checked.
  std::vector<size_t> Resolve(const Entry& entry, size_t extent, size_t dim) const {
    std::vector<size_t> result;
    if (entry.kind == Entry::Kind::kMask) {
      if (entry.values.size() != extent) {
        Fail(Concat("a mask of ", entry.values.size(), " bools indexes dim ", dim, " of extent ",
                    extent));
      }
      for (size_t i = 0; i < extent; ++i) {
        if (entry.values[i] != 0) result.push_back(i);
      }
      return result;
    }
    for (int value : entry.values) {
      size_t position = 0;
      if (!ResolveIndexValue(static_cast<float>(value), extent, &position)) {
        Fail(Concat("index ", value, " is out of range for dim ", dim, " of extent ", extent));
      }
      result.push_back(position);
    }
    return result;
  }

  std::vector<Entry> entries_;
};

LUMEN_REGISTER_LAYER(Index, "Tensor.index");

}  // namespace lumen
