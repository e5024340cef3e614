#include "lumen/layer/convolution.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Convolution::Convolution(const RuntimeOperator& op) : Layer(op) {
  spec_.in_channels = op.IntParam("in_channels");
  spec_.out_channels = op.IntParam("out_channels");
  spec_.groups = op.IntParam("groups", 1);
  spec_.window = ReadWindow2d(op, false);
  const std::string padding_mode = op.StringParam("padding_mode", "zeros");
  if (padding_mode != "zeros") {
    Fail(Concat("padding_mode '", padding_mode, "' is not supported (only 'zeros')"));
  }
  if (spec_.groups < 1 || spec_.in_channels < 1 || spec_.out_channels < 1 ||
      spec_.in_channels % spec_.groups != 0 || spec_.out_channels % spec_.groups != 0) {
    Fail(Concat("in_channels ", spec_.in_channels, " and out_channels ", spec_.out_channels,
                " must be positive multiples of groups ", spec_.groups));
  }
  spec_.weights =
      op.AttributeFloats("weight", {spec_.out_channels, spec_.in_channels / spec_.groups,
                                    spec_.window.kernel_h, spec_.window.kernel_w});
  if (op.BoolParam("bias", false)) spec_.bias = op.AttributeFloats("bias", {spec_.out_channels});
}

void Convolution::Prepare(const std::vector<Shape>& input_shapes,
                          const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4 || input[1] != static_cast<uint32_t>(spec_.in_channels)) {
    Fail(Concat("expected an input of shape (N,", spec_.in_channels, ",H,W), got ",
                ShapeToString(input)));
  }
  spec_.input_h = static_cast<int>(input[2]);
  spec_.input_w = static_cast<int>(input[3]);
  spec_.output_h = spec_.window.OutputHeight(spec_.input_h);
  spec_.output_w = spec_.window.OutputWidth(spec_.input_w);
  if (spec_.output_h < 1 || spec_.output_w < 1) {
    Fail(Concat("the ", spec_.window.kernel_h, "x", spec_.window.kernel_w,
                " kernel does not fit in the padded ", spec_.input_h, "x", spec_.input_w,
                " input"));
  }
  const Shape expected{input[0], static_cast<uint32_t>(spec_.out_channels),
                       static_cast<uint32_t>(std::max(spec_.output_h, 0)),
                       static_cast<uint32_t>(std::max(spec_.output_w, 0))};
  if (spec_.output_h < 1 || spec_.output_w < 1 || output_shapes[0] != expected) {
    Fail(Concat("input ", ShapeToString(input), " gives output ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
  algorithm_ = ChooseConvolutionAlgorithm(spec_);
  std::vector<float>().swap(spec_.weights);  // the algorithm keeps what it needs, rearranged
}

void Convolution::Forward(const std::vector<const TensorBatch*>& inputs,
                          const std::vector<TensorBatch*>& outputs) {
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    algorithm_->Run((*inputs[0])[sample], &(*outputs[0])[sample]);
  }
}

LUMEN_REGISTER_LAYER(Convolution, "nn.Conv2d");

}  // namespace lumen
