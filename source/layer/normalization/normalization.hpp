// What the normalisation layers share (LayerNorm, RMSNorm, GroupNorm, InstanceNorm): where their
// weight and bias come from, and the layer that normalises over the trailing dimensions
// (LayerNorm and RMSNorm). The arithmetic is kernel/normalization.hpp.
#ifndef LUMEN_LAYER_NORMALIZATION_NORMALIZATION_HPP_
#define LUMEN_LAYER_NORMALIZATION_NORMALIZATION_HPP_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernel/normalization.hpp"
#include "layer/layer.hpp"

namespace lumen {

// A normalisation's weight and bias together.
struct AffineParameters {
  WeightParameter weight;
  WeightParameter bias;

  // The inputs a normalisation reads: its data, plus the weight and the bias when they are
  // operands.
  size_t InputCount() const;
  // Throws lumen::Error naming `layer` unless the weight and the bias, where they are operands,
  // have `shape` in `input_shapes`.
  void CheckOperandShapes(const Layer& layer, const std::vector<Shape>& input_shapes,
                          const Shape& shape) const;
};

// For the F.* spellings: the weight and bias operands (or None) of `config`, whose first input is
// the data.
AffineParameters FunctionAffineArguments(const LayerConfig& config);

// nn.LayerNorm's weight and bias (stored with the model when elementwise_affine is True, the bias
// possibly alone missing), or F.layer_norm's operands; used by LayerNorm and ChannelLayerNorm.
AffineParameters LayerNormAffine(const LayerConfig& config, const Shape& normalized_shape);

// Per session, what every normalisation layer keeps: where its groups lie in memory for the
// input's shape and which weight each element takes (the weight and bias themselves are found per
// run, since they may be operands).
struct NormalizationState : LayerState {
  NormalizationGroups groups;
  NormalizationAffine affine;

  // Reserves the per-thread scratch NormalizeGroups needs for `groups` in the context's workspace
  // (if any), so that Forward does not allocate: call it in Prepare once `groups` is set.
  void ReserveScratch(const PrepareContext& context) const;

  // Lays out GroupNorm's groups (InstanceNorm's: per_group 1) over `batch` samples of
  // `group_count` x `per_group` channels, per_group neighbouring channels to a group, each channel
  // holding `positions` values. With `planes` (two or more spatial dimensions) each channel is one
  // contiguous plane and a group neighbouring planes, one contiguous block; otherwise ((N, C, L),
  // stored as slices of C x L column-major) the channels are the lanes and a group pools per_group
  // of them.
  void LayOutChannelGroups(size_t batch, size_t group_count, size_t per_group, size_t positions,
                           bool planes);
};

// A layer that normalises the groups its Prepare lays out in a NormalizationState, with one spec
// and one weight and bias: LayerNorm, RMSNorm, GroupNorm, InstanceNorm and ChannelLayerNorm differ
// only in their checks and in where their groups lie, so OutputShapes, Prepare and Forward are
// these, and a subclass says the two things that differ (AffineShape, LayOutGroups).
class NormalizationLayer : public Layer {
 public:
  // The input's shape, once AffineShape accepts the input and the weight and bias operands (the
  // F.* spellings) have the shape it returns.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, InputCount());
    affine_.CheckOperandShapes(*this, input_shapes, AffineShape(input_shapes[0]));
    return {input_shapes[0]};
  }
  // Lays the groups out for the input's shape (LayOutGroups) and reserves the kernel's scratch.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Normalises every group of inputs[0] into outputs[0], as the session's NormalizationState lays
  // the groups and the weights out.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 protected:
  // A layer computing `spec` with the weight and bias `affine` (absent ones allowed).
  NormalizationLayer(const LayerConfig& config, const NormalizationSpec& spec,
                     AffineParameters affine = {});

  // Throws lumen::Error naming the layer unless it normalises inputs of shape `input`; returns
  // the shape of the weight and bias for that input.
  virtual Shape AffineShape(const Shape& input) const = 0;
  // Sets where the groups of an input of shape `input` lie in memory, and which weight each of
  // their elements takes.
  virtual void LayOutGroups(const Shape& input, NormalizationState* state) const = 0;
  // The inputs the layer reads: its data, plus the weight and bias where they are operands.
  virtual size_t InputCount() const { return affine_.InputCount(); }
  // A new state for Prepare to fill; a subclass that keeps more per session returns its own.
  virtual std::unique_ptr<NormalizationState> NewState() const;

  // What the layer was built with.
  const NormalizationSpec& spec() const { return spec_; }
  const AffineParameters& affine() const { return affine_; }
  // Sets the weight and bias, for a subclass that reads them after its own checks.
  void set_affine(AffineParameters affine) { affine_ = std::move(affine); }

 private:
  NormalizationSpec spec_;
  AffineParameters affine_;
};

// normalized_shape as pnnx writes it, `(64)` or `(9,11)` (or a bare int); throws lumen::Error
// naming the operator when it is missing, empty or not positive.
Shape NormalizedShapeParam(const LayerConfig& config);

// eps as pnnx writes it; None (RMSNorm's default) gives `none_value`.
float EpsParam(const LayerConfig& config, float fallback, float none_value);

// Normalises over the last len(normalized_shape) dimensions of its input, whose trailing extents
// must equal normalized_shape, with a weight and bias of that shape (LayerNorm, RMSNorm).
class TrailingNormalization : public NormalizationLayer {
 protected:
  // A layer computing `spec` over `normalized_shape`, with optional weight and bias.
  TrailingNormalization(const LayerConfig& config, Shape normalized_shape,
                        const NormalizationSpec& spec, AffineParameters affine);

  // normalized_shape, once the input's last dimensions are it.
  Shape AffineShape(const Shape& input) const override;
  // Each group is one contiguous block of the trailing dimensions (TrailingGroups).
  void LayOutGroups(const Shape& input, NormalizationState* state) const override;

  // What the layer was built with, for a subclass's channels-first form.
  const Shape& normalized_shape() const { return normalized_shape_; }

 private:
  Shape normalized_shape_;
};

// lumen.ChannelLayerNorm (channel_layer_norm.cpp) over the `channels` of an (N, C, H, W) map,
// named `name`, with a LayerNorm's eps and stored (or absent) weight and bias: that LayerNorm's
// channels-first form.
std::unique_ptr<Layer> MakeChannelLayerNorm(const std::string& name, uint32_t channels, float eps,
                                            AffineParameters affine);

// The groups of the last `trailing` dimensions of `shape` (1 <= trailing <= rank): contiguous
// blocks when they include both of the last two dimensions, lanes otherwise.
NormalizationGroups TrailingGroups(const Shape& shape, size_t trailing);

}  // namespace lumen

#endif  // LUMEN_LAYER_NORMALIZATION_NORMALIZATION_HPP_
