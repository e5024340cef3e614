#include "lumen/tensor.hpp"

#include <algorithm>
#include <armadillo>
#include <limits>
#include <utility>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"

namespace lumen {

// A tensor's elements: Armadillo's column-major cube, slices = channels (see tensor.hpp). Only this
// file sees it, so that a program using Lumen compiles without Armadillo.
struct TensorStorage {
  arma::fcube cube;
  // True for a view: its cube is bound to the external memory for its whole life (strict).
  bool external = false;
};

namespace {

// The fcube dimensions (slices, rows, cols) that hold a logical shape; see tensor.hpp.
struct CubeDims {
  uint32_t channels = 1;
  uint32_t rows = 1;
  uint32_t cols = 1;
};

CubeDims CubeDimsOf(const Shape& shape) {
  // LESSON 02 BEGIN: fold every dimension but the last two into channels
  CubeDims dims;
  const size_t rank = shape.size();
  if (rank >= 1) dims.cols = shape[rank - 1];
  if (rank >= 2) dims.rows = shape[rank - 2];
  uint64_t channels = 1;
  for (size_t i = 0; i + 2 < rank; ++i) channels *= shape[i];
  if (channels > std::numeric_limits<uint32_t>::max()) {
    throw Error(Concat("shape ", ShapeToString(shape), " is too large for a tensor"));
  }
  dims.channels = static_cast<uint32_t>(channels);
  return dims;
  // LESSON 02 END
}

// The channels a cube of `rows` x `cols` planes stores: none when the planes are empty. Armadillo
// keeps a pointer per slice even when every slice is empty, so an empty (1, 2^29, 0, 4) tensor
// would otherwise take 4 GB of pointers to nothing (found by the ONNX fuzzer: a Pad of an empty
// input by 2^29 channels). Tensors with no elements report channels() == 0.
uint32_t StoredChannels(uint32_t rows, uint32_t cols, uint32_t channels) {
  return uint64_t{rows} * cols == 0 ? 0 : channels;
}

// Storage order equals row-major order when each channel is a single row or a single column.
bool StorageIsRowMajor(const CubeDims& dims) { return dims.rows <= 1 || dims.cols <= 1; }

}  // namespace

std::string ShapeToString(const Shape& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + ")";
}

size_t ShapeElementCount(const Shape& shape) {
  if (shape.size() > kMaxRank) {
    throw Error(Concat("shape ", ShapeToString(shape), " has rank ", shape.size(),
                       "; Lumen supports tensors of rank up to ", kMaxRank));
  }
  size_t count = 1;
  for (uint32_t extent : shape) count = CheckedMultiply(count, extent, "element count of a shape");
  return count;
}

// Out of line like every special member: only this file knows what destroying the storage takes.
Tensor::Tensor() : shape_{0} {}

Tensor::Tensor(const Shape& shape) : shape_(shape) {
  ShapeElementCount(shape);  // throws on an element count that overflows
  const CubeDims dims = CubeDimsOf(shape);
  storage_ = std::make_unique<TensorStorage>();
  storage_->cube.zeros(dims.rows, dims.cols, StoredChannels(dims.rows, dims.cols, dims.channels));
  CacheStorage();
}

Tensor::Tensor(float* external_memory, const Shape& shape) : shape_(shape) {
  ShapeElementCount(shape);
  const CubeDims dims = CubeDimsOf(shape);
  // copy_aux_mem = false, strict = true: the cube is bound to this memory for its whole life.
  storage_.reset(new TensorStorage{
      arma::fcube(external_memory, dims.rows, dims.cols,
                  StoredChannels(dims.rows, dims.cols, dims.channels), false, true),
      true});
  CacheStorage();
}

Tensor::Tensor(const Tensor& other) : shape_(other.shape_) {
  // Armadillo's copy constructor gives the copy memory of its own, even from a view.
  if (other.storage_) storage_.reset(new TensorStorage{other.storage_->cube, false});
  CacheStorage();
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  static const arma::fcube kNoElements;
  if (!storage_) storage_ = std::make_unique<TensorStorage>();
  // Armadillo copies into a view's memory when the count matches, and refuses any other count.
  storage_->cube = other.storage_ ? other.storage_->cube : kNoElements;
  shape_ = other.shape_;
  CacheStorage();
  return *this;
}

Tensor::Tensor(Tensor&& other) noexcept
    : shape_(std::move(other.shape_)), storage_(std::move(other.storage_)) {
  CacheStorage();
  other.CacheStorage();
}

Tensor& Tensor::operator=(Tensor&& other) {
  if (this == &other) return *this;
  if (storage_ && storage_->external) return *this = other;  // a copy: the view stays in place
  shape_ = std::move(other.shape_);
  storage_ = std::move(other.storage_);
  CacheStorage();
  other.CacheStorage();
  return *this;
}

Tensor::~Tensor() = default;

void Tensor::CacheStorage() {
  if (!storage_) {
    data_ = nullptr;
    channels_ = rows_ = cols_ = 0;
    size_ = 0;
    return;
  }
  arma::fcube& cube = storage_->cube;
  data_ = cube.memptr();
  channels_ = static_cast<uint32_t>(cube.n_slices);
  rows_ = static_cast<uint32_t>(cube.n_rows);
  cols_ = static_cast<uint32_t>(cube.n_cols);
  size_ = cube.n_elem;
}

void Tensor::SetCubeSize(uint32_t channels, uint32_t rows, uint32_t cols) {
  if (!storage_) storage_ = std::make_unique<TensorStorage>();
  // Armadillo's order: rows, cols, slices.
  storage_->cube.set_size(rows, cols, StoredChannels(rows, cols, channels));
  CacheStorage();
}

Tensor Tensor::FromRowMajor(const float* values, const Shape& shape) {
  Tensor tensor(shape);
  tensor.CopyFromRowMajor(values);
  return tensor;
}

Tensor Tensor::FromRowMajor(const std::vector<float>& values, const Shape& shape) {
  Tensor tensor(shape);
  tensor.Fill(values);
  return tensor;
}

void Tensor::CopyFromRowMajor(const float* values) {
  // LESSON 02 BEGIN: row-major values into the column-major channels
  const uint32_t row_count = rows();
  const uint32_t col_count = cols();
  if (StorageIsRowMajor({channels(), row_count, col_count})) {
    std::copy(values, values + size(), data());
    return;
  }
  // Row-major (row, col) -> column-major (row, col): a transpose of each channel.
  for (uint32_t channel = 0; channel < channels(); ++channel) {
    const float* source = values + static_cast<size_t>(channel) * row_count * col_count;
    float* target = channel_data(channel);
    for (uint32_t col = 0; col < col_count; ++col) {
      for (uint32_t row = 0; row < row_count; ++row) {
        target[col * row_count + row] = source[row * col_count + col];
      }
    }
  }
  // LESSON 02 END
}

void Tensor::CopyToRowMajor(float* values) const {
  // LESSON 02 BEGIN: the column-major channels out in row-major order
  const uint32_t row_count = rows();
  const uint32_t col_count = cols();
  if (StorageIsRowMajor({channels(), row_count, col_count})) {
    std::copy(data(), data() + size(), values);
    return;
  }
  for (uint32_t channel = 0; channel < channels(); ++channel) {
    const float* source = channel_data(channel);
    float* target = values + static_cast<size_t>(channel) * row_count * col_count;
    for (uint32_t row = 0; row < row_count; ++row) {
      for (uint32_t col = 0; col < col_count; ++col) {
        target[row * col_count + col] = source[col * row_count + row];
      }
    }
  }
  // LESSON 02 END
}

std::vector<float> Tensor::ToRowMajor() const {
  std::vector<float> values(size());
  CopyToRowMajor(values.data());
  return values;
}

size_t Tensor::StorageOffset(const std::vector<uint32_t>& index) const {
  if (index.size() != shape_.size()) {
    throw Error(Concat("index of rank ", index.size(), " used on a tensor of shape ",
                       ShapeToString(shape_)));
  }
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] >= shape_[i]) {
      throw Error(Concat("index ", index[i], " is out of range for dimension ", i,
                         " of a tensor of shape ", ShapeToString(shape_)));
    }
  }
  const size_t rank = index.size();
  size_t channel = 0;
  for (size_t i = 0; i + 2 < rank; ++i) channel = channel * shape_[i] + index[i];
  const size_t row = rank >= 2 ? index[rank - 2] : 0;
  const size_t col = rank >= 1 ? index[rank - 1] : 0;
  return channel * rows() * cols() + col * rows() + row;
}

float& Tensor::at(const std::vector<uint32_t>& index) { return data()[StorageOffset(index)]; }

float Tensor::at(const std::vector<uint32_t>& index) const { return data()[StorageOffset(index)]; }

void Tensor::Fill(float value) { std::fill(data_, data_ + size_, value); }

void Tensor::Fill(const std::vector<float>& values) {
  if (values.size() != size()) {
    throw Error(Concat("cannot fill a tensor of shape ", ShapeToString(shape_), " (", size(),
                       " elements) from ", values.size(), " values"));
  }
  CopyFromRowMajor(values.data());
}

void Tensor::Reshape(const Shape& new_shape) {
  // LESSON 02 BEGIN: a new shape, same row-major element order (PyTorch's view)
  if (ShapeElementCount(new_shape) != size()) {
    throw Error(Concat("cannot reshape a tensor of shape ", ShapeToString(shape_), " (", size(),
                       " elements) to ", ShapeToString(new_shape), " (",
                       ShapeElementCount(new_shape), " elements)"));
  }
  const CubeDims old_dims{channels(), rows(), cols()};
  const CubeDims new_dims = CubeDimsOf(new_shape);
  // When both layouts already store elements in row-major order, or the last two dimensions do
  // not change, memory order is untouched and only the dimensions are relabelled.
  const bool same_order = (StorageIsRowMajor(old_dims) && StorageIsRowMajor(new_dims)) ||
                          (old_dims.rows == new_dims.rows && old_dims.cols == new_dims.cols);
  if (same_order) {
    SetCubeSize(new_dims.channels, new_dims.rows, new_dims.cols);  // same count: no reallocation
    shape_ = new_shape;
    return;
  }
  const std::vector<float> values = ToRowMajor();
  SetCubeSize(new_dims.channels, new_dims.rows, new_dims.cols);
  shape_ = new_shape;
  CopyFromRowMajor(values.data());
  // LESSON 02 END
}

void CopyReshaped(const Tensor& source, Tensor* target) {
  if (source.size() != target->size()) {
    throw Error(Concat("cannot copy a tensor of shape ", ShapeToString(source.shape()), " into ",
                       ShapeToString(target->shape())));
  }
  const CubeDims from{source.channels(), source.rows(), source.cols()};
  const CubeDims to{target->channels(), target->rows(), target->cols()};
  if ((StorageIsRowMajor(from) && StorageIsRowMajor(to)) ||
      (from.rows == to.rows && from.cols == to.cols)) {
    std::copy(source.data(), source.data() + source.size(), target->data());
    return;
  }
  // Walk both tensors in row-major order with one (channel, row, col) counter each.
  uint32_t channel = 0, row = 0, col = 0;
  for (uint32_t to_channel = 0; to_channel < to.channels; ++to_channel) {
    for (uint32_t to_row = 0; to_row < to.rows; ++to_row) {
      for (uint32_t to_col = 0; to_col < to.cols; ++to_col) {
        target->at(to_channel, to_row, to_col) = source.at(channel, row, col);
        if (++col == from.cols) {
          col = 0;
          if (++row == from.rows) {
            row = 0;
            ++channel;
          }
        }
      }
    }
  }
}

}  // namespace lumen
