// torch.split / torch.chunk: cut a tensor into pieces along one dimension (one output per piece).
#ifndef LUMEN_LAYER_SPLIT_HPP_
#define LUMEN_LAYER_SPLIT_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// The inverse of Concatenate: output k takes its (extent_k * inner) floats of every block.
class Split : public Layer {
 public:
  // Reads dim and split_size_or_sections (torch.split) or chunks (torch.chunk).
  explicit Split(const RuntimeOperator& op);
  // Computes the pieces PyTorch would make and checks them against the graph's outputs.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Copies every piece out.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  int dim_ = 0;
  int split_size_ = 0;         // torch.split with an int, or torch.chunk (computed in Prepare)
  int chunks_ = 0;             // torch.chunk
  std::vector<int> sections_;  // torch.split with a list
  size_t outer_ = 0;
  size_t inner_ = 0;
  size_t input_extent_ = 0;
  std::vector<size_t> starts_;  // first index of each piece along dim
  std::vector<size_t> extents_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_SPLIT_HPP_
