#include "lumen/layer/softmax.hpp"

#include <algorithm>
#include <cmath>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Softmax::Softmax(const RuntimeOperator& op) : Layer(op) { dim_ = op.IntParam("dim"); }

void Softmax::Prepare(const std::vector<Shape>& input_shapes,
                      const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (output_shapes[0] != input) {
    Fail(Concat("output shape ", ShapeToString(output_shapes[0]), " differs from input ",
                ShapeToString(input)));
  }
  split_ = SplitAroundAxis(Shape(input.begin() + 1, input.end()), SampleAxis(dim_, input.size()));
}

void Softmax::Forward(const std::vector<const TensorBatch*>& inputs,
                      const std::vector<TensorBatch*>& outputs) {
  // Elements of one softmax slice are `inner` apart. Work on up to kLanes neighbouring slices at
  // once, so the inner loops run over contiguous memory and the scratch lives on the stack.
  constexpr size_t kLanes = 256;
  const size_t extent = split_.extent;
  const size_t inner = split_.inner;
  const size_t lane_groups = (inner + kLanes - 1) / kLanes;
  const auto tasks = static_cast<std::ptrdiff_t>(split_.outer * lane_groups);
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const float* source = (*inputs[0])[sample].data();
    float* target = (*outputs[0])[sample].data();
    ParallelFor(
        tasks,
        [&](std::ptrdiff_t task) {
          const size_t block = static_cast<size_t>(task) / lane_groups;
          const size_t first = static_cast<size_t>(task) % lane_groups * kLanes;
          const size_t lanes = std::min(kLanes, inner - first);
          const size_t base = block * extent * inner + first;
          float maximum[kLanes];
          float sum[kLanes];
          std::fill(maximum, maximum + lanes, -INFINITY);
          std::fill(sum, sum + lanes, 0.0f);
          for (size_t e = 0; e < extent; ++e) {
            const float* row = source + base + e * inner;
            for (size_t lane = 0; lane < lanes; ++lane)
              maximum[lane] = std::max(maximum[lane], row[lane]);
          }
          for (size_t e = 0; e < extent; ++e) {
            const float* row = source + base + e * inner;
            float* out = target + base + e * inner;
            for (size_t lane = 0; lane < lanes; ++lane) {
              out[lane] = std::exp(row[lane] - maximum[lane]);
              sum[lane] += out[lane];
            }
          }
          for (size_t e = 0; e < extent; ++e) {
            float* out = target + base + e * inner;
            for (size_t lane = 0; lane < lanes; ++lane) out[lane] /= sum[lane];
          }
        },
        Schedule::kStatic, split_.outer * extent * inner >= (1 << 14));
  }
}

LUMEN_REGISTER_LAYER(Softmax, "nn.Softmax", "F.softmax", "torch.softmax", "Tensor.softmax");

}  // namespace lumen
