// The Python module `lumen._lumen` (re-exported by the `lumen` package): Model, Session and
// lumen::Error as Python classes, numpy float32 arrays in PyTorch's row-major layout in and out.
//
//   import lumen
//   model = lumen.Model("resnet18.pnnx.param")             # the .bin beside it
//   model = lumen.Model("resnet18.onnx")                   # or an ONNX model (weights inside)
//   session = model.session(threads=2)
//   (logits,) = session.run(image)                         # numpy (1,3,224,224) float32
//   features = session.extract("46")                       # any operand, as numpy
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "lumen/lumen.hpp"

namespace py = pybind11;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// A row-major numpy array as a Tensor of the same shape (copied: a Tensor stores column-major).
lumen::Tensor TensorFromArray(const FloatArray& array) {
  lumen::Shape shape;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    if (array.shape(d) < 0 || array.shape(d) > (py::ssize_t{1} << 32) - 1) {
      throw lumen::Error("array extent out of range");
    }
    shape.push_back(static_cast<uint32_t>(array.shape(d)));
  }
  return lumen::Tensor::FromRowMajor(array.data(), shape);
}

// A Tensor as a new row-major numpy array.
FloatArray ArrayFromTensor(const lumen::Tensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  FloatArray array(shape);
  tensor.CopyToRowMajor(array.mutable_data());
  return array;
}

// Inputs as one array or a list/tuple of arrays.
std::vector<lumen::Tensor> InputsFrom(const py::object& inputs) {
  std::vector<lumen::Tensor> tensors;
  if (py::isinstance<py::list>(inputs) || py::isinstance<py::tuple>(inputs)) {
    for (const py::handle& item : inputs) {
      tensors.push_back(TensorFromArray(FloatArray::ensure(item)));
    }
  } else {
    tensors.push_back(TensorFromArray(FloatArray::ensure(inputs)));
  }
  for (const lumen::Tensor& tensor : tensors) {
    if (tensor.empty() && tensor.rank() == 0) throw lumen::Error("an input is not a float array");
  }
  return tensors;
}

// A loaded model shared by its sessions (Python keeps it alive while a session lives).
struct PyModel {
  std::shared_ptr<const lumen::Model> model;
};

}  // namespace

PYBIND11_MODULE(_lumen, module) {
  module.doc() = "Lumen: a CPU inference engine for PyTorch models exported with PNNX";
  py::register_exception<lumen::Error>(module, "Error", PyExc_RuntimeError);

  py::class_<lumen::Session>(module, "Session",
                             "One inference context over a shared Model (use one per thread).")
      .def(
          "run",
          [](lumen::Session& session, const py::object& inputs) {
            std::vector<lumen::Tensor> tensors = InputsFrom(inputs);
            std::vector<lumen::Tensor> outputs;
            {
              py::gil_scoped_release release;  // other Python threads run meanwhile
              outputs = session.Run(tensors);
            }
            py::list result;
            for (const lumen::Tensor& output : outputs) result.append(ArrayFromTensor(output));
            return result;
          },
          py::arg("inputs"),
          "Runs the model on a float32 array (or a list of them, one per input) and returns the "
          "list of outputs as numpy arrays; any input shape the layers can compute is accepted.")
      .def(
          "extract",
          [](lumen::Session& session, const std::string& name) {
            return ArrayFromTensor(session.Extract(name));
          },
          py::arg("name"),
          "Computes what operand `name` needs (after run, on the same inputs) and returns it.")
      .def(
          "operands",
          [](const lumen::Session& session) {
            py::list result;
            for (const lumen::OperandReport& report : session.Operands()) {
              result.append(py::make_tuple(report.name, std::vector<uint32_t>(report.shape),
                                           report.producer));
            }
            return result;
          },
          "(name, shape, producer) of every operand of the current plan, in execution order.")
      .def("keep_all_operands", &lumen::Session::KeepAllOperands,
           "Keeps every operand readable after run (call before run).")
      .def(
          "operand",
          [](const lumen::Session& session, const std::string& name) {
            return ArrayFromTensor(session.operand(name));
          },
          py::arg("name"), "An operand kept after run, as a numpy array.")
      .def(
          "profile",
          [](lumen::Session& session) {
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
          "Per-operator times of the last run (sessions made with profile=True).")
      .def_property_readonly("threads", &lumen::Session::threads);

  py::class_<PyModel>(module, "Model", "A model loaded once, read-only, shared by its sessions.")
      .def(py::init([](const std::string& path, const std::string& weights, bool fuse) {
             lumen::ModelOptions options;
             options.weights_path = weights;
             options.fuse = fuse;
             return PyModel{lumen::Model::Load(path, options)};
           }),
           py::arg("path"), py::arg("weights") = "", py::arg("fuse") = true,
           "Loads `path`: a .pnnx.param (weights: its .bin, by default the one beside it) or an "
           ".onnx model (weights inside), told apart by content. "
           "fuse=False keeps every operand readable (for extract and comparisons).")
      .def(
          "session",
          [](const PyModel& model, int threads, bool profile, size_t max_memory_bytes) {
            lumen::SessionOptions options;
            options.threads = threads;
            options.profiling = profile;
            options.max_memory_bytes = max_memory_bytes;
            return std::make_unique<lumen::Session>(model.model, options);
          },
          py::arg("threads") = 0, py::arg("profile") = false, py::arg("max_memory_bytes") = 0,
          py::keep_alive<0, 1>(), "A new inference session (threads=0: one per core).")
      .def_property_readonly("input_names",
                             [](const PyModel& model) { return model.model->input_names(); })
      .def_property_readonly("output_names",
                             [](const PyModel& model) { return model.model->output_names(); })
      .def_property_readonly(
          "export_input_shapes",
          [](const PyModel& model) { return model.model->export_input_shapes(); },
          "The input shapes the model was exported at (-1: left open).");
}
