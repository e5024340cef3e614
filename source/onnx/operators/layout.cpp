// ONNX ops that move or copy elements, mapped onto the layers PyTorch's equivalents use: Flatten,
// Reshape, Transpose, Squeeze, Unsqueeze, Slice, Split, Concat and Expand onto torch.flatten,
// Tensor.reshape, torch.permute, torch.squeeze / unsqueeze, Tensor.slice, torch.split / chunk,
// torch.cat and Tensor.expand; Pad onto F.pad, Tile onto Tensor.repeat, DepthToSpace and
// SpaceToDepth onto nn.PixelShuffle / nn.PixelUnshuffle (with nn.ChannelShuffle for ONNX's channel
// orders that PyTorch lacks).
#include <algorithm>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"
#include "lumen/tensor.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

// torch.flatten over a range of dimensions, from `input` into `output`.
void GraphBuilder::EmitFlatten(const std::string& input, int start, int end,
                               const std::string& output) {
  Node node = MakeNode("torch.flatten", {input}, {output});
  node.params["start_dim"] = Parameter::FromInt(start);
  node.params["end_dim"] = Parameter::FromInt(end);
  Emit(std::move(node));
}

void GraphBuilder::MapFlatten() {
  // ONNX's Flatten always gives a matrix: (d0*...*d(axis-1), rest), written with torch.flatten
  // so that it holds at any rank.
  const int axis = ClampToInt(Int("axis", 1));
  const std::string input = RuntimeInput(0);
  const std::string output = OutputName(0);
  if (axis == 0) {
    Node node = MakeNode("Tensor.reshape", {input}, {output});
    node.params["shape"] = Parameter::FromIntArray({1, -1});
    Emit(std::move(node));
  } else if (axis == 1) {
    EmitFlatten(input, 1, -1, output);
  } else {
    // A 1 put in front (axis < 0) or at the end (axis > 1) keeps both flattens valid when one
    // side holds no axes (axis = -rank or rank): (1, d0, ..., d(axis-1), rest) for a negative
    // axis, (d0*...*d(axis-1), d(axis), ..., 1) for a positive one; then the other side.
    const std::string padded = NewOperandName(output);
    Node unsqueeze = MakeNode("torch.unsqueeze", {input}, {padded});
    unsqueeze.params["dim"] = Parameter::FromInt(axis < 0 ? 0 : -1);
    Emit(std::move(unsqueeze));
    const std::string half = NewOperandName(output);
    if (axis < 0) {
      EmitFlatten(padded, axis, -1, half);
      EmitFlatten(half, 0, -2, output);
    } else {
      EmitFlatten(padded, 0, axis - 1, half);
      EmitFlatten(half, 1, -1, output);
    }
  }
  SetRuntimeOutput(0, output);
}

void GraphBuilder::MapReshape() {
  const bool allow_zero = Int("allowzero", 0) != 0;
  if (IsConstantInput(1)) {
    const std::vector<int64_t> shape = ConstantInput(1, "shape").Integers();
    if (allow_zero || std::find(shape.begin(), shape.end(), 0) == shape.end()) {
      Node node = MakeNode("Tensor.reshape", {RuntimeInput(0)}, {OutputName(0)});
      node.params["shape"] = Parameter::FromIntArray(ToInts(shape));
      EmitOutput(std::move(node));
      return;
    }
  }
  // A shape computed from shapes, or whose 0s copy the input's extents: lumen.Reshape reads it
  // (and the input's shape) when a session plans.
  Node node = MakeNode("lumen.Reshape", RuntimeInputs(2), {OutputName(0)});
  node.params["allowzero"] = Parameter::FromInt(allow_zero ? 1 : 0);
  EmitOutput(std::move(node));
}

void GraphBuilder::MapTranspose() {
  std::vector<int64_t> permutation = Ints("perm", {});
  if (permutation.empty()) {
    const int rank = RequireInputRank(0, "for Transpose without perm");
    for (int i = rank; i-- > 0;) permutation.push_back(i);
  }
  Node node = MakeNode("torch.permute", {RuntimeInput(0)}, {OutputName(0)});
  node.params["dims"] = Parameter::FromIntArray(ToInts(permutation));
  EmitOutput(std::move(node));
}

void GraphBuilder::MapSqueeze() {
  std::vector<int64_t> axes = HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
  Node node = MakeNode("torch.squeeze", {RuntimeInput(0)}, {OutputName(0)});
  if (!axes.empty()) node.params["dim"] = Parameter::FromIntArray(ToInts(axes));
  EmitOutput(std::move(node));
}

void GraphBuilder::MapUnsqueeze() {
  std::vector<int64_t> axes = HasInput(1) ? ConstantInput(1, "axes").Integers() : Ints("axes", {});
  if (axes.empty()) Fail("no axes given");
  const bool negative = std::any_of(axes.begin(), axes.end(), [](int64_t a) { return a < 0; });
  const bool positive = std::any_of(axes.begin(), axes.end(), [](int64_t a) { return a >= 0; });
  if (negative && positive) {
    // Axes index the output: made non-negative, inserting them in increasing order is exact.
    const int64_t rank = RequireInputRank(0, "for negative and non-negative axes together") +
                         static_cast<int64_t>(axes.size());
    for (int64_t& axis : axes) axis = axis < 0 ? axis + rank : axis;
  }
  // Non-negative axes are inserted from the lowest, so that each counts the ones before it;
  // negative axes from the highest (-1 first), so that each counts the ones after it.
  std::sort(axes.begin(), axes.end());
  if (negative && !positive) std::reverse(axes.begin(), axes.end());
  std::string input = RuntimeInput(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const std::string output = i + 1 == axes.size() ? OutputName(0) : NewOperandName(OutputName(0));
    Node node = MakeNode("torch.unsqueeze", {input}, {output});
    node.params["dim"] = Parameter::FromInt(ClampToInt(axes[i]));
    Emit(std::move(node));
    input = output;
  }
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapSlice() {
  if (NodeOpVersion() < 10) {
    // Before opset 10 the bounds are attributes (and there are no steps).
    std::vector<int64_t> axes = Ints("axes", {});
    const std::vector<int64_t> starts = Ints("starts", {});
    if (axes.empty()) {
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    EmitSlice(starts, Ints("ends", {}), axes, std::vector<int64_t>(starts.size(), 1));
    return;
  }
  bool constant = true;
  for (size_t input = 1; input < InputCount(); ++input) {
    constant = constant && (!HasInput(input) || IsConstantInput(input));
  }
  if (!constant) {
    // Bounds computed from shapes (x[:, :x.size(1) // 2]): lumen.Slice reads them when a session
    // plans. Omitted axes before given steps are 0, 1, ...: they need starts' length.
    std::vector<std::string> inputs = RuntimeInputs(3);
    if (HasInput(3)) {
      inputs.push_back(RuntimeInput(3));
    } else if (HasInput(4)) {
      Fail("steps without axes, with bounds computed at run time, are not supported");
    }
    if (HasInput(4)) inputs.push_back(RuntimeInput(4));
    EmitOutput(MakeNode("lumen.Slice", inputs, {OutputName(0)}));
    return;
  }
  const std::vector<int64_t> starts = ConstantInput(1, "starts").Integers();
  const std::vector<int64_t> ends = ConstantInput(2, "ends").Integers();
  std::vector<int64_t> axes;
  if (HasInput(3)) {
    axes = ConstantInput(3, "axes").Integers();
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps =
      HasInput(4) ? ConstantInput(4, "steps").Integers() : std::vector<int64_t>(starts.size(), 1);
  EmitSlice(starts, ends, axes, steps);
}

void GraphBuilder::EmitSlice(const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                             const std::vector<int64_t>& axes, const std::vector<int64_t>& steps) {
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    Fail("starts, ends, axes and steps differ in length");
  }
  for (int64_t step : steps) {
    if (step < 1) Fail(Concat("step ", step, " is not supported (only positive steps)"));
  }
  Node node = MakeNode("Tensor.slice", {RuntimeInput(0)}, {OutputName(0)});
  node.params["dims"] = Parameter::FromIntArray(ToInts(axes));
  node.params["starts"] = Parameter::FromIntArray(ToInts(starts));
  node.params["ends"] = Parameter::FromIntArray(ToInts(ends));
  node.params["steps"] = Parameter::FromIntArray(ToInts(steps));
  EmitOutput(std::move(node));
}

void GraphBuilder::MapSplit() {
  std::vector<int64_t> sizes;
  if (HasInput(1)) {
    sizes = ConstantInput(1, "split").Integers();
  } else {
    sizes = Ints("split", {});
  }
  std::vector<std::string> outputs;
  for (int i = 0; i < node().output_size(); ++i) {
    // Unused outputs still take their piece: give them names of their own.
    outputs.push_back(node().output(i).empty() ? NewOperandName(Concat(node_name_, ":", i))
                                               : node().output(i));
  }
  Node node = MakeNode("torch.split", {RuntimeInput(0)}, outputs);
  node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", 0)));
  if (NodeOpVersion() >= 18 && sizes.empty()) {
    // Opset 18 names the number of pieces, of ceil(extent / n) elements but the last: torch.chunk.
    const int64_t pieces = Int("num_outputs", 0);
    if (pieces != static_cast<int64_t>(outputs.size())) {
      Fail(Concat("num_outputs ", pieces, " is not the ", outputs.size(), " outputs given"));
    }
  }
  if (sizes.empty()) {
    node.params["chunks"] = Parameter::FromInt(static_cast<int>(outputs.size()));
    node.type = "torch.chunk";
  } else {
    node.params["split_size_or_sections"] = Parameter::FromIntArray(ToInts(sizes));
  }
  Emit(std::move(node));
  for (size_t i = 0; i < outputs.size(); ++i) SetRuntimeOutput(i, outputs[i]);
}

void GraphBuilder::MapConcat() {
  Node node = MakeNode("torch.cat", RuntimeInputs(InputCount()), {OutputName(0)});
  node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", 0)));
  EmitOutput(std::move(node));
}

void GraphBuilder::MapExpand() {
  // ONNX's Expand broadcasts the input and the target shape both ways; lumen.Expand resolves
  // that against the input's rank, when a session plans (the shape may be computed then too).
  EmitOutput(MakeNode("lumen.Expand", RuntimeInputs(2), {OutputName(0)}));
}

std::vector<int64_t> GraphBuilder::PadsOverEveryAxis(const std::vector<int64_t>& pads) {
  if (!HasInput(3)) return pads;
  std::vector<int64_t> axes = ConstantInput(3, "axes").Integers();
  if (axes.empty()) Fail("the axes input is empty");
  if (pads.size() != 2 * axes.size()) {
    Fail(Concat("pads ", DimsToString(pads), " must hold a begin and an end per axis of ",
                DimsToString(axes)));
  }
  // Negative axes count from the end: they need the rank only if non-negative ones are given too.
  const bool non_negative = std::any_of(axes.begin(), axes.end(), [](int64_t a) { return a >= 0; });
  int64_t rank = non_negative ? RequireInputRank(0, "for the non-negative axes of Pad") : 0;
  if (!non_negative) {
    rank = InputRank(0);
    for (int64_t axis : axes) {
      // A rank Lumen cannot hold is refused before anything is sized by it.
      if (-axis > static_cast<int64_t>(kMaxRank)) {
        Fail(Concat("axis ", axis, " needs a rank above ", kMaxRank, ", the largest Lumen holds"));
      }
      rank = std::max(rank, -axis);
    }
  }
  std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < -rank || axes[i] >= rank) {
      Fail(Concat("axis ", axes[i], " is outside rank ", rank));
    }
    const size_t axis = static_cast<size_t>(axes[i] < 0 ? axes[i] + rank : axes[i]);
    if (seen[axis]) Fail(Concat("axes ", DimsToString(axes), " repeat an axis"));
    seen[axis] = true;
    full[axis] = pads[i];
    full[axis + static_cast<size_t>(rank)] = pads[i + axes.size()];
  }
  return full;
}

// Pad (pads and value are attributes before opset 11, inputs since; an axes input from 18): F.pad,
// whose list holds (before, after) pairs from the last axis backwards. ONNX's edge is PyTorch's
// replicate. Negative pads crop, as in both.
void GraphBuilder::MapPad() {
  const std::string mode = String("mode", "constant");
  std::string torch_mode;
  if (mode == "constant") {
    torch_mode = "constant";
  } else if (mode == "reflect") {
    torch_mode = "reflect";
  } else if (mode == "edge") {
    torch_mode = "replicate";
  } else {
    Fail(Concat("mode '", mode, "' is not supported (only constant, reflect and edge)"));
  }
  // Before opset 11 the pads and the value are attributes; from 18 the pads may name axes.
  const bool old = NodeOpVersion() < 11;
  const std::vector<int64_t> pads =
      old ? Ints("pads", {}) : PadsOverEveryAxis(ConstantInput(1, "pads").Integers());
  if (pads.empty() || pads.size() % 2 != 0) {
    Fail(Concat("pads ", DimsToString(pads), " must hold a begin and an end per axis"));
  }
  const size_t rank = pads.size() / 2;
  const int input_rank = InputRank(0);
  if (input_rank >= 0 && static_cast<size_t>(input_rank) != rank) {
    Fail(Concat("pads ", DimsToString(pads), " do not have two values per axis of the rank-",
                input_rank, " input"));
  }
  // The padded axes: from the first one with a non-zero pad to the last.
  size_t first = rank;
  for (size_t axis = 0; axis < rank; ++axis) {
    if (pads[axis] != 0 || pads[axis + rank] != 0) {
      first = axis;
      break;
    }
  }
  if (first == rank) {  // nothing to pad
    SetRuntimeOutput(0, RuntimeInput(0));
    return;
  }
  size_t padded = rank - first;
  if (torch_mode != "constant") {
    // PyTorch's reflect and replicate pad the last 1 to 3 axes of a tensor with one or two more.
    padded = std::max(padded, rank >= 2 ? rank - 2 : size_t{1});
    if (padded > 3 || padded + 2 < rank) {
      Fail(Concat(mode, " padding of axes ", first, " to ", rank - 1, " of a rank-", rank,
                  " tensor is not supported (only the last 1 to 3 axes, and at most two axes "
                  "before them)"));
    }
  }
  std::vector<int> torch_pads;
  for (size_t i = 0; i < padded; ++i) {
    const size_t axis = rank - 1 - i;
    torch_pads.push_back(CheckedInt(pads[axis], Concat(Where(), ": pad").c_str()));
    torch_pads.push_back(CheckedInt(pads[axis + rank], Concat(Where(), ": pad").c_str()));
  }
  Node node = MakeNode("F.pad", {RuntimeInput(0)}, {OutputName(0)});
  node.params["pad"] = Parameter::FromIntArray(torch_pads);
  node.params["mode"] = Parameter::FromString(torch_mode);
  if (old && torch_mode == "constant") {
    node.params["value"] = Parameter::FromFloat(Float("value", 0.0f));
  } else if (!old && HasInput(2)) {
    const ConstantTensor& value = ConstantInput(2, "constant_value");
    if (value.size() != 1) Fail(Concat("constant_value ", value.Describe(), " must be one value"));
    if (torch_mode == "constant") {
      node.params["value"] = Parameter::FromFloat(static_cast<float>(value.At(0)));
    }
  }
  EmitOutput(std::move(node));
}

// Tile: Tensor.repeat, whose repeats are ONNX's (one per axis).
void GraphBuilder::MapTile() {
  const std::vector<int64_t> repeats = ConstantInput(1, "repeats").Integers();
  const int rank = InputRank(0);
  if (rank >= 0 && static_cast<size_t>(rank) != repeats.size()) {
    Fail(Concat("repeats ", DimsToString(repeats), " must have one value per axis of the rank-",
                rank, " input"));
  }
  if (repeats.empty()) Fail("repeats is empty");
  std::vector<int> sizes;
  for (int64_t repeat : repeats) {
    if (repeat < 0) Fail(Concat("repeats ", DimsToString(repeats), " must not be negative"));
    sizes.push_back(CheckedInt(repeat, Concat(Where(), ": repeat").c_str()));
  }
  Node node = MakeNode("Tensor.repeat", {RuntimeInput(0)}, {OutputName(0)});
  node.params["sizes"] = Parameter::FromIntArray(sizes);
  EmitOutput(std::move(node));
}

// DepthToSpace: mode CRD (what PyTorch's pixel_shuffle exports) is nn.PixelShuffle. Mode DCR (the
// default) takes output channel c's block element (i, j) from input channel (i*b + j)*C' + c
// instead of c*b*b + i*b + j: a channel shuffle in b*b groups puts the channels in CRD's order.
void GraphBuilder::MapDepthToSpace() {
  const int64_t block = Int("blocksize", 0);
  if (block < 1 || block > 1 << 15) Fail(Concat("blocksize ", block, " is not supported"));
  const std::string mode = String("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") Fail(Concat("mode '", mode, "' is not DCR or CRD"));
  std::string input = RuntimeInput(0);
  if (mode == "DCR" && block > 1) {
    const std::string shuffled = NewOperandName(OutputName(0));
    Node shuffle = MakeNode("nn.ChannelShuffle", {input}, {shuffled});
    shuffle.params["groups"] = Parameter::FromInt(static_cast<int>(block * block));
    Emit(std::move(shuffle));
    input = shuffled;
  }
  Node node = MakeNode("nn.PixelShuffle", {input}, {OutputName(0)});
  node.params["upscale_factor"] = Parameter::FromInt(static_cast<int>(block));
  EmitOutput(std::move(node));
}

// SpaceToDepth: output channel (i*b + j)*C + c holds block element (i, j) of input channel c;
// nn.PixelUnshuffle puts it at c*b*b + i*b + j, and a channel shuffle in C groups reorders that.
// C must therefore be known when loading.
void GraphBuilder::MapSpaceToDepth() {
  const int64_t block = Int("blocksize", 0);
  if (block < 1 || block > 1 << 15) Fail(Concat("blocksize ", block, " is not supported"));
  const std::vector<int64_t> dims = InputDims(0);
  if (dims.size() != 4 || dims[1] < 1) {
    Fail(
        "the input must be (N,C,H,W) with C declared in the file (run "
        "onnx.shape_inference.infer_shapes on the model)");
  }
  const std::string unshuffled = block > 1 ? NewOperandName(OutputName(0)) : OutputName(0);
  Node node = MakeNode("nn.PixelUnshuffle", {RuntimeInput(0)}, {unshuffled});
  node.params["downscale_factor"] = Parameter::FromInt(static_cast<int>(block));
  Emit(std::move(node));
  if (block > 1 && dims[1] > 1) {
    Node shuffle = MakeNode("nn.ChannelShuffle", {unshuffled}, {OutputName(0)});
    shuffle.params["groups"] =
        Parameter::FromInt(CheckedInt(dims[1], Concat(Where(), ": channel count").c_str()));
    Emit(std::move(shuffle));
  } else if (block > 1) {
    SetRuntimeOutput(0, unshuffled);
    return;
  }
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
