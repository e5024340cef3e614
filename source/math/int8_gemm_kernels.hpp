// The int8 GEMM's micro-kernels and their panel layouts, one per instruction set (internal to
// math/int8_gemm*.cpp, and to kernel/quantized_winograd.cpp, which runs the int16-pair kernels on
// its own panels).
//
// Every layout reads k in groups whose values take 4 bytes (a cell) per row of A and per column
// of W:
//   row panel of A:     for each group: panel_rows cells
//   column panel of W:  for each block of block_groups groups: for each column, the block's cells
//                       (block_groups 1, the vector kernels: per group, panel_columns cells)
// A group is 4 k-steps of bytes (VNNI and AMX: vpdpbusd and tdpbsud sum 4 u8 x s8 products per
// int32) or 2 k-steps widened to int16 (AVX2 and generic: vpmaddwd sums 2 int16 x int16 products
// per lane). k is padded with zeros to a multiple of 4 and the groups to whole blocks in both, so
// a zero activation meets a zero weight. (AMX's blocks of 16 groups are its tiles' rows: a row of
// a weight tile is one channel's 64 bytes of k, a row of an activation tile one group's cells of
// 16 rows.)
#ifndef LUMEN_MATH_INT8_GEMM_KERNELS_HPP_
#define LUMEN_MATH_INT8_GEMM_KERNELS_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "math/int8_gemm.hpp"

namespace lumen {

// One instruction set's layout and routines.
struct Int8Kernel {
  int panel_rows;     // rows of A per row panel: at most 32 (int8_gemm.cpp's kMostBlockRows)
  int panel_columns;  // output channels per column panel
  int group_depth;    // k-steps per 4-byte group: 4 (bytes) or 2 (int16)
  int block_groups;   // groups per block of a column panel (see above): 1, or 16 for AMX (the
                      // GEMM's slices of 512 k-steps hold whole blocks)

  // Packs rows [0, m) of the column-major uint8 A (depth k, leading dimension lda) into row
  // panels at `packed`, zero padding the last panel's rows and k up to a multiple of 4.
  void (*pack_rows)(const uint8_t* a, int lda, int m, int k, uint8_t* packed);

  // The int32 sums of one row panel of A and one column panel of W over `groups` groups, into
  // the panel_rows x panel_columns tile at sums (column j at sums + j * ld); added to the tile's
  // values when `accumulate`, else written over them.
  void (*micro_kernel)(int groups, const uint8_t* a, const uint8_t* b, int32_t* sums, int ld,
                       bool accumulate);

  // The matrix-vector path, for A of a few rows (a Linear at batch 1), where a row panel would be
  // mostly padding; null where the kernel has none (the GEMM path then runs).
  // Writes row x (element p at x[p * stride]) as panel_vector reads it: group g's 4-byte value
  // for column c at ExpandedCellOffset(g, c).
  void (*expand_vector)(const uint8_t* x, int stride, int k, uint8_t* expanded);
  // The row's int32 sums with the panel_columns columns of one weight panel, into sums.
  void (*panel_vector)(int groups, const uint8_t* expanded, const uint8_t* panel, int32_t* sums);

  // Called on a thread before its first micro_kernel and after its last, for a kernel that keeps
  // state per thread (AMX's tile configuration); null for the others.
  void (*begin)();
  void (*end)();

  // Bytes of one packed row panel of depth k.
  int64_t PanelBytes(int k) const { return int64_t{panel_rows} * Groups(k) * 4; }
  // Groups in depth k, padded to whole blocks.
  int Groups(int k) const {
    const int groups = PaddedDepth(k) / group_depth;
    return (groups + block_groups - 1) / block_groups * block_groups;
  }
  // Where expand_vector writes a row's cell of group `group` for column `column`: for the vector
  // kernels, each group's value repeated panel_columns times, so that it lines up with a column
  // panel's bytes; for AMX (blocks), each group's value once, read against every channel's cells
  // of the block in turn.
  size_t ExpandedCellOffset(int group, int column) const {
    return block_groups == 1 ? (static_cast<size_t>(group) * panel_columns + column) * 4
                             : static_cast<size_t>(group) * 4;
  }
  // Where a column panel keeps column `column`'s cell of group `group`, in bytes from its start.
  size_t ColumnCellOffset(int group, int column) const {
    const size_t block = static_cast<size_t>(group / block_groups);
    return ((block * panel_columns + column) * block_groups + group % block_groups) * 4;
  }
  // k rounded up to a multiple of 4.
  static int PaddedDepth(int k) { return (k + 3) / 4 * 4; }
  // Bytes per element of a packed operand (1 for bytes, 2 for int16).
  int ElementBytes() const { return 4 / group_depth; }
};

// Columns ahead of the one being packed whose rows pack_rows asks the memory for: A's columns
// are far apart (a convolution's im2col columns are m bytes apart), a packed block reads a line or
// two of each, and without this every column is a cache miss the packing waits for (measured:
// packing took 31% of a 3136 x 576 x 64 product).
inline constexpr int kPrefetchDistance = 16;

// Prefetches rows [0, m) of the `count` columns from `first` on (those below k).
inline void PrefetchColumns(const uint8_t* a, int lda, int m, int k, int first, int count) {
  for (int p = first; p < first + count && p < k; ++p) {
    const uint8_t* column = a + static_cast<size_t>(p) * lda;
    for (int i = 0; i < m; i += 64) __builtin_prefetch(column + i);
    __builtin_prefetch(column + m - 1);
  }
}

// What every pack_rows does but the bytes of one group: walks A's k in groups of `kGroupDepth`
// steps (prefetching the columns ahead) and each group across the row panels of `kPanelRows`
// rows, calling fill_group(target, column, valid, p): write the group of k-steps p.. of the
// panel's rows into `target` (kPanelRows x 4 bytes), reading rows [0, valid) of A's column p at
// `column` (column p + e at column + e * lda); rows from `valid` on and k-steps from k on are 0.
// The groups are padded with zeros to whole blocks of kBlockGroups.
template <int kPanelRows, int kGroupDepth, int kBlockGroups = 1, typename FillGroup>
void PackRowPanels(const uint8_t* a, int lda, int m, int k, uint8_t* packed, FillGroup fill_group) {
  const int groups =
      (Int8Kernel::PaddedDepth(k) / kGroupDepth + kBlockGroups - 1) / kBlockGroups * kBlockGroups;
  const int panels = (m + kPanelRows - 1) / kPanelRows;
  const size_t group_bytes = static_cast<size_t>(kPanelRows) * 4;
  const size_t panel_bytes = static_cast<size_t>(groups) * group_bytes;
  for (int group = 0; group < groups; ++group) {
    const int p = kGroupDepth * group;
    PrefetchColumns(a, lda, m, k, p + kPrefetchDistance, kGroupDepth);
    for (int panel = 0; panel < panels; ++panel) {
      const int first = panel * kPanelRows;
      if (p >= k) {  // a group that only pads k to whole blocks
        std::memset(packed + panel * panel_bytes + group * group_bytes, 0, group_bytes);
        continue;
      }
      fill_group(packed + panel * panel_bytes + group * group_bytes,
                 a + static_cast<size_t>(p) * lda + first, std::min(kPanelRows, m - first), p);
    }
  }
}

// Rows per group that PackByteQuadGroup writes (VNNI's row panel).
inline constexpr int kByteQuadRows = 32;

// One group of VNNI's row panels (int8_gemm_vnni.cpp), which AMX's packing rearranges into rows:
// for i < kByteQuadRows, row i's bytes of k-steps p..p+3 at target + 4 * i, read from rows
// [0, valid) of A's column p at `column` (column p + e at column + e * lda); rows from `valid` on
// and k-steps from k on are 0.
void PackByteQuadGroup(uint8_t* target, const uint8_t* column, int lda, int valid, int p, int k);

// What every expand_vector writes, for a layout of `kPanelColumns` columns and `kGroupDepth`
// k-steps per group: each group's 4 bytes (its kGroupDepth values of x, widened to 4 / kGroupDepth
// bytes each, little-endian, zero beyond k), kPanelColumns times, for the groups rounded up to
// whole blocks of kBlockGroups.
template <int kPanelColumns, int kGroupDepth, int kBlockGroups = 1>
void ExpandVectorGroups(const uint8_t* x, int stride, int k, uint8_t* expanded) {
  constexpr int kValueBytes = 4 / kGroupDepth;
  const int groups =
      (Int8Kernel::PaddedDepth(k) / kGroupDepth + kBlockGroups - 1) / kBlockGroups * kBlockGroups;
  for (int group = 0; group < groups; ++group) {
    uint8_t cell[4] = {};
    for (int step = 0; step < kGroupDepth; ++step) {
      const int p = kGroupDepth * group + step;
      // The value's low byte; an int16's high byte stays 0 (x86 is little-endian).
      if (p < k) cell[step * kValueBytes] = x[static_cast<size_t>(p) * stride];
    }
    for (int j = 0; j < kPanelColumns; ++j, expanded += 4) std::memcpy(expanded, cell, 4);
  }
}

// The kernel for `isa` (which the caller has checked is available).
const Int8Kernel& Int8KernelFor(Int8Isa isa);

// The kernels, defined in their own files.
const Int8Kernel& GenericInt8Kernel();
const Int8Kernel& Avx2Int8Kernel();
const Int8Kernel& Avx512VnniInt8Kernel();
const Int8Kernel& AmxInt8Kernel();

}  // namespace lumen

#endif  // LUMEN_MATH_INT8_GEMM_KERNELS_HPP_
