"""Lumen against PyTorch, operand by operand: the tool for a model that disagrees.

    python3 -m lumen.compare tmp/models/convnext_blocks
    python3 -m lumen.compare tmp/models/resnet18 --bin /tmp/perturbed.pnnx.bin   (Lumen's weights)
    python3 -m lumen.compare tmp/onnx/resnet18                  (an ONNX case: its stored outputs)
    python3 -m lumen.compare model.onnx --input x.npy --module net.py:Net   (PyTorch's from Net())
    python3 -m lumen.compare model.pnnx.param --input x.f32:1,3,224,224

Runs the model in Lumen (without fusion, so every operand exists) and in PyTorch on the same
inputs, then prints for every operand in Lumen's execution order its name, the operator that makes
it, its shape and the largest absolute and relative differences, and names the first operand
outside the tolerance (|lumen - torch| <= atol * max(1, max |torch|) + rtol * |torch|, element by
element: the absolute part grows with the operand's magnitude, see difference()). The first such
operand is where to look: everything before it agrees. Exit status: 0 when every operand is within
tolerance, 1 when one is not, 2 on bad usage or input.

What is compared with what:
- the model: a case folder (case.txt with model.pnnx.param or model.onnx; its inputs and
  tolerance), or a model file (.pnnx.param or .onnx) with its inputs (.npy files, or raw float32
  files as FILE:SHAPE; the tolerance then is --tolerance, by default 1e-4 1e-4);
- the reference: PyTorch's outputs from --module FILE.py:NAME when given (NAME() returns the
  module; only the graph's outputs have a value then); otherwise for PNNX every operand from the
  case's model_pnnx.py or lumen.torch_graph's op-by-op rebuild, and for an ONNX case the outputs
  the case stores (onnx 1.12 has no reference evaluator to give the others).
"""
import argparse
import importlib.util
import pathlib
import sys

import numpy as np

from lumen.case_format import CaseError, read_case

DEFAULT_TOLERANCE = (1e-4, 1e-4)


def difference(got, expected, tolerance):
    """(max abs difference, max relative difference, elements outside tolerance)."""
    got = got.astype(np.float64)
    expected = expected.astype(np.float64)
    absolute = np.abs(got - expected)
    # NaN in the same places on both sides agrees; NaN on one side only does not.
    both_nan = np.isnan(got) & np.isnan(expected)
    absolute = np.where(both_nan, 0.0, absolute)
    absolute = np.where(np.isnan(absolute), np.inf, absolute)
    relative = absolute / np.maximum(np.abs(expected), 1e-30)
    atol, rtol = tolerance
    # The case's tolerance is for its outputs. Inside a network values can be far larger than
    # the outputs, and float32 rounding differences grow with them: the absolute part scales with
    # the operand's largest magnitude (when above 1), so that only a real disagreement stands out.
    finite = np.abs(expected[np.isfinite(expected)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    outside = int(np.count_nonzero(absolute > atol * scale + rtol * np.abs(expected)))
    largest_absolute = float(absolute.max()) if absolute.size else 0.0
    largest_relative = float(relative.max()) if relative.size else 0.0
    return largest_absolute, largest_relative, outside


def read_input(spec):
    """One input: a numpy array as it is, a .npy file (str or pathlib.Path), or a raw float32
    file as 'FILE:SHAPE' or (path, shape)."""
    if isinstance(spec, np.ndarray):
        return spec.astype(np.float32, copy=False)
    if isinstance(spec, tuple) and len(spec) == 2:
        return np.fromfile(spec[0], dtype="<f4").reshape(spec[1])
    text = str(spec)
    if text.endswith(".npy"):
        return np.load(text).astype(np.float32, copy=False)
    path, separator, extents = text.rpartition(":")
    if not separator or not path:
        raise CaseError(f"{text}: give a .npy file, or a raw float32 file with its shape as "
                        "FILE:1,3,224,224")
    extents = extents.strip("()")
    try:
        shape = tuple(int(extent) for extent in extents.split(",")) if extents else ()
    except ValueError as error:
        raise CaseError(f"{text}: the shape after ':' must be integers, as 1,3,224,224") from error
    return np.fromfile(path, dtype="<f4").reshape(shape)


def load_module(spec):
    """The PyTorch module of 'FILE.py:NAME' (NAME called with no arguments), in eval mode."""
    path, separator, name = str(spec).rpartition(":")
    if not separator or not path or not name:
        raise CaseError(f"{spec}: give the module as FILE.py:NAME (a class or a function that, "
                        "called with no arguments, returns the module)")
    source = importlib.util.spec_from_file_location(pathlib.Path(path).stem, path)
    if source is None or not pathlib.Path(path).is_file():
        raise CaseError(f"{path}: no such Python file")
    namespace = importlib.util.module_from_spec(source)
    source.loader.exec_module(namespace)
    if not hasattr(namespace, name):
        raise CaseError(f"{path} defines no '{name}'")
    module = getattr(namespace, name)()
    return module.float().eval() if hasattr(module, "eval") else module


def module_outputs(module, inputs, output_names):
    """{output name: numpy array} of the module (or 'FILE.py:NAME') run on the inputs."""
    import torch

    if isinstance(module, (str, pathlib.PurePath)):
        module = load_module(module)
    with torch.inference_mode():
        result = module(*[torch.from_numpy(np.ascontiguousarray(x)) for x in inputs])
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    if len(outputs) != len(output_names):
        raise CaseError(f"the PyTorch module returns {len(outputs)} output(s), the model "
                        f"{len(output_names)}")
    return {name: output.detach().float().numpy() for name, output in zip(output_names, outputs)}


def compare(case_dir, weights=None, threads=1, stream=None, inputs=None, module=None,
            tolerance=None):
    """Compares every operand; returns the rows and the name of the first operand outside tolerance.

    case_dir: a case folder (PNNX or ONNX) or a model file (str or pathlib.Path). inputs: arrays
    or input files (read_input) instead of the case's, needed for a model file. module: a PyTorch
    module (or 'FILE.py:NAME') whose outputs are the reference. Each row is (name, producer,
    shape, max abs, max rel, outside, note). The table goes to `stream` (standard output by
    default).
    """
    stream = stream or sys.stdout
    import lumen  # the compiled module; imported here so that --help works without it

    source = pathlib.Path(case_dir)
    case = read_case(source) if source.is_dir() else None
    if case is None and not source.is_file():
        raise CaseError(f"{source}: no such case folder or model file")
    if case is not None:
        model_path = source / "model.pnnx.param"
        if not model_path.is_file():
            model_path = source / "model.onnx"
        if not model_path.is_file():
            raise CaseError(f"{source}: holds neither model.pnnx.param nor model.onnx")
    else:
        model_path = source
        if inputs is None:
            raise CaseError(f"{source}: a model file needs its inputs (--input)")
    is_onnx = model_path.suffix == ".onnx"
    if is_onnx and weights is not None:
        raise CaseError("an ONNX model holds its weights: --bin is for .pnnx.param models")
    given_inputs = inputs is not None
    inputs = [read_input(spec) for spec in inputs] if given_inputs else case.input_arrays()
    tolerance = tolerance or (case.tolerance if case is not None else DEFAULT_TOLERANCE)
    # PNNX weights: the case's (or the .bin beside the model). Other weights go to Lumen only:
    # PyTorch keeps the case's, so a modified copy plays the part of a Lumen layer that computes
    # something else.
    case_weights = case.weights if case is not None else model_path.with_suffix(".bin")
    lumen_weights = None if is_onnx else (pathlib.Path(weights) if weights else case_weights)
    model = lumen.Model(model_path, lumen_weights, fuse=False)
    session = model.session(threads=threads)
    session.keep_all_operands()
    session.run(inputs, cast=True)
    reference = reference_values(model, model_path, case, case_weights, inputs, given_inputs,
                                 module)
    return print_rows(session, reference, tolerance, stream)


def reference_values(model, model_path, case, case_weights, inputs, given_inputs, module):
    """{operand name: PyTorch's value as numpy} for as many operands as the reference gives."""
    if module is not None:
        return module_outputs(module, inputs, model.output_names)
    if model_path.suffix != ".onnx":
        from lumen import torch_graph

        if case is not None:
            operands = torch_graph.reference_operands(model_path.parent, case_weights, inputs)
        else:
            import torch

            graph = torch_graph.PnnxModule(model_path, case_weights).eval()
            with torch.inference_mode():
                operands = graph.operands(*[torch.from_numpy(np.ascontiguousarray(x))
                                            for x in inputs])
            operands.pop("pnnx.Output", None)
        return {name: value.detach().numpy() for name, value in operands.items()}
    if case is None or given_inputs or not case.outputs:
        raise CaseError(f"{model_path}: no reference for an ONNX model without its case's inputs "
                        "and outputs: give the PyTorch module (--module FILE.py:NAME)")
    expected = case.output_arrays()
    if len(expected) != len(model.output_names):
        raise CaseError(f"{case.folder}: case.txt lists {len(expected)} output(s), the model has "
                        f"{len(model.output_names)}")
    return dict(zip(model.output_names, expected))


def print_rows(session, reference, tolerance, stream):
    """Prints the table of every operand against `reference`; returns (rows, first outside)."""
    rows, first_outside = [], None
    print(f"{'operand':>10}  {'made by':<44} {'shape':<18} {'max abs':>9} {'max rel':>9}  status",
          file=stream)
    for name, shape, producer in session.operands():
        shape = tuple(shape)
        if name not in reference:
            rows.append((name, producer, shape, None, None, None, "no PyTorch value"))
            print(f"{name:>10}  {producer[:44]:<44} {str(shape):<18} {'':>9} {'':>9}  "
                  "(no PyTorch value)", file=stream)
            continue
        expected = reference[name]
        got = session.operand(name)
        if tuple(expected.shape) != shape:
            note = f"shape differs: PyTorch {tuple(expected.shape)}"
            rows.append((name, producer, shape, None, None, None, note))
            first_outside = first_outside or name
            print(f"{name:>10}  {producer[:44]:<44} {str(shape):<18} {'':>9} {'':>9}  {note}",
                  file=stream)
            continue
        largest_absolute, largest_relative, outside = difference(got, expected, tolerance)
        status = "ok" if outside == 0 else f"OUTSIDE ({outside} of {expected.size})"
        if outside and first_outside is None:
            first_outside = name
        rows.append((name, producer, shape, largest_absolute, largest_relative, outside, status))
        print(f"{name:>10}  {producer[:44]:<44} {str(shape):<18} {largest_absolute:9.2e} "
              f"{largest_relative:9.2e}  {status}", file=stream)
    compared = sum(1 for row in rows if row[5] is not None)
    atol, rtol = tolerance
    if first_outside is None:
        print(f"every operand within atol {atol:g} rtol {rtol:g} ({compared} with a PyTorch "
              "value)", file=stream)
    else:
        producer = next(row[1] for row in rows if row[0] == first_outside)
        print(f"first operand outside atol {atol:g} rtol {rtol:g}: {first_outside}, "
              f"made by {producer}", file=stream)
    return rows, first_outside


def main(arguments=None):
    """Command line: python3 -m lumen.compare MODEL [--input FILE]... [--module FILE.py:NAME]."""
    parser = argparse.ArgumentParser(prog="python3 -m lumen.compare",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("case", help="a case folder (case.txt, model.pnnx.param or model.onnx, "
                        "inputs), or a .pnnx.param or .onnx model file with --input")
    parser.add_argument("--input", action="append", metavar="FILE",
                        help="an input, in the model's order: FILE.npy, or a raw float32 "
                        "FILE:1,3,224,224 (repeat for several; replaces a case's inputs)")
    parser.add_argument("--module", metavar="FILE.py:NAME", help="PyTorch's side: NAME() in "
                        "FILE.py returns the module whose outputs are the reference")
    parser.add_argument("--tolerance", nargs=2, type=float, metavar=("ATOL", "RTOL"),
                        help="instead of the case's (default for a model file: 1e-4 1e-4)")
    parser.add_argument("--bin", help="weights for Lumen instead of the case's (PyTorch keeps the "
                        "case's): a modified copy simulates a layer that disagrees")
    parser.add_argument("--threads", type=int, default=1, help="Lumen's threads (default 1)")
    options = parser.parse_args(arguments)
    import lumen

    try:
        tolerance = tuple(options.tolerance) if options.tolerance else None
        _, first_outside = compare(options.case, options.bin, options.threads,
                                   inputs=options.input, module=options.module,
                                   tolerance=tolerance)
    except (CaseError, lumen.Error, ValueError, OSError) as error:
        print(f"lumen.compare: {error}", file=sys.stderr)
        return 2
    return 0 if first_outside is None else 1


if __name__ == "__main__":
    sys.exit(main())
