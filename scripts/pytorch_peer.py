#!/usr/bin/env python3
"""PyTorch, timed the way Lumen's runner times itself: the peer in scripts/bench.sh.

    /usr/bin/python3 scripts/pytorch_peer.py --model resnet18 --threads 1 --repeat 20
    /usr/bin/python3 scripts/pytorch_peer.py --model yolov5s --threads 2 --repeat 10

Prints `median X ms, min Y ms` of the forward latency over --repeat runs after warm-up.

resnet18 is torchvision's, in eval mode. yolov5s is rebuilt from the bundled PNNX export
(tmp/models/yolov5s_detect), op by op with torch modules, so that PyTorch runs exactly the graph
Lumen runs (BatchNorm already folded, as ultralytics does for inference). Both are traced, frozen
with torch.jit.freeze and torch.jit.optimize_for_inference, and run under torch.inference_mode().
This is a development tool (Debian's python3-torch); Lumen itself never uses Python.
"""
import argparse
import importlib.util
import pathlib
import statistics
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _load_torch_graph():
    """python/lumen/torch_graph.py, loaded by path (the lumen package itself needs a build)."""
    spec = importlib.util.spec_from_file_location("torch_graph",
                                                  ROOT / "python/lumen/torch_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


torch_graph = _load_torch_graph()
PnnxModule = torch_graph.PnnxModule


def build(model):
    if model == "resnet18":
        import torchvision
        return torchvision.models.resnet18().eval(), torch.rand(1, 3, 224, 224)
    case = ROOT / "tmp/models/yolov5s_detect"
    return PnnxModule(case / "model.pnnx.param", case / "model.pnnx.bin").eval(), \
        torch.rand(1, 3, 640, 640)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["resnet18", "yolov5s"], required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model, example = build(args.model)
    with torch.inference_mode():
        frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, example)))
        for _ in range(3):
            frozen(example)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            frozen(example)
            times.append((time.perf_counter() - start) * 1e3)
    print(f"median {statistics.median(times):.3f} ms, min {min(times):.3f} ms "
          f"({args.repeat} runs, {args.threads} threads)")


if __name__ == "__main__":
    main()
