#include "layer/convolution/convolution_layer.hpp"

#include <cstdint>

#include "base/checked_math.hpp"
#include "layer/convolution/convolution_axes.hpp"
#include "layer/window.hpp"
#include "lumen/error.hpp"

namespace lumen {

ConvolutionLayer::ConvolutionLayer(const LayerConfig& config)
    : Layer(config),
      in_channels_(config.IntParam("in_channels")),
      out_channels_(config.IntParam("out_channels")),
      groups_(config.IntParam("groups", 1)),
      one_dimensional_(config.type() == "nn.Conv1d"),
      window_(one_dimensional_ ? ReadWindow1d(config, false) : ReadWindow2d(config, false)),
      padding_mode_(ReadPaddingMode(config)) {
  if (padding_mode_ != PaddingMode::kConstant) {
    // PyTorch pads with F.pad in this mode, then convolves without padding: so does Lumen.
    padding_ = window_;
    window_.pad_top = window_.pad_bottom = 0;
    window_.pad_left = window_.pad_right = 0;
  }
  if (config.HasParam("padding") && config.Param("padding").type() == Parameter::Type::kString &&
      config.Param("padding").AsString() == "same" &&
      (window_.stride_h != 1 || window_.stride_w != 1)) {
    Fail("padding='same' is not supported for strided convolutions");  // nor in PyTorch
  }
  if (groups_ < 1 || in_channels_ < 1 || out_channels_ < 1 || in_channels_ % groups_ != 0 ||
      out_channels_ % groups_ != 0) {
    Fail(Concat("in_channels ", in_channels_, " and out_channels ", out_channels_,
                " must be positive multiples of groups ", groups_));
  }
}

ConvolutionLayer::ConvolutionLayer(const LayerConfig& config, int in_channels, int out_channels,
                                   int groups, const Window2d& window)
    : Layer(config),
      in_channels_(in_channels),
      out_channels_(out_channels),
      groups_(groups),
      window_(window) {}

ConvolutionShape ConvolutionLayer::SampleShape(const Shape& input) const {
  const size_t rank = input.size();
  const size_t plane_rank = one_dimensional_ ? 1 : 2;  // dimensions after the channels
  if ((rank != plane_rank + 1 && rank != plane_rank + 2) ||
      input[rank - plane_rank - 1] != static_cast<uint32_t>(in_channels_)) {
    const char* plane = one_dimensional_ ? "L" : "H,W";
    Fail(Concat("expected an input of shape (N,", in_channels_, ",", plane, ") or (", in_channels_,
                ",", plane, "), got ", ShapeToString(input)));
  }
  const uint32_t input_h = one_dimensional_ ? 1 : input[rank - 2];
  const uint32_t input_w = input[rank - 1];
  if (input_h == 0 || input_w == 0) {
    Fail(Concat("the input ", ShapeToString(input), " has an empty plane"));
  }
  // The plane the arithmetic sees: padded first when the padding mode is not zeros.
  int64_t staged_h = input_h;
  int64_t staged_w = input_w;
  if (padding_mode_ != PaddingMode::kConstant) {
    const AxisPadding rows{input_h, padding_.pad_top, padding_.pad_bottom};
    const AxisPadding cols{input_w, padding_.pad_left, padding_.pad_right};
    for (const AxisPadding& axis : {rows, cols}) {
      if (const char* problem = PaddingProblem(padding_mode_, axis)) {
        Fail(Concat("padding_mode ", PaddingModeName(padding_mode_), " cannot pad the input ",
                    ShapeToString(input), " by ", axis.before, ": ", problem));
      }
    }
    staged_h = rows.PaddedExtent();
    staged_w = cols.PaddedExtent();
  }
  ConvolutionShape shape;
  try {
    shape = MakeConvolutionShape(window_, CheckedInt(staged_h, "convolution input height"),
                                 CheckedInt(staged_w, "convolution input width"));
  } catch (const Error& error) {
    Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
  }
  if (shape.output_h < 1 || shape.output_w < 1) {
    const Window2d& w = window_;
    const Window2d& pads = padding_mode_ != PaddingMode::kConstant ? padding_ : w;
    Fail(Concat("the ", w.kernel_h, "x", w.kernel_w, " kernel (dilation ", w.dilation_h, "x",
                w.dilation_w, ") does not fit in the input ", ShapeToString(input), " padded to ",
                int64_t{input_h} + pads.pad_top + pads.pad_bottom, "x",
                int64_t{input_w} + pads.pad_left + pads.pad_right));
  }
  return shape;
}

Shapes ConvolutionLayer::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const ConvolutionShape shape = SampleShape(input_shapes[0]);
  Shape output = input_shapes[0];
  const size_t rank = output.size();
  if (one_dimensional_) {
    output[rank - 2] = static_cast<uint32_t>(out_channels_);
    output[rank - 1] = static_cast<uint32_t>(shape.output_w);
    return {output};
  }
  output[rank - 3] = static_cast<uint32_t>(out_channels_);
  output[rank - 2] = static_cast<uint32_t>(shape.output_h);
  output[rank - 1] = static_cast<uint32_t>(shape.output_w);
  return {output};
}

}  // namespace lumen
