#include "lumen/runtime/runtime_graph.hpp"

#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <queue>

#include "lumen/base/error.hpp"
#include "lumen/base/scratch.hpp"
#include "lumen/layer/activation.hpp"
#include "lumen/layer/convolution.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/runtime/memory_plan.hpp"

namespace lumen {
namespace {

std::string Located(const RuntimeOperator& op) {
  return op.line ? Concat(op.Describe(), " (line ", op.line, ")") : op.Describe();
}

}  // namespace

RuntimeGraph::RuntimeGraph(const std::string& param_path, const std::string& bin_path)
    : model_(ReadPnnxModel(param_path, bin_path)) {}

RuntimeGraph::RuntimeGraph(PnnxModel model) : model_(std::move(model)) {}

void RuntimeGraph::Build() {
  if (built_) return;
  LinkOperands();
  CreateLayers();
  FuseActivations();
  SortTopologically();
  AllocateOperands();
  PrepareLayers();
  built_ = true;
}

void RuntimeGraph::LinkOperands() {
  // LESSON 05 BEGIN: link operands to producers and consumers; collect graph inputs, outputs
  std::map<std::string, RuntimeOperand*> operands;
  for (const auto& operand : model_.operands) {
    if (!operands.emplace(operand->name, operand.get()).second) {
      throw Error(Concat("operand '", operand->name, "' is defined twice"));
    }
    operand->producer = nullptr;
    operand->consumers.clear();
  }
  const auto find = [&](const std::string& name, const RuntimeOperator& op) {
    const auto found = operands.find(name);
    if (found == operands.end()) {
      throw Error(Concat(Located(op), " uses operand '", name, "', which does not exist"));
    }
    return found->second;
  };
  for (const auto& op : model_.operators) {
    op->inputs.clear();
    op->outputs.clear();
    for (const std::string& name : op->input_names) {
      RuntimeOperand* operand = find(name, *op);
      op->inputs.push_back(operand);
      operand->consumers.push_back(op.get());  // one entry per use, even for a repeated input
    }
    for (const std::string& name : op->output_names) {
      RuntimeOperand* operand = find(name, *op);
      if (operand->producer != nullptr) {
        throw Error(Concat("operand '", name, "' is produced by both ", Located(*operand->producer),
                           " and ", Located(*op)));
      }
      operand->producer = op.get();
      op->outputs.push_back(operand);
    }
  }
  for (const auto& operand : model_.operands) {
    if (operand->producer == nullptr) {
      throw Error(Concat("operand '", operand->name, "' has no producer"));
    }
  }
  // Graph inputs and outputs follow the order of the pnnx.Input / pnnx.Output lines.
  input_operands_.clear();
  output_operands_.clear();
  for (const auto& op : model_.operators) {
    if (op->type == "pnnx.Input") {
      input_operands_.insert(input_operands_.end(), op->outputs.begin(), op->outputs.end());
    } else if (op->type == "pnnx.Output") {
      output_operands_.insert(output_operands_.end(), op->inputs.begin(), op->inputs.end());
    }
  }
  if (input_operands_.empty()) throw Error("the graph has no pnnx.Input operator");
  if (output_operands_.empty()) throw Error("the graph has no pnnx.Output operator");
  // LESSON 05 END
}

void RuntimeGraph::CreateLayers() {
  // Report every unsupported op type at once: a user converting a new model wants the whole list.
  std::string unsupported;
  for (const auto& op : model_.operators) {
    if (!LayerRegistry::Has(op->type)) unsupported += Concat("\n  ", Located(*op));
  }
  if (!unsupported.empty()) {
    throw Error(Concat("the model uses operators Lumen does not implement:", unsupported));
  }
  steps_.clear();
  std::string failures;
  for (const auto& op : model_.operators) {
    Step step;
    step.op = op.get();
    try {
      step.layer = LayerRegistry::Create(*op);
    } catch (const Error& error) {
      failures += Concat("\n  ", error.what());
    }
    // The layer has taken its own (converted) copy of the weights: free the raw bytes now, so
    // that a model's weights are in memory at most twice, never three times, while it builds.
    for (auto& [key, attribute] : op->attributes) std::vector<char>().swap(attribute.data);
    steps_.push_back(std::move(step));
  }
  if (!failures.empty()) throw Error(Concat("cannot build some layers:", failures));
}

void RuntimeGraph::FuseActivations() {
  // A convolution whose only consumer is an activation computes the activation itself while its
  // output is still in cache: the activation's step disappears and the convolution writes straight
  // into the activation's output operand.
  std::map<const RuntimeOperator*, Step*> step_of;
  for (Step& step : steps_) step_of[step.op] = &step;
  std::vector<const RuntimeOperator*> removed;
  for (Step& step : steps_) {
    auto* convolution = dynamic_cast<Convolution*>(step.layer.get());
    if (convolution == nullptr || step.op->outputs.size() != 1) continue;
    RuntimeOperand* middle = step.op->outputs[0];
    if (middle->consumers.size() != 1) continue;
    const bool is_graph_output = std::find(output_operands_.begin(), output_operands_.end(),
                                           middle) != output_operands_.end();
    Step& next = *step_of[middle->consumers[0]];
    auto* activation = dynamic_cast<ActivationLayer*>(next.layer.get());
    if (is_graph_output || activation == nullptr || next.op->outputs.size() != 1) continue;
    convolution->FuseActivation(activation->activation());
    RuntimeOperand* result = next.op->outputs[0];
    step.op->outputs[0] = result;
    step.op->output_names[0] = result->name;
    step.op->fused.push_back(next.op->Describe());
    result->producer = step.op;
    middle->producer = nullptr;
    middle->consumers.clear();
    removed.push_back(next.op);
  }
  steps_.erase(std::remove_if(steps_.begin(), steps_.end(),
                              [&](const Step& step) {
                                return std::find(removed.begin(), removed.end(), step.op) !=
                                       removed.end();
                              }),
               steps_.end());
  // The operands between a fused pair are no longer produced or read by anything.
  model_.operands.erase(std::remove_if(model_.operands.begin(), model_.operands.end(),
                                       [](const std::unique_ptr<RuntimeOperand>& operand) {
                                         return operand->producer == nullptr &&
                                                operand->consumers.empty();
                                       }),
                        model_.operands.end());
}

void RuntimeGraph::SortTopologically() {
  // LESSON 05 BEGIN: Kahn's algorithm; earliest line first among the ready
  // Kahn's algorithm. Among the operators that are ready, the one earliest in the file runs first,
  // so a file that is already in order (as pnnx writes them) keeps its order.
  std::map<const RuntimeOperator*, size_t> file_index;
  for (size_t i = 0; i < steps_.size(); ++i) file_index[steps_[i].op] = i;
  std::vector<size_t> pending_inputs(steps_.size());
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < steps_.size(); ++i) {
    pending_inputs[i] = steps_[i].op->inputs.size();
    if (pending_inputs[i] == 0) ready.push(i);
  }
  std::vector<Step> sorted;
  while (!ready.empty()) {
    const size_t index = ready.top();
    ready.pop();
    for (const RuntimeOperand* output : steps_[index].op->outputs) {
      for (const RuntimeOperator* consumer : output->consumers) {
        const size_t consumer_index = file_index[consumer];
        if (--pending_inputs[consumer_index] == 0) ready.push(consumer_index);
      }
    }
    sorted.push_back(std::move(steps_[index]));
  }
  if (sorted.size() != steps_.size()) {
    std::string stuck;
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (pending_inputs[i] > 0) stuck += Concat("\n  ", Located(*steps_[i].op));
    }
    throw Error(Concat("the graph has a cycle; these operators can never run:", stuck));
  }
  steps_ = std::move(sorted);
  // LESSON 05 END
}

void RuntimeGraph::AllocateOperands() {
  for (const auto& operand : model_.operands) {
    const std::vector<int>& shape = operand->shape;
    bool is_static = !shape.empty();
    for (int extent : shape) is_static = is_static && extent >= 0;
    if (!is_static) {
      throw Error(Concat("operand '", operand->name, "' (output of ", Located(*operand->producer),
                         ") has no static shape in the param file; Lumen preallocates every "
                         "operand, so re-export the model with pnnx inputshape=... and no "
                         "dynamic dimensions"));
    }
    if (operand->type != DataType::kFloat32) {
      throw Error(Concat("operand '", operand->name, "' has dtype ", DataTypeName(operand->type),
                         "; Lumen computes in f32 only"));
    }
  }
  // Each operand lives from the step that produces it to the last step that reads it; graph
  // outputs live to the end, for Forward to copy out. Operands that are never alive together
  // share memory in one arena (see memory_plan.hpp).
  std::map<const RuntimeOperand*, BufferLifetime> lifetimes;
  for (size_t step = 0; step < steps_.size(); ++step) {
    for (const RuntimeOperand* operand : steps_[step].op->outputs) {
      lifetimes[operand].first_step = lifetimes[operand].last_step = static_cast<int>(step);
    }
    for (const RuntimeOperand* operand : steps_[step].op->inputs) {
      lifetimes[operand].last_step = static_cast<int>(step);
    }
  }
  // The caller fills the inputs before Run and reads the outputs after it: inputs keep their
  // memory for the whole run (so that Run can be repeated on them), outputs from their producer on.
  for (const RuntimeOperand* operand : input_operands_) {
    lifetimes[operand].first_step = 0;
    lifetimes[operand].last_step = static_cast<int>(steps_.size());
  }
  for (const RuntimeOperand* operand : output_operands_) {
    lifetimes[operand].last_step = static_cast<int>(steps_.size());
  }
  std::vector<BufferLifetime> buffers;
  for (const auto& operand : model_.operands) {
    BufferLifetime lifetime = lifetimes[operand.get()];
    lifetime.size = 1;
    for (int extent : operand->shape) lifetime.size *= static_cast<size_t>(extent);
    buffers.push_back(lifetime);
  }
  constexpr size_t kAlignment = 16;  // floats: every operand starts on a 64-byte cache line
  const MemoryPlan plan = PlanMemory(buffers, kAlignment);
  arena_.assign(plan.arena_size + kAlignment, 0.0f);
  float* base = arena_.data();
  while (reinterpret_cast<uintptr_t>(base) % (kAlignment * sizeof(float)) != 0) ++base;
  planned_floats_ = plan.arena_size;
  separate_floats_ = plan.separate_size;
  for (size_t i = 0; i < model_.operands.size(); ++i) {
    RuntimeOperand& operand = *model_.operands[i];
    const Shape sample_shape(operand.shape.begin() + 1, operand.shape.end());
    const size_t sample_size = ShapeElementCount(sample_shape);
    operand.data.clear();
    operand.data.reserve(static_cast<size_t>(operand.shape[0]));  // views must never move
    for (int sample = 0; sample < operand.shape[0]; ++sample) {
      operand.data.emplace_back(base + plan.offsets[i] + sample * sample_size, sample_shape);
    }
  }
  input_shapes_.clear();
  output_shapes_.clear();
  for (const RuntimeOperand* operand : input_operands_) {
    input_shapes_.emplace_back(operand->shape.begin(), operand->shape.end());
  }
  for (const RuntimeOperand* operand : output_operands_) {
    output_shapes_.emplace_back(operand->shape.begin(), operand->shape.end());
  }
}

void RuntimeGraph::PrepareLayers() {
  for (Step& step : steps_) {
    std::vector<Shape> input_shapes;
    std::vector<Shape> output_shapes;
    step.inputs.clear();
    step.outputs.clear();
    for (RuntimeOperand* operand : step.op->inputs) {
      input_shapes.emplace_back(operand->shape.begin(), operand->shape.end());
      step.inputs.push_back(&operand->data);
    }
    for (RuntimeOperand* operand : step.op->outputs) {
      output_shapes.emplace_back(operand->shape.begin(), operand->shape.end());
      step.outputs.push_back(&operand->data);
    }
    step.layer->Prepare(input_shapes, output_shapes);
  }
  operator_milliseconds_.assign(steps_.size(), 0.0);
}

std::vector<const RuntimeOperator*> RuntimeGraph::ExecutionOrder() const {
  std::vector<const RuntimeOperator*> order;
  for (const Step& step : steps_) order.push_back(step.op);
  return order;
}

void RuntimeGraph::CheckInputs(const std::vector<TensorBatch>& inputs) const {
  if (!built_) throw Error("RuntimeGraph::Forward called before Build");
  if (inputs.size() != input_operands_.size()) {
    throw Error(Concat("the model has ", input_operands_.size(), " input(s) but ", inputs.size(),
                       " were given"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    // Compared without building a Shape, so that a correct call allocates nothing.
    bool matches = inputs[i].size() == input_shapes_[i][0];
    for (const Tensor& sample : inputs[i]) {
      matches =
          matches && sample.rank() + 1 == input_shapes_[i].size() &&
          std::equal(sample.shape().begin(), sample.shape().end(), input_shapes_[i].begin() + 1);
    }
    if (!matches) {
      std::string got;
      try {
        got = ShapeToString(BatchShape(inputs[i]));
      } catch (const Error&) {
        got = "samples of different shapes";
      }
      throw Error(Concat("input ", i, " ('", input_operands_[i]->name, "'): expected shape ",
                         ShapeToString(input_shapes_[i]), ", got ", got));
    }
  }
}

void RuntimeGraph::Run() {
  if (!built_) throw Error("RuntimeGraph::Run called before Build");
  using Clock = std::chrono::steady_clock;
  for (size_t i = 0; i < steps_.size(); ++i) {
    Step& step = steps_[i];
    if (!profiling_) {
      step.layer->Forward(step.inputs, step.outputs);
      continue;
    }
    const auto start = Clock::now();
    step.layer->Forward(step.inputs, step.outputs);
    operator_milliseconds_[i] =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }
  // After the first run every thread's scratch memory has its final size: no more allocations.
  ShareScratchSizes();
}

void RuntimeGraph::Forward(const std::vector<TensorBatch>& inputs,
                           std::vector<TensorBatch>* outputs) {
  CheckInputs(inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorBatch& target = input_operands_[i]->data;
    for (size_t sample = 0; sample < target.size(); ++sample) target[sample] = inputs[i][sample];
  }
  Run();
  outputs->resize(output_operands_.size());
  for (size_t i = 0; i < output_operands_.size(); ++i) (*outputs)[i] = output_operands_[i]->data;
}

std::vector<TensorBatch> RuntimeGraph::Forward(const std::vector<TensorBatch>& inputs) {
  std::vector<TensorBatch> outputs;
  Forward(inputs, &outputs);
  return outputs;
}

}  // namespace lumen
