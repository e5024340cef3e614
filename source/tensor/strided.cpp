#include "tensor/strided.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "base/thread_pool.hpp"
#include "lumen/error.hpp"

namespace lumen {

size_t MemoryPosition(size_t axis, size_t rank) {
  if (rank >= 2 && axis == rank - 1) return rank - 2;
  if (rank >= 2 && axis == rank - 2) return rank - 1;
  return axis;
}

std::vector<size_t> StorageStrides(const Shape& shape) {
  const size_t rank = shape.size();
  std::vector<size_t> memory_extents(rank);
  for (size_t axis = 0; axis < rank; ++axis)
    memory_extents[MemoryPosition(axis, rank)] = shape[axis];
  std::vector<size_t> memory_strides(rank);
  size_t stride = 1;
  for (size_t position = rank; position-- > 0;) {
    memory_strides[position] = stride;
    stride *= memory_extents[position];
  }
  std::vector<size_t> strides(rank);
  for (size_t axis = 0; axis < rank; ++axis)
    strides[axis] = memory_strides[MemoryPosition(axis, rank)];
  return strides;
}

AxisSplit SplitAroundAxis(const Shape& shape, size_t axis) {
  if (axis >= shape.size()) {
    throw Error(Concat("dimension ", axis, " is out of range for shape ", ShapeToString(shape)));
  }
  const std::vector<size_t> strides = StorageStrides(shape);
  AxisSplit split{1, shape[axis], strides[axis]};
  // Outer = the product of the other extents, computed without dividing: an empty dimension
  // (extent 0) anywhere must give an empty walk, not a division by zero.
  split.outer = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d != axis) split.outer *= shape[d];
  }
  if (split.inner != 0) split.outer /= split.inner;
  return split;
}

namespace {

// The walk of GatherStrided and of RunStridedCopy into a dense target: target element k, the k-th
// of the walk over `extents` (outermost first, `rank` of them, none 0), is source element
// offset + the sum of its indices times `steps`.
void GatherInWalkOrder(const float* source, std::ptrdiff_t offset, const size_t* extents,
                       const std::ptrdiff_t* steps, size_t rank, float* target, ThreadPool* pool) {
  const size_t inner = extents[rank - 1];
  const std::ptrdiff_t inner_step = steps[rank - 1];
  size_t elements = 1;
  for (size_t position = 0; position < rank; ++position) elements *= extents[position];
  const auto outer = static_cast<std::ptrdiff_t>(elements / inner);
  const bool parallel = elements >= (1 << 15);
  // A transpose: the output's runs read the input with a step, but the input is contiguous along
  // another of the output's dimensions. Then kTile runs that differ only there are filled
  // together, each step one read of kTile neighbouring floats, instead of each element a read
  // from its own cache line.
  constexpr size_t kTile = 8;
  size_t fast = rank;  // memory position of that dimension, if any
  for (size_t position = 0; position + 1 < rank; ++position) {
    if (steps[position] == 1 && extents[position] >= kTile) fast = position;
  }
  if (inner_step != 1 && fast < rank) {
    // Output runs from one index of `fast` to the next.
    size_t fast_run_step = 1;
    for (size_t position = fast + 1; position + 1 < rank; ++position) {
      fast_run_step *= extents[position];
    }
    const size_t chunks = (extents[fast] + kTile - 1) / kTile;
    const auto items = static_cast<std::ptrdiff_t>(outer / extents[fast] * chunks);
    ParallelFor(
        pool, items,
        [&](std::ptrdiff_t item) {
          const size_t chunk = static_cast<size_t>(item) % chunks;
          size_t remaining = static_cast<size_t>(item) / chunks;
          std::ptrdiff_t position = offset + static_cast<std::ptrdiff_t>(chunk * kTile);
          size_t run = chunk * kTile * fast_run_step;
          size_t run_step = 1;
          for (size_t dim = rank - 1; dim-- > 0;) {
            if (dim != fast) {
              const size_t index = remaining % extents[dim];
              remaining /= extents[dim];
              position += static_cast<std::ptrdiff_t>(index) * steps[dim];
              run += index * run_step;
            }
            run_step *= extents[dim];
          }
          const size_t count = std::min(kTile, extents[fast] - chunk * kTile);
          const size_t run_gap = fast_run_step * inner;
          float* runs = target + run * inner;
          for (size_t i = 0; i < inner; ++i) {
            const float* from = source + position + static_cast<std::ptrdiff_t>(i) * inner_step;
            if (count == kTile) {
              float values[kTile];
              std::copy(from, from + kTile, values);
              for (size_t j = 0; j < kTile; ++j) runs[j * run_gap + i] = values[j];
            } else {
              for (size_t j = 0; j < count; ++j) runs[j * run_gap + i] = from[j];
            }
          }
        },
        Schedule::kStatic, parallel);
    return;
  }
  ParallelFor(
      pool, outer,
      [&](std::ptrdiff_t block) {
        std::ptrdiff_t position = offset;
        size_t remaining = static_cast<size_t>(block);
        for (size_t dim = rank - 1; dim-- > 0;) {
          position += static_cast<std::ptrdiff_t>(remaining % extents[dim]) * steps[dim];
          remaining /= extents[dim];
        }
        float* run = target + static_cast<size_t>(block) * inner;
        for (size_t i = 0; i < inner; ++i)
          run[i] = source[position + static_cast<std::ptrdiff_t>(i) * inner_step];
      },
      Schedule::kStatic, parallel);
}

}  // namespace

void GatherStrided(const Tensor& input, std::ptrdiff_t offset,
                   const std::vector<std::ptrdiff_t>& strides, Tensor* output, ThreadPool* pool) {
  const Shape& shape = output->shape();
  const size_t output_rank = shape.size();
  if (strides.size() != output_rank) {
    throw Error(Concat("GatherStrided: ", strides.size(), " strides for an output of shape ",
                       ShapeToString(shape)));
  }
  if (output_rank > kMaxRank) {
    throw Error(Concat("GatherStrided: rank ", output_rank, " is above ", kMaxRank));
  }
  if (output_rank == 0 || output->empty()) {
    if (!output->empty()) output->data()[0] = input.data()[offset];
    return;
  }
  // Walk the output in memory order: the innermost loop is its fastest dimension. Fixed-size
  // arrays: layers call this in Forward, which must not allocate. Extents of 1 add nothing to
  // the walk, and a dimension the input continues without a gap from the next one is one with
  // it: dropping and merging them gives the longest inner runs (a (L, 1, E) slice is L runs of
  // E floats, not L * E runs of one, as its memory order, rows innermost, would give).
  std::array<size_t, kMaxRank> extents{};
  std::array<std::ptrdiff_t, kMaxRank> steps{};
  size_t rank = 0;
  for (size_t position = 0; position < output_rank; ++position) {
    size_t axis = 0;
    while (MemoryPosition(axis, output_rank) != position) ++axis;
    if (shape[axis] == 1) continue;
    if (rank > 0 && steps[rank - 1] == static_cast<std::ptrdiff_t>(shape[axis]) * strides[axis]) {
      extents[rank - 1] *= shape[axis];
      steps[rank - 1] = strides[axis];
      continue;
    }
    extents[rank] = shape[axis];
    steps[rank] = strides[axis];
    ++rank;
  }
  if (rank == 0) {  // a single element
    output->data()[0] = input.data()[offset];
    return;
  }
  GatherInWalkOrder(input.data(), offset, extents.data(), steps.data(), rank, output->data(), pool);
}

StridedCopy MakeStridedCopy(StridedCopy copy) {
  const size_t rank = copy.extents.size();
  if (copy.source_strides.size() != rank || copy.target_strides.size() != rank) {
    throw Error(Concat("StridedCopy: ", rank, " extents but ", copy.source_strides.size(),
                       " source and ", copy.target_strides.size(), " target strides"));
  }
  StridedCopy ordered;
  ordered.source_offset = copy.source_offset;
  ordered.target_offset = copy.target_offset;
  if (std::find(copy.extents.begin(), copy.extents.end(), size_t{0}) != copy.extents.end()) {
    ordered.extents = {0};  // nothing to copy
    ordered.source_strides = ordered.target_strides = {0};
    return ordered;
  }
  // Largest target stride outermost; stable, so equal strides keep the caller's order.
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&copy](size_t a, size_t b) {
    return std::abs(copy.target_strides[a]) > std::abs(copy.target_strides[b]);
  });
  for (size_t d : order) {
    if (copy.extents[d] == 1) continue;
    const auto extent = static_cast<std::ptrdiff_t>(copy.extents[d]);
    // Merge into the previous dimension when both layouts continue it without a gap: fewer,
    // longer inner runs.
    if (!ordered.extents.empty() &&
        ordered.source_strides.back() == extent * copy.source_strides[d] &&
        ordered.target_strides.back() == extent * copy.target_strides[d]) {
      ordered.extents.back() *= copy.extents[d];
      ordered.source_strides.back() = copy.source_strides[d];
      ordered.target_strides.back() = copy.target_strides[d];
      continue;
    }
    ordered.extents.push_back(copy.extents[d]);
    ordered.source_strides.push_back(copy.source_strides[d]);
    ordered.target_strides.push_back(copy.target_strides[d]);
  }
  if (ordered.extents.empty()) {  // a single element
    ordered.extents = {1};
    ordered.source_strides = ordered.target_strides = {0};
  }
  if (ordered.extents.size() > kMaxStridedCopyRank) {
    throw Error(Concat("StridedCopy: ", ordered.extents.size(), " dimensions, above ",
                       kMaxStridedCopyRank));
  }
  return ordered;
}

void RunStridedCopy(const StridedCopy& copy, const float* source, float* target, ThreadPool* pool) {
  const size_t rank = copy.extents.size();
  const size_t inner = copy.extents[rank - 1];
  if (inner == 0) return;
  const std::ptrdiff_t inner_source = copy.source_strides[rank - 1];
  const std::ptrdiff_t inner_target = copy.target_strides[rank - 1];
  // A target written without gaps in the walk's order (MakeStridedCopy orders the walk by the
  // target) is a gather, whose tiled transposes read the source a cache line at a time.
  bool dense = inner_target == 1;
  for (size_t d = rank - 1; dense && d-- > 0;) {
    dense = copy.target_strides[d] ==
            copy.target_strides[d + 1] * static_cast<std::ptrdiff_t>(copy.extents[d + 1]);
  }
  if (dense) {
    GatherInWalkOrder(source, copy.source_offset, copy.extents.data(), copy.source_strides.data(),
                      rank, target + copy.target_offset, pool);
    return;
  }
  size_t runs = 1;  // inner runs in all
  for (size_t d = 0; d + 1 < rank; ++d) runs *= copy.extents[d];
  // Each task copies whole runs, walking them like an odometer.
  ParallelForRuns(pool, runs, inner, [&](size_t first, size_t last) {
    std::array<size_t, kMaxStridedCopyRank> counters{};
    std::ptrdiff_t from = copy.source_offset;
    std::ptrdiff_t to = copy.target_offset;
    size_t remaining = first;
    for (size_t d = rank - 1; d-- > 0;) {
      counters[d] = remaining % copy.extents[d];
      remaining /= copy.extents[d];
      from += static_cast<std::ptrdiff_t>(counters[d]) * copy.source_strides[d];
      to += static_cast<std::ptrdiff_t>(counters[d]) * copy.target_strides[d];
    }
    for (size_t run = first; run < last; ++run) {
      if (inner_source == 1 && inner_target == 1) {
        std::copy(source + from, source + from + inner, target + to);
      } else {
        for (size_t i = 0; i < inner; ++i) {
          target[to + static_cast<std::ptrdiff_t>(i) * inner_target] =
              source[from + static_cast<std::ptrdiff_t>(i) * inner_source];
        }
      }
      for (size_t d = rank - 1; d-- > 0;) {  // next run
        from += copy.source_strides[d];
        to += copy.target_strides[d];
        if (++counters[d] < copy.extents[d]) break;
        from -= static_cast<std::ptrdiff_t>(copy.extents[d]) * copy.source_strides[d];
        to -= static_cast<std::ptrdiff_t>(copy.extents[d]) * copy.target_strides[d];
        counters[d] = 0;
      }
    }
  });
}

void TransposeMatrix(const float* source, size_t rows, size_t cols, float* target,
                     ThreadPool* pool) {
  if (rows == 0 || cols == 0) return;
  // Target row c is source column c: the walk is (c, r), reading source[r * cols + c].
  const size_t extents[] = {cols, rows};
  const std::ptrdiff_t steps[] = {1, static_cast<std::ptrdiff_t>(cols)};
  GatherInWalkOrder(source, 0, extents, steps, 2, target, pool);
}

namespace {

// One piece of the common refinement of two shapes of one element count: `extent` elements of
// dimension `source_dim` of the one, `source_inner` of whose elements lie inside each (likewise
// for the other shape, `target`).
struct ReshapePiece {
  size_t extent = 1;
  size_t source_dim = 0;
  size_t source_inner = 1;
  size_t target_dim = 0;
  size_t target_inner = 1;
};

// The pieces both shapes split into, innermost first, when every dimension of each is a run of
// whole pieces (the extents nest, as (197,12,8) and (197,96) do and (2,3) and (3,2) do not):
// from the innermost dimension outwards, each step takes the smaller of the two rests, which must
// divide the larger. False when they do not nest or the counts differ; no piece for 0 elements.
bool CommonPieces(const Shape& source, const Shape& target, std::vector<ReshapePiece>* pieces) {
  const size_t count = ShapeElementCount(source);
  if (count != ShapeElementCount(target)) return false;
  pieces->clear();
  ReshapePiece piece;
  size_t i = source.size();
  size_t j = target.size();
  size_t source_left = 1;
  size_t target_left = 1;
  while (count > 0) {
    while (source_left == 1 && i > 0) {
      source_left = source[--i];
      piece.source_inner = 1;
    }
    while (target_left == 1 && j > 0) {
      target_left = target[--j];
      piece.target_inner = 1;
    }
    if (source_left == 1 || target_left == 1) break;  // both done: the counts are equal
    piece.extent = std::min(source_left, target_left);
    if (source_left % piece.extent != 0 || target_left % piece.extent != 0) return false;
    piece.source_dim = i;
    piece.target_dim = j;
    pieces->push_back(piece);
    source_left /= piece.extent;
    target_left /= piece.extent;
    piece.source_inner *= piece.extent;
    piece.target_inner *= piece.extent;
  }
  return true;
}

}  // namespace

StorageView WholeTensorView(const Shape& shape) {
  StorageView view;
  view.shape = shape;
  const std::vector<size_t> strides = StorageStrides(shape);
  view.strides.assign(strides.begin(), strides.end());
  return view;
}

bool ReshapeView(const Shape& target, StorageView* view) {
  std::vector<ReshapePiece> pieces;
  if (!CommonPieces(view->shape, target, &pieces)) return false;
  // A piece steps its view dimension's stride times the part of that dimension inside it; the
  // innermost piece of a target dimension gives it its stride, and every further piece must
  // continue that stride without a gap.
  std::vector<std::ptrdiff_t> strides(target.size(), 0);
  for (const ReshapePiece& piece : pieces) {
    const std::ptrdiff_t stride =
        view->strides[piece.source_dim] * static_cast<std::ptrdiff_t>(piece.source_inner);
    if (piece.target_inner == 1) {
      strides[piece.target_dim] = stride;
    } else if (stride !=
               strides[piece.target_dim] * static_cast<std::ptrdiff_t>(piece.target_inner)) {
      return false;
    }
  }
  view->shape = target;
  view->strides = std::move(strides);
  return true;
}

bool ReshapeAsStridedCopy(const Shape& source, const Shape& target, StridedCopy* copy) {
  std::vector<ReshapePiece> pieces;
  if (!CommonPieces(source, target, &pieces)) return false;
  StridedCopy refined;
  if (pieces.empty()) {  // no element, or a single one
    const bool single = ShapeElementCount(source) == 1;
    refined.extents = {single ? size_t{1} : size_t{0}};
    refined.source_strides = refined.target_strides = {0};
    *copy = MakeStridedCopy(refined);
    return true;
  }
  const std::vector<size_t> source_strides = StorageStrides(source);
  const std::vector<size_t> target_strides = StorageStrides(target);
  for (const ReshapePiece& piece : pieces) {
    refined.extents.push_back(piece.extent);
    refined.source_strides.push_back(
        static_cast<std::ptrdiff_t>(source_strides[piece.source_dim] * piece.source_inner));
    refined.target_strides.push_back(
        static_cast<std::ptrdiff_t>(target_strides[piece.target_dim] * piece.target_inner));
  }
  *copy = MakeStridedCopy(refined);
  return true;
}

}  // namespace lumen
