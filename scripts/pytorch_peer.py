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
import pathlib
import statistics
import time
import zipfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent


def read_pnnx(param_path, bin_path):
    """Returns the operator lines of a .pnnx.param file and the weights of its .pnnx.bin."""
    lines = pathlib.Path(param_path).read_text().splitlines()[2:]
    archive = zipfile.ZipFile(bin_path)
    operators = []
    for line in lines:
        tokens = line.split()
        kind, name, inputs, outputs = tokens[0], tokens[1], int(tokens[2]), int(tokens[3])
        operands = tokens[4:4 + inputs + outputs]
        items = tokens[4 + inputs + outputs:]
        params = dict(item.split("=", 1) for item in items if item[0] not in "@$#")
        weights = {}
        for item in items:
            if item.startswith("@"):
                key, declared = item[1:].split("=", 1)
                shape = [int(x) for x in declared[1:declared.index(")")].split(",")]
                data = np.frombuffer(archive.read(f"{name}.{key}"), dtype="<f4").reshape(shape)
                weights[key] = torch.from_numpy(data.copy())
        operators.append((kind, name, operands[:inputs], operands[inputs:], params, weights))
    return operators


def ints(text):
    return [int(x) for x in text.strip("()").split(",")]


class Detect(torch.nn.Module):
    """YOLOv5's Detect head in export mode, from the pnnx module-op attributes."""

    def __init__(self, weights):
        super().__init__()
        self.convs = torch.nn.ModuleList()
        for level in range(3):
            weight = weights[f"m.{level}.weight"]
            conv = torch.nn.Conv2d(weight.shape[1], weight.shape[0], 1)
            conv.weight.data, conv.bias.data = weight, weights[f"m.{level}.bias"]
            self.convs.append(conv)
        grids = [w for k, w in sorted(weights.items()) if not k.startswith("m.") and w.dim() == 5]
        anchor = lambda g: bool(torch.all(g > 0)) and bool(torch.all(g == g[:, :, :1, :1, :]))
        # Levels P3, P4, P5 have decreasing grid sizes: order both kinds of grid that way.
        by_size = lambda g: -g.shape[2]
        self.grids = sorted([g for g in grids if not anchor(g)], key=by_size)
        self.anchor_grids = sorted([g for g in grids if anchor(g)], key=by_size)
        self.strides = [w for k, w in weights.items() if not k.startswith("m.") and w.dim() == 1][0]

    def forward(self, p3, p4, p5):
        outputs = []
        for level, x in enumerate((p3, p4, p5)):
            y = self.convs[level](x)
            batch, _, ny, nx = y.shape
            y = y.view(batch, 3, -1, ny, nx).permute(0, 1, 3, 4, 2).sigmoid()
            xy = (y[..., 0:2] * 2 + self.grids[level]) * self.strides[level]
            wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grids[level]
            outputs.append(torch.cat((xy, wh, y[..., 4:]), 4).view(batch, -1, y.shape[-1]))
        return torch.cat(outputs, 1)


class PnnxModule(torch.nn.Module):
    """Runs a PNNX graph with torch operators (the subset ResNet18 and YOLOv5s exports use).

    forward(x) returns the graph's output; operands(x) returns every operand by name, the
    reference scripts/make_operand_references.py stores for Lumen's intermediate-operand test.
    """

    def __init__(self, param_path, bin_path):
        super().__init__()
        self.steps = []
        self.layers = torch.nn.ModuleList()
        for kind, name, inputs, outputs, params, weights in read_pnnx(param_path, bin_path):
            if kind == "nn.Conv2d":
                layer = torch.nn.Conv2d(int(params["in_channels"]), int(params["out_channels"]),
                                        ints(params["kernel_size"]), ints(params["stride"]),
                                        ints(params["padding"]), ints(params["dilation"]),
                                        int(params["groups"]), params["bias"] == "True")
                layer.weight.data = weights["weight"]
                if "bias" in weights:
                    layer.bias.data = weights["bias"]
            elif kind == "nn.SiLU":
                layer = torch.nn.SiLU()
            elif kind == "nn.ReLU":
                layer = torch.nn.ReLU()
            elif kind == "nn.AdaptiveAvgPool2d":
                layer = torch.nn.AdaptiveAvgPool2d(ints(params["output_size"]))
            elif kind == "nn.Linear":
                layer = torch.nn.Linear(int(params["in_features"]), int(params["out_features"]),
                                        params["bias"] == "True")
                layer.weight.data = weights["weight"]
                if "bias" in weights:
                    layer.bias.data = weights["bias"]
            elif kind == "nn.MaxPool2d":
                layer = torch.nn.MaxPool2d(ints(params["kernel_size"]), ints(params["stride"]),
                                           ints(params["padding"]))
            elif kind == "nn.Upsample":
                layer = torch.nn.Upsample(scale_factor=2.0, mode=params["mode"])
            elif kind == "models.yolo.Detect":
                layer = Detect(weights)
            elif kind in ("pnnx.Input", "pnnx.Output", "torch.cat", "pnnx.Expression",
                          "torch.flatten"):
                layer = None
            else:
                raise SystemExit(f"pytorch_peer: no torch mapping for {kind}")
            if layer is not None:
                self.layers.append(layer)
            self.steps.append((kind, layer, inputs, outputs, params))

    def forward(self, x):
        return self.operands(x)["pnnx.Output"]

    def operands(self, x):
        values = {}
        for kind, layer, inputs, outputs, params in self.steps:
            if kind == "pnnx.Input":
                values[outputs[0]] = x
            elif kind == "pnnx.Output":
                values["pnnx.Output"] = values[inputs[0]]
                return values
            elif kind == "torch.cat":
                values[outputs[0]] = torch.cat([values[i] for i in inputs], int(params["dim"]))
            elif kind == "torch.flatten":
                values[outputs[0]] = torch.flatten(values[inputs[0]], int(params["start_dim"]),
                                                   int(params["end_dim"]))
            elif kind == "pnnx.Expression":
                if params["expr"] != "add(@0,@1)":
                    raise SystemExit(f"pytorch_peer: unsupported expression {params['expr']}")
                values[outputs[0]] = values[inputs[0]] + values[inputs[1]]
            else:
                values[outputs[0]] = layer(*[values[i] for i in inputs])
        raise SystemExit("pytorch_peer: the graph has no pnnx.Output")


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
