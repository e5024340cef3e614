#!/usr/bin/env python3
"""Exports the bench models to ONNX for the ONNX Runtime peer of scripts/bench.sh, checked first.

    /usr/bin/python3 scripts/make_onnx_models.py                      # every model, if missing
    /usr/bin/python3 scripts/make_onnx_models.py --models vit lstm --force
    /usr/bin/python3 scripts/make_onnx_models.py --output-dir /tmp/onnx

Each model is the very module the PyTorch peer times (scripts/pytorch_peer.py build_case: the
golden case's weights), exported with torch.onnx.export at opset 17 (torch 1.13's newest) with
the case's input shapes. An export is kept only when it is right:
1. the PyTorch module reproduces the case's out*.f32 from its in*.f32 within case.txt's tolerance
   (so the module is the case's network);
2. the export is shape-inferred (every operand's shape declared, which Lumen needs) and onnx.checker
   accepts it;
3. ONNX Runtime itself (scripts/ort_peer.js --check, the runtime and options bench.sh times) run
   on in*.f32 matches out*.f32 within the same tolerance.
Otherwise nothing is written and the script exits non-zero. Files go to a cache folder outside the
repository: --output-dir, else $LUMEN_ONNX_DIR, else ~/.cache/lumen-bench/onnx/<model>.onnx.
Needs Debian's python3-torch and python3-onnx (run with /usr/bin/python3) and node with
onnxruntime-node (bench.sh installs it; see scripts/ort_peer.js for where it is looked for).
"""
import argparse
import os
import pathlib
import subprocess
import sys
import warnings

import onnx
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import pytorch_peer  # noqa: E402  (the module builder shared with the PyTorch peer)

OPSET = 17
DEFAULT_DIR = pathlib.Path.home() / ".cache/lumen-bench/onnx"


def within_tolerance(got, want, tolerance):
    """(ok, largest |got - want|) under the case's rule |got - want| <= atol + rtol * |want|."""
    atol, rtol = tolerance
    got = got.detach().float().reshape(want.shape)
    error = (got - want).abs()
    return bool(torch.all(error <= atol + rtol * want.abs())), float(error.max())


def check_module(model, module, case):
    """Fails unless the PyTorch module reproduces the case's outputs from its inputs."""
    inputs = pytorch_peer.read_tensors(case.inputs)
    wanted = pytorch_peer.read_tensors(case.outputs)
    with torch.inference_mode():
        got = module(*inputs)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    if len(got) != len(wanted):
        raise SystemExit(f"{model}: the module gives {len(got)} outputs, the case {len(wanted)}")
    for index, (value, want) in enumerate(zip(got, wanted)):
        ok, error = within_tolerance(value, want, case.tolerance)
        if not ok:
            raise SystemExit(f"{model}: PyTorch module output {index} differs from the case by "
                             f"{error:g} (tolerance {case.tolerance}): not exporting")
    return len(wanted)


class ChannelShuffle(torch.nn.Module):
    """nn.ChannelShuffle as torchvision's shufflenet writes it (view, transpose, view): the same
    values, in ops ONNX has (torch 1.13 cannot export aten::channel_shuffle)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, x):
        batch, channels, height, width = x.shape
        x = x.view(batch, self.groups, channels // self.groups, height, width)
        return x.transpose(1, 2).contiguous().view(batch, channels, height, width)


def make_exportable(module):
    """Replaces the submodules ONNX export refuses by equivalent ones (nn.ChannelShuffle)."""
    for name, child in list(module.named_children()):
        if isinstance(child, torch.nn.ChannelShuffle):
            setattr(module, name, ChannelShuffle(child.groups))
        else:
            make_exportable(child)


def export(model, output_dir, node):
    """Exports one bench model into output_dir/<model>.onnx after the three checks."""
    module, case_dir, case = pytorch_peer.build_case(model)
    make_exportable(module)
    output_count = check_module(model, module, case)
    examples = tuple(torch.rand(shape) for _, shape in case.inputs)
    target = output_dir / f"{model}.onnx"
    scratch = output_dir / f".{model}.{os.getpid()}.onnx"
    try:
        # With gradients off, nn.MultiheadAttention takes its fused fast path, an op ONNX does
        # not have: export the same maths through its composite path (gradients on, weights
        # requiring them; nothing is trained, dropout stays off in eval mode).
        for parameter in module.parameters():
            parameter.requires_grad_(True)
        with torch.enable_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Tracer warnings about constant shapes: batch 1.
            torch.onnx.export(module, examples, str(scratch), export_params=True,
                              opset_version=OPSET, do_constant_folding=True,
                              input_names=[f"in{i}" for i in range(len(examples))],
                              output_names=[f"out{i}" for i in range(output_count)])
        # Every operand's shape declared (Lumen, like the ONNX golden cases, evaluates shape
        # arithmetic once when loading and needs them); the same file then goes to both engines.
        inferred = onnx.shape_inference.infer_shapes(onnx.load(str(scratch)))
        onnx.checker.check_model(inferred)
        onnx.save(inferred, str(scratch))
        check = subprocess.run([node, str(pytorch_peer.ROOT / "scripts/ort_peer.js"), "--model",
                                str(scratch), "--check", str(case_dir)],
                               capture_output=True, text=True)
        report = (check.stdout + check.stderr).strip()
        if check.returncode != 0:
            raise SystemExit(f"{model}: ONNX Runtime on the export does not match the case: "
                             f"{report}")
        os.replace(scratch, target)
        print(f"{model}: {target} (opset {OPSET}, case {case_dir.name}; ONNX Runtime {report})")
    finally:
        scratch.unlink(missing_ok=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=sorted(pytorch_peer.MODELS),
                        default=list(pytorch_peer.MODELS))
    parser.add_argument("--output-dir", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("LUMEN_ONNX_DIR", DEFAULT_DIR)))
    parser.add_argument("--force", action="store_true", help="export even if the file exists")
    parser.add_argument("--node", default="node", help="the node executable for the check")
    args = parser.parse_args()
    args.output_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    failed = []
    for model in args.models:
        if not args.force and (args.output_dir / f"{model}.onnx").exists():
            print(f"{model}: {args.output_dir / (model + '.onnx')} exists (--force re-exports)")
            continue
        try:
            export(model, args.output_dir, args.node)
        except SystemExit as error:
            print(error, file=sys.stderr)
            failed.append(model)
        except Exception as error:  # An export bug in one model must not hide the others.
            print(f"{model}: export failed: {type(error).__name__}: {error}", file=sys.stderr)
            failed.append(model)
    if failed:
        raise SystemExit(f"not exported: {' '.join(failed)}")


if __name__ == "__main__":
    main()
