// nn.Embedding / F.embedding: a table lookup. Each element of the input is a row number of the
// weight (num_embeddings, embedding_dim); the output is the input's shape with that row appended,
// (..., embedding_dim). nn.Embedding keeps the table as its weight; F.embedding(input, weight)
// reads it as its second operand. Row numbers arrive as floats (every operand is float32): one
// outside [0, num_embeddings) or not a whole number is an error naming the layer, the index and
// the extent, as PyTorch's IndexError is. padding_idx only changes training, so it is ignored.
#include <cmath>
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Looks up one weight row per input element.
class Embedding : public Layer {
 public:
  // nn.Embedding: num_embeddings, embedding_dim and @weight; F.embedding: a weight operand.
  explicit Embedding(const LayerConfig& config) : Layer(config) {
    if (config.type() == "F.embedding") {
      weight_ = WeightParameter::FromInput(config.InputIndexOfRole("weight", 1));
      return;
    }
    const int rows = config.IntParam("num_embeddings");
    const int columns = config.IntParam("embedding_dim");
    if (rows < 1 || columns < 1) {
      Fail(Concat("num_embeddings and embedding_dim must be positive, got ", rows, " and ",
                  columns));
    }
    weight_ = WeightParameter::FromAttribute(
        config, "weight", {static_cast<uint32_t>(rows), static_cast<uint32_t>(columns)});
  }

  // The input's shape followed by embedding_dim.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, weight_.input() >= 0 ? 2 : 1);
    const Shape& weight = weight_.shape(input_shapes);
    if (weight.size() != 2) {
      Fail(Concat("the weight must be 2-D (num_embeddings, embedding_dim), got shape ",
                  ShapeToString(weight)));
    }
    Shape output = input_shapes[IndexInput()];
    output.push_back(weight[1]);
    ShapeElementCount(output);  // throws on a rank above kMaxRank
    return {output};
  }

  // Copies the looked-up rows. In storage order (tensor.hpp) the indices are K channels of R x Q
  // matrices, (..., R, Q); the output (..., R, Q, D) then has K * R channels of Q x D matrices,
  // and index (k, r, q) owns row q of output channel k * R + r.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    const Tensor& indices = *inputs[IndexInput()];
    const Tensor& weight = weight_.tensor(inputs);
    const size_t table_rows = weight.shape()[0];
    const size_t width = weight.shape()[1];
    // The index tensor as channels of R x Q matrices (R = 1 below rank 2).
    const size_t index_rows = indices.rank() >= 2 ? indices.rows() : 1;
    const size_t index_columns = indices.rank() >= 1 ? indices.cols() : 1;
    const size_t index_channels = indices.size() / (index_rows * index_columns);
    for (size_t i = 0; i < indices.size(); ++i) CheckedRow(indices.data()[i], table_rows);
    const float* table = weight.data();
    float* target = outputs[0]->data();
    for (size_t k = 0; k < index_channels; ++k) {
      for (size_t r = 0; r < index_rows; ++r) {
        float* block = target + (k * index_rows + r) * index_columns * width;
        for (size_t q = 0; q < index_columns; ++q) {
          // The input's storage is column-major inside a channel: (r, q) is at q * R + r.
          const float value = indices.data()[(k * index_columns + q) * index_rows + r];
          const size_t row = CheckedRow(value, table_rows);
          // Output row q of this block, column d, is at d * Q + q.
          for (size_t d = 0; d < width; ++d) {
            block[d * index_columns + q] = table[d * table_rows + row];  // weight (row, d)
          }
        }
      }
    }
  }

 private:
  // Which input holds the indices: the first, unless F.embedding names its roles otherwise.
  size_t IndexInput() const { return weight_.input() == 0 ? 1 : 0; }

  // The index as a row number in [0, rows); throws lumen::Error naming the layer otherwise.
  size_t CheckedRow(float value, size_t rows) const {
    if (!(value >= 0.0f && value < static_cast<float>(rows)) || value != std::floor(value)) {
      Fail(Concat("index ", value, " is out of range for a table of ", rows,
                  " rows (num_embeddings; indices must be whole numbers in [0, ", rows, "))"));
    }
    return static_cast<size_t>(value);
  }

  WeightParameter weight_;  // nn.Embedding's stored table, or F.embedding's operand
};

LUMEN_REGISTER_LAYER(Embedding, "nn.Embedding", "F.embedding");

}  // namespace lumen
