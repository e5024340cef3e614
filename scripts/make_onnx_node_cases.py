#!/usr/bin/python3
"""Writes ONNX's own backend node tests (the float ones) as Lumen golden cases in tmp/onnx_node.

ONNX's backend node tests (onnx/backend/test/data/node in the onnx repository) are the conformance
suite ONNX Runtime runs: one small model per test (usually one node; `*_expanded` tests are the
same node written as its function body), with inputs and the reference outputs. Debian's
python3-onnx (1.12.0) ships no data folder but ships the generators that write it
(onnx/backend/test/case/node/*.py): this script calls onnx's own generator (cmd_tools'
generate-data code path) into a temporary folder and reads the tests back from there, exactly as
the release's data/node folder holds them (model.onnx, test_data_set_0/input_*.pb, output_*.pb).
Two tests are generated twice under one name (test_reduce_sum_negative_axes_keepdims_random,
test_resize_tf_crop_and_resize); as in generate-data, the second overwrites the first.

Two things are set before onnx's case modules are imported, without editing system files:
  - numpy 1.24 removed the aliases np.float, np.int, np.bool and np.object that the 1.12
    generators still use; they are set back on the numpy module (as the builtins they were);
  - numpy's random generator is seeded (0), so that the random inputs, and the committed cases,
    are the same on every run (onnx's own generate-data does not seed: its data folder holds one
    draw, this script another, of the same tests).

Which tests are kept (the float ones), and how they are turned into cases:
  - every graph output is a float32 tensor (Lumen computes float32);
  - every graph input is a tensor: float32 inputs stay the case's inputs; integer and bool inputs
    (indices, axes, shapes, conditions) become initializers of model.onnx holding the test's
    values, because Lumen's graph inputs are float tensors and a node test has exactly one data
    set, so the values are fixed anyway (each such case's note names them); at least one float32
    input must remain (a Lumen model and a case have at least one input);
  - inputs of any other type (float16, double, bfloat16, string, sequence, optional) and outputs
    of any type but float32 skip the test;
  - the outputs are not random draws: no Bernoulli, Random* or Multinomial op, no Dropout in
    training mode with a ratio above 0 (its references are one draw of numpy's generator, which
    no engine reproduces);
  - the model imports only the default ONNX domain (the ai.onnx.preview.training ops Adagrad,
    Adam, Momentum, Gradient and the ai.onnx.ml ops are skipped);
  - no kept input or output has an extent of 0 (a case file cannot describe an empty tensor) or
    more than Lumen's 8 dimensions;
  - the case is at most 1 MB (model and .f32 files); larger ones are skipped (none is today).
Everything skipped is counted by reason (printed, and written to tmp/onnx_node/SKIPPED.txt).

Each kept test becomes tmp/onnx_node/<test name>/: model.onnx, in<i>.f32 and out<i>.f32 (raw
row-major float32) and case.txt (io/golden_case.hpp's format) with ONNX's tolerance: the backend
runner compares with numpy.testing.assert_allclose(rtol, atol), which passes when
|got - ref| <= atol + rtol * |ref|, NaN matching NaN: the rule of case.txt's 'tolerance ATOL RTOL'
line, so the line holds the test's values unchanged, as onnx.backend.test.loader hands them to the
runner (a test's data.json could set its own; no 1.12 node test has one: all use rtol=1e-3,
atol=1e-7).

test/onnx/check_onnx_node_cases.py runs every case through lumen_run (the ctest onnx_node_cases).

  /usr/bin/python3 scripts/make_onnx_node_cases.py              # rewrites tmp/onnx_node
  /usr/bin/python3 scripts/make_onnx_node_cases.py --output DIR
"""
import argparse
import collections
import pathlib
import random
import shutil
import sys
import tempfile
import warnings

import numpy as np

# The 1.12 generators use the aliases numpy 1.24 removed; set them before onnx imports them.
for alias, builtin in (("float", float), ("int", int), ("bool", bool), ("object", object)):
    if alias not in np.__dict__:
        setattr(np, alias, builtin)

import onnx  # noqa: E402
from onnx import TensorProto, numpy_helper  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAX_CASE_BYTES = 1 << 20
MAX_RANK = 8  # lumen::kMaxRank
INTEGER_OR_BOOL = {
    TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64, TensorProto.UINT8,
    TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64, TensorProto.BOOL
}
DEFAULT_DOMAINS = {"", "ai.onnx"}
# Ops whose outputs are random draws: their references are one draw of numpy's generator.
RANDOM_OPS = {
    "Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform",
    "RandomUniformLike"
}


def generate_node_tests(folder):
    """Runs onnx's generate-data into `folder` and returns its node tests as the backend runner
    loads them (onnx.backend.test.loader: name, model_dir, rtol, atol), sorted by name."""
    np.random.seed(0)
    random.seed(0)
    from onnx.backend.test import cmd_tools, loader  # imports the case modules: after the aliases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the aliases' FutureWarnings, the generators' own
        cmd_tools.generate_data(argparse.Namespace(output=str(folder), op_type=None))
    return sorted(loader.load_model_tests(str(folder), kind="node"), key=lambda test: test.name)


def type_name(value_type):
    """A graph input's or output's type as a short word: 'float32', 'int64', 'sequence', ..."""
    kind = value_type.WhichOneof("value")
    if kind != "tensor_type":
        return kind.replace("_type", "") if kind else "no type"
    element = value_type.tensor_type.elem_type
    return "float32" if element == TensorProto.FLOAT else TensorProto.DataType.Name(element).lower()


def read_tensors(data_set, prefix, count):
    """The arrays in data_set/<prefix>_0.pb ... as numpy arrays."""
    arrays = []
    for i in range(count):
        tensor = TensorProto()
        tensor.ParseFromString((data_set / f"{prefix}_{i}.pb").read_bytes())
        arrays.append(numpy_helper.to_array(tensor))
    return arrays


def draws_random_numbers(graph, values):
    """True if the model's outputs are random: a random op, or a Dropout in training mode (its
    training_mode input true) with a ratio above 0. `values` are the graph inputs' arrays."""
    for node in graph.node:
        if node.op_type in RANDOM_OPS:
            return True
        if node.op_type == "Dropout" and len(node.input) > 2 and node.input[2]:
            training = values.get(node.input[2], False)
            ratio = values.get(node.input[1], 0.5) if node.input[1] else 0.5
            if bool(training) and float(ratio) > 0:
                return True
    return False


def shape_problem(array):
    """Why a float32 array cannot be a case's input or output, or None."""
    if 0 in array.shape:
        return "empty tensor (an extent of 0)"
    if array.ndim > MAX_RANK:
        return f"more than {MAX_RANK} dimensions"
    return None


def convert(test_folder):
    """Turns one generated test into (model, inputs, outputs, constants) or a skip reason."""
    model = onnx.load(str(test_folder / "model.onnx"))
    graph = model.graph
    domains = {opset.domain for opset in model.opset_import} | {n.domain for n in graph.node}
    if not domains <= DEFAULT_DOMAINS:
        return f"domain {sorted(domains - DEFAULT_DOMAINS)[0]}"
    data_sets = sorted(test_folder.glob("test_data_set_*"))
    if len(data_sets) != 1:
        return f"{len(data_sets)} data sets"
    for output in graph.output:
        if type_name(output.type) != "float32":
            return f"output of type {type_name(output.type)}"
    for value in graph.input:
        name = type_name(value.type)
        if name != "float32" and value.type.tensor_type.elem_type not in INTEGER_OR_BOOL:
            return f"input of type {name}"
    if all(type_name(value.type) != "float32" for value in graph.input):
        return "no float32 input"
    arrays = read_tensors(data_sets[0], "input", len(graph.input))
    outputs = read_tensors(data_sets[0], "output", len(graph.output))
    if draws_random_numbers(graph, {v.name: a for v, a in zip(graph.input, arrays)}):
        return "random outputs (a random op, or Dropout in training mode)"
    inputs = []
    constants = []
    for value, array in zip(list(graph.input), arrays):
        if type_name(value.type) == "float32":
            inputs.append(array)
            continue
        graph.initializer.append(numpy_helper.from_array(array, value.name))
        constants.append(f"{array.dtype.name} '{value.name}' {list(array.shape)}")
        # From IR version 4 an initializer need not be a graph input (and is then a constant);
        # below it, every initializer must be listed as one.
        if model.ir_version >= 4:
            graph.input.remove(value)
    for array in inputs + outputs:
        problem = shape_problem(array)
        if problem:
            return problem
    return model, inputs, outputs, constants


def shape_text(array):
    """A shape as case.txt writes it: '2,3,4', or '()' for a rank-0 tensor."""
    return ",".join(str(extent) for extent in array.shape) if array.ndim else "()"


def write_case(folder, test, model, inputs, outputs, constants):
    """Writes the case folder of `test` (a loader TestCase); returns its size in bytes."""
    folder.mkdir(parents=True)
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    lines = []
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for i, array in enumerate(arrays):
            file_name = f"{'in' if kind == 'input' else 'out'}{i}.f32"
            np.ascontiguousarray(array, dtype="<f4").tofile(folder / file_name)
            lines.append(f"{kind} {file_name} {shape_text(array)}")
    # The runner's assert_allclose(rtol, atol) is case.txt's rule: the values carry over unchanged.
    lines.append(f"tolerance {test.atol:g} {test.rtol:g}")
    note = (f"ONNX {onnx.__version__} backend node test {test.name} (opset "
            f"{default_opset(model)}), written by scripts/make_onnx_node_cases.py; references: "
            f"ONNX's expected outputs; tolerance: the backend runner's (atol {test.atol:g}, rtol "
            f"{test.rtol:g})")
    if constants:
        note += ("; non-float inputs made initializers of model.onnx (Lumen's inputs are float): "
                 + ", ".join(constants))
    lines.append(f"note {note}")
    (folder / "case.txt").write_text("\n".join(lines) + "\n")
    return sum(path.stat().st_size for path in folder.iterdir())


def default_opset(model):
    """The model's default-domain opset version."""
    return next(o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", default=str(ROOT / "tmp" / "onnx_node"),
                        help="case folder to (re)write (default: tmp/onnx_node)")
    args = parser.parse_args()
    output = pathlib.Path(args.output)
    if output.exists():
        shutil.rmtree(output)
    output.mkdir(parents=True)
    skipped = collections.defaultdict(list)
    kept = 0
    with tempfile.TemporaryDirectory() as scratch:
        tests = generate_node_tests(scratch)
        for test in tests:
            result = convert(pathlib.Path(test.model_dir))
            if isinstance(result, str):
                skipped[result].append(test.name)
                continue
            model, inputs, outputs, constants = result
            folder = output / test.name
            size = write_case(folder, test, model, inputs, outputs, constants)
            if size > MAX_CASE_BYTES:
                shutil.rmtree(folder)
                skipped["larger than 1 MB"].append(test.name)
                continue
            kept += 1
    skipped_count = sum(len(names) for names in skipped.values())
    lines = [f"# ONNX {onnx.__version__} backend node tests: {len(tests)}; kept (float): {kept}; "
             f"skipped: {skipped_count} (written by scripts/make_onnx_node_cases.py)"]
    for reason, names in sorted(skipped.items(), key=lambda item: (-len(item[1]), item[0])):
        lines.append(f"{reason}: {len(names)}")
        lines += [f"  {name}" for name in names]
    (output / "SKIPPED.txt").write_text("\n".join(lines) + "\n")
    print(lines[0])
    for line in lines[1:]:
        if not line.startswith("  "):
            print(line)
    print(f"wrote {output}")


if __name__ == "__main__":
    sys.exit(main())
