#include "lumen/session.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "base/threads.hpp"
#include "base/workspace.hpp"
#include "lumen/error.hpp"
#include "runtime/memory_plan.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"

namespace lumen {
namespace {

constexpr size_t kAlignment = 16;  // floats: every operand starts on a 64-byte cache line
// The most elements a step's outputs may have to be computed while planning: shapes, counts and
// small constants, not weights (those are computed by runs, in the arena).
constexpr size_t kMaxElementsComputedWhilePlanning = 4096;

// Three quarters of physical memory, or of the address-space limit (ulimit -v) if lower.
size_t DefaultMemoryBudget() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  size_t budget = pages > 0 && page_size > 0
                      ? static_cast<size_t>(pages) / 4 * 3 * static_cast<size_t>(page_size)
                      : size_t{1} << 32;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    budget = std::min(budget, static_cast<size_t>(limit.rlim_cur) / 4 * 3);
  }
  return budget;
}

// Bytes Armadillo allocates beside a tensor's data: one pointer per channel (fcube slice) once
// there are more than 4. A batch of 65536 small maps is millions of channels, so this counts.
size_t BookkeepingBytes(const Shape& shape) {
  size_t channels = 1;
  for (size_t i = 0; i + 2 < shape.size(); ++i) channels *= shape[i];  // <= the element count
  return channels > 4 ? channels * sizeof(void*) : 0;
}

// Throws `error`, raised while the layer of `step` worked, so that it names the operator: layers
// name themselves, but the helpers they call (checked arithmetic, the workspace) cannot.
[[noreturn]] void ThrowNamingTheOperator(const RuntimeGraph::Step& step, const Error& error) {
  const std::string message = error.what();
  if (message.rfind(Concat(step.type, " '", step.name, "'"), 0) == 0) throw error;
  throw Error(Concat(step.description, ": ", message));
}

std::string Megabytes(size_t bytes) {
  return Concat(static_cast<double>(bytes) / (1024.0 * 1024.0), " MB");
}

}  // namespace

// Everything a session owns. The plan part (shapes, schedule, arena, tensors, layer states) is
// rebuilt by Plan whenever the input shapes or the set of kept operands change.
struct Session::State {
  State(std::shared_ptr<const Model> shared_model, const SessionOptions& session_options)
      : model(std::move(shared_model)),
        graph(ModelInternals::Graph(*model)),
        options(session_options),
        threads(options.threads > 0 ? options.threads : DefaultThreadCount()),
        pool(threads),
        workspace(threads),
        budget(options.max_memory_bytes > 0 ? options.max_memory_bytes : DefaultMemoryBudget()),
        kept(graph.operands().size(), false),
        profiling(options.profiling) {}

  void Plan(const std::vector<Shape>& new_input_shapes);
  void InferShapes(const std::vector<Shape>& new_input_shapes);
  // The output shapes of `step` for inputs of these shapes, from the values of its inputs where
  // its layer needs them; computes the step's outputs now if they can be known while planning.
  std::vector<Shape> OutputShapesOf(size_t step, const std::vector<Shape>& input_shapes_of_step);
  // Computes the outputs of `step` while planning, if its layer reads only shapes or every input
  // is known then (and the outputs are small); true if it did.
  bool ComputeWhilePlanning(size_t step, const std::vector<Shape>& input_shapes_of_step,
                            const std::vector<Shape>& output_shapes);
  void PlanMemoryAndAllocate();
  // For each buffer (`buffer_of`: per operand, its buffer or -1): the output it is stored inside,
  // when a step's output holds its inputs back to back (Layer::OutputIsInputsBackToBack), so that
  // producers write them there and the step copies nothing.
  std::vector<Placement> PlaceInputsInOutputs(const std::vector<int>& buffer_of) const;
  void RunSteps(const std::vector<size_t>& steps);
  // The steps of the schedule that the operands `wanted_operands` depend on, in order.
  std::vector<size_t> StepsFor(const std::vector<size_t>& wanted_operands) const;
  void EnsurePlanned();
  size_t OperandIndex(const std::string& name) const;
  // Plans for the shapes of `inputs` if they are new, and copies them into the input operands.
  void SetInputs(const std::vector<Tensor>& inputs);
  // The operands called `names`, each kept readable (re-planning once if one was not), and
  // computed from the current inputs by only the steps they need: Extract and Run by names.
  std::vector<size_t> Compute(const std::vector<std::string>& names);

  std::shared_ptr<const Model> model;
  const RuntimeGraph& graph;
  SessionOptions options;
  int threads;
  ThreadPool pool;
  Workspace workspace;
  size_t budget;
  std::vector<bool> kept;  // per operand: kept out of memory reuse
  bool keep_all = false;
  bool profiling;
  // The inputs hold values the caller gave (Run, or input()), not a plan's zeros: Extract
  // computes from them.
  bool inputs_given = false;

  // The current plan.
  bool planned = false;
  std::vector<Shape> input_shapes;
  std::vector<Shape> shapes;         // per operand; empty when not in the plan
  std::vector<bool> in_plan;         // per operand
  std::vector<size_t> schedule;      // step indices to run, in order
  std::vector<bool> known;           // per operand: computed while planning, not by a run
  std::vector<Tensor> known_values;  // per operand: the values of the known ones
  std::vector<std::unique_ptr<LayerState>> states;  // per step
  std::unique_ptr<float[]> arena;
  size_t arena_floats = 0;
  size_t separate_floats = 0;
  std::vector<Tensor> tensors;                          // per operand: a view into the arena
  std::vector<std::vector<const Tensor*>> step_inputs;  // per step
  std::vector<std::vector<Tensor*>> step_outputs;
  // Per step: every output holds no element (a batch of 0), so running it would compute nothing.
  // Such steps are skipped, here and when computed while planning: no kernel then meets a map of
  // no channel (the ONNX fuzzer's Resize of an empty batch divided by its channel count).
  std::vector<bool> computes_nothing;
  std::vector<double> milliseconds;  // per step
  size_t fixed_bytes = 0;  // operands, their bookkeeping and the weights, in the current plan
};

size_t Session::State::OperandIndex(const std::string& name) const {
  const int index = graph.FindOperand(name);
  if (index < 0) throw Error(Concat("the model has no operand '", name, "'"));
  const RuntimeGraph::OperandInfo& operand = graph.operands()[static_cast<size_t>(index)];
  if (!operand.fused_into.empty()) {
    throw Error(Concat("operand '", name, "' is not computed: it was fused into ",
                       operand.fused_into, " (load the model with fusion off to read it)"));
  }
  return static_cast<size_t>(index);
}

void Session::State::EnsurePlanned() {
  if (planned) return;
  std::vector<Shape> defaults;
  for (int input : graph.inputs()) {
    const RuntimeGraph::OperandInfo& operand = graph.operands()[static_cast<size_t>(input)];
    Shape shape;
    for (int extent : operand.annotated_shape) {
      if (extent < 0) break;
      shape.push_back(static_cast<uint32_t>(extent));
    }
    if (operand.annotated_shape.empty() || shape.size() != operand.annotated_shape.size()) {
      throw Error(Concat("input '", operand.name,
                         "' has no fixed shape in the model file: give the input shapes "
                         "(Session::SetInputShapes, or Run with inputs)"));
    }
    defaults.push_back(shape);
  }
  Plan(defaults);
}

void Session::State::InferShapes(const std::vector<Shape>& new_input_shapes) {
  // LESSON 14 BEGIN: shape inference: the operators needed, in order, each from its inputs
  const auto& operands = graph.operands();
  const auto& steps = graph.steps();
  if (new_input_shapes.size() != graph.inputs().size()) {
    throw Error(Concat("the model has ", graph.inputs().size(), " input(s) but ",
                       new_input_shapes.size(), " shape(s) were given"));
  }
  // Which operands are wanted: the outputs and the kept ones; then, walking back, every step
  // that produces a wanted operand is needed, and so are its inputs.
  std::vector<bool> wanted(operands.size(), keep_all);
  for (int output : graph.outputs()) wanted[static_cast<size_t>(output)] = true;
  for (size_t i = 0; i < operands.size(); ++i) wanted[i] = wanted[i] || kept[i];
  std::vector<bool> needed(steps.size(), false);
  for (size_t step = steps.size(); step-- > 0;) {
    for (int output : steps[step].outputs) needed[step] = needed[step] || wanted[output];
    if (!needed[step]) continue;
    for (int input : steps[step].inputs) wanted[static_cast<size_t>(input)] = true;
  }
  shapes.assign(operands.size(), Shape());
  in_plan.assign(operands.size(), false);
  known.assign(operands.size(), false);
  known_values.clear();
  known_values.resize(operands.size());
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const size_t input = static_cast<size_t>(graph.inputs()[i]);
    ShapeElementCount(new_input_shapes[i]);  // throws on a rank or size Lumen cannot hold
    shapes[input] = new_input_shapes[i];
    in_plan[input] = true;
  }
  schedule.clear();
  for (size_t step = 0; step < steps.size(); ++step) {
    if (!needed[step]) continue;
    schedule.push_back(step);
    std::vector<Shape> input_shapes_of_step;
    for (int input : steps[step].inputs) input_shapes_of_step.push_back(shapes[input]);
    std::vector<Shape> output_shapes;
    try {
      output_shapes = OutputShapesOf(step, input_shapes_of_step);
    } catch (const Error& error) {
      ThrowNamingTheOperator(steps[step], error);
    }
    if (output_shapes.size() != steps[step].outputs.size()) {
      throw Error(Concat(steps[step].description, ": computes ", output_shapes.size(),
                         " output(s) but the graph gives it ", steps[step].outputs.size()));
    }
    for (size_t i = 0; i < output_shapes.size(); ++i) {
      const size_t output = static_cast<size_t>(steps[step].outputs[i]);
      try {
        ShapeElementCount(output_shapes[i]);
      } catch (const Error& error) {
        throw Error(Concat(steps[step].description, ": output '", operands[output].name,
                           "': ", error.what()));
      }
      shapes[output] = output_shapes[i];
      in_plan[output] = true;
    }
  }
  // LESSON 14 END
  // Steps computed while planning do not run. (Outside the lesson's block: graph.steps(), not
  // the block's `steps`, so that the lesson's stubbed tree compiles.)
  schedule.erase(std::remove_if(schedule.begin(), schedule.end(),
                                [&](size_t step) {
                                  const std::vector<int>& outputs = graph.steps()[step].outputs;
                                  return !outputs.empty() && known[outputs[0]];
                                }),
                 schedule.end());
}

std::vector<Shape> Session::State::OutputShapesOf(size_t step,
                                                  const std::vector<Shape>& input_shapes_of_step) {
  const RuntimeGraph::Step& info = graph.steps()[step];
  const Layer& layer = *info.layer;
  std::vector<const Tensor*> values(info.inputs.size(), nullptr);
  for (size_t input : layer.ShapeValueInputs()) {
    if (input >= info.inputs.size()) continue;  // an optional input left out
    const size_t operand = static_cast<size_t>(info.inputs[input]);
    if (!known[operand]) {
      throw Error(Concat(info.description, ": its output shape depends on the values of input ",
                         input, " ('", graph.operands()[operand].name,
                         "'), which are computed only when the model runs: Lumen needs them "
                         "when it plans (from constants and the shapes of operands)"));
    }
    values[input] = &known_values[operand];
  }
  std::vector<Shape> output_shapes = layer.OutputShapesFromValues(input_shapes_of_step, values);
  if (output_shapes.size() == info.outputs.size()) {
    ComputeWhilePlanning(step, input_shapes_of_step, output_shapes);
  }
  return output_shapes;
}

bool Session::State::ComputeWhilePlanning(size_t step,
                                          const std::vector<Shape>& input_shapes_of_step,
                                          const std::vector<Shape>& output_shapes) {
  const RuntimeGraph::Step& info = graph.steps()[step];
  size_t elements = 0;
  for (const Shape& shape : output_shapes) elements += ShapeElementCount(shape);
  if (info.outputs.empty() || elements > kMaxElementsComputedWhilePlanning) return false;
  std::vector<Tensor*> outputs;
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    Tensor& output = known_values[static_cast<size_t>(info.outputs[i])];
    output = Tensor(output_shapes[i]);
    outputs.push_back(&output);
  }
  // Outputs of no element are computed as they are made (RunSteps skips such steps likewise).
  bool computed = elements == 0 || info.layer->OutputsFromShapes(input_shapes_of_step, outputs);
  bool inputs_known = true;
  for (int input : info.inputs) inputs_known = inputs_known && known[static_cast<size_t>(input)];
  if (!computed && inputs_known) {
    std::vector<const Tensor*> inputs;
    for (int input : info.inputs) inputs.push_back(&known_values[static_cast<size_t>(input)]);
    ForwardContext context;
    context.compute = {&pool, &workspace};
    const std::unique_ptr<LayerState> state =
        info.layer->Prepare(input_shapes_of_step, output_shapes, {threads, &workspace, inputs});
    context.state = state.get();
    info.layer->Forward(inputs, outputs, context);
    computed = true;
  }
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    const size_t output = static_cast<size_t>(info.outputs[i]);
    known[output] = computed;
    if (!computed) known_values[output] = Tensor();
  }
  return computed;
}

void Session::State::PlanMemoryAndAllocate() {
  const auto& operands = graph.operands();
  const auto& steps = graph.steps();
  // Each operand lives from the step that produces it to the last step that reads it. The caller
  // fills the inputs before a run and reads the outputs after it, so inputs live for the whole
  // run (a run can be repeated on them), and outputs and kept operands from their producer on.
  const int end = static_cast<int>(schedule.size());
  std::vector<BufferLifetime> lifetimes(operands.size());
  // LESSON 14 BEGIN: each operand's lifetime in schedule positions; inputs, outputs, kept ones
  for (size_t position = 0; position < schedule.size(); ++position) {
    const RuntimeGraph::Step& step = steps[schedule[position]];
    for (int output : step.outputs) {
      lifetimes[output].first_step = lifetimes[output].last_step = static_cast<int>(position);
    }
    for (int input : step.inputs) lifetimes[input].last_step = static_cast<int>(position);
  }
  for (int input : graph.inputs()) lifetimes[input] = {0, 0, end};
  for (int output : graph.outputs()) lifetimes[output].last_step = end;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (kept[i] || keep_all) lifetimes[i].last_step = end;
  }
  // LESSON 14 END
  std::vector<BufferLifetime> buffers;
  std::vector<size_t> buffer_operands;
  std::vector<int> buffer_of(operands.size(), -1);
  size_t largest = 0;
  size_t bookkeeping_bytes = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!in_plan[i] || known[i]) continue;  // known operands keep their own memory
    lifetimes[i].size = ShapeElementCount(shapes[i]);
    bookkeeping_bytes =
        CheckedAdd(bookkeeping_bytes, BookkeepingBytes(shapes[i]), "tensor bookkeeping");
    if (buffer_operands.empty() || lifetimes[i].size > lifetimes[largest].size) largest = i;
    buffer_of[i] = static_cast<int>(buffers.size());
    buffers.push_back(lifetimes[i]);
    buffer_operands.push_back(i);
  }
  const MemoryPlan plan =
      PlanMemoryWithGuests(buffers, PlaceInputsInOutputs(buffer_of), kAlignment);
  const size_t arena_bytes = CheckedMultiply(CheckedAdd(plan.arena_size, kAlignment, "arena size"),
                                             sizeof(float), "arena size");
  // The memory budget is checked before anything is allocated: operands (with their
  // bookkeeping), the model's weights, and the scratch and layer state already held.
  size_t state_bytes = workspace.bytes();
  for (const auto& state : states) state_bytes += state ? state->bytes() : 0;
  fixed_bytes = CheckedAdd(CheckedAdd(arena_bytes, bookkeeping_bytes, "planned memory"),
                           graph.weight_bytes(), "planned memory");
  const size_t total = CheckedAdd(fixed_bytes, state_bytes, "planned memory");
  if (total > budget) {
    throw Error(Concat(
        "the model needs ", Megabytes(total), " at input shapes ",
        [&] {
          std::string text;
          for (const Shape& shape : input_shapes) text += ShapeToString(shape);
          return text;
        }(),
        " (operands ", Megabytes(arena_bytes), ", the largest '", operands[largest].name, "' ",
        ShapeToString(shapes[largest]), "), more than the memory budget of ", Megabytes(budget),
        " (SessionOptions::max_memory_bytes, lumen_run --max-memory)"));
  }
  // Keep the inputs' contents when only the kept operands changed (Extract re-plans).
  std::vector<std::vector<float>> saved_inputs;
  for (int input : graph.inputs()) {
    saved_inputs.emplace_back();
    if (tensors.empty()) continue;
    const Tensor& old = tensors[static_cast<size_t>(input)];
    saved_inputs.back().assign(old.data(), old.data() + old.size());
  }
  // Cleared, not assigned over: each old tensor is bound to the old arena for its whole life.
  tensors.clear();
  tensors.resize(operands.size());
  arena.reset();
  arena.reset(new (std::nothrow) float[plan.arena_size + kAlignment]);
  if (!arena) {
    throw Error(Concat("cannot allocate ", Megabytes(arena_bytes),
                       " for the operands (the largest '", operands[largest].name, "' ",
                       ShapeToString(shapes[largest]), ")"));
  }
  arena_floats = plan.arena_size;
  separate_floats = plan.separate_size;
  float* base = arena.get();
  while (reinterpret_cast<uintptr_t>(base) % (kAlignment * sizeof(float)) != 0) ++base;
  for (size_t b = 0; b < buffers.size(); ++b) {
    const size_t operand = buffer_operands[b];
    tensors[operand] = Tensor(base + plan.offsets[b], shapes[operand]);
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (known[i]) tensors[i] = known_values[i];  // a copy: a few numbers
  }
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    Tensor& input = tensors[static_cast<size_t>(graph.inputs()[i])];
    if (saved_inputs[i].size() == input.size()) {
      std::copy(saved_inputs[i].begin(), saved_inputs[i].end(), input.data());
    } else {
      input.Fill(0.0f);
    }
  }
}

std::vector<Placement> Session::State::PlaceInputsInOutputs(
    const std::vector<int>& buffer_of) const {
  const auto& steps = graph.steps();
  const auto& inputs = graph.inputs();
  const auto& outputs = graph.outputs();
  std::vector<Placement> placements(
      std::count_if(buffer_of.begin(), buffer_of.end(), [](int buffer) { return buffer >= 0; }));
  for (size_t step_index : schedule) {
    const RuntimeGraph::Step& step = steps[step_index];
    if (step.outputs.size() != 1 || buffer_of[static_cast<size_t>(step.outputs[0])] < 0) continue;
    std::vector<Shape> input_shapes;
    for (int input : step.inputs) input_shapes.push_back(shapes[static_cast<size_t>(input)]);
    if (!step.layer->OutputIsInputsBackToBack(input_shapes)) continue;
    size_t offset = 0;
    for (int input : step.inputs) {
      const int buffer = buffer_of[static_cast<size_t>(input)];
      // A step's output, read once here and not yet inside another output; the caller's inputs
      // and outputs keep their own memory.
      const bool movable = buffer >= 0 && placements[static_cast<size_t>(buffer)].host < 0 &&
                           std::count(step.inputs.begin(), step.inputs.end(), input) == 1 &&
                           std::find(inputs.begin(), inputs.end(), input) == inputs.end() &&
                           std::find(outputs.begin(), outputs.end(), input) == outputs.end();
      if (movable) {
        placements[static_cast<size_t>(buffer)] = {buffer_of[step.outputs[0]], offset};
      }
      offset += ShapeElementCount(shapes[static_cast<size_t>(input)]);
    }
  }
  return placements;
}

void Session::State::Plan(const std::vector<Shape>& new_input_shapes) {
  planned = false;
  input_shapes = new_input_shapes;
  InferShapes(new_input_shapes);
  const auto& steps = graph.steps();
  states.clear();
  states.resize(steps.size());
  step_inputs.assign(steps.size(), {});
  step_outputs.assign(steps.size(), {});
  computes_nothing.assign(steps.size(), false);
  milliseconds.assign(steps.size(), 0.0);
  PlanMemoryAndAllocate();
  // Scratch is reserved while the layers prepare: it may take what the budget leaves.
  workspace.set_limit(budget - std::min(budget - 1, fixed_bytes));
  PrepareContext prepare{threads, &workspace, {}};
  for (size_t step : schedule) {
    prepare.input_values.clear();
    std::vector<Shape> inputs_of_step;
    std::vector<Shape> outputs_of_step;
    for (int input : steps[step].inputs) {
      inputs_of_step.push_back(shapes[input]);
      step_inputs[step].push_back(&tensors[input]);
      prepare.input_values.push_back(known[input] ? &tensors[input] : nullptr);
    }
    bool outputs_empty = !steps[step].outputs.empty();
    for (int output : steps[step].outputs) {
      outputs_of_step.push_back(shapes[output]);
      step_outputs[step].push_back(&tensors[output]);
      outputs_empty = outputs_empty && ShapeElementCount(shapes[output]) == 0;
    }
    computes_nothing[step] = outputs_empty;
    try {
      states[step] = steps[step].layer->Prepare(inputs_of_step, outputs_of_step, prepare);
    } catch (const Error& error) {
      ThrowNamingTheOperator(steps[step], error);
    } catch (const std::bad_alloc&) {
      throw Error(Concat(steps[step].description, ": out of memory while preparing it for inputs ",
                         ShapeToString(inputs_of_step.empty() ? Shape() : inputs_of_step[0])));
    }
  }
  size_t state_bytes = workspace.bytes();
  for (const auto& state : states) state_bytes += state ? state->bytes() : 0;
  const size_t total = fixed_bytes + state_bytes;
  if (total > budget) {
    throw Error(Concat("the model needs ", Megabytes(total), " (", Megabytes(state_bytes),
                       " of it scratch and layer state), more than the memory budget of ",
                       Megabytes(budget)));
  }
  planned = true;
}

void Session::State::RunSteps(const std::vector<size_t>& steps_to_run) {
  const auto& steps = graph.steps();
  using Clock = std::chrono::steady_clock;
  ForwardContext context;
  context.compute = {&pool, &workspace};
  for (size_t step : steps_to_run) {
    if (computes_nothing[step]) continue;
    context.state = states[step].get();
    if (!profiling) {
      steps[step].layer->Forward(step_inputs[step], step_outputs[step], context);
      continue;
    }
    const auto start = Clock::now();
    steps[step].layer->Forward(step_inputs[step], step_outputs[step], context);
    milliseconds[step] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }
  // After the first run every thread's scratch has its final size: later runs never allocate.
  workspace.ShareSizes();
}

std::vector<size_t> Session::State::StepsFor(const std::vector<size_t>& wanted_operands) const {
  const auto& steps = graph.steps();
  std::vector<bool> wanted(graph.operands().size(), false);
  for (size_t operand : wanted_operands) wanted[operand] = true;
  std::vector<size_t> needed;
  for (size_t position = schedule.size(); position-- > 0;) {
    const size_t step = schedule[position];
    bool produces = false;
    for (int output : steps[step].outputs) produces = produces || wanted[output];
    if (!produces) continue;
    needed.push_back(step);
    for (int input : steps[step].inputs) wanted[static_cast<size_t>(input)] = true;
  }
  std::reverse(needed.begin(), needed.end());
  return needed;
}

void Session::State::SetInputs(const std::vector<Tensor>& inputs) {
  const size_t count = graph.inputs().size();
  if (inputs.size() != count) {
    throw Error(Concat("the model has ", count, " input(s) but ", inputs.size(), " were given"));
  }
  // Compared without building a vector of shapes, so that a run at the planned shapes allocates
  // nothing.
  bool same_shapes = planned;
  for (size_t i = 0; same_shapes && i < count; ++i) {
    same_shapes = inputs[i].shape() == input_shapes[i];
  }
  if (!same_shapes) {
    std::vector<Shape> shapes_of_inputs;
    for (const Tensor& input : inputs) shapes_of_inputs.push_back(input.shape());
    Plan(shapes_of_inputs);
  }
  for (size_t i = 0; i < count; ++i) {
    Tensor& target = tensors[static_cast<size_t>(graph.inputs()[i])];
    std::copy(inputs[i].data(), inputs[i].data() + inputs[i].size(), target.data());
  }
  inputs_given = true;
}

std::vector<size_t> Session::State::Compute(const std::vector<std::string>& names) {
  std::vector<size_t> indices;
  for (const std::string& name : names) indices.push_back(OperandIndex(name));
  if (!inputs_given && !graph.inputs().empty()) {
    throw Error(
        "no inputs were given yet: Run the model (or fill its inputs through input()) before "
        "extracting an operand");
  }
  EnsurePlanned();
  // Graph inputs and outputs stay readable in every plan; any other operand is kept from now on.
  bool replan = false;
  for (size_t index : indices) {
    const bool always_readable = std::find(graph.inputs().begin(), graph.inputs().end(),
                                           static_cast<int>(index)) != graph.inputs().end() ||
                                 std::find(graph.outputs().begin(), graph.outputs().end(),
                                           static_cast<int>(index)) != graph.outputs().end();
    if (always_readable || kept[index] || keep_all) continue;
    kept[index] = true;
    replan = true;
  }
  if (replan) Plan(input_shapes);  // keeps the inputs' contents
  RunSteps(StepsFor(indices));
  return indices;
}

Session::Session(std::shared_ptr<const Model> model, const SessionOptions& options) {
  if (!model) throw Error("Session: no model given");
  if (options.threads < 0 || options.threads > SessionOptions::kMaxThreads) {
    throw Error(Concat("thread count must be between 1 and ", SessionOptions::kMaxThreads,
                       " (or 0 for every core), got ", options.threads));
  }
  state_ = std::make_unique<State>(std::move(model), options);
}

Session::~Session() = default;

void Session::SetInputShapes(const std::vector<Shape>& shapes) {
  if (state_->planned && shapes == state_->input_shapes) return;
  state_->inputs_given = false;  // the new plan's inputs are zeros until filled
  state_->Plan(shapes);
}

Tensor& Session::input(size_t index) {
  state_->EnsurePlanned();
  if (index >= state_->graph.inputs().size()) {
    throw Error(Concat("input ", index, " does not exist: the model has ",
                       state_->graph.inputs().size(), " input(s)"));
  }
  state_->inputs_given = true;  // the caller fills it
  return state_->tensors[static_cast<size_t>(state_->graph.inputs()[index])];
}

void Session::Run() {
  state_->EnsurePlanned();
  state_->RunSteps(state_->schedule);
}

const Tensor& Session::output(size_t index) const {
  if (!state_->planned) throw Error("Session::output called before Run");
  if (index >= state_->graph.outputs().size()) {
    throw Error(Concat("output ", index, " does not exist: the model has ",
                       state_->graph.outputs().size(), " output(s)"));
  }
  return state_->tensors[static_cast<size_t>(state_->graph.outputs()[index])];
}

void Session::Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  state_->SetInputs(inputs);
  Run();
  outputs->resize(state_->graph.outputs().size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    const Tensor& result = output(i);
    Tensor& target = (*outputs)[i];
    if (target.shape() != result.shape()) target = Tensor(result.shape());
    std::copy(result.data(), result.data() + result.size(), target.data());
  }
}

std::vector<Tensor> Session::Run(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs;
  Run(inputs, &outputs);
  return outputs;
}

std::vector<Tensor> Session::Run(const std::vector<Tensor>& inputs,
                                 const std::vector<std::string>& output_names) {
  for (const std::string& name : output_names) state_->OperandIndex(name);  // before any work
  state_->SetInputs(inputs);
  std::vector<Tensor> outputs;
  for (size_t index : state_->Compute(output_names)) outputs.push_back(state_->tensors[index]);
  return outputs;
}

const Tensor& Session::Extract(const std::string& name) {
  return state_->tensors[state_->Compute({name})[0]];
}

void Session::KeepAllOperands() {
  if (state_->keep_all) return;
  state_->keep_all = true;
  if (state_->planned) state_->Plan(state_->input_shapes);
}

std::vector<OperandReport> Session::Operands() const {
  std::vector<OperandReport> reports;
  if (!state_->planned) return reports;
  const auto& operands = state_->graph.operands();
  for (int input : state_->graph.inputs()) {
    reports.push_back({operands[input].name, state_->shapes[input], "graph input"});
  }
  for (size_t step : state_->schedule) {
    for (int output : state_->graph.steps()[step].outputs) {
      reports.push_back(
          {operands[output].name, state_->shapes[output], state_->graph.steps()[step].description});
    }
  }
  return reports;
}

const Tensor& Session::operand(const std::string& name) const {
  const size_t index = state_->OperandIndex(name);
  if (!state_->planned || !state_->in_plan[index] ||
      !(state_->keep_all || state_->kept[index] ||
        std::find(state_->graph.inputs().begin(), state_->graph.inputs().end(),
                  static_cast<int>(index)) != state_->graph.inputs().end() ||
        std::find(state_->graph.outputs().begin(), state_->graph.outputs().end(),
                  static_cast<int>(index)) != state_->graph.outputs().end())) {
    throw Error(Concat("operand '", name,
                       "' is not kept by this session: call KeepAllOperands before Run, or "
                       "Extract it"));
  }
  return state_->tensors[index];
}

std::vector<OperatorProfile> Session::Profile() const {
  std::vector<OperatorProfile> profile;
  for (size_t step : state_->schedule) {
    const RuntimeGraph::Step& info = state_->graph.steps()[step];
    profile.push_back({info.type, info.description, info.fused, state_->milliseconds[step]});
  }
  return profile;
}

void Session::set_profiling(bool enabled) { state_->profiling = enabled; }
bool Session::profiling() const { return state_->profiling; }
int Session::threads() const { return state_->threads; }
size_t Session::memory_budget() const { return state_->budget; }
size_t Session::planned_activation_bytes() const { return state_->arena_floats * sizeof(float); }
size_t Session::separate_activation_bytes() const {
  return state_->separate_floats * sizeof(float);
}
size_t Session::scratch_bytes() const {
  size_t bytes = state_->workspace.bytes();
  for (const auto& state : state_->states) bytes += state ? state->bytes() : 0;
  return bytes;
}
std::vector<Shape> Session::input_shapes() const { return state_->input_shapes; }
const Model& Session::model() const { return *state_->model; }

}  // namespace lumen
