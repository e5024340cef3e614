"""Lumen against PyTorch, operand by operand: the tool for a model that disagrees.

    python3 -m lumen.compare tmp/models/convnext_blocks
    python3 -m lumen.compare tmp/models/resnet18 --bin /tmp/perturbed.pnnx.bin   (Lumen's weights)

Runs the case's graph in Lumen (without fusion, so every operand exists) and in PyTorch (the case's
own model_pnnx.py when it has one, else lumen.torch_graph's op-by-op module) on the case's inputs,
then prints for every operand in Lumen's execution order its name, the operator that makes it, its
shape and the largest absolute and relative differences, and names the first operand outside the
case's tolerance (|lumen - torch| <= atol * max(1, max |torch|) + rtol * |torch|, element by
element: the absolute part grows with the operand's magnitude, see difference()). The first such
operand is where to look: everything before it agrees. Exit status: 0 when every operand is within
tolerance, 1 when one is not, 2 on bad usage or input.
"""
import argparse
import pathlib
import sys

import numpy as np

from lumen.case_format import CaseError, read_case


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


def compare(case_dir, weights=None, threads=1, stream=None):
    """Compares every operand; returns the rows and the name of the first operand outside tolerance.

    Each row is (name, producer, shape, max abs, max rel, outside, note). The table goes to
    `stream` (standard output by default).
    """
    stream = stream or sys.stdout
    import lumen  # the compiled module; imported here so that --help works without it
    from lumen import torch_graph

    case_dir = pathlib.Path(case_dir)
    case = read_case(case_dir)
    inputs, tolerance, case_weights = case.input_arrays(), case.tolerance, case.weights
    # Other weights go to Lumen only: PyTorch keeps the case's, so a modified copy plays the part
    # of a Lumen layer that computes something else.
    lumen_weights = pathlib.Path(weights) if weights else case_weights
    model = lumen.Model(str(case_dir / "model.pnnx.param"), str(lumen_weights), fuse=False)
    session = model.session(threads=threads)
    session.keep_all_operands()
    session.run(inputs)
    reference = torch_graph.reference_operands(case_dir, case_weights, inputs)

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
        expected = reference[name].detach().numpy()
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
    atol, rtol = tolerance
    if first_outside is None:
        print(f"every operand within atol {atol:g} rtol {rtol:g}", file=stream)
    else:
        producer = next(row[1] for row in rows if row[0] == first_outside)
        print(f"first operand outside atol {atol:g} rtol {rtol:g}: {first_outside}, "
              f"made by {producer}", file=stream)
    return rows, first_outside


def main(arguments=None):
    """Command line: python3 -m lumen.compare CASE_DIR [--bin FILE] [--threads N]."""
    parser = argparse.ArgumentParser(prog="python3 -m lumen.compare",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("case", help="a case folder (case.txt, model.pnnx.param, inputs)")
    parser.add_argument("--bin", help="weights for Lumen instead of the case's (PyTorch keeps the "
                        "case's): a modified copy simulates a layer that disagrees")
    parser.add_argument("--threads", type=int, default=1, help="Lumen's threads (default 1)")
    options = parser.parse_args(arguments)
    import lumen

    try:
        _, first_outside = compare(options.case, options.bin, options.threads)
    except (CaseError, lumen.Error, ValueError, OSError) as error:
        print(f"lumen.compare: {error}", file=sys.stderr)
        return 2
    return 0 if first_outside is None else 1


if __name__ == "__main__":
    sys.exit(main())
