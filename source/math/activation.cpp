#include "math/activation.hpp"

#include <algorithm>

namespace lumen {

void ApplyActivation(const Activation& activation, const float* input, float* output, size_t count,
                     const ComputeContext& context) {
  // LESSON 06 BEGIN: output[i] = f(input[i]), in chunks across the threads
  // Contiguous chunks, so that each thread's share is one vectorised loop; below a chunk's worth
  // of elements a parallel loop costs more than it saves.
  constexpr size_t kChunk = 1 << 14;
  WithActivation(activation, [&](auto function) {
    ParallelFor(context.pool, static_cast<std::ptrdiff_t>((count + kChunk - 1) / kChunk),
                [&](std::ptrdiff_t chunk) {
                  const size_t end = std::min(count, (static_cast<size_t>(chunk) + 1) * kChunk);
                  for (size_t i = static_cast<size_t>(chunk) * kChunk; i < end; ++i) {
                    output[i] = function(input[i]);
                  }
                });
  });
  // LESSON 06 END
}

bool IsLaneClamp(const Activation& activation, LaneClamp* clamp) {
  switch (activation.kind) {
    case Activation::Kind::kIdentity:
      *clamp = LaneClamp::kNone;
      return true;
    case Activation::Kind::kRelu:
      *clamp = LaneClamp::kRelu;
      return true;
    case Activation::Kind::kRelu6:
      *clamp = LaneClamp::kRelu6;
      return true;
    default:
      return false;
  }
}

void AddBiasAndActivate(const Activation& activation, float bias, float* values, size_t count) {
  WithActivation(activation, [&](auto function) {
    for (size_t i = 0; i < count; ++i) values[i] = function(values[i] + bias);
  });
}

}  // namespace lumen
