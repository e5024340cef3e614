"""A PNNX graph run op by op with PyTorch operators, and every operand of a case from PyTorch.

Two ways to get PyTorch's value of every operand of a PNNX export, for comparing an engine with
PyTorch layer by layer (lumen.compare) and for the PyTorch peer of scripts/bench.sh:

- reference_operands(case_dir, inputs): when the case holds pnnx's own model_pnnx.py (it rebuilds
  the exact PyTorch module from model.pnnx.bin), its forward runs and every local `v_N` is read when
  forward returns: operand N of the param file. Otherwise PnnxModule below runs the graph.
- PnnxModule: the graph op by op, each PNNX op type mapped onto a torch module (MAPPINGS): the
  ops of every shared case without a model_pnnx.py (ResNet18, YOLOv5s, the single-op cases).

Needs PyTorch (Debian's python3-torch); the rest of the lumen package does not.
"""
import importlib.util
import operator
import os
import pathlib
import re
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


def parse_value(text):
    """A pnnx parameter value as Python: None, True/False, an int, a float, a tuple or a string."""
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    if text.startswith("(") and text.endswith(")"):
        return tuple(parse_value(item) for item in text[1:-1].split(",") if item)
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


class Detect(torch.nn.Module):
    """YOLOv5's Detect head in export mode, from the pnnx module-op attributes.

    At the export's feature sizes it uses the stored grids, as YOLOv5 does; at other sizes, or
    always when `dynamic` is set (as YOLOv5's own export does for dynamic axes), it builds them
    from the feature size, so that the module runs, and exports, at any input size.
    """

    def __init__(self, weights):
        super().__init__()
        self.dynamic = False
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

    def make_grids(self, level, ny, nx):
        """YOLOv5's Detect._make_grid: cell offsets (x, y) - 0.5 and anchor sizes for ny x nx."""
        y, x = torch.meshgrid(torch.arange(ny, dtype=torch.float32),
                              torch.arange(nx, dtype=torch.float32), indexing="ij")
        offset = self.grids[level][0, 0, 0, 0, 0]  # -0.5 in YOLOv5 v6 and later
        grid = torch.stack((x, y), 2).expand(1, 3, ny, nx, 2) + offset
        anchors = self.anchor_grids[level][:, :, :1, :1, :]
        return grid, anchors.expand(1, 3, ny, nx, 2)

    def forward(self, p3, p4, p5):
        outputs = []
        for level, x in enumerate((p3, p4, p5)):
            y = self.convs[level](x)
            batch, _, ny, nx = y.shape
            y = y.view(batch, 3, -1, ny, nx).permute(0, 1, 3, 4, 2).sigmoid()
            grid, anchor_grid = self.grids[level], self.anchor_grids[level]
            if self.dynamic or tuple(grid.shape[2:4]) != (ny, nx):
                grid, anchor_grid = self.make_grids(level, ny, nx)
            xy = (y[..., 0:2] * 2 + grid) * self.strides[level]
            wh = (y[..., 2:4] * 2) ** 2 * anchor_grid
            outputs.append(torch.cat((xy, wh, y[..., 4:]), 4).view(batch, -1, y.shape[-1]))
        return torch.cat(outputs, 1)


class Expression(torch.nn.Module):
    """pnnx.Expression: a formula such as add(mul(@0,@1),@2) over the op's inputs."""

    # Python's operators where an argument may be a number (3 - x), torch's for the rest.
    FUNCTIONS = {
        "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
        "pow": operator.pow, "neg": operator.neg, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
        "exp": torch.exp, "log": torch.log, "abs": torch.abs,
    }

    def __init__(self, formula):
        super().__init__()
        self.formula = formula
        self.tokens = re.findall(r"[A-Za-z_]+|@\d+|[-+.\deE]+|[(),]", formula)

    def forward(self, *inputs):
        tokens = iter(self.tokens)

        def term():
            token = next(tokens)
            if token.startswith("@"):
                return inputs[int(token[1:])]
            if token in self.FUNCTIONS:
                arguments = []
                if next(tokens) != "(":
                    raise ValueError(f"torch_graph: bad expression {self.formula}")
                while True:
                    arguments.append(term())
                    if next(tokens) == ")":
                        break
                return self.FUNCTIONS[token](*arguments)
            try:
                return float(token)
            except ValueError:
                raise ValueError(f"torch_graph: '{token}' in expression {self.formula}") from None

        return term()


class Constant(torch.nn.Module):
    """pnnx.Attribute: a weight of the graph used as an operand."""

    def __init__(self, data):
        super().__init__()
        self.register_buffer("data", data)

    def forward(self):
        return self.data


class Function(torch.nn.Module):
    """A torch function with the op's parameters bound (torch.cat, Tensor.reshape, F.softmax...)."""

    def __init__(self, function):
        super().__init__()
        self.function = function

    def forward(self, *inputs):
        return self.function(*inputs)


def with_weights(layer, weights):
    """Gives a torch module the op's @weights (weight, bias, running_mean...) by attribute name."""
    for key, value in weights.items():
        getattr(layer, key).data = value
    return layer


def pool_arguments(p):
    return dict(kernel_size=p["kernel_size"], stride=p["stride"], padding=p["padding"],
                ceil_mode=p.get("ceil_mode", False))


# PNNX op type -> the torch module computing it, from the op's parameters p (parsed with
# parse_value) and its weights w. One line per op type; add one to run a new graph.
MAPPINGS = {
    "nn.Conv2d": lambda p, w: with_weights(torch.nn.Conv2d(
        p["in_channels"], p["out_channels"], p["kernel_size"], p["stride"], p["padding"],
        p["dilation"], p["groups"], p["bias"], p.get("padding_mode", "zeros")), w),
    "nn.ConvTranspose2d": lambda p, w: with_weights(torch.nn.ConvTranspose2d(
        p["in_channels"], p["out_channels"], p["kernel_size"], p["stride"], p["padding"],
        p["output_padding"], p["groups"], p["bias"], p["dilation"]), w),
    "nn.Linear": lambda p, w: with_weights(
        torch.nn.Linear(p["in_features"], p["out_features"], p["bias"]), w),
    "nn.BatchNorm2d": lambda p, w: with_weights(
        torch.nn.BatchNorm2d(p["num_features"], p["eps"], affine=p["affine"]), w),
    "nn.MaxPool2d": lambda p, w: torch.nn.MaxPool2d(dilation=p.get("dilation", 1),
                                                    **pool_arguments(p)),
    "nn.AvgPool2d": lambda p, w: torch.nn.AvgPool2d(
        count_include_pad=p["count_include_pad"], divisor_override=p["divisor_override"],
        **pool_arguments(p)),
    "nn.AdaptiveAvgPool2d": lambda p, w: torch.nn.AdaptiveAvgPool2d(p["output_size"]),
    "nn.Upsample": lambda p, w: torch.nn.Upsample(
        size=p.get("size"), scale_factor=p.get("scale_factor"), mode=p["mode"],
        align_corners=p.get("align_corners")),
    "nn.PixelShuffle": lambda p, w: torch.nn.PixelShuffle(p["upscale_factor"]),
    "nn.ReLU": lambda p, w: torch.nn.ReLU(),
    "nn.ReLU6": lambda p, w: torch.nn.ReLU6(),
    "nn.SiLU": lambda p, w: torch.nn.SiLU(),
    "nn.Sigmoid": lambda p, w: torch.nn.Sigmoid(),
    "nn.Tanh": lambda p, w: torch.nn.Tanh(),
    "nn.Hardsigmoid": lambda p, w: torch.nn.Hardsigmoid(),
    "nn.Hardswish": lambda p, w: torch.nn.Hardswish(),
    "nn.ELU": lambda p, w: torch.nn.ELU(p["alpha"]),
    "nn.LeakyReLU": lambda p, w: torch.nn.LeakyReLU(p["negative_slope"]),
    "nn.Softmax": lambda p, w: torch.nn.Softmax(p["dim"]),
    "F.softmax": lambda p, w: Function(lambda x: torch.nn.functional.softmax(x, p["dim"])),
    "F.silu": lambda p, w: Function(torch.nn.functional.silu),
    "Tensor.reshape": lambda p, w: Function(lambda x: x.reshape(p["shape"])),
    "torch.flatten": lambda p, w: Function(lambda x: torch.flatten(x, p["start_dim"],
                                                                   p["end_dim"])),
    "torch.cat": lambda p, w: Function(lambda *xs: torch.cat(xs, p["dim"])),
    "pnnx.Expression": lambda p, w: Expression(p["expr"]),
    "pnnx.Attribute": lambda p, w: Constant(w["data"]),
    "models.yolo.Detect": lambda p, w: Detect(w),
}


class PnnxModule(torch.nn.Module):
    """Runs a PNNX graph with torch operators (the op types of MAPPINGS), of any number of inputs.

    forward(*inputs) returns the graph's output (a tuple when it has several); operands(*inputs)
    returns every operand by name, the reference scripts/make_operand_references.py stores for
    Lumen's intermediate-operand test.
    """

    def __init__(self, param_path, bin_path):
        super().__init__()
        self.steps = []
        self.layers = torch.nn.ModuleList()
        for kind, name, inputs, outputs, params, weights in read_pnnx(param_path, bin_path):
            layer = None
            if kind not in ("pnnx.Input", "pnnx.Output"):
                if kind not in MAPPINGS:
                    raise ValueError(f"torch_graph: no torch mapping for {kind} '{name}'")
                parsed = {key: parse_value(value) for key, value in params.items()}
                layer = MAPPINGS[kind](parsed, weights)
                # Only torch's own modules become submodules (layers.N): the graph's glue
                # (torch.cat, expressions, constants...) stays out of the exported node names,
                # as it always did, so that re-exports of committed cases keep their bytes.
                if not isinstance(layer, (Function, Expression, Constant)):
                    self.layers.append(layer)
            self.steps.append((kind, layer, inputs, outputs))

    def forward(self, *inputs):
        return self.operands(*inputs)["pnnx.Output"]

    def operands(self, *inputs):
        """Every operand by name; "pnnx.Output": the output (a tuple when there are several)."""
        values = {}
        graph_inputs = iter(inputs)
        graph_outputs = []
        for kind, layer, step_inputs, outputs in self.steps:
            if kind == "pnnx.Input":
                values[outputs[0]] = next(graph_inputs)
            elif kind == "pnnx.Output":
                graph_outputs += [values[name] for name in step_inputs]
            else:
                values[outputs[0]] = layer(*[values[name] for name in step_inputs])
        if not graph_outputs:
            raise ValueError("torch_graph: the graph has no pnnx.Output")
        single = len(graph_outputs) == 1
        values["pnnx.Output"] = graph_outputs[0] if single else tuple(graph_outputs)
        return values


def load_model_pnnx(case_dir, bin_path):
    """The module of the case's pnnx-generated model_pnnx.py (eval mode) with bin_path's weights."""
    case_dir = pathlib.Path(case_dir)
    # model_pnnx.py opens the weights by the path pnnx wrote ('model.pnnx.bin', or a path into
    # another case folder such as '../transformer_prenorm/model.pnnx.bin') from the working
    # directory: run it in a scratch folder where that path leads to bin_path.
    source = (case_dir / "model_pnnx.py").read_text()
    written = re.search(r"zipfile\.ZipFile\('([^']*)'", source).group(1)
    with tempfile.TemporaryDirectory() as folder:
        working = os.path.join(folder, "work", "here")
        link = os.path.normpath(os.path.join(working, written))
        os.makedirs(working)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.abspath(bin_path), link)
        spec = importlib.util.spec_from_file_location(f"model_pnnx_{case_dir.name}",
                                                      case_dir / "model_pnnx.py")
        generated = importlib.util.module_from_spec(spec)
        previous = os.getcwd()
        os.chdir(working)
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
    with torch.inference_mode():
        operands = module.operands(*tensors)
    operands.pop("pnnx.Output", None)
    return operands
