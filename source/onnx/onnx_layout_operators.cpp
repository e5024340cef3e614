// ONNX ops that move or copy elements, mapped onto the layers PyTorch's equivalents use: Pad onto
// F.pad, Tile onto Tensor.repeat, DepthToSpace and SpaceToDepth onto nn.PixelShuffle /
// nn.PixelUnshuffle (with nn.ChannelShuffle for ONNX's channel orders that PyTorch lacks).
#include <algorithm>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"
#include "onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

// Pad (opset 11+: pads and constant_value are inputs): F.pad, whose list holds (before, after)
// pairs from the last axis backwards. ONNX's edge is PyTorch's replicate. Negative pads crop, as
// in both.
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
  if (HasInput(3)) Fail("the axes input (opset 18) is not supported");
  const std::vector<int64_t> pads = ConstantInput(1, "pads").Integers();
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
  if (HasInput(2)) {
    const ConstantTensor& value = ConstantInput(2, "constant_value");
    if (value.size() != 1) Fail(Concat("constant_value ", value.Describe(), " must be one value"));
    if (torch_mode == "constant") {
      node.params["value"] = Parameter::FromFloat(static_cast<float>(value.At(0)));
    }
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
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
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
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
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
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
