#include "layer/pooling/pooling_layer.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "layer/window.hpp"
#include "lumen/error.hpp"

namespace lumen {

PlaneSize FeatureMapPlane(const Layer& layer, const std::vector<Shape>& input_shapes,
                          bool one_dimensional) {
  if (input_shapes.size() != 1) {
    throw Error(Concat(layer.description(), ": expected 1 input(s), got ", input_shapes.size()));
  }
  const Shape& input = input_shapes[0];
  const size_t rank = input.size();
  constexpr uint32_t kIntMax = std::numeric_limits<int>::max();
  const size_t smallest_rank = one_dimensional ? 2 : 3;
  if ((rank != smallest_rank && rank != smallest_rank + 1) || input[rank - 2] == 0 ||
      input[rank - 1] == 0 || input[rank - 2] > kIntMax || input[rank - 1] > kIntMax) {
    throw Error(Concat(layer.description(), ": expected a ",
                       one_dimensional ? "(C,L) or (N,C,L) input with non-empty C and L"
                                       : "(C,H,W) or (N,C,H,W) input with non-empty H and W",
                       ", got ", ShapeToString(input)));
  }
  return PlaneSize{static_cast<int>(input[rank - 2]), static_cast<int>(input[rank - 1])};
}

Shape PooledShape(const Layer& layer, const Shape& input, int output_h, int output_w) {
  Shape output = input;
  output[output.size() - 2] = static_cast<uint32_t>(std::max(output_h, 0));
  output[output.size() - 1] = static_cast<uint32_t>(std::max(output_w, 0));
  if (output_h < 1 || output_w < 1) {
    throw Error(Concat(layer.description(), ": input ", ShapeToString(input),
                       " is too small for the window: the output would be ",
                       ShapeToString(output)));
  }
  return output;
}

SlidingWindow ReadSlidingWindow(const LayerConfig& config, bool one_dimensional) {
  SlidingWindow sliding;
  sliding.one_dimensional = one_dimensional;
  sliding.window = one_dimensional ? ReadWindow1d(config, /*stride_defaults_to_kernel=*/true)
                                   : ReadWindow2d(config, /*stride_defaults_to_kernel=*/true);
  sliding.ceil_mode = config.BoolParam("ceil_mode", false);
  const Window2d& w = sliding.window;
  if (int64_t{w.pad_top} * 2 > w.kernel_h || int64_t{w.pad_bottom} * 2 > w.kernel_h ||
      int64_t{w.pad_left} * 2 > w.kernel_w || int64_t{w.pad_right} * 2 > w.kernel_w) {
    throw Error(Concat(config.Describe(),
                       ": padding must be at most half the kernel size (as PyTorch requires)"));
  }
  return sliding;
}

Shape SlidingPooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                         const SlidingWindow& sliding) {
  const PlaneSize plane = FeatureMapPlane(layer, input_shapes, sliding.one_dimensional);
  return PooledShape(layer, input_shapes[0],
                     sliding.window.OutputHeight(plane.height, sliding.ceil_mode),
                     sliding.window.OutputWidth(plane.width, sliding.ceil_mode));
}

PlaneSize ReadAdaptiveOutputSize(const LayerConfig& config) {
  const Parameter& size = config.Param("output_size");
  const auto fail = [&config, &size](const char* what) {
    throw Error(Concat(config.Describe(), ": output_size ", what, ", got '", size.text(), "'"));
  };
  PlaneSize requested;
  if (size.type() == Parameter::Type::kInt) {
    requested.height = requested.width = size.AsInt();
    if (requested.height < 1) fail("must be positive");
    return requested;
  }
  if (size.type() == Parameter::Type::kStringArray) {
    // (None,7) style: None keeps that input extent.
    const std::vector<std::string>& items = size.AsStringArray();
    if (items.size() != 2) fail("must have 2 entries");
    int* extents[2] = {&requested.height, &requested.width};
    for (int i = 0; i < 2; ++i) {
      if (items[i] == "None") continue;
      const Parameter item = Parameter::Parse(items[i]);
      if (item.type() != Parameter::Type::kInt || item.AsInt() < 1) {
        fail("entries must be positive ints or None");
      }
      *extents[i] = item.AsInt();
    }
    return requested;
  }
  const std::vector<int> pair = config.IntPairParam("output_size");
  requested.height = pair[0];
  requested.width = pair[1];
  if (requested.height < 1 || requested.width < 1) fail("must be positive");
  return requested;
}

Shape AdaptivePooledShape(const Layer& layer, const std::vector<Shape>& input_shapes,
                          const PlaneSize& requested) {
  const PlaneSize plane = FeatureMapPlane(layer, input_shapes);
  return PooledShape(layer, input_shapes[0],
                     requested.height == 0 ? plane.height : requested.height,
                     requested.width == 0 ? plane.width : requested.width);
}

PoolingPlane PlaneOf(const Tensor& input, const Tensor& output) {
  return PoolingPlane{static_cast<int>(input.rows()), static_cast<int>(input.cols()),
                      static_cast<int>(output.rows()), static_cast<int>(output.cols())};
}

}  // namespace lumen
