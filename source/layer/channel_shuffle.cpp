#include "lumen/layer/channel_shuffle.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

ChannelShuffle::ChannelShuffle(const RuntimeOperator& op) : Layer(op) {
  groups_ = op.IntParam("groups");
  if (groups_ < 1) Fail("groups must be positive");
}

void ChannelShuffle::Prepare(const std::vector<Shape>& input_shapes,
                             const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4 || input[1] % groups_ != 0 || output_shapes[0] != input) {
    Fail(Concat("expected an (N,C,H,W) input with C divisible by groups ", groups_,
                " and an output of the same shape, got ", ShapeToString(input), " -> ",
                ShapeToString(output_shapes[0])));
  }
}

void ChannelShuffle::Forward(const std::vector<const TensorBatch*>& inputs,
                             const std::vector<TensorBatch*>& outputs) {
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    const int channels = static_cast<int>(input.channels());
    const int per_group = channels / groups_;
    const size_t area = static_cast<size_t>(input.rows()) * input.cols();
    ParallelFor(channels, [&](int channel) {
      const int source = (channel % groups_) * per_group + channel / groups_;
      std::copy_n(input.channel_data(source), area, output.channel_data(channel));
    });
  }
}

LUMEN_REGISTER_LAYER(ChannelShuffle, "nn.ChannelShuffle", "F.channel_shuffle");

}  // namespace lumen
