// LoadElement: one element of a little-endian array that may sit at any byte offset.
//
// Weights are stored at arbitrary offsets (a member inside a zip, a protobuf string): reading them
// through a T* would be undefined behaviour on a misaligned address, so every element is copied
// out with memcpy, which compilers turn into a single load.
#ifndef LUMEN_BASE_LOAD_ELEMENT_HPP_
#define LUMEN_BASE_LOAD_ELEMENT_HPP_

#include <cstddef>
#include <cstring>

namespace lumen {

// Element `index` of the array of T that starts at `bytes` (little-endian, like every host Lumen
// builds for).
template <typename T>
T LoadElement(const char* bytes, size_t index) {
  T value;
  std::memcpy(&value, bytes + index * sizeof(T), sizeof(T));
  return value;
}

}  // namespace lumen

#endif  // LUMEN_BASE_LOAD_ELEMENT_HPP_
