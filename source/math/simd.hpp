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

}  // namespace lumen

#endif  // LUMEN_MATH_SIMD_HPP_
