#!/usr/bin/env python3
"""PyTorch, timed the way Lumen's runner times itself: the peer in scripts/bench.sh.

    /usr/bin/python3 scripts/pytorch_peer.py --model resnet18 --threads 1 --repeat 20
    /usr/bin/python3 scripts/pytorch_peer.py --model vit --threads 2 --repeat 10

Prints `median X ms, min Y ms (R runs, N threads)` of the forward latency over --repeat runs after
warm-up, then `torch mode: ...` (how the module ran).

Every model is the PyTorch module of a golden case (MODELS: bench name -> case folder), built with
the case's own weights, so that PyTorch, Lumen and ONNX Runtime (scripts/make_onnx_models.py
exports these same modules) all run the same network:
- resnet18 and yolov5s are rebuilt from their PNNX export op by op with torch modules (PnnxModule
  below; BatchNorm already folded, as pnnx and ultralytics do for inference);
- the other cases hold pnnx's model_pnnx.py, which rebuilds the exact module from model.pnnx.bin.
Each is traced, frozen with torch.jit.freeze and torch.jit.optimize_for_inference, and run under
torch.inference_mode(); if a step fails the peer falls back (traced only, then eager) and says so.
A case is looked for in tmp/models/, then in $LUMEN_SHARED_MODELS (default /work/shared/models).
This is a development tool (Debian's python3-torch); Lumen itself never uses Python.
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Bench name -> golden case folder name.
MODELS = {
    "resnet18": "resnet18",
    "yolov5s": "yolov5s_detect",
    "mobilenet_v3": "mobilenet_v3_large_075_160",
    "vit": "vit_d96_p8",
    "transformer": "transformer_prenorm",
    "lstm": "lstm_classifier",
    "convnext": "convnext_blocks",
    "superres": "super_resolution",
    "mobilenet_v2": "mobilenet_v2_050",
    "mobilenet_v2_full": "mobilenet_v2_100",
    "squeezenet": "squeezenet1_1",
    "densenet": "densenet121_g12",
    "shufflenet": "shufflenet_v2_x0_5",
    "mnasnet": "mnasnet0_5",
    "efficientnet": "efficientnet_b0_050",
    "regnet": "regnet_y_400mf_050",
    "unet": "unet_small",
    "style": "style_transfer_050",
    "ssdlite": "ssdlite320_head",
}


# python/lumen's torch-side modules, without the compiled lumen package.
sys.path.insert(0, str(ROOT / "python" / "lumen"))
import case_format  # noqa: E402
import torch_graph  # noqa: E402

PnnxModule = torch_graph.PnnxModule


def case_folder(model):
    """The golden case folder of a bench model: tmp/models/<case>, else the shared corpus's."""
    name = MODELS.get(model, model)
    for root in (ROOT / "tmp/models",
                 pathlib.Path(os.environ.get("LUMEN_SHARED_MODELS", "/work/shared/models"))):
        if (root / name / "case.txt").exists():
            return root / name
    raise FileNotFoundError(f"no case folder {name} in tmp/models or $LUMEN_SHARED_MODELS")


def read_tensors(files):
    """The raw float32 files [(path, shape)] of a case as torch tensors."""
    return [torch.from_numpy(array.copy()) for array in case_format.read_arrays(files)]


def build_case(model):
    """(module in eval mode, the case folder, its case.txt) for a bench model or case name."""
    case_dir = case_folder(model)
    case = case_format.read_case(case_dir)
    module = torch_graph.load_case_module(case_dir, case.weights)
    for parameter in module.parameters():
        parameter.requires_grad_(False)
    return module, case_dir, case


def build(model):
    """(module, random example inputs of the case's shapes) for a bench model."""
    module, _, case = build_case(model)
    return module, [torch.rand(shape) for _, shape in case.inputs]


def compile_for_inference(module, examples):
    """The fastest form of the module that runs: (callable, how it was made)."""
    try:
        traced = torch.jit.trace(module, tuple(examples))
    except Exception as error:  # Some modules do not trace: time them eagerly.
        return module, f"eager (tracing failed: {type(error).__name__})"
    try:
        frozen = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
        frozen(*examples)
        return frozen, "traced, frozen, optimize_for_inference"
    except Exception as error:
        return traced, f"traced (freeze failed: {type(error).__name__})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--eager", action="store_true", help="run the module without tracing")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model, examples = build(args.model)
    with torch.inference_mode():
        if args.eager:
            runnable, mode = model, "eager (--eager)"
        else:
            runnable, mode = compile_for_inference(model, examples)
        for _ in range(3):
            runnable(*examples)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            runnable(*examples)
            times.append((time.perf_counter() - start) * 1e3)
    print(f"median {statistics.median(times):.3f} ms, min {min(times):.3f} ms "
          f"({args.repeat} runs, {args.threads} threads)")
    print(f"torch mode: {mode}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
