#include "layer/pooling/pooling_layer.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "base/thread_pool.hpp"
#include "kernel/adaptive_pooling.hpp"
#include "layer/window.hpp"
#include "lumen/error.hpp"

namespace lumen {

int PooledDimensions(const std::string& type) {
  const std::string suffix = type.size() >= 2 ? type.substr(type.size() - 2) : "";
  return suffix == "1d" ? 1 : suffix == "3d" ? 3 : 2;
}

FeatureMapSize FeatureMapExtent(const Layer& layer, const std::vector<Shape>& input_shapes,
                                int dimensions) {
  if (input_shapes.size() != 1) {
    throw Error(Concat(layer.description(), ": expected 1 input(s), got ", input_shapes.size()));
  }
  const Shape& input = input_shapes[0];
  const size_t rank = input.size();
  // The unbatched form has one dimension (C) before the spatial ones.
  const size_t smallest_rank = static_cast<size_t>(dimensions) + 1;
  const size_t spatial = std::max(dimensions, 2);  // a 1-D signal's C x L plane
  bool valid = rank == smallest_rank || rank == smallest_rank + 1;
  for (size_t i = 1; valid && i <= spatial; ++i) {
    valid = input[rank - i] > 0 && input[rank - i] <= uint32_t{std::numeric_limits<int>::max()};
  }
  if (!valid) {
    const char* expected[] = {"(C,L) or (N,C,L) input with non-empty C and L",
                              "(C,H,W) or (N,C,H,W) input with non-empty H and W",
                              "(C,D,H,W) or (N,C,D,H,W) input with non-empty D, H and W"};
    throw Error(Concat(layer.description(), ": expected a ", expected[dimensions - 1], ", got ",
                       ShapeToString(input)));
  }
  FeatureMapSize size;
  size.height = static_cast<int>(input[rank - 2]);
  size.width = static_cast<int>(input[rank - 1]);
  if (dimensions == 3) size.depth = static_cast<int>(input[rank - 3]);
  return size;
}

Shape PooledShape(const Layer& layer, const Shape& input, const FeatureMapSize& output,
                  int dimensions) {
  Shape shape = input;
  const size_t rank = shape.size();
  shape[rank - 2] = static_cast<uint32_t>(std::max(output.height, 0));
  shape[rank - 1] = static_cast<uint32_t>(std::max(output.width, 0));
  if (dimensions == 3) shape[rank - 3] = static_cast<uint32_t>(std::max(output.depth, 0));
  if (output.depth < 1 || output.height < 1 || output.width < 1) {
    throw Error(Concat(layer.description(), ": input ", ShapeToString(input),
                       " is too small for the window: the output would be ", ShapeToString(shape)));
  }
  return shape;
}

SlidingWindow ReadSlidingWindow(const LayerConfig& config, int dimensions) {
  SlidingWindow sliding;
  sliding.dimensions = dimensions;
  constexpr bool kStrideDefaultsToKernel = true;
  if (dimensions == 3) {
    sliding.window = ReadWindow3d(config, kStrideDefaultsToKernel);
  } else {
    sliding.window.plane = dimensions == 1 ? ReadWindow1d(config, kStrideDefaultsToKernel)
                                           : ReadWindow2d(config, kStrideDefaultsToKernel);
  }
  sliding.ceil_mode = config.BoolParam("ceil_mode", false);
  const Window2d& w = sliding.window.plane;
  const WindowAxis& d = sliding.window.depth;
  if (int64_t{w.pad_top} * 2 > w.kernel_h || int64_t{w.pad_bottom} * 2 > w.kernel_h ||
      int64_t{w.pad_left} * 2 > w.kernel_w || int64_t{w.pad_right} * 2 > w.kernel_w ||
      int64_t{d.pad_before} * 2 > d.kernel || int64_t{d.pad_after} * 2 > d.kernel) {
    throw Error(Concat(config.Describe(),
                       ": padding must be at most half the kernel size (as PyTorch requires)"));
  }
  return sliding;
}

Shape SlidingPooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                         const SlidingWindow& sliding) {
  const FeatureMapSize input = FeatureMapExtent(layer, input_shapes, sliding.dimensions);
  FeatureMapSize output;
  output.depth = sliding.window.depth.OutputSize(input.depth, sliding.ceil_mode);
  output.height = sliding.window.plane.OutputHeight(input.height, sliding.ceil_mode);
  output.width = sliding.window.plane.OutputWidth(input.width, sliding.ceil_mode);
  return PooledShape(layer, input_shapes[0], output, sliding.dimensions);
}

FeatureMapSize ReadAdaptiveOutputSize(const LayerConfig& config, int dimensions) {
  const Parameter& size = config.Param("output_size");
  const auto fail = [&config, &size](const std::string& what) {
    throw Error(Concat(config.Describe(), ": output_size ", what, ", got '", size.text(), "'"));
  };
  std::vector<int> extents;
  if (size.type() == Parameter::Type::kInt) {
    extents.assign(dimensions, size.AsInt());
  } else if (size.type() == Parameter::Type::kStringArray) {
    // (None,7) style: None keeps that input extent.
    for (const std::string& item : size.AsStringArray()) {
      const Parameter value = Parameter::Parse(item);
      if (item == "None") {
        extents.push_back(0);
      } else if (value.type() == Parameter::Type::kInt) {
        extents.push_back(value.AsInt());
      } else {
        fail("entries must be ints or None");
      }
    }
  } else {
    extents = config.IntArrayParam("output_size");
  }
  // 1-D and 2-D sizes may be one int for every axis.
  if (extents.size() == 1) extents.resize(dimensions, extents[0]);
  if (extents.size() != static_cast<size_t>(dimensions)) {
    fail(Concat("must have ", dimensions, " entries"));
  }
  for (const int extent : extents) {
    if (extent < 0) fail("must be positive (or None, which pnnx writes as 0)");
  }
  FeatureMapSize requested;
  requested.width = extents.back();
  if (dimensions >= 2) requested.height = extents[dimensions - 2];
  if (dimensions == 3) requested.depth = extents[0];
  return requested;
}

Shape AdaptivePooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                          const FeatureMapSize& requested, int dimensions) {
  const FeatureMapSize input = FeatureMapExtent(layer, input_shapes, dimensions);
  FeatureMapSize output;
  output.depth = requested.depth == 0 ? input.depth : requested.depth;
  // A 1-D pooling keeps its rows (the signal's C).
  output.height = requested.height == 0 || dimensions == 1 ? input.height : requested.height;
  output.width = requested.width == 0 ? input.width : requested.width;
  return PooledShape(layer, input_shapes[0], output, dimensions);
}

PoolingVolume VolumeOf(const Shape& input, const Shape& output, int dimensions) {
  const size_t rank = input.size();
  PoolingVolume volume;
  volume.plane =
      PoolingPlane{static_cast<int>(input[rank - 2]), static_cast<int>(input[rank - 1]),
                   static_cast<int>(output[rank - 2]), static_cast<int>(output[rank - 1])};
  if (dimensions == 3) {
    volume.input_d = static_cast<int>(input[rank - 3]);
    volume.output_d = static_cast<int>(output[rank - 3]);
  }
  return volume;
}

PoolingLayer::PoolingLayer(const LayerConfig& config, int dimensions, bool indices_allowed)
    : Layer(config), dimensions_(dimensions) {
  if (indices_allowed) return_indices_ = config.BoolParam("return_indices", false);
}

Shapes PoolingLayer::OutputShapes(const Shapes& input_shapes) const {
  const Shape output = PooledOutput(input_shapes);
  if (return_indices_) return {output, output};
  return {output};
}

StatePointer PoolingLayer::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                   const PrepareContext& context) const {
  if (context.workspace != nullptr && !return_indices_) {
    ReserveScratch(VolumeOf(input_shapes[0], output_shapes[0], dimensions_), context.workspace);
  }
  return nullptr;
}

void PoolingLayer::ReserveScratch(const PoolingVolume& volume, Workspace* workspace) const {
  workspace->Reserve(ScratchSlot::kFirst, VolumeScratchSize(volume));
}

void PoolingLayer::PoolChannelWithIndices(const PoolingVolume& /*volume*/, const float* /*input*/,
                                          float* /*output*/, float* /*indices*/) const {
  Fail("return_indices is not supported");
}

void PoolingLayer::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                           const ForwardContext& context) const {
  const PoolingVolume volume = VolumeOf(inputs[0]->shape(), outputs[0]->shape(), dimensions_);
  if (return_indices_) {
    const float* output_start = outputs[0]->data();
    float* indices = outputs[1]->data();
    ForEachVolume(*inputs[0], outputs[0], volume, context.compute.pool,
                  [&](const float* input, float* output) {
                    PoolChannelWithIndices(volume, input, output,
                                           indices + (output - output_start));
                  });
    return;
  }
  ForEachVolume(*inputs[0], outputs[0], volume, context.compute.pool,
                [&](const float* input, float* output) {
                  PoolChannel(volume, input, output, context.compute);
                });
}

AdaptivePooling::AdaptivePooling(const LayerConfig& config, bool maximum)
    : PoolingLayer(config, PooledDimensions(config.type()), /*indices_allowed=*/maximum),
      requested_(ReadAdaptiveOutputSize(config, dimensions())),
      maximum_(maximum) {}

Shape AdaptivePooling::PooledOutput(const std::vector<Shape>& input_shapes) const {
  return AdaptivePooledShape(*this, input_shapes, requested_, dimensions());
}

void AdaptivePooling::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                              const ForwardContext& context) const {
  const PoolingVolume volume = VolumeOf(inputs[0]->shape(), outputs[0]->shape(), dimensions());
  if (maximum_ || volume.OutputSize() != 1 || volume.input_d != 1) {
    PoolingLayer::Forward(inputs, outputs, context);
    return;
  }
  // One mean per channel: channel by channel, the window arithmetic and calls around a 5x5 plane
  // took MobileNetV3's squeeze-and-excitation pools about 60 ns per channel.
  const size_t area = volume.InputSize();
  const float* input = inputs[0]->data();
  float* output = outputs[0]->data();
  ParallelForRuns(context.compute.pool, inputs[0]->size() / area, area,
                  [&](size_t first, size_t end) {
                    GlobalAveragePool(input + first * area, static_cast<int64_t>(end - first),
                                      static_cast<int64_t>(area), output + first);
                  });
}

void AdaptivePooling::PoolChannel(const PoolingVolume& volume, const float* input, float* output,
                                  const ComputeContext& compute) const {
  AdaptivePoolVolume(volume, maximum_, input, output,
                     compute.Scratch(ScratchSlot::kFirst, VolumeScratchSize(volume)));
}

}  // namespace lumen
