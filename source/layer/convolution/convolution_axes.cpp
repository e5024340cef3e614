#include "layer/convolution/convolution_axes.hpp"

#include "kernel/padding.hpp"
#include "lumen/error.hpp"

namespace lumen {

PaddingMode ReadPaddingMode(const LayerConfig& config) {
  const std::string mode = config.StringParam("padding_mode", "zeros");
  if (mode == "zeros") return PaddingMode::kConstant;
  if (mode == "reflect") return PaddingMode::kReflect;
  if (mode == "replicate") return PaddingMode::kReplicate;
  if (mode == "circular") return PaddingMode::kCircular;
  throw Error(Concat(config.Describe(), ": unknown padding_mode '", mode,
                     "' (expected zeros, reflect, replicate or circular)"));
}

int SpatialRankOf(const std::string& type) {
  const size_t size = type.size();
  if (size >= 2 && type[size - 1] == 'd' && type[size - 2] >= '1' && type[size - 2] <= '3') {
    return type[size - 2] - '0';
  }
  return 2;
}

std::array<int, 3> ReadAxes(const LayerConfig& config, const std::string& key, int rank,
                            int fallback, int leading) {
  std::array<int, 3> result{leading, leading, leading};
  std::vector<int> values(static_cast<size_t>(rank), fallback);
  if (config.HasParam(key) && !config.Param(key).IsNone()) {
    const Parameter& parameter = config.Param(key);
    values = parameter.type() == Parameter::Type::kInt ? std::vector<int>{parameter.AsInt()}
                                                       : config.IntArrayParam(key);
    if (values.size() == 1) values.assign(static_cast<size_t>(rank), values[0]);
    if (values.size() != static_cast<size_t>(rank)) {
      throw Error(Concat(config.Describe(), ": '", key, "' must be ", rank, " ints, got '",
                         parameter.text(), "'"));
    }
  }
  for (int axis = 0; axis < rank; ++axis) result[3 - rank + axis] = values[axis];
  return result;
}

VolumeView ViewAsVolume(const Shape& input, int rank) {
  const size_t size = input.size();
  const auto spatial = static_cast<size_t>(rank);
  const std::vector<std::ptrdiff_t> strides = SignedStorageStrides(input);
  const bool batched = size == spatial + 2;
  VolumeView view;
  view.shape = {batched ? input[0] : 1, input[size - spatial - 1], 1, 1, 1};
  view.strides = {batched ? strides[0] : 0, strides[size - spatial - 1], 0, 0, 0};
  for (size_t axis = 0; axis < spatial; ++axis) {
    view.shape[5 - spatial + axis] = input[size - spatial + axis];
    view.strides[5 - spatial + axis] = strides[size - spatial + axis];
  }
  return view;
}

Shape VolumeOutputShape(const Shape& input, int rank, int channels,
                        const std::array<int, 3>& extents) {
  Shape output = input;
  const size_t size = output.size();
  const auto spatial = static_cast<size_t>(rank);
  output[size - spatial - 1] = static_cast<uint32_t>(channels);
  for (size_t axis = 0; axis < spatial; ++axis) {
    output[size - spatial + axis] = static_cast<uint32_t>(extents[3 - spatial + axis]);
  }
  return output;
}

namespace {

// The copy between (samples, C, L) rows and the tensor layout of `shape`, (N, C, L) or (C, L);
// `to_rows` says which way.
StridedCopy RowsCopy(const Shape& shape, bool to_rows) {
  const size_t rank = shape.size();
  const std::vector<std::ptrdiff_t> strides = SignedStorageStrides(shape);
  const size_t samples = rank == 3 ? shape[0] : 1;
  const auto channels = static_cast<std::ptrdiff_t>(shape[rank - 2]);
  const auto length = static_cast<std::ptrdiff_t>(shape[rank - 1]);
  StridedCopy copy;
  copy.extents = {samples, shape[rank - 2], shape[rank - 1]};
  const std::vector<std::ptrdiff_t> rows = {channels * length, length, 1};
  const std::vector<std::ptrdiff_t> tensor = {rank == 3 ? strides[0] : 0, strides[rank - 2],
                                              strides[rank - 1]};
  copy.source_strides = to_rows ? tensor : rows;
  copy.target_strides = to_rows ? rows : tensor;
  return MakeStridedCopy(copy);
}

}  // namespace

StridedCopy RowsToChannelsInnermost(const Shape& output) { return RowsCopy(output, false); }

StridedCopy ChannelsInnermostToRows(const Shape& input) { return RowsCopy(input, true); }

}  // namespace lumen
