// torch.cat: join 2..N tensors along one dimension.
#ifndef LUMEN_LAYER_CONCATENATE_HPP_
#define LUMEN_LAYER_CONCATENATE_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"

namespace lumen {

// Concatenation along any dimension but the batch.
//
// Around the joined dimension a tensor is (outer, extent, inner) blocks in memory (strided.hpp), so
// the output's block o is input 0's block o, then input 1's, ...: one memcpy per input and block.
class Concatenate : public Layer {
 public:
  // Reads dim.
  explicit Concatenate(const RuntimeOperator& op);
  // Checks the inputs agree except along dim and that their extents add up to the output's.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Copies each input's blocks into place.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  int dim_ = 0;
  size_t outer_ = 0;                 // blocks in the output (and in every input)
  std::vector<size_t> block_sizes_;  // floats per block, per input (extent * inner)
};

}  // namespace lumen

#endif  // LUMEN_LAYER_CONCATENATE_HPP_
