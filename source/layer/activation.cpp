#include "lumen/layer/activation.hpp"

#include <algorithm>
#include <cmath>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"

namespace lumen {
namespace {

// Below this many elements a parallel region costs more than it saves.
constexpr size_t kParallelThreshold = 1 << 14;

}  // namespace

void ApplyActivation(const Activation& activation, const float* input, float* output,
                     size_t count) {
  // LESSON 06 BEGIN: output[i] = f(input[i]), in chunks across the threads
  // Contiguous chunks, so that each thread's share is one vectorised loop.
  constexpr size_t kChunk = kParallelThreshold;
  WithActivation(activation, [&](auto function) {
    ParallelFor(static_cast<std::ptrdiff_t>((count + kChunk - 1) / kChunk),
                [&](std::ptrdiff_t chunk) {
                  const size_t end = std::min(count, (static_cast<size_t>(chunk) + 1) * kChunk);
                  for (size_t i = static_cast<size_t>(chunk) * kChunk; i < end; ++i) {
                    output[i] = function(input[i]);
                  }
                });
  });
  // LESSON 06 END
}

void AddBiasAndActivate(const Activation& activation, float bias, float* values, size_t count) {
  WithActivation(activation, [&](auto function) {
    for (size_t i = 0; i < count; ++i) values[i] = function(values[i] + bias);
  });
}

void ActivationLayer::Prepare(const std::vector<Shape>& input_shapes,
                              const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  if (input_shapes[0] != output_shapes[0]) {
    Fail(Concat("input shape ", ShapeToString(input_shapes[0]), " differs from output shape ",
                ShapeToString(output_shapes[0])));
  }
}

void ActivationLayer::Forward(const std::vector<const TensorBatch*>& inputs,
                              const std::vector<TensorBatch*>& outputs) {
  // LESSON 06 BEGIN: apply the activation to every sample of the batch
  const TensorBatch& input = *inputs[0];
  TensorBatch& output = *outputs[0];
  for (size_t sample = 0; sample < input.size(); ++sample) {
    ApplyActivation(activation_, input[sample].data(), output[sample].data(), input[sample].size());
  }
  // LESSON 06 END
}

}  // namespace lumen
