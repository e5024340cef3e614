"""A PNNX graph run op by op with PyTorch operators, and every operand of a case from PyTorch.

Two ways to get PyTorch's value of every operand of a PNNX export, for comparing an engine with
PyTorch layer by layer (lumen.compare) and for the PyTorch peer of scripts/bench.sh:

- reference_operands(case_dir, inputs): when the case holds pnnx's own model_pnnx.py (it rebuilds
  the exact PyTorch module from model.pnnx.bin), its forward runs and every local `v_N` is read when
  forward returns: operand N of the param file. Otherwise PnnxModule below runs the graph.
- PnnxModule: the operators ResNet18 and YOLOv5s exports use, mapped onto torch modules.

Needs PyTorch (Debian's python3-torch); the rest of the lumen package does not.
"""
import importlib.util
import os
import pathlib
import sys
import tempfile
import zipfile

import numpy as np
import torch


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
                raise ValueError(f"torch_graph: no torch mapping for {kind} '{name}'")
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
                    raise ValueError(f"torch_graph: unsupported expression {params['expr']}")
                values[outputs[0]] = values[inputs[0]] + values[inputs[1]]
            else:
                values[outputs[0]] = layer(*[values[i] for i in inputs])
        raise ValueError("torch_graph: the graph has no pnnx.Output")


def load_model_pnnx(case_dir, bin_path):
    """The module of the case's pnnx-generated model_pnnx.py (eval mode) with bin_path's weights."""
    case_dir = pathlib.Path(case_dir)
    # model_pnnx.py opens 'model.pnnx.bin' from the working directory: give it a folder where that
    # name is this case's weights (which may live in another case folder or be a modified copy).
    with tempfile.TemporaryDirectory() as folder:
        os.symlink(os.path.abspath(bin_path), os.path.join(folder, "model.pnnx.bin"))
        spec = importlib.util.spec_from_file_location(f"model_pnnx_{case_dir.name}",
                                                      case_dir / "model_pnnx.py")
        generated = importlib.util.module_from_spec(spec)
        previous = os.getcwd()
        os.chdir(folder)
        try:
            spec.loader.exec_module(generated)
            return generated.Model().float().eval()
        finally:
            os.chdir(previous)


def load_case_module(case_dir, bin_path):
    """The PyTorch module of a case: its model_pnnx.py when it has one, else PnnxModule."""
    case_dir = pathlib.Path(case_dir)
    if (case_dir / "model_pnnx.py").exists():
        return load_model_pnnx(case_dir, bin_path)
    return PnnxModule(case_dir / "model.pnnx.param", bin_path).eval()


def _operands_from_model_pnnx(case_dir, bin_path, inputs):
    """Runs the case's model_pnnx.py and returns {operand name: tensor} from forward's locals."""
    module = load_model_pnnx(case_dir, bin_path)
    captured = {}

    def tracer(frame, event, _):
        # Only forward's own frame: when it returns, its locals hold every operand.
        if event == "call":
            return tracer if frame.f_code is module.forward.__func__.__code__ else None
        if event == "return":
            captured.update(frame.f_locals)
        return tracer

    sys.settrace(tracer)
    try:
        with torch.inference_mode():
            module(*inputs)
    finally:
        sys.settrace(None)
    operands = {}
    for key, value in captured.items():
        if key.startswith("v_") and isinstance(value, torch.Tensor):
            operands[key[2:]] = value
    return operands


def reference_operands(case_dir, bin_path, inputs):
    """PyTorch's value of every operand of the case's graph, by operand name, for these inputs.

    inputs: the graph's inputs as float32 numpy arrays in PyTorch's layout.
    """
    case_dir = pathlib.Path(case_dir)
    tensors = [torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)) for x in inputs]
    if (case_dir / "model_pnnx.py").exists():
        return _operands_from_model_pnnx(case_dir, bin_path, tensors)
    module = PnnxModule(case_dir / "model.pnnx.param", bin_path).eval()
    if len(tensors) != 1:
        raise ValueError("torch_graph: PnnxModule runs graphs of one input")
    with torch.inference_mode():
        operands = module.operands(tensors[0])
    operands.pop("pnnx.Output", None)
    return operands
