// Tensor: a whole operand (batch included), stored in a column-major Armadillo cube.
//
// The cube lives behind this header (TensorStorage, in source/tensor/tensor.cpp): a program that
// uses Lumen compiles without Armadillo, and the accessors every kernel calls (data(), rows(),
// at(channel, row, col), ...) read plain members cached from the cube, as cheap as the cube's own.
//
// How a tensor of any rank lives in an arma::fcube (the one place this is decided):
//
//   logical shape (PyTorch's, batch first):   (d0, d1, ..., d[k-3], d[k-2], d[k-1])
//   fcube slices (we call them channels)   =  d0 * d1 * ... * d[k-3]   (1 if k < 3)
//   fcube rows                             =  d[k-2]                   (1 if k < 2)
//   fcube cols                             =  d[k-1]                   (1 if k < 1)
//
// So an (N, C, H, W) feature map is N*C slices of H x W matrices (sample n, channel c is slice
// n*C + c), YOLO's (1, 3, 85, 80, 80) view is 255 slices of 80 x 80, and a transformer's
// (1, S, D) activations are one S x D matrix. The batch is not special: it is the first
// dimension like any other, so `x.reshape(-1, D)` on a (B, S, D) tensor is an ordinary reshape.
//
// Armadillo stores each slice column by column, so inside a slice the row index runs fastest in
// memory, while PyTorch's row-major order runs the column index fastest. Memory order is therefore
// "row-major with the last two logical dimensions swapped". Every conversion between the two
// orders goes through FromRowMajor / CopyFromRowMajor / CopyToRowMajor, and nothing else.
#ifndef LUMEN_TENSOR_HPP_
#define LUMEN_TENSOR_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lumen {

// A logical shape in PyTorch's dimension order, batch first when the tensor has one.
using Shape = std::vector<uint32_t>;

// The largest rank a tensor may have; PyTorch models rarely go past 6.
inline constexpr size_t kMaxRank = 8;

// Formats a shape as "(1,3,224,224)" for messages.
std::string ShapeToString(const Shape& shape);

// Number of elements a shape holds (1 for the empty shape of a scalar). Throws lumen::Error when
// the count does not fit in size_t, or the rank exceeds kMaxRank.
size_t ShapeElementCount(const Shape& shape);

// The arma::fcube that holds a tensor's elements (defined in source/tensor/tensor.cpp only).
struct TensorStorage;

// An operand's data: a logical shape of any rank over an fcube (see the top of this file).
class Tensor {
 public:
  // An empty tensor: shape (0), no elements. Its shape is not the empty Shape{}, which is a rank-0
  // tensor (a scalar, one element, what PyTorch's x.sum() returns); keeping the two apart lets
  // code compare shapes without mistaking a placeholder for a scalar.
  Tensor();

  // A zero-filled tensor of the given logical shape, owning its memory.
  explicit Tensor(const Shape& shape);

  // A tensor that uses `external_memory` (at least ShapeElementCount(shape) floats) without copying
  // or owning it; sessions use this to let operands share one arena.
  Tensor(float* external_memory, const Shape& shape);

  // Copying always copies the elements (into this tensor's own memory, or into its external memory
  // when it is a view of the same size).
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  // Moving hands the storage over, data() included, and leaves `other` without elements; moving
  // into a view copies instead, since a view is bound to its external memory for its whole life.
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other);
  ~Tensor();

  // Builds a tensor from `values` laid out row-major (PyTorch's contiguous order) in `shape`.
  static Tensor FromRowMajor(const float* values, const Shape& shape);
  // The same from a vector, whose size must equal the shape's element count.
  static Tensor FromRowMajor(const std::vector<float>& values, const Shape& shape);

  // Overwrites every element from `values` laid out row-major in this tensor's shape.
  void CopyFromRowMajor(const float* values);

  // Writes every element to `values` in row-major order (size() floats).
  void CopyToRowMajor(float* values) const;

  // Returns the elements in row-major order.
  std::vector<float> ToRowMajor() const;

  // The logical shape.
  const Shape& shape() const { return shape_; }
  // Number of logical dimensions.
  size_t rank() const { return shape_.size(); }
  // fcube slices: the product of every dimension but the last two (0 when the last two hold no
  // element: an empty tensor stores no slices).
  uint32_t channels() const { return channels_; }
  // fcube rows: the second-to-last dimension.
  uint32_t rows() const { return rows_; }
  // fcube cols: the last dimension.
  uint32_t cols() const { return cols_; }
  // Total number of elements.
  size_t size() const { return size_; }
  // True when the tensor holds no elements.
  bool empty() const { return size_ == 0; }

  // Raw storage in fcube order (channel by channel, each channel column-major).
  float* data() { return data_; }
  const float* data() const { return data_; }
  // Start of one channel's rows x cols column-major matrix.
  float* channel_data(size_t channel) { return data_ + channel * rows_ * cols_; }
  const float* channel_data(size_t channel) const { return data_ + channel * rows_ * cols_; }

  // Element at (channel, row, col) in fcube coordinates, unchecked.
  float& at(uint32_t channel, uint32_t row, uint32_t col) {
    return data_[(static_cast<size_t>(channel) * cols_ + col) * rows_ + row];
  }
  float at(uint32_t channel, uint32_t row, uint32_t col) const {
    return data_[(static_cast<size_t>(channel) * cols_ + col) * rows_ + row];
  }

  // Element at a logical index (one entry per dimension of shape()), checked; throws on a bad
  // index.
  float& at(const std::vector<uint32_t>& index);
  float at(const std::vector<uint32_t>& index) const;

  // Sets every element to `value`.
  void Fill(float value);

  // Sets every element from row-major `values`; throws if the count differs from size().
  void Fill(const std::vector<float>& values);

  // Changes the logical shape keeping the row-major element order (what PyTorch's view/reshape
  // give). Throws if the element counts differ. A view keeps using its external memory.
  void Reshape(const Shape& new_shape);

 private:
  // Computes where in storage the element at a logical index lives (checked).
  size_t StorageOffset(const std::vector<uint32_t>& index) const;

  // Reads the members below from the storage again, after anything that may have changed it.
  void CacheStorage();
  // Gives the cube new dimensions (the same element count keeps the same memory, a view's too)
  // and caches them.
  void SetCubeSize(uint32_t channels, uint32_t rows, uint32_t cols);

  Shape shape_;
  // The cube; null while the tensor has never held elements (a default-constructed tensor
  // allocates nothing).
  std::unique_ptr<TensorStorage> storage_;
  // The cube's memory and dimensions, cached so that the accessors above stay inline.
  float* data_ = nullptr;
  uint32_t channels_ = 0;
  uint32_t rows_ = 0;
  uint32_t cols_ = 0;
  size_t size_ = 0;
};

// Copies `source` into `target` element by element in row-major order, as PyTorch's view/reshape
// would: the shapes may differ but the element counts must match. Allocates nothing.
void CopyReshaped(const Tensor& source, Tensor* target);

}  // namespace lumen

#endif  // LUMEN_TENSOR_HPP_
