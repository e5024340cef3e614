#!/usr/bin/python3
"""Runs pnnx's own operator tests through Lumen: ncnn's tools/pnnx/tests/test_*.py, each of which
builds a PyTorch module, traces it and converts the trace with pnnx.

    /usr/bin/python3 scripts/pnnx_operator_tests.py export --tests NCNN/tools/pnnx/tests \\
        --pnnx PNNX_BINARY --out DIR          # one folder per test, with a golden case in it
    /usr/bin/python3 scripts/pnnx_operator_tests.py check --out DIR [--lumen-run build/lumen_run]

Nothing of ncnn is kept in this repository: pnnx is built as ../shared/docs/pnnx-build.md says,
and the tests are read from the checkout. `export` runs each test in DIR/<test>/ (where the test
finds pnnx as ../src/pnnx, as in pnnx's own build tree), records the example inputs of its
torch.jit.trace and the module's outputs on them, and writes DIR/<test>/case/ in the corpus format
(tmp/models/README.md) when the test traced one module. `check` runs `lumen_run --case` on every
case (or lumen_run on the bare param file when there is no case) and prints one line per test:
its name, lumen_run's exit status (0 match, 1 mismatch, 2 a clear error; 124 a time-out and 128+N
a signal, which must never happen) and lumen_run's last line, then a count of each status.
"""
import argparse
import collections
import importlib
import os
import pathlib
import shutil
import subprocess
import sys

TOLERANCE = "1e-5 1e-4"  # issue 25: 1e-5 absolute plus 1e-4 relative of the module's own fp32 outputs


def flatten(value, torch):
    """The tensors in a nest of tuples and lists, in order (pnnx's outputs follow this order)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [tensor for item in value for tensor in flatten(item, torch)]
    return []


def export_one(name, tests):
    """In the current folder: runs test `name` with torch.jit.trace recording what it traced."""
    import torch

    sys.path[:0] = [tests, "."]
    traced = []
    real_trace = torch.jit.trace

    def recording_trace(module, example_inputs, *args, **kwargs):
        inputs = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
        with torch.no_grad():
            outputs = module(*inputs)
        traced.append((flatten(list(inputs), torch), flatten(outputs, torch)))
        return real_trace(module, example_inputs, *args, **kwargs)

    torch.jit.trace = recording_trace
    try:  # pnnx's own verdict on its python rebuild does not matter here
        print("pnnx test:", "pass" if importlib.import_module(name).test() else "fail")
    except Exception as error:  # noqa: BLE001 - any failure of the test is only reported
        print("pnnx test raised", type(error).__name__, str(error)[:200])
    params = sorted(pathlib.Path(".").glob("*.pnnx.param"))
    if len(traced) != 1 or len(params) != 1:
        print(f"{len(traced)} traces and {len(params)} param files: no case written")
        return
    inputs, outputs = traced[0]
    if any(tensor.is_complex() for tensor in inputs + outputs):
        print("complex tensors: no case written")
        return
    case = pathlib.Path("case")
    case.mkdir(exist_ok=True)
    shutil.copy(params[0], case / "model.pnnx.param")
    shutil.copy(params[0].with_suffix(".bin"), case / "model.pnnx.bin")
    lines = []
    for kind, prefix, tensors in (("input", "in", inputs), ("output", "out", outputs)):
        for index, tensor in enumerate(tensors):
            file = f"{prefix}{index}.f32"
            tensor.detach().float().contiguous().numpy().astype("<f4").tofile(case / file)
            lines.append(f"{kind} {file} " + (",".join(str(d) for d in tensor.shape) or "()"))
    lines += [f"tolerance {TOLERANCE}", f"note pnnx operator test {name}"]
    (case / "case.txt").write_text("\n".join(lines) + "\n")
    print("case written")


def export(arguments):
    out = pathlib.Path(arguments.out).resolve()
    (out / "src").mkdir(parents=True, exist_ok=True)
    link = out / "src" / "pnnx"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(pathlib.Path(arguments.pnnx).resolve())
    for test in sorted(pathlib.Path(arguments.tests).resolve().glob("test_*.py")):
        folder = out / test.stem
        if (folder / "export.log").exists() and not arguments.again:
            continue
        folder.mkdir(exist_ok=True)
        with open(folder / "export.log", "w") as log:
            try:
                subprocess.run([sys.executable, __file__, "export-one", test.stem, str(test.parent)],
                               cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                               timeout=arguments.timeout)
            except subprocess.TimeoutExpired:
                log.write("\ntimed out\n")
        print(test.stem, (folder / "export.log").read_text().strip().splitlines()[-1:])


def check(arguments):
    statuses = collections.Counter()
    for folder in sorted(pathlib.Path(arguments.out).glob("test_*")):
        if (folder / "case" / "case.txt").exists():
            command = [arguments.lumen_run, "--case", str(folder / "case")]
        else:
            params = sorted(folder.glob("*.pnnx.param"))
            if not params:
                continue
            command = [arguments.lumen_run, str(params[0])]
        try:
            result = subprocess.run(command + ["--threads", "2"], capture_output=True, text=True,
                                    timeout=arguments.timeout)
            status = result.returncode if result.returncode >= 0 else 128 - result.returncode
            lines = [line for line in (result.stdout + result.stderr).splitlines()
                     if not line.startswith(("W20", "WARNING"))]
            last = lines[-1][:300] if lines else ""
        except subprocess.TimeoutExpired:
            status, last = 124, "timed out"
        statuses[status] += 1
        print(folder.name, status, last, flush=True)
    print("exit statuses:", dict(sorted(statuses.items())))
    return 1 if any(status >= 124 for status in statuses) else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    exporting = commands.add_parser("export", help="run pnnx's tests, write golden cases")
    exporting.add_argument("--tests", required=True, help="ncnn's tools/pnnx/tests")
    exporting.add_argument("--pnnx", required=True, help="the pnnx binary")
    exporting.add_argument("--out", required=True)
    exporting.add_argument("--again", action="store_true", help="redo tests already exported")
    exporting.add_argument("--timeout", type=int, default=600)
    checking = commands.add_parser("check", help="run lumen_run on every exported test")
    checking.add_argument("--out", required=True)
    checking.add_argument("--lumen-run", default=str(pathlib.Path(__file__).parents[1] /
                                                      "build" / "lumen_run"))
    checking.add_argument("--timeout", type=int, default=300)
    one = commands.add_parser("export-one")  # internal: one test, in its folder
    one.add_argument("name")
    one.add_argument("tests")
    arguments = parser.parse_args()
    if arguments.command == "export":
        export(arguments)
    elif arguments.command == "check":
        sys.exit(check(arguments))
    else:
        export_one(arguments.name, arguments.tests)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
