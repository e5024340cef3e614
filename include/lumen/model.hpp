// Model: a loaded model, read-only and shared by every Session that runs it (public API).
//
//   auto model = lumen::Model::Load("resnet18.pnnx.param");      // weights found beside it
//   lumen::Session session(model, {.threads = 2});
//   std::vector<lumen::Tensor> outputs = session.Run({input});
//
// Loading reads the file (its format recognised by content), builds every layer (weights
// converted and packed once) and sorts the operators. Any number of sessions may then run the
// model at the same time, each from its own thread.
#ifndef LUMEN_MODEL_HPP_
#define LUMEN_MODEL_HPP_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lumen {

// What only the engine reads of a model, its built graph (runtime/model_internals.hpp, internal).
class ModelInternals;

// How a model is loaded.
struct ModelOptions {
  // The weights file, for formats that keep weights apart (pnnx's .bin); empty: the file beside
  // the model (`x.pnnx.param` -> `x.pnnx.bin`).
  std::string weights_path;
  // Run the graph passes (passes/passes.hpp: gated activations as one layer, channels-last blocks
  // channels-first, activations fused into the layers before them). Turn off to read every
  // intermediate operand as the file describes it (Session::Extract, lumen_run --dump), at some
  // cost in speed.
  bool fuse = true;
};

// One input or output of a model: what its file declares, and what Lumen takes or returns (ONNX
// Runtime's NodeArg). Lumen computes in float32: an input the file declares as float64 or float16
// is passed as float32, and every output is float32, whatever the file says.
struct TensorInfo {
  std::string name;
  // Extents as the file declares them, batch first: -1 for an extent the file leaves free; empty
  // when the file declares no shape (a session infers every shape from its inputs anyway).
  std::vector<int> shape;
  // Per extent of `shape`, the name the file gives it (ONNX's dim_param, "batch"), or "" (always
  // "" for PNNX files, which name no extent).
  std::vector<std::string> dim_names;
  // The element type the file declares, in numpy's spelling ("float32", "float64", "int64",
  // ...); "" when the file declares none.
  std::string declared_type;
  // The element type Session::Run takes or returns for it: always "float32".
  std::string type = "float32";
};

// A model loaded from a file (see the top of this file).
class Model {
 public:
  // Loads the model at `path`; throws lumen::Error naming the file (and line, op or weight) on
  // any problem.
  static std::shared_ptr<const Model> Load(const std::string& path,
                                           const ModelOptions& options = {});

  // Every op type Lumen can run, sorted, in the files' spelling (pnnx's `nn.Conv2d`, `F.relu`,
  // `torch.cat`, ...; an ONNX file's operators are mapped onto these when it is read).
  static std::vector<std::string> SupportedOperatorTypes();

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Names of the graph's inputs and outputs, in the order Session::Run takes and returns them.
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  // Each input and output as the file declares it, in the order Session::Run takes and returns
  // them.
  std::vector<TensorInfo> inputs() const;
  std::vector<TensorInfo> outputs() const;
  // The shapes the inputs had when the model was exported (a session's defaults); -1 marks an
  // extent the file leaves open, and an empty shape an input it does not annotate.
  std::vector<std::vector<int>> export_input_shapes() const;
  // Number of operators that run (after fusion).
  size_t operator_count() const;
  // Bytes of weights the model file held.
  size_t weight_bytes() const;

 private:
  // Sessions, tests and tools reach the built graph through ModelInternals, so that this header
  // needs none of the engine's.
  friend class ModelInternals;
  explicit Model(std::unique_ptr<ModelInternals> internals);

  std::unique_ptr<ModelInternals> internals_;
};

}  // namespace lumen

#endif  // LUMEN_MODEL_HPP_
