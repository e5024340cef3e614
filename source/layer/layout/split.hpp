// torch.split / torch.chunk / torch.tensor_split: cut a tensor into pieces along one dimension
// (one output per piece).
#ifndef LUMEN_LAYER_LAYOUT_SPLIT_HPP_
#define LUMEN_LAYER_LAYOUT_SPLIT_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// The inverse of Concatenate: output k takes its (extent_k * inner) floats of every block. The
// pieces are computed from the input's extent at run time with PyTorch's rules, so another input
// size gives other pieces; the number of pieces must still equal the operator's outputs.
class Split : public Layer {
 public:
  // Reads dim and one of: split_size_or_sections (torch.split: an int size or a list of sizes),
  // chunks (torch.chunk), sections or indices (torch.tensor_split).
  explicit Split(const LayerConfig& config);
  // The input's shape with each piece's extent along dim.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Computes where each piece starts for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Copies every piece out.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  // How the operator cuts.
  enum class Mode {
    kSize,      // torch.split with an int: pieces of size_, the last one shorter
    kSizes,     // torch.split with a list: these sizes, which must add up to the extent
    kChunks,    // torch.chunk: ceil(extent / chunks) per piece, so maybe fewer pieces
    kSections,  // torch.tensor_split with an int: sections pieces, the first ones 1 longer
    kIndices,   // torch.tensor_split with a list: cut before each index
  };
  // One piece: its first index along dim and its extent.
  struct Piece {
    size_t start;
    size_t extent;
  };
  // The pieces PyTorch makes of an extent along dim; fails when their number differs from the
  // operator's outputs, or list sizes do not add up to the extent.
  std::vector<Piece> Pieces(const Shape& input) const;

  int dim_ = 0;
  Mode mode_ = Mode::kSize;
  int size_ = 0;             // kSize, kChunks, kSections
  std::vector<int> values_;  // kSizes, kIndices
  size_t output_count_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_SPLIT_HPP_
