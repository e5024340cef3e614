// The Python module `lumen._lumen` (re-exported by the `lumen` package): Model, Session and
// lumen::Error as Python classes, numpy float32 arrays in PyTorch's row-major layout in and out.
//
//   import lumen
//   model = lumen.Model("resnet18.pnnx.param")             # the .bin beside it
//   model = lumen.Model("resnet18.onnx")                   # or an ONNX model (weights inside)
//   session = model.session(threads=2)
//   (logits,) = session.run(image)                         # numpy (1,3,224,224) float32
//   (logits,) = session.run({"input": image}, outputs=["logits"])   # by name
//   features = session.extract("46")                       # any operand, as numpy
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lumen/lumen.hpp"

namespace py = pybind11;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// The name of a value's type for messages: "dict", "NoneType", "numpy.float32".
std::string TypeName(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

// A method's `self`, taken as it comes and unwrapped by Self() inside the method: pybind11 2.10
// would hand a method the uninitialised memory of an object made by T.__new__(T) without
// __init__ (pybind/pybind11#6153). Signatures still name T (see the caster below).
template <typename T>
struct SelfOf {
  py::handle handle;
};

// An integer argument taken as it comes and checked by IntegerArgument, which raises the errors
// pybind11's int conversion would all report as TypeError.
struct AnyInteger {
  py::handle handle;
};

// A loaded model shared by its sessions (Python keeps it alive while a session lives).
struct PyModel {
  std::shared_ptr<const lumen::Model> model;
};

}  // namespace

namespace pybind11::detail {
// Takes any object as a SelfOf<T>, shown as T in signatures and help().
template <typename T>
struct type_caster<SelfOf<T>> {
  PYBIND11_TYPE_CASTER(SelfOf<T>, make_caster<T>::name);
  bool load(handle source, bool) {
    value.handle = source;
    return true;
  }
};
// Takes any object as an AnyInteger, shown as int in signatures and help().
template <>
struct type_caster<AnyInteger> {
  PYBIND11_TYPE_CASTER(AnyInteger, const_name("int"));
  bool load(handle source, bool) {
    value.handle = source;
    return true;
  }
};
}  // namespace pybind11::detail

namespace {

// The T behind `self`, or TypeError when it is another type's object or was never initialised.
template <typename T>
T& Self(SelfOf<T> self, const char* method, const char* how_to_make) {
  if (!py::isinstance<T>(self.handle)) {
    throw py::type_error(lumen::Concat(method, ": called on a ", TypeName(self.handle)));
  }
  auto* instance = reinterpret_cast<py::detail::instance*>(self.handle.ptr());
  if (!instance->get_value_and_holder(py::detail::get_type_info(typeid(T))).holder_constructed()) {
    throw py::type_error(
        lumen::Concat(method, ": this object was made without __init__; ", how_to_make));
  }
  return py::cast<T&>(self.handle);
}

PyModel& ModelSelf(SelfOf<PyModel> self, const char* method) {
  return Self(self, method, "load one with lumen.Model(path)");
}

// The sessions inside Session.run right now, which releases the GIL while Lumen computes. Read
// and written only while holding the GIL, so the set itself needs no lock.
std::unordered_set<const lumen::Session*>& RunningSessions() {
  static std::unordered_set<const lumen::Session*> running;
  return running;
}

lumen::Session& SessionSelf(SelfOf<lumen::Session> self, const char* method) {
  lumen::Session& session = Self(self, method, "make sessions with Model.session()");
  // A Session serves one thread at a time; a second thread inside it would corrupt its arena
  // (a double free, seen), so it gets an error instead.
  if (RunningSessions().count(&session) != 0) {
    throw lumen::Error(lumen::Concat(method,
                                     ": this session is running in another thread; a "
                                     "session serves one thread at a time (make one per "
                                     "thread with Model.session())"));
  }
  return session;
}

// Marks a session as running for its lifetime (constructed and destroyed holding the GIL).
class RunningMark {
 public:
  explicit RunningMark(const lumen::Session* session) : session_(session) {
    RunningSessions().insert(session_);
  }
  ~RunningMark() { RunningSessions().erase(session_); }
  RunningMark(const RunningMark&) = delete;
  RunningMark& operator=(const RunningMark&) = delete;

 private:
  const lumen::Session* session_;
};

// An integer argument in [low, high]: an int or anything with __index__ (numpy integers), else
// TypeError; outside the range (however large) lumen.Error, as Lumen's own range checks raise.
long long IntegerArgument(AnyInteger argument, const char* name, long long low, long long high) {
  const py::handle value = argument.handle;
  const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) {
    PyErr_Clear();
    throw py::type_error(lumen::Concat(name, " must be an integer, got ", TypeName(value)));
  }
  int overflow = 0;
  const long long result = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (result == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || result < low || result > high) {
    throw lumen::Error(lumen::Concat(name, " must be between ", low, " and ", high, ", got ",
                                     std::string(py::str(index))));
  }
  return result;
}

// A path argument as open() takes one (str, bytes or os.PathLike such as pathlib.Path), for
// Lumen's C++ side, which would stop at a NUL (as open() refuses it).
std::string PathArgument(py::handle value, const char* name) {
  py::object decoded;
  try {
    decoded = py::module_::import("os").attr("fsdecode")(value);
  } catch (py::error_already_set& error) {
    if (!error.matches(PyExc_TypeError)) throw;
    throw py::type_error(lumen::Concat(
        "Model: ", name, " must be a path (str, bytes or os.PathLike), got ", TypeName(value)));
  }
  const std::string path = decoded.cast<std::string>();
  if (path.find('\0') != std::string::npos) {
    throw py::value_error(lumen::Concat("Model: ", name, " contains a NUL character"));
  }
  return path;
}

// How Session.run names an input in messages: "input 0 ('x')" by position, "input 'x'" by name.
std::string InputLabel(size_t index, const std::vector<std::string>& names, bool by_name) {
  if (by_name) return lumen::Concat("input '", names[index], "'");
  if (index < names.size()) return lumen::Concat("input ", index, " ('", names[index], "')");
  return lumen::Concat("input ", index);
}

// One input of Session.run as a Tensor of the same row-major shape (copied: a Tensor stores
// column-major). As ONNX Runtime, it takes float32 and refuses other dtypes with TypeError,
// unless `cast` asks to convert numbers. Kind and shape are checked before numpy converts: its
// cast would turn a string into a number and a datetime into a count, fails on others, and would
// copy a broadcast array of 2^33 elements before Lumen refused the extent.
lumen::Tensor TensorFromInput(py::handle value, const std::string& label, bool cast) {
  if (!py::isinstance<py::array>(value)) {
    throw py::type_error(
        lumen::Concat("Session.run: ", label, " must be a numpy array, got ", TypeName(value)));
  }
  const auto array = py::reinterpret_borrow<py::array>(value);
  const char kind = array.dtype().kind();
  const std::string dtype = py::str(array.dtype());
  if (std::string("biuf").find(kind) == std::string::npos) {
    throw py::type_error(lumen::Concat(
        "Session.run: ", label, " must hold real numbers, got a numpy array of dtype ", dtype));
  }
  // float32 in either byte order is float32; anything else only on request.
  if (!(kind == 'f' && array.dtype().itemsize() == 4) && !cast) {
    throw py::type_error(lumen::Concat("Session.run: ", label, " has dtype ", dtype,
                                       "; Lumen takes float32 (convert it with "
                                       ".astype(numpy.float32), or pass cast=True)"));
  }
  if (array.ndim() > static_cast<py::ssize_t>(lumen::kMaxRank)) {
    throw lumen::Error(lumen::Concat("Session.run: ", label, " has rank ", array.ndim(),
                                     "; Lumen supports tensors of rank up to ", lumen::kMaxRank));
  }
  lumen::Shape shape;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    if (array.shape(d) > py::ssize_t{std::numeric_limits<uint32_t>::max()}) {
      throw lumen::Error(lumen::Concat("Session.run: ", label, " has extent ", array.shape(d),
                                       " in dimension ", d,
                                       "; Lumen's extents are at most 2^32 - 1"));
    }
    shape.push_back(static_cast<uint32_t>(array.shape(d)));
  }
  // Raises numpy's own exception (MemoryError, a warning made an error) when the cast fails.
  const FloatArray floats(array);
  return lumen::Tensor::FromRowMajor(floats.data(), shape);
}

// Session.run's inputs: one numpy array, a list or tuple of them (one per model input, in
// order), or a dict from input names to them (ONNX Runtime's input_feed).
std::vector<lumen::Tensor> InputsFrom(const py::object& inputs, const lumen::Model& model,
                                      bool cast) {
  std::vector<std::string> names = model.input_names();
  std::vector<lumen::Tensor> tensors;
  if (py::isinstance<py::dict>(inputs)) {
    const auto feed = py::reinterpret_borrow<py::dict>(inputs);
    std::string known;
    for (const std::string& name : names) {
      known += lumen::Concat(known.empty() ? "" : ", ", "'", name, "'");
    }
    for (const auto& [key, value] : feed) {
      if (!py::isinstance<py::str>(key)) {
        throw py::type_error(
            lumen::Concat("Session.run: input names must be str, got ", TypeName(key)));
      }
      const std::string name = py::cast<std::string>(key);
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        throw lumen::Error(lumen::Concat("Session.run: the model has no input '", name,
                                         "' (its inputs: ", known, ")"));
      }
    }
    for (size_t i = 0; i < names.size(); ++i) {
      if (!feed.contains(names[i])) {
        throw lumen::Error(lumen::Concat("Session.run: input '", names[i],
                                         "' is missing (the model's inputs: ", known, ")"));
      }
      tensors.push_back(TensorFromInput(feed[py::str(names[i])], InputLabel(i, names, true), cast));
    }
  } else if (py::isinstance<py::list>(inputs) || py::isinstance<py::tuple>(inputs)) {
    size_t index = 0;
    for (const py::handle& item : inputs) {
      tensors.push_back(TensorFromInput(item, InputLabel(index, names, false), cast));
      ++index;
    }
  } else if (py::isinstance<py::array>(inputs)) {
    tensors.push_back(TensorFromInput(inputs, InputLabel(0, names, false), cast));
  } else {
    throw py::type_error(
        lumen::Concat("Session.run: inputs must be a numpy array, a list of them or a dict from "
                      "input names to them, got ",
                      TypeName(inputs)));
  }
  return tensors;
}

// Session.run's outputs: None (every graph output) or a list or tuple of operand names.
std::vector<std::string> OutputNamesFrom(const py::object& outputs) {
  if (!py::isinstance<py::list>(outputs) && !py::isinstance<py::tuple>(outputs)) {
    throw py::type_error(lumen::Concat(
        "Session.run: outputs must be None or a list of output names, got ", TypeName(outputs)));
  }
  std::vector<std::string> names;
  for (const py::handle& item : outputs) {
    if (!py::isinstance<py::str>(item)) {
      throw py::type_error(
          lumen::Concat("Session.run: output names must be str, got ", TypeName(item)));
    }
    names.push_back(py::cast<std::string>(item));
  }
  return names;
}

// Lumen's message as Python users read it: the C++ API names in some hints become the Python
// methods that do the same.
std::string PythonMessage(std::string message) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"call KeepAllOperands before Run, or Extract it",
       "call Session.keep_all_operands() before Session.run(), or Session.extract() it"},
      {"(Session::SetInputShapes, or Run with inputs)", "(pass them to Session.run)"},
      {"Run the model (or fill its inputs through input()) before extracting an operand",
       "call Session.run(inputs) before Session.extract()"},
      {"(SessionOptions::max_memory_bytes, lumen_run --max-memory)",
       "(Model.session(max_memory_bytes=...))"},
      {"(load the model with fusion off to read it)",
       "(load the model with lumen.Model(path, fuse=False) to read it)"},
  };
  for (const auto& [cpp, python] : kNames) {
    const size_t at = message.find(cpp);
    if (at != std::string::npos) message.replace(at, std::string(cpp).size(), python);
  }
  return message;
}

// A model input or output's shape as Python shows it: an int per extent, the extent's name (a
// str) where the file names a free one, -1 where it leaves one free unnamed.
py::list ShapeOf(const lumen::TensorInfo& info) {
  py::list shape;
  for (size_t i = 0; i < info.shape.size(); ++i) {
    if (info.shape[i] < 0 && i < info.dim_names.size() && !info.dim_names[i].empty()) {
      shape.append(info.dim_names[i]);
    } else {
      shape.append(info.shape[i]);
    }
  }
  return shape;
}

// A Tensor as a new row-major numpy array.
FloatArray ArrayFromTensor(const lumen::Tensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  FloatArray array(shape);
  tensor.CopyToRowMajor(array.mutable_data());
  return array;
}

// --- Model.summary (issue 27): lumen::Summarize as a dict ----------------------------------------

// A summary's inputs or outputs as a list of {"name", "shape"} dicts (shape None when unknown).
py::list SummaryPorts(const std::vector<lumen::ModelSummary::Port>& ports) {
  py::list result;
  for (const lumen::ModelSummary::Port& port : ports) {
    py::dict item;
    item["name"] = port.name;
    item["shape"] = port.shape_known ? py::cast(port.shape) : py::none();
    result.append(item);
  }
  return result;
}

// Adds Model.summary(input_shapes=None), which returns lumen::Summarize's fields as a dict.
void BindModelSummary(py::module_& module) {
  py::object model_class = module.attr("Model");
  model_class.attr("summary") = py::cpp_function(
      [](SelfOf<PyModel> self, const py::object& input_shapes) {
        const PyModel& model = ModelSelf(self, "Model.summary");
        std::vector<lumen::Shape> shapes;
        if (!input_shapes.is_none()) {
          try {
            shapes = input_shapes.cast<std::vector<lumen::Shape>>();
          } catch (const py::cast_error&) {
            throw py::type_error(lumen::Concat(
                "Model.summary: input_shapes must be a list of shapes (lists of non-negative "
                "integers), one per input, got ",
                std::string(py::repr(input_shapes))));
          }
        }
        const lumen::ModelSummary summary = lumen::Summarize(*model.model, shapes);
        py::dict operators;  // in the summary's order: most frequent first
        for (const auto& entry : summary.operators) operators[py::str(entry.type)] = entry.count;
        py::dict result;
        result["inputs"] = SummaryPorts(summary.inputs);
        result["outputs"] = SummaryPorts(summary.outputs);
        result["operators"] = operators;
        result["operator_count"] = summary.operator_count;
        result["fused_operator_count"] = summary.fused_operator_count;
        result["parameter_count"] = summary.parameter_count;
        result["parameter_bytes"] = summary.parameter_bytes;
        result["planned"] = summary.planned;
        result["planned_activation_bytes"] =
            summary.planned ? py::cast(summary.planned_activation_bytes) : py::none();
        result["separate_activation_bytes"] =
            summary.planned ? py::cast(summary.separate_activation_bytes) : py::none();
        result["planning_note"] = summary.planning_note;
        result["text"] = summary.ToString();
        return result;
      },
      py::name("summary"), py::is_method(model_class), py::arg("input_shapes") = py::none(),
      "Inputs and outputs with their shapes, operator counts by type, parameter count and bytes, "
      "and the activation memory a session plans, at the declared input shapes or at "
      "input_shapes (one per input); 'text' holds the same as lumen_run --summary prints. "
      "Shapes the model leaves open leave 'planned' False and say why in 'planning_note'.");
}

// lumen.quantize: lumen::Quantize with the calibration samples as numpy arrays (each sample as
// Session.run takes its inputs: one array, a list of arrays, or a dict by input name). Returns
// what the report says, as a dict.
void BindQuantize(py::module_& module) {
  module.def(
      "quantize",
      [](const py::object& path, const py::object& calibration, const py::object& output,
         const py::object& weights, const std::string& to, const std::string& method,
         double percentile, int threads, const std::vector<std::string>& keep_float,
         bool bias_correction) {
        lumen::QuantizeOptions options;
        options.keep_float = keep_float;
        options.correct_bias = bias_correction;
        options.weights_path = weights.is_none() ? "" : PathArgument(weights, "weights");
        if (to != "int8" && to != "bf16") {
          throw py::value_error(
              lumen::Concat("quantize: to must be 'int8' or 'bf16', got '", to, "'"));
        }
        if (method != "minmax" && method != "percentile" && method != "mse") {
          throw py::value_error(lumen::Concat(
              "quantize: method must be 'minmax', 'percentile' or 'mse', got '", method, "'"));
        }
        options.precision =
            to == "bf16" ? lumen::QuantizedPrecision::kBFloat16 : lumen::QuantizedPrecision::kInt8;
        options.method = method == "percentile" ? lumen::CalibrationMethod::kPercentile
                         : method == "mse"      ? lumen::CalibrationMethod::kMse
                                                : lumen::CalibrationMethod::kMinMax;
        options.percentile = percentile;
        options.threads = threads;
        const std::string model_path = PathArgument(path, "path");
        const std::string output_prefix = PathArgument(output, "output");
        std::vector<std::vector<lumen::Tensor>> samples;
        if (!calibration.is_none()) {
          lumen::ModelOptions model_options;
          model_options.weights_path = options.weights_path;
          const auto model = lumen::Model::Load(model_path, model_options);
          for (const py::handle sample : calibration) {
            samples.push_back(InputsFrom(py::reinterpret_borrow<py::object>(sample), *model,
                                         /*cast=*/false));
          }
        }
        lumen::QuantizeReport report;
        {
          py::gil_scoped_release release;
          report = lumen::Quantize(model_path, samples, output_prefix, options);
        }
        py::list layers;
        for (const lumen::QuantizedLayer& layer : report.layers) {
          py::dict entry;
          entry["description"] = layer.description;
          entry["type"] = layer.new_type;
          if (options.precision == lumen::QuantizedPrecision::kInt8) {
            entry["input_range"] = py::make_tuple(layer.input_min, layer.input_max);
            entry["input_scale"] = layer.input_scale;
            entry["input_zero_point"] = layer.input_zero_point;
          }
          layers.append(entry);
        }
        py::dict result;
        result["param_path"] = report.param_path;
        result["bin_path"] = report.bin_path;
        result["calibration_samples"] = report.calibration_samples;
        result["layers"] = layers;
        return result;
      },
      py::arg("path"), py::arg("calibration"), py::arg("output"), py::arg("weights") = py::none(),
      py::arg("to") = "int8", py::arg("method") = "minmax", py::arg("percentile") = 99.99,
      py::arg("threads") = 0, py::arg("keep_float") = std::vector<std::string>(),
      py::arg("bias_correction") = true,
      "Writes a quantised copy of the PNNX model at `path` to OUTPUT.pnnx.param and "
      "OUTPUT.pnnx.bin, which lumen.Model loads. to='int8' (default) runs the fp32 model on "
      "`calibration` (an iterable of samples, each as Session.run takes its inputs) to choose "
      "each quantised layer's input range (method 'minmax', 'percentile', keeping `percentile`% "
      "on each side, or 'mse', the range that adds the least squared error), and quantises "
      "nn.Conv2d (ungrouped) and nn.Linear weights per output "
      "channel, except the operators named in keep_float, each bias shifted by the mean error "
      "the layer's quantisation adds on the calibration samples (bias_correction); to='bf16' "
      "rounds those weights to "
      "bfloat16 (calibration may be None). Returns "
      "the files written and each layer changed, with its calibrated input range.");
}

}  // namespace

PYBIND11_MODULE(_lumen, module) {
  module.doc() = "Lumen: a CPU inference engine for PyTorch models exported with PNNX or ONNX";
  module.attr("__version__") = LUMEN_VERSION;  // CMake's project(VERSION)
  static py::exception<lumen::Error>& error_type =
      py::register_exception<lumen::Error>(module, "Error", PyExc_RuntimeError);
  // Registered after register_exception's own translator, so tried first: the same exception
  // type, with the message's C++ names made Python's.
  py::register_exception_translator([](std::exception_ptr raised) {
    try {
      if (raised) std::rethrow_exception(raised);
    } catch (const lumen::Error& error) {
      error_type(PythonMessage(error.what()).c_str());
    }
  });

  py::class_<lumen::TensorInfo>(module, "TensorInfo",
                                "One input or output of a model (ONNX Runtime's NodeArg).")
      .def_readonly("name", &lumen::TensorInfo::name, "Its name (Session.run takes it).")
      .def_property_readonly("shape", &ShapeOf,
                             "Its extents as the file declares them: an int, the extent's name "
                             "(str) where the file names a free one, -1 for an unnamed free one; "
                             "[] when the file declares no shape.")
      .def_readonly("dtype", &lumen::TensorInfo::type,
                    "The dtype Session.run takes or returns: always 'float32'.")
      .def_readonly("declared_dtype", &lumen::TensorInfo::declared_type,
                    "The element type the file declares ('float32', 'int64', ...; '' if none).")
      .def("__repr__", [](const lumen::TensorInfo& info) {
        return lumen::Concat("TensorInfo(name=", std::string(py::repr(py::str(info.name))),
                             ", shape=", std::string(py::repr(ShapeOf(info))), ", dtype='",
                             info.type, "')");
      });

  // Methods take `self` as a SelfOf and unwrap it with SessionSelf/ModelSelf (see SelfOf).
  py::class_<lumen::Session>(module, "Session",
                             "One inference context over a shared Model (use one per thread).")
      .def(
          "run",
          [](SelfOf<lumen::Session> self, const py::object& inputs, const py::object& outputs,
             bool cast) {
            lumen::Session& session = SessionSelf(self, "Session.run");
            const std::vector<lumen::Tensor> tensors = InputsFrom(inputs, session.model(), cast);
            const bool every_output = outputs.is_none();
            const std::vector<std::string> names =
                every_output ? std::vector<std::string>() : OutputNamesFrom(outputs);
            std::vector<lumen::Tensor> results;
            {
              const RunningMark running(&session);
              py::gil_scoped_release release;  // other Python threads run meanwhile
              results = every_output ? session.Run(tensors) : session.Run(tensors, names);
            }
            py::list result;
            for (const lumen::Tensor& output : results) result.append(ArrayFromTensor(output));
            return result;
          },
          py::arg("inputs"), py::arg("outputs") = py::none(), py::arg("cast") = false,
          "Runs the model and returns a list of numpy arrays. inputs: a float32 array, a list of "
          "them (one per input, in order) or a dict from input names to them; any input shape the "
          "layers can compute is accepted. outputs: None for every graph output, or a list of "
          "names (graph outputs, or any operand, as extract) to return only those, computing "
          "only what they need. cast=True converts inputs of other real dtypes to float32 "
          "(otherwise TypeError, as ONNX Runtime). TypeError for values of the wrong kind, "
          "lumen.Error for names, counts and shapes the model refuses.")
      .def(
          "extract",
          [](SelfOf<lumen::Session> self, const std::string& name) {
            lumen::Session& session = SessionSelf(self, "Session.extract");
            const lumen::Tensor* operand = nullptr;
            {
              const RunningMark running(&session);
              py::gil_scoped_release release;
              operand = &session.Extract(name);
            }
            return ArrayFromTensor(*operand);
          },
          py::arg("name"),
          "Computes what operand `name` needs from the inputs of the last run and returns it; "
          "lumen.Error before any run.")
      .def(
          "operands",
          [](SelfOf<lumen::Session> self) {
            py::list result;
            for (const lumen::OperandReport& report :
                 SessionSelf(self, "Session.operands").Operands()) {
              result.append(py::make_tuple(report.name, std::vector<uint32_t>(report.shape),
                                           report.producer));
            }
            return result;
          },
          "(name, shape, producer) of every operand of the current plan, in execution order.")
      .def(
          "keep_all_operands",
          [](SelfOf<lumen::Session> self) {
            SessionSelf(self, "Session.keep_all_operands").KeepAllOperands();
          },
          "Keeps every operand readable after run (call before run).")
      .def(
          "operand",
          [](SelfOf<lumen::Session> self, const std::string& name) {
            return ArrayFromTensor(SessionSelf(self, "Session.operand").operand(name));
          },
          py::arg("name"), "An operand kept after run, as a numpy array.")
      .def(
          "profile",
          [](SelfOf<lumen::Session> self) {
            const lumen::Session& session = SessionSelf(self, "Session.profile");
            if (!session.profiling()) {
              throw lumen::Error(
                  "Session.profile: this session does not time its operators; make it with "
                  "Model.session(profile=True)");
            }
            py::list result;
            for (const lumen::OperatorProfile& entry : session.Profile()) {
              py::dict row;
              row["type"] = entry.type;
              row["operator"] = entry.description;
              row["fused"] = entry.fused;
              row["milliseconds"] = entry.milliseconds;
              result.append(row);
            }
            return result;
          },
          "Per-operator times of the last run (sessions made with profile=True; lumen.Error "
          "otherwise).")
      .def_property_readonly(
          "threads",
          [](SelfOf<lumen::Session> self) {
            return SessionSelf(self, "Session.threads").threads();
          },
          "The threads this session runs on.");

  py::class_<PyModel>(module, "Model", "A model loaded once, read-only, shared by its sessions.")
      .def(py::init([](const py::object& path, const py::object& weights, bool fuse) {
             lumen::ModelOptions options;
             options.weights_path = weights.is_none() ? "" : PathArgument(weights, "weights");
             options.fuse = fuse;
             return PyModel{lumen::Model::Load(PathArgument(path, "path"), options)};
           }),
           py::arg("path"), py::arg("weights") = py::none(), py::arg("fuse") = true,
           "Loads `path` (str or pathlib.Path): a .pnnx.param (weights: its .bin, by default the "
           "one beside it) or an .onnx model (weights inside), told apart by content. "
           "fuse=False keeps every operand readable (for extract and comparisons).")
      .def(
          "session",
          [](SelfOf<PyModel> self, AnyInteger threads, bool profile, AnyInteger max_memory_bytes) {
            const PyModel& model = ModelSelf(self, "Model.session");
            lumen::SessionOptions options;
            options.threads = static_cast<int>(IntegerArgument(threads, "Model.session: threads", 0,
                                                               lumen::SessionOptions::kMaxThreads));
            options.profiling = profile;
            options.max_memory_bytes = static_cast<size_t>(
                IntegerArgument(max_memory_bytes, "Model.session: max_memory_bytes", 0,
                                std::numeric_limits<long long>::max()));
            return std::make_unique<lumen::Session>(model.model, options);
          },
          py::arg("threads") = 0, py::arg("profile") = false, py::arg("max_memory_bytes") = 0,
          py::keep_alive<0, 1>(),
          "A new inference session (threads=0: one per core; max_memory_bytes=0: Lumen's "
          "default budget).")
      .def_property_readonly(
          "input_names",
          [](SelfOf<PyModel> self) {
            return ModelSelf(self, "Model.input_names").model->input_names();
          },
          "The model's input names, in the order run takes them.")
      .def_property_readonly(
          "output_names",
          [](SelfOf<PyModel> self) {
            return ModelSelf(self, "Model.output_names").model->output_names();
          },
          "The model's output names, in the order run returns them.")
      .def_property_readonly(
          "inputs",
          [](SelfOf<PyModel> self) { return ModelSelf(self, "Model.inputs").model->inputs(); },
          "Each input as a TensorInfo (name, shape, dtype), in the order run takes them.")
      .def_property_readonly(
          "outputs",
          [](SelfOf<PyModel> self) { return ModelSelf(self, "Model.outputs").model->outputs(); },
          "Each output as a TensorInfo (name, shape, dtype), in the order run returns them.")
      .def_property_readonly(
          "export_input_shapes",
          [](SelfOf<PyModel> self) {
            return ModelSelf(self, "Model.export_input_shapes").model->export_input_shapes();
          },
          "The input shapes the model was exported at (-1: left open).");

  BindModelSummary(module);
  BindQuantize(module);
}
