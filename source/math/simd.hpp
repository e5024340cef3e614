// GCC's portable SIMD vectors of floats, with unaligned loads and stores: arithmetic on such a
// vector compiles to the instructions of the set the library is built for (AVX-512, AVX2 or SSE),
// and a vector times a float broadcasts the float. The hand-vectorised kernels share them, and the
// one load GCC's vectors cannot express, a masked one (LoadFirstLanes), written with intrinsics.
#ifndef LUMEN_MATH_SIMD_HPP_
#define LUMEN_MATH_SIMD_HPP_

#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

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

// The first `count` (0 to 8) floats at `source` in lanes 0 to count - 1, zero in the others,
// reading nothing past them: a short run at the end of a buffer is safe to load. A masked load
// where the CPU has one; GCC makes a loop of `i < count ? source[i] : 0` lanes into eight scalar
// loads and inserts, which took half of the depthwise small-map path's time on 5x5 maps.
inline FloatVector<8> LoadFirstLanes(const float* source, int count) {
#if defined(__AVX512VL__)
  return _mm256_maskz_loadu_ps(static_cast<__mmask8>((1u << count) - 1), source);
#elif defined(__AVX2__)
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_maskload_ps(source, _mm256_cmpgt_epi32(_mm256_set1_epi32(count), lanes));
#else
  FloatVector<8> values{};
  for (int i = 0; i < count; ++i) values[i] = source[i];
  return values;
#endif
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

// Transposes the 8 x 8 matrix whose row i is rows[i] in place: afterwards rows[i][j] is what
// rows[j][i] was. Three rounds of two-vector shuffles (pairs of lanes, then pairs of pairs, then
// halves), 24 in all, where a scalar transpose takes 64 loads and 64 stores: the depthwise
// kernel's small-map path turns 8 channels' planes into pixels of 8 channels and back with it.
inline void TransposeEight(FloatVector<8>* rows) {
  using Vector = FloatVector<8>;
  Vector pairs[8];  // round 1: lanes of rows 2k and 2k+1 interleaved, within each 128-bit half
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    pairs[2 * k] = __builtin_shufflevector(rows[2 * k], rows[2 * k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    pairs[2 * k + 1] =
        __builtin_shufflevector(rows[2 * k], rows[2 * k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  Vector quads[8];  // round 2: columns j and j+4 of rows 4h..4h+3, for j in 0..3
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const Vector* p = pairs + 4 * h;
    quads[4 * h + 0] = __builtin_shufflevector(p[0], p[2], 0, 1, 8, 9, 4, 5, 12, 13);
    quads[4 * h + 1] = __builtin_shufflevector(p[0], p[2], 2, 3, 10, 11, 6, 7, 14, 15);
    quads[4 * h + 2] = __builtin_shufflevector(p[1], p[3], 0, 1, 8, 9, 4, 5, 12, 13);
    quads[4 * h + 3] = __builtin_shufflevector(p[1], p[3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {  // round 3: the top rows' half beside the bottom rows'
    rows[j] = __builtin_shufflevector(quads[j], quads[4 + j], 0, 1, 2, 3, 8, 9, 10, 11);
    rows[j + 4] = __builtin_shufflevector(quads[j], quads[4 + j], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

}  // namespace lumen

#endif  // LUMEN_MATH_SIMD_HPP_
