// GCC's portable SIMD vectors of floats, with unaligned loads and stores: arithmetic on such a
// vector compiles to the instructions of the set the library is built for (AVX-512, AVX2 or SSE),
// and a vector times a float broadcasts the float. The hand-vectorised kernels share them.
#ifndef LUMEN_MATH_SIMD_HPP_
#define LUMEN_MATH_SIMD_HPP_

#include <cstring>

namespace lumen {

// The vector type of `Lanes` floats (a template alias cannot carry the attribute itself).
template <int Lanes>
struct FloatVectorOf {
  typedef float Type __attribute__((vector_size(Lanes * sizeof(float))));
};

// `Lanes` floats in one vector: FloatVector<8> is one AVX2 register.
template <int Lanes>
using FloatVector = typename FloatVectorOf<Lanes>::Type;

// The vector at `source`, which need not be aligned: LoadVector<Vector>(pointer).
template <typename Vector>
inline Vector LoadVector(const float* source) {
  Vector value;
  std::memcpy(&value, source, sizeof(value));
  return value;
}

// Writes `value` at `target`, which need not be aligned.
template <typename Vector>
inline void StoreVector(float* target, const Vector& value) {
  std::memcpy(target, &value, sizeof(value));
}

// max(0, x) lane by lane, NaN passing through as torch.relu lets it: on GCC's vectors
// `a > b ? a : b` returns b when either is NaN. (The same select on floats, as the scalar
// activation functions write it, vectorises as compares and blends too, but one by one.)
template <typename Vector>
inline Vector ReluLanes(const Vector& x) {
  const Vector zero{};
  return zero > x ? zero : x;
}

// min(6, max(0, x)) lane by lane, NaN passing through (torch's relu6, a clamp).
template <typename Vector>
inline Vector Relu6Lanes(const Vector& x) {
  const Vector six = Vector{} + 6.0f;
  const Vector positive = ReluLanes(x);
  return six < positive ? six : positive;
}

// The activations a kernel applies to its sums in registers, before storing them: none, ReLU,
// ReLU6 (the others cost a pass of their own; see IsLaneClamp in math/activation.hpp).
enum class LaneClamp { kNone, kRelu, kRelu6 };

// `clamp` applied to every lane of x.
template <typename Vector>
inline Vector ClampLanes(const Vector& x, LaneClamp clamp) {
  if (clamp == LaneClamp::kRelu) return ReluLanes(x);
  if (clamp == LaneClamp::kRelu6) return Relu6Lanes(x);
  return x;
}

}  // namespace lumen

#endif  // LUMEN_MATH_SIMD_HPP_
