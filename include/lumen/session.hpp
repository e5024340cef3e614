// Session: one inference context over a shared Model: its input shapes, operand memory, threads,
// scratch and profile (public API). A session is used by one thread at a time; run several
// sessions to run a model from several threads at once.
//
//   lumen::Session session(model, {.threads = 2});
//   outputs = session.Run({input});                 // simple: copies in, runs, copies out
//
//   session.SetInputShapes({{1, 3, 160, 160}});     // zero copy: plan for a shape once,
//   session.input(0).CopyFromRowMajor(pixels);      //   fill the input in place,
//   session.Run();                                  //   run,
//   const lumen::Tensor& logits = session.output(0);//   read the output in place
//
//   const lumen::Tensor& features = session.Extract("layer4.1.relu_1");   // any operand
//
// Shapes: each layer infers its output shapes from its inputs, so a session accepts any input
// shape its layers can compute (another image size, batch or sequence length); the shapes in the
// model file are only the defaults. A new shape re-plans memory once; runs at a planned shape
// allocate nothing.
#ifndef LUMEN_SESSION_HPP_
#define LUMEN_SESSION_HPP_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "lumen/model.hpp"
#include "lumen/tensor.hpp"

namespace lumen {

// How a session runs (ONNX Runtime calls these session options).
struct SessionOptions {
  // The most threads a session may have (more is refused with lumen::Error).
  static constexpr int kMaxThreads = 1024;
  // Threads for every parallel loop of this session; 0: one per core this process may use.
  int threads = 0;
  // The most memory the session may plan for its operands, scratch and layer state, in bytes;
  // 0: three quarters of the machine's physical memory (or of the address-space limit, if lower).
  // Planning refuses with lumen::Error above it, before allocating.
  size_t max_memory_bytes = 0;
  // Time every operator on every run (see Session::Profile).
  bool profiling = false;
};

// One operator's time in the last profiled run.
struct OperatorProfile {
  std::string type;                // "nn.Conv2d"
  std::string description;         // "nn.Conv2d 'conv1' (line 7)"
  std::vector<std::string> fused;  // operators fused into it
  double milliseconds = 0.0;
};

// One operand of the current plan, for listings such as lumen_run --dump.
struct OperandReport {
  std::string name;
  Shape shape;
  std::string producer;  // the operator that computes it; "graph input" for inputs
};

// An inference context (see the top of this file).
class Session {
 public:
  // A session over `model`; throws lumen::Error on bad options.
  explicit Session(std::shared_ptr<const Model> model, const SessionOptions& options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the model on `inputs` (one tensor per graph input, PyTorch shapes, batch first) and
  // returns one tensor per graph output. Re-plans if the input shapes changed.
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs);
  // The same, writing into `outputs` and reusing its memory when the shapes have not changed.
  void Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);
  // Runs the model on `inputs` and returns only the operands named in `output_names`, in that
  // order, computing only the operators they depend on (ONNX Runtime's output_names). A name may
  // be a graph output, a graph input, or any other operand, as for Extract (which see: an
  // intermediate operand is kept out of memory reuse from then on, and one fused away is
  // refused). Throws lumen::Error for a name the model does not compute.
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs,
                          const std::vector<std::string>& output_names);

  // Plans for these input shapes (no-op if they are the current ones); throws lumen::Error
  // naming the operator and shapes when some layer cannot compute them, or when the plan would
  // exceed the memory budget.
  void SetInputShapes(const std::vector<Shape>& shapes);
  // Input `index` of the current plan (planned at the export shapes if nothing was planned yet):
  // fill it in place, then call Run().
  Tensor& input(size_t index);
  // Runs the model on the current contents of the inputs.
  void Run();
  // Output `index` after Run(), valid until the next Run or re-plan.
  const Tensor& output(size_t index) const;

  // Computes only the operators the operand called `name` depends on and returns it (ncnn's
  // extract), from the inputs of the last Run (or those filled through input()). The operand is
  // kept out of memory reuse from then on, so it stays readable after later runs. Throws
  // lumen::Error for an unknown name, or before any inputs were given.
  const Tensor& Extract(const std::string& name);
  // Keeps every operand readable after Run (no memory reuse), for dumping them all.
  void KeepAllOperands();
  // Every operand of the current plan, in execution order (inputs first).
  std::vector<OperandReport> Operands() const;
  // The operand called `name` after a Run with KeepAllOperands (or an Extract of it).
  const Tensor& operand(const std::string& name) const;

  // Per-operator times of the last run (SessionOptions::profiling, or set_profiling(true)).
  std::vector<OperatorProfile> Profile() const;
  // Turns per-operator timing on or off for the following runs.
  void set_profiling(bool enabled);
  // Whether runs are timed (SessionOptions::profiling, or set_profiling).
  bool profiling() const;

  // The thread count this session runs with.
  int threads() const;
  // The most bytes this session may plan (SessionOptions::max_memory_bytes or its default).
  size_t memory_budget() const;
  // Bytes of the arena that holds every operand in the current plan.
  size_t planned_activation_bytes() const;
  // Bytes the operands would need with one buffer each, for comparison.
  size_t separate_activation_bytes() const;
  // Bytes of per-thread scratch and per-layer state the session holds.
  size_t scratch_bytes() const;
  // Input shapes of the current plan.
  std::vector<Shape> input_shapes() const;
  // The model this session runs.
  const Model& model() const;

 private:
  struct State;  // everything a session owns (session.cpp)
  std::unique_ptr<State> state_;
};

}  // namespace lumen

#endif  // LUMEN_SESSION_HPP_
