// NumPy's .npy files (format versions 1 to 3), what np.save writes and np.load reads: a header
// that gives the element type, the order and the shape, then the elements. lumen_run reads its
// inputs from them and writes its outputs to them.
//
// Read: little-endian float32 ('<f4') as it is; float64, int32 and int64 ('<f8', '<i4', '<i8',
// and '|b1' booleans as 0/1) converted to float32, as Lumen computes in float32 only (int64
// values beyond 2^24 lose precision). Refused with lumen::Error: big-endian data, other types,
// Fortran order (fortran_order True), a malformed or oversized header, and a file whose size
// disagrees with the header (checked before anything is allocated for the elements).
// Written: '<f4', C order, format version 1.0.
#ifndef LUMEN_IO_NPY_FILE_HPP_
#define LUMEN_IO_NPY_FILE_HPP_

#include <cstddef>
#include <string>

#include "lumen/tensor.hpp"

namespace lumen {

// What a .npy header says.
struct NpyHeader {
  std::string type;        // numpy's descr: "<f4", "<i8", ...
  Shape shape;             // row-major extents; () for a rank-0 array
  size_t item_bytes = 0;   // bytes per element
  size_t data_offset = 0;  // where the elements start in the file
};

// Parses the header at the start of `bytes` (the whole file or its first bytes); throws
// lumen::Error, starting with `where`, on anything malformed or refused (see the top of this file).
NpyHeader ParseNpyHeader(const std::string& bytes, const std::string& where);

// Reads the header of the file at `path` (for checking a shape before reading the elements).
NpyHeader ReadNpyHeader(const std::string& path);

// Reads a whole .npy file as a float32 tensor of its shape (converting as the top of this file
// says); throws lumen::Error naming the file on any problem.
Tensor ReadNpyFile(const std::string& path);

// The bytes of a .npy file (version 1.0, '<f4', C order) holding `tensor`.
std::string NpyBytes(const Tensor& tensor);

// Writes `tensor` to `path` as a .npy file; throws lumen::Error if it cannot.
void WriteNpyFile(const std::string& path, const Tensor& tensor);

}  // namespace lumen

#endif  // LUMEN_IO_NPY_FILE_HPP_
