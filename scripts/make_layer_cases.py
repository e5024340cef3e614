#!/usr/bin/env python3
"""Writes the layer test cases in test/data/layers/: one-operator PNNX models with PyTorch's outputs.

    /usr/bin/python3 scripts/make_layer_cases.py        (Debian's python3-torch)

Each case is a folder in the corpus format (see tmp/models/README.md): model.pnnx.param,
model.pnnx.bin (a stored zip), in*.f32, out*.f32 and case.txt. The param line of the operator is
written the way pnnx writes it (parameters sorted by key, then @weights, then #shape notes), and the
output comes from running the same operation in PyTorch on a seeded random input, so the C++ tests
(test/layer/test_*.cpp) compare Lumen with PyTorch, never with Lumen's own output. The script is
deterministic: running it again rewrites identical files.
"""
import math
import pathlib
import shutil
import zipfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent / "test/data/layers"
EXACT = (1e-6, 1e-6)          # pure data movement, max, relu
ARITHMETIC = (1e-5, 1e-4)     # sums of products (conv, linear, pooling averages)
TRANSCENDENTAL = (1e-6, 1e-5)  # exp, tanh, ...


def text(value):
    """A parameter value in pnnx's spelling."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (list, tuple)):
        return "(" + ",".join(text(v) for v in value) + ")"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def shape_text(tensor, kind=None):
    kind = kind or ("i64" if tensor.dtype == torch.int64 else "f32")
    return "(" + ",".join(str(d) for d in tensor.shape) + ")" + kind


def case_shape(tensor):
    """A shape as case.txt writes it: "1,3,224,224", or "()" for a rank-0 tensor."""
    return ",".join(str(d) for d in tensor.shape) or "()"


class Case:
    """Builds one case: the graph's inputs, one operator line (or a few), and its outputs."""

    def __init__(self, name, tolerance, note):
        self.name, self.tolerance, self.note = name, tolerance, note
        self.lines, self.inputs, self.outputs, self.weights = [], [], [], {}
        self.shapes = {}
        self.types = {}  # operand -> the element type the param file declares, when not f32

    def input(self, tensor, declared_type=None):
        """A graph input; its data file is float32, `declared_type` (e.g. "i64" for indices) is
        what pnnx would declare for it."""
        operand = str(len(self.shapes))
        self.shapes[operand] = tensor
        if declared_type:
            self.types[operand] = declared_type
        self.inputs.append((operand, tensor))
        self.lines.append(("pnnx.Input", f"pnnx_input_{len(self.inputs) - 1}", [], [operand], {}, {}, ""))
        return operand

    def op(self, kind, inputs, results, params=None, weights=None, name="op", keys=""):
        """Adds an operator: `results` are the PyTorch tensors it produces (one operand each)."""
        outputs = []
        for tensor in results:
            operand = str(len(self.shapes))
            self.shapes[operand] = tensor
            outputs.append(operand)
        self.lines.append((kind, name, inputs, outputs, params or {}, weights or {}, keys))
        for key, tensor in (weights or {}).items():
            self.weights[f"{name}.{key}"] = tensor
        return outputs

    def output(self, operand):
        self.outputs.append(operand)
        self.lines.append(("pnnx.Output", f"pnnx_output_{len(self.outputs) - 1}", [operand], [], {}, {}, ""))

    def write(self):
        folder = ROOT / self.name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        operand_count = len(self.shapes)
        lines = ["7767517", f"{len(self.lines)} {operand_count}"]
        for kind, name, inputs, outputs, params, weights, keys in self.lines:
            items = [f"{key}={text(params[key])}" for key in sorted(params)]
            items += [f"@{key}={shape_text(weights[key])}" for key in sorted(weights)]
            if keys:
                items.append(keys)
            # pnnx writes no #shape for a rank-0 operand (its shape would print as "()").
            items += [f"#{o}={shape_text(self.shapes[o], self.types.get(o))}" for o in inputs + outputs
                      if self.shapes[o].dim() > 0]
            lines.append(" ".join([f"{kind:<24}", f"{name:<24}", str(len(inputs)), str(len(outputs))]
                                  + inputs + outputs + items))
        (folder / "model.pnnx.param").write_text("\n".join(lines) + "\n")
        with zipfile.ZipFile(folder / "model.pnnx.bin", "w", zipfile.ZIP_STORED) as archive:
            for member in sorted(self.weights):
                weight = self.weights[member].detach().numpy()
                data = weight.astype("<i8" if weight.dtype == np.int64 else "<f4").tobytes()
                info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
                archive.writestr(info, data)
        case = []
        for index, (operand, tensor) in enumerate(self.inputs):
            tensor.detach().numpy().astype("<f4").tofile(folder / f"in{index}.f32")
            case.append(f"input in{index}.f32 " + case_shape(tensor))
        for index, operand in enumerate(self.outputs):
            tensor = self.shapes[operand]
            tensor.detach().numpy().astype("<f4").tofile(folder / f"out{index}.f32")
            case.append(f"output out{index}.f32 " + case_shape(tensor))
        case.append(f"tolerance {self.tolerance[0]} {self.tolerance[1]}")
        case.append(f"note {self.note}")
        (folder / "case.txt").write_text("\n".join(case) + "\n")


def seeded(seed, *shape, scale=1.0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator) * scale  # shape () gives a rank-0 tensor


def unary(name, kind, shape, fn, params=None, weights=None, tolerance=ARITHMETIC, seed=0,
          note="", scale=1.0, keys="$input=0", x=None):
    """A case with one input, one operator, one output: fn(x) in PyTorch."""
    case = Case(name, tolerance, note or f"{kind} {params or ''}")
    x = seeded(seed, *shape, scale=scale) if x is None else x
    a = case.input(x)
    (y,) = case.op(kind, [a], [fn(x)], params, weights, keys=keys if kind.startswith(("F.", "torch.", "Tensor.")) else "")
    case.output(y)
    case.write()


# ---------------------------------------------------------------------------------------------
def convolution_cases():
    def conv(name, shape, out, kernel, stride=1, padding=0, dilation=1, groups=1, bias=True, seed=1):
        torch.manual_seed(seed)
        module = torch.nn.Conv2d(shape[1], out, kernel, stride, padding, dilation, groups, bias)
        k = module.kernel_size
        params = dict(bias=bias, dilation=module.dilation, groups=groups, in_channels=shape[1],
                      kernel_size=k, out_channels=out,
                      padding=padding if isinstance(padding, str) else module.padding,
                      padding_mode="zeros", stride=module.stride)
        weights = {"weight": module.weight.detach()}
        if bias:
            weights["bias"] = module.bias.detach()
        with torch.no_grad():
            unary(name, "nn.Conv2d", shape, module, params, weights, seed=seed,
                  note=f"nn.Conv2d {shape[1]}->{out} k{kernel} s{stride} p{padding} d{dilation} g{groups} bias={bias}")

    conv("conv_stride2_odd", (1, 3, 13, 11), 5, 3, stride=2, padding=1)
    conv("conv_same_even_kernel", (1, 3, 9, 10), 4, 4, padding="same")
    conv("conv_valid", (1, 2, 7, 8), 3, 3, padding="valid")
    conv("conv_dilation3", (1, 3, 14, 13), 4, 3, padding=3, dilation=3)
    conv("conv_groups3", (1, 6, 9, 8), 9, 3, padding=1, groups=3)
    conv("conv_depthwise_multiplier2", (1, 4, 10, 9), 8, 3, padding=1, groups=4)
    conv("conv_depthwise_stride2", (1, 8, 11, 12), 8, 3, stride=2, padding=1, groups=8)
    conv("conv_1x5_nobias", (1, 3, 8, 12), 4, (1, 5), padding=(0, 2), bias=False)
    conv("conv_5x1", (1, 3, 12, 8), 4, (5, 1), padding=(2, 0))
    conv("conv_1x1_stride2", (1, 8, 9, 11), 6, 1, stride=2)
    conv("conv_1x1_pointwise", (1, 16, 9, 7), 12, 1)
    conv("conv_batch3", (3, 4, 9, 11), 6, 3, padding=1)
    conv("conv_winograd_odd", (1, 16, 21, 19), 24, 3, padding=1)
    conv("conv_winograd_unpadded", (1, 16, 18, 23), 16, 3, padding=0)
    conv("conv_tiny_map_many_channels", (1, 48, 5, 5), 40, 3, padding=1)
    conv("conv_7x7_stride2", (1, 3, 23, 25), 8, 7, stride=2, padding=3)
    conv("conv_6x6_stride2_yolo_stem", (1, 3, 20, 22), 8, 6, stride=2, padding=2)
    # Batches: each algorithm runs sample after sample with one plan.
    conv("conv_winograd_batch2", (2, 16, 21, 22), 20, 3, padding=1)
    conv("conv_winograd2x2_batch3", (3, 16, 14, 13), 16, 3, padding=1)
    conv("conv_pointwise_batch2", (2, 16, 9, 7), 12, 1)
    conv("conv_depthwise_batch3_dilation2", (3, 6, 11, 12), 6, 3, padding=2, dilation=2, groups=6)
    conv("conv_im2col_batch2_groups2_stride2", (2, 4, 13, 10), 6, 3, stride=2, padding=1,
         groups=2, bias=False)


def pooling_cases():
    def maxpool(name, shape, kernel, stride=None, padding=0, dilation=1, ceil=False, x=None,
                kind="nn.MaxPool2d", written_stride=None):
        module = torch.nn.MaxPool2d(kernel, stride, padding, dilation, ceil_mode=ceil)
        pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)
        params = dict(ceil_mode=ceil, dilation=pair(dilation), kernel_size=pair(kernel),
                      padding=pair(padding), return_indices=False,
                      stride=written_stride if written_stride is not None else pair(module.stride))
        unary(name, kind, shape, module, params, tolerance=EXACT, x=x,
              note=f"max pool k{kernel} s{stride} p{padding} d{dilation} ceil={ceil}")

    maxpool("maxpool_ceil_odd", (1, 3, 10, 13), 3, 2, ceil=True)
    maxpool("maxpool_padding", (1, 3, 9, 8), 3, 2, padding=1)
    maxpool("maxpool_dilation2", (1, 2, 11, 10), 3, 1, padding=1, dilation=2)
    maxpool("maxpool_k5_s1_p2", (1, 4, 8, 9), 5, 1, padding=2)
    maxpool("maxpool_functional_default_stride", (1, 2, 8, 9), 2, kind="F.max_pool2d",
            written_stride=())
    nan_input = seeded(7, 1, 2, 6, 6)
    nan_input[0, 1, 2, 3] = float("nan")
    maxpool("maxpool_nan", (1, 2, 6, 6), 2, 2, x=nan_input)
    # Batches and the unbatched (C,H,W) form, which PyTorch accepts too.
    maxpool("maxpool_batch2_ceil", (2, 3, 15, 11), 3, 2, padding=1, ceil=True)
    maxpool("maxpool_unbatched", (3, 9, 8), 2, 2)

    def avgpool(name, shape, kernel, stride=None, padding=0, ceil=False, include=True,
                divisor=None):
        module = torch.nn.AvgPool2d(kernel, stride, padding, ceil, include, divisor)
        pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)
        params = dict(ceil_mode=ceil, count_include_pad=include, divisor_override=divisor,
                      kernel_size=pair(kernel), padding=pair(padding), stride=pair(module.stride))
        unary(name, "nn.AvgPool2d", shape, module, params,
              note=f"avg pool k{kernel} s{stride} p{padding} ceil={ceil} include={include} div={divisor}")

    avgpool("avgpool_include_pad", (1, 3, 9, 8), 3, 2, padding=1)
    avgpool("avgpool_exclude_pad", (1, 3, 9, 8), 3, 2, padding=1, include=False)
    avgpool("avgpool_ceil", (1, 2, 10, 11), 3, 2, ceil=True)
    avgpool("avgpool_divisor", (1, 2, 8, 8), 2, 2, divisor=5)
    avgpool("avgpool_batch3_exclude_ceil", (3, 2, 11, 9), 3, 2, padding=1, ceil=True,
            include=False)

    def adaptive(name, shape, size, kind="nn.AdaptiveAvgPool2d"):
        module = torch.nn.AdaptiveAvgPool2d(size)
        unary(name, kind, shape, module, dict(output_size=size),
              note=f"adaptive average pool to {size}")

    adaptive("adaptive_7_to_4", (1, 3, 7, 7), (4, 4))
    adaptive("adaptive_upsampling", (1, 2, 5, 6), (7, 7))
    adaptive("adaptive_1x1", (1, 4, 6, 5), (1, 1))
    adaptive("adaptive_keep_height", (1, 2, 6, 9), (None, 3))
    adaptive("adaptive_functional", (1, 3, 10, 10), (3, 3), kind="F.adaptive_avg_pool2d")
    adaptive("adaptive_batch2_uneven", (2, 3, 11, 13), (4, 5))


def normalisation_and_linear_cases():
    def batchnorm(name, channels, affine, eps, shape=None):
        torch.manual_seed(5)
        module = torch.nn.BatchNorm2d(channels, eps=eps, affine=affine).eval()
        module.running_mean.normal_(0, 0.1)
        module.running_var.uniform_(0.5, 1.5)
        weights = {"running_mean": module.running_mean, "running_var": module.running_var}
        if affine:
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.normal_(0, 0.1)
            weights.update(weight=module.weight.detach(), bias=module.bias.detach())
        with torch.no_grad():
            unary(name, "nn.BatchNorm2d", shape or (1, channels, 5, 7), module,
                  dict(affine=affine, eps=eps, num_features=channels), weights,
                  note=f"BatchNorm2d affine={affine} eps={eps}")

    batchnorm("batchnorm_no_affine", 3, False, 1e-5)
    batchnorm("batchnorm_eps", 4, True, 1e-3)
    batchnorm("batchnorm_batch3", 4, True, 1e-5, shape=(3, 4, 6, 5))

    def flatten(name, shape, start, end):
        unary(name, "torch.flatten", shape, lambda x: torch.flatten(x, start, end),
              dict(end_dim=end, start_dim=start), tolerance=EXACT, note=f"flatten({start},{end})")

    flatten("flatten_start2", (1, 3, 4, 5), 2, -1)
    flatten("flatten_middle", (1, 3, 4, 5), 1, -2)
    flatten("flatten_negative", (2, 3, 4, 5), -3, -1)

    def linear(name, shape, out, bias=True):
        torch.manual_seed(3)
        module = torch.nn.Linear(shape[-1], out, bias)
        weights = {"weight": module.weight.detach()}
        if bias:
            weights["bias"] = module.bias.detach()
        with torch.no_grad():
            unary(name, "nn.Linear", shape, module,
                  dict(bias=bias, in_features=shape[-1], out_features=out), weights,
                  note=f"Linear {shape[-1]}->{out} bias={bias} on rank {len(shape)}")

    linear("linear_nobias", (1, 12), 7, bias=False)
    linear("linear_rank3", (1, 5, 9), 4)
    linear("linear_rank4", (1, 2, 3, 7), 5)
    linear("linear_batch2", (2, 16), 10)
    linear("linear_rank3_batch3", (3, 7, 9), 5)
    linear("linear_vector", (9,), 4)

    # nn.Linear followed by a ReLU, which the linear layer applies itself once fused.
    torch.manual_seed(4)
    module = torch.nn.Linear(9, 6)
    case = Case("linear_relu", ARITHMETIC, "nn.Linear 9->6 then nn.ReLU (fused into the linear)")
    x = seeded(5, 2, 5, 9)
    a = case.input(x)
    with torch.no_grad():
        hidden = module(x)
    (h,) = case.op("nn.Linear", [a], [hidden], dict(bias=True, in_features=9, out_features=6),
                   {"weight": module.weight.detach(), "bias": module.bias.detach()}, name="fc")
    (y,) = case.op("nn.ReLU", [h], [torch.relu(hidden)], name="relu")
    case.output(y)
    case.write()


def activation_cases():
    def act(name, kind, fn, params=None, tolerance=TRANSCENDENTAL):
        unary(name, kind, (1, 3, 7, 9), fn, params, tolerance=tolerance, scale=3.0, seed=11,
              note=f"{kind} {params or ''} on 3*randn")

    act("relu_module", "nn.ReLU", torch.relu, tolerance=EXACT)
    act("relu_functional", "F.relu", torch.relu, tolerance=EXACT)
    act("sigmoid_functional", "F.sigmoid", torch.sigmoid)
    act("silu_functional", "F.silu", F.silu)
    act("tanh_module", "nn.Tanh", torch.tanh)
    act("hardswish_functional", "F.hardswish", F.hardswish)
    act("hardsigmoid_functional", "F.hardsigmoid", F.hardsigmoid)
    act("relu6_functional", "F.relu6", F.relu6, tolerance=EXACT)
    act("leakyrelu_slope", "nn.LeakyReLU", lambda x: F.leaky_relu(x, 0.2), dict(negative_slope=0.2))
    act("leakyrelu_functional", "F.leaky_relu", lambda x: F.leaky_relu(x, 0.05),
        dict(negative_slope=0.05))
    act("elu_alpha", "nn.ELU", lambda x: F.elu(x, 0.5), dict(alpha=0.5))
    # Large magnitudes: exp overflow and underflow must still give PyTorch's saturated values.
    big = seeded(12, 1, 2, 5, 5, scale=60.0)
    unary("sigmoid_large", "nn.Sigmoid", (1, 2, 5, 5), torch.sigmoid, x=big,
          tolerance=TRANSCENDENTAL, note="sigmoid on 60*randn")
    unary("silu_large", "nn.SiLU", (1, 2, 5, 5), F.silu, x=big, tolerance=TRANSCENDENTAL,
          note="silu on 60*randn")

    def softmax(name, shape, dim, kind="nn.Softmax"):
        unary(name, kind, shape, lambda x: torch.softmax(x, dim), dict(dim=dim),
              tolerance=TRANSCENDENTAL, scale=4.0, note=f"softmax dim={dim}")

    softmax("softmax_dim1", (1, 5, 4, 3), 1)
    softmax("softmax_dim2", (1, 3, 6, 4), 2)
    softmax("softmax_last", (1, 3, 4, 7), -1, kind="F.softmax")
    softmax("softmax_rank3", (2, 4, 6), 1)
    # The batch is an ordinary dimension: softmax over it too.
    softmax("softmax_dim0", (3, 4, 5), 0)
    softmax("softmax_dim0_rank4", (2, 3, 4, 5), -4, kind="F.softmax")


def expression_cases():
    def expression(name, expr, shapes, fn, tolerance=ARITHMETIC, seed=21, scale=1.0, positive=False,
                   attribute=None):
        case = Case(name, tolerance, f"pnnx.Expression {expr}")
        tensors = []
        for index, shape in enumerate(shapes):
            x = seeded(seed + index, *shape, scale=scale)
            if positive:
                x = x.abs() + 0.1
            tensors.append(x)
        operands = [case.input(x) for x in tensors]
        if attribute is not None:
            (constant,) = case.op("pnnx.Attribute", [], [attribute], weights={"data": attribute},
                                  name="constant")
            operands.append(constant)
            tensors.append(attribute)
        (y,) = case.op("pnnx.Expression", operands, [fn(*tensors)], dict(expr=expr))
        case.output(y)
        case.write()

    s = (1, 3, 5, 6)
    expression("expr_add", "add(@0,@1)", [s, s], torch.add)
    expression("expr_sub_div", "div(sub(@0,@1),@2)", [s, s, s], lambda a, b, c: (a - b) / c,
               positive=True)
    expression("expr_nested", "add(mul(@0,@1),sub(@0,div(@1,2)))", [s, s],
               lambda a, b: a * b + (a - b / 2))
    expression("expr_reuse", "add(mul(@0,@1),@0)", [s, s], lambda a, b: a * b + a)
    expression("expr_constants", "add(mul(@0,-1.5),sub(3,@0))", [s], lambda a: a * -1.5 + (3 - a))
    expression("expr_exponent_constants", "mul(add(@0,2.000000e+00),1.0e-1)", [s],
               lambda a: (a + 2.0) * 0.1)
    expression("expr_yolo_xy", "mul(add(mul(@0,2),@1),8.0)", [(1, 3, 4, 5, 2), (1, 3, 4, 5, 2)],
               lambda a, b: (a * 2 + b) * 8.0)
    expression("expr_yolo_wh", "mul(pow(mul(@0,2),2),@1)", [(1, 3, 4, 5, 2), (1, 3, 4, 5, 2)],
               lambda a, b: (a * 2) ** 2 * b)
    expression("expr_broadcast_channel", "mul(@0,@1)", [(1, 4, 5, 6), (1, 4, 1, 1)], torch.mul)
    expression("expr_broadcast_plane", "add(@0,@1)", [(1, 4, 5, 6), (1, 1, 5, 6)], torch.add)
    expression("expr_broadcast_column", "sub(@0,@1)", [(1, 4, 5, 6), (1, 4, 5, 1)], torch.sub)
    expression("expr_broadcast_row", "sub(@1,@0)", [(1, 4, 5, 6), (1, 4, 1, 6)],
               lambda a, b: b - a)
    expression("expr_broadcast_batch", "add(@0,@1)", [(2, 3, 4, 5), (1, 3, 4, 5)], torch.add)
    expression("expr_rank5", "mul(@0,@1)", [(1, 3, 4, 5, 6), (1, 3, 1, 1, 6)], torch.mul)
    expression("expr_attribute_no_batch", "add(@0,@1)", [(2, 3, 4, 5)],
               torch.add, attribute=seeded(29, 3, 1, 1))
    expression("expr_attribute_batch1", "mul(@0,@1)", [(1, 3, 4, 5)], torch.mul,
               attribute=seeded(30, 1, 3, 1, 1))

    positive = dict(positive=True)
    unit = lambda x: torch.tanh(x) * 0.9  # inside (-1, 1) for asin, acos, atanh
    unary_functions = [
        ("neg", torch.neg, {}), ("abs", torch.abs, {}), ("sqrt", torch.sqrt, positive),
        ("rsqrt", torch.rsqrt, positive), ("exp", torch.exp, {}), ("expm1", torch.expm1, {}),
        ("log", torch.log, positive), ("log10", torch.log10, positive),
        ("log1p", torch.log1p, positive), ("sin", torch.sin, {}), ("cos", torch.cos, {}),
        ("tan", torch.tan, {}), ("atan", torch.atan, {}), ("sinh", torch.sinh, {}),
        ("cosh", torch.cosh, {}), ("tanh", torch.tanh, {}), ("asinh", torch.asinh, {}),
        ("erf", torch.erf, {}), ("ceil", torch.ceil, {}), ("floor", torch.floor, {}),
        ("trunc", torch.trunc, {}), ("sign", torch.sign, {}), ("square", torch.square, {}),
        ("reciprocal", torch.reciprocal, positive),
    ]
    for function, fn, options in unary_functions:
        expression(f"expr_{function}", f"{function}(@0)", [s], fn, tolerance=TRANSCENDENTAL,
                   scale=2.0, **options)
    expression("expr_acosh", "acosh(add(@0,1))", [s], lambda a: torch.acosh(a + 1),
               tolerance=TRANSCENDENTAL, positive=True)
    for function, fn in (("asin", torch.asin), ("acos", torch.acos), ("atanh", torch.atanh)):
        expression(f"expr_{function}", f"{function}(mul(tanh(@0),0.9))", [s],
                   lambda a, fn=fn: fn(torch.tanh(a) * 0.9), tolerance=TRANSCENDENTAL)
    # round: PyTorch rounds halves to even; the input holds exact halves.
    halves = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.4, -0.6, 7.5]).reshape(1, 1, 2, 5)
    case = Case("expr_round_halves", EXACT, "round(@0) on exact halves: ties to even")
    a = case.input(halves)
    (y,) = case.op("pnnx.Expression", [a], [torch.round(halves)], dict(expr="round(@0)"))
    case.output(y)
    case.write()

    binary_functions = [
        ("add", torch.add, {}), ("sub", torch.sub, {}), ("mul", torch.mul, {}),
        ("div", torch.div, {}), ("max", torch.maximum, {}), ("min", torch.minimum, {}),
        ("maximum", torch.maximum, {}), ("minimum", torch.minimum, {}),
        ("fmod", torch.fmod, {}), ("remainder", torch.remainder, {}),
        ("floor_divide", lambda a, b: torch.div(a, b, rounding_mode="floor"), {}),
        ("atan2", torch.atan2, {}), ("logaddexp", torch.logaddexp, {}),
        ("pow", torch.pow, positive),
    ]
    for function, fn, options in binary_functions:
        expression(f"expr_binary_{function}", f"{function}(@0,@1)", [s, s], fn,
                   tolerance=TRANSCENDENTAL, scale=3.0, **options)


def shape_cases():
    def case_of(name, kind, shape, fn, params, seed=31, keys="$input=0"):
        unary(name, kind, shape, fn, params, tolerance=EXACT, seed=seed, keys=keys,
              note=f"{kind} {params}")

    case_of("reshape_minus_one", "Tensor.reshape", (1, 4, 6, 5), lambda x: x.reshape(1, -1, 10),
            dict(shape=(1, -1, 10)))
    case_of("view_rank5", "Tensor.view", (1, 12, 4, 5), lambda x: x.view(1, 3, 4, 4, 5),
            dict(shape=(1, 3, 4, 4, 5)))
    case_of("reshape_batch2", "Tensor.reshape", (2, 3, 4, 5), lambda x: x.reshape(2, 5, 12),
            dict(shape=(2, 5, 12)))
    case_of("permute_nhwc", "torch.permute", (1, 3, 4, 5), lambda x: x.permute(0, 2, 3, 1),
            dict(dims=(0, 2, 3, 1)))
    case_of("permute_yolo_rank5", "Tensor.permute", (1, 3, 6, 4, 5),
            lambda x: x.permute(0, 1, 3, 4, 2), dict(dims=(0, 1, 3, 4, 2)))
    case_of("permute_negative", "Tensor.permute", (2, 3, 4, 5), lambda x: x.permute(0, -1, 1, 2),
            dict(dims=(0, -1, 1, 2)))
    case_of("transpose_channels_rows", "torch.transpose", (1, 3, 4, 5),
            lambda x: x.transpose(1, 2), dict(dim0=1, dim1=2))
    case_of("transpose_last_two", "torch.transpose", (2, 3, 4, 5),
            lambda x: x.transpose(-1, -2), dict(dim0=-1, dim1=-2))
    case_of("slice_step2", "Tensor.slice", (1, 4, 9, 5), lambda x: x[:, :, 1:-1:2],
            dict(dim=2, end=-1, start=1, step=2))
    case_of("slice_open_end", "Tensor.slice", (1, 6, 4, 5), lambda x: x[:, 2:],
            dict(dim=1, end=2147483647, start=2, step=1))
    case_of("slice_negative_start", "Tensor.slice", (1, 3, 4, 7), lambda x: x[..., -3:],
            dict(dim=3, end=2147483647, start=-3, step=1))
    case_of("slice_multi", "Tensor.slice", (1, 5, 6, 7), lambda x: x[:, 1:4, :, ::3],
            dict(dims=(1, 3), ends=(4, 2147483647), starts=(1, 0), steps=(1, 3)))
    case_of("squeeze_dim", "torch.squeeze", (1, 3, 1, 5), lambda x: x.squeeze(2), dict(dim=2))
    # Batch 2: with batch 1 PyTorch would squeeze the batch dimension away too.
    case_of("squeeze_all", "torch.squeeze", (2, 1, 4, 1, 5), lambda x: x.squeeze(), {})
    case_of("unsqueeze_last", "torch.unsqueeze", (1, 3, 4), lambda x: x.unsqueeze(-1),
            dict(dim=-1))
    case_of("unsqueeze_middle", "torch.unsqueeze", (2, 3, 4), lambda x: x.unsqueeze(2),
            dict(dim=2))
    unary("channel_shuffle_2", "nn.ChannelShuffle", (1, 6, 3, 4),
          torch.nn.ChannelShuffle(2), dict(groups=2), tolerance=EXACT, note="ChannelShuffle 2")
    unary("channel_shuffle_3", "nn.ChannelShuffle", (2, 9, 2, 3),
          torch.nn.ChannelShuffle(3), dict(groups=3), tolerance=EXACT, note="ChannelShuffle 3")
    unary("channel_shuffle_rank3", "nn.ChannelShuffle", (2, 6, 5),
          torch.nn.ChannelShuffle(3), dict(groups=3), tolerance=EXACT,
          note="ChannelShuffle 3 on (N,C,L)")
    unary("channel_shuffle_rank5", "nn.ChannelShuffle", (1, 4, 2, 3, 2),
          torch.nn.ChannelShuffle(2), dict(groups=2), tolerance=EXACT,
          note="ChannelShuffle 2 on (N,C,D,H,W)")

    def reduction(name, kind, shape, dims, keepdim):
        fn = torch.mean if kind == "torch.mean" else torch.sum
        if dims is None:  # every dimension
            reduce = (lambda x: fn(x).reshape([1] * x.dim())) if keepdim else fn
        else:
            reduce = lambda x: fn(x, dims, keepdim)
        unary(name, kind, shape, reduce, dict(dim=dims, keepdim=keepdim),
              note=f"{kind} dim={dims} keepdim={keepdim}")

    reduction("mean_spatial_keepdim", "torch.mean", (1, 4, 5, 6), (2, 3), True)
    reduction("mean_spatial", "torch.mean", (1, 4, 5, 6), (2, 3), False)
    reduction("sum_channels", "torch.sum", (2, 4, 5, 6), (1,), False)
    reduction("sum_last", "torch.sum", (1, 3, 4, 5), (-1,), False)
    reduction("mean_rows_keepdim", "torch.mean", (1, 3, 4, 5), (2,), True)
    # The batch is an ordinary dimension: reduce over it too, or over everything.
    reduction("sum_batch_dim0", "torch.sum", (3, 4, 5), (0,), False)
    reduction("mean_dims_0_2_keepdim", "torch.mean", (2, 3, 4, 5), (0, 2), True)
    reduction("mean_all_keepdim", "torch.mean", (2, 3, 4), None, True)
    reduction("sum_rows_rank3", "torch.sum", (2, 5, 3), (-2,), False)

    # Multi-input and multi-output operators.
    def cat(name, shapes, dim):
        case = Case(name, EXACT, f"torch.cat dim={dim} of {len(shapes)} inputs")
        tensors = [seeded(40 + i, *shape) for i, shape in enumerate(shapes)]
        operands = [case.input(x) for x in tensors]
        (y,) = case.op("torch.cat", operands, [torch.cat(tensors, dim)], dict(dim=dim))
        case.output(y)
        case.write()

    cat("cat_channels_4", [(1, 2, 3, 4), (1, 3, 3, 4), (1, 1, 3, 4), (1, 2, 3, 4)], 1)
    cat("cat_rows", [(1, 2, 3, 4), (1, 2, 5, 4)], 2)
    cat("cat_last", [(2, 2, 3, 4), (2, 2, 3, 1)], -1)
    cat("cat_rank5_last", [(1, 3, 2, 2, 2), (1, 3, 2, 2, 3)], 4)
    cat("cat_rank3", [(1, 5, 4), (1, 2, 4)], 1)

    def split(name, shape, kind, argument, dim):
        case = Case(name, EXACT, f"{kind} {argument} dim={dim}")
        x = seeded(50, *shape)
        a = case.input(x)
        if kind == "torch.chunk":
            pieces = torch.chunk(x, argument, dim)
            params = dict(chunks=argument, dim=dim)
            keys = "$input=0"
        else:
            pieces = torch.split(x, argument, dim)
            params = dict(dim=dim, split_size_or_sections=argument)
            keys = "$tensor=0"
        outputs = case.op(kind, [a], list(pieces), params, keys=keys)
        for operand in outputs:
            case.output(operand)
        case.write()

    split("split_size_remainder", (1, 7, 3, 4), "torch.split", 3, 1)
    split("split_sections_last", (1, 2, 3, 6), "torch.split", (1, 3, 2), -1)
    split("split_yolo_rank5", (1, 3, 2, 2, 85), "torch.split", (2, 2, 81), 4)
    split("chunk_uneven", (1, 3, 7, 4), "torch.chunk", 3, 2)

    case = Case("tuple_construct", EXACT, "prim::TupleConstruct passes its input through")
    x = seeded(60, 1, 2, 3, 4)
    a = case.input(x)
    (y,) = case.op("prim::TupleConstruct", [a], [x.clone()])
    case.output(y)
    case.write()

    # A graph needs an input; this one is not used: the output is the stored tensor itself.
    case = Case("attribute_constant", EXACT, "pnnx.Attribute alone: the stored tensor is the output")
    case.input(seeded(62, 1, 2))
    data = seeded(61, 1, 3, 4, 2)
    (y,) = case.op("pnnx.Attribute", [], [data], weights={"data": data}, name="constant")
    case.output(y)
    case.write()


def resize_cases():
    def upsample(name, shape, kind, mode, scale=None, size=None, align=None, recompute=None):
        def fn(x):
            return F.interpolate(x, size=size, scale_factor=scale, mode=mode,
                                 align_corners=align, recompute_scale_factor=recompute)
        params = dict(mode=mode, scale_factor=None if scale is None else (float(scale),) * 2
                      if not isinstance(scale, tuple) else tuple(float(s) for s in scale),
                      size=size)
        if mode == "bilinear":
            params["align_corners"] = bool(align)
        if kind == "F.interpolate":
            params["recompute_scale_factor"] = recompute
        unary(name, kind, shape, fn, params, tolerance=TRANSCENDENTAL,
              note=f"{kind} {mode} scale={scale} size={size} align_corners={align}")

    upsample("upsample_nearest_scale3", (1, 2, 4, 5), "nn.Upsample", "nearest", scale=3)
    upsample("upsample_nearest_fraction", (1, 2, 6, 8), "nn.Upsample", "nearest", scale=1.5)
    upsample("upsample_nearest_size", (1, 2, 5, 4), "nn.Upsample", "nearest", size=(7, 9))
    upsample("upsample_bilinear_size", (1, 2, 5, 4), "nn.Upsample", "bilinear", size=(7, 9),
             align=False)
    upsample("upsample_bilinear_size_corners", (1, 2, 5, 4), "nn.Upsample", "bilinear",
             size=(7, 9), align=True)
    upsample("upsample_bilinear_downscale", (1, 2, 9, 8), "F.upsample", "bilinear",
             scale=(0.5, 0.5), align=False)
    upsample("interpolate_bilinear_scale", (1, 3, 4, 6), "F.interpolate", "bilinear",
             scale=(2.5, 2.5), align=False, recompute=None)
    upsample("interpolate_recompute", (1, 3, 4, 6), "F.interpolate", "bilinear",
             scale=(2.5, 2.5), align=False, recompute=True)
    upsample("upsample_nearest_scale2_batch2", (2, 3, 5, 7), "nn.Upsample", "nearest", scale=2)
    # floor(10 * 0.7) is 7 in double and 6 in float: sizes come from the double.
    upsample("upsample_bilinear_scale_0p7", (1, 2, 10, 13), "nn.Upsample", "bilinear", scale=0.7,
             align=False)
    upsample("interpolate_nearest_scale_0p7", (1, 2, 10, 13), "F.interpolate", "nearest",
             scale=(0.7, 0.7))
    upsample("upsample_bilinear_scale_corners", (2, 2, 5, 6), "nn.Upsample", "bilinear", scale=2,
             align=True)

    def deconv(name, shape, out, kernel, stride=1, padding=0, output_padding=0, groups=1,
               dilation=1, bias=True):
        torch.manual_seed(9)
        module = torch.nn.ConvTranspose2d(shape[1], out, kernel, stride, padding, output_padding,
                                          groups, bias, dilation)
        params = dict(bias=bias, dilation=module.dilation, groups=groups, in_channels=shape[1],
                      kernel_size=module.kernel_size, out_channels=out,
                      output_padding=module.output_padding, padding=module.padding,
                      stride=module.stride)
        weights = {"weight": module.weight.detach()}
        if bias:
            weights["bias"] = module.bias.detach()
        with torch.no_grad():
            unary(name, "nn.ConvTranspose2d", shape, module, params, weights,
                  note=f"ConvTranspose2d {shape[1]}->{out} k{kernel} s{stride} p{padding} "
                       f"op{output_padding} g{groups} d{dilation}")

    deconv("deconv_groups2", (1, 4, 5, 6), 6, 3, stride=2, padding=1, groups=2)
    deconv("deconv_dilation2", (1, 3, 5, 5), 4, 3, stride=1, padding=2, dilation=2)
    deconv("deconv_k4_s2_p1", (1, 3, 6, 7), 5, 4, stride=2, padding=1)
    deconv("deconv_nobias_odd", (2, 2, 5, 4), 3, (3, 2), stride=(2, 3), padding=(1, 0),
           output_padding=(1, 2), bias=False)
    deconv("deconv_batch3_groups2_dilation2", (3, 4, 6, 5), 6, 3, stride=2, padding=1,
           output_padding=1, groups=2, dilation=2)
    deconv("deconv_batch2_k2_s2", (2, 8, 7, 9), 4, 2, stride=2)


def detect_cases():
    """models.yolo.Detect as pnnx keeps it with moduleop=models.yolo.Detect, on small features.

    The stored grids are for the export's feature sizes (`sizes`); a case may run the head on
    features of other sizes (`run_sizes`), where YOLOv5's Detect rebuilds its grids (_make_grid)."""
    def make_grid(ny, nx, level, anchors, strides, old_style, anchors_per_level):
        yv, xv = torch.meshgrid(torch.arange(ny, dtype=torch.float32),
                                torch.arange(nx, dtype=torch.float32), indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(1, anchors_per_level, ny, nx, 2)
        grid = grid if old_style else grid - 0.5
        anchor_grid = (anchors[level] * strides[level]).view(1, anchors_per_level, 1, 1, 2)
        anchor_grid = anchor_grid.expand(1, anchors_per_level, ny, nx, 2)
        return grid.contiguous(), anchor_grid.contiguous()

    def detect(name, old_style, sizes=((4, 6), (2, 3), (1, 2)), run_sizes=None, batch=1,
               note=""):
        run_sizes = run_sizes or sizes
        torch.manual_seed(70)
        anchors_per_level, classes = 3, 2
        outputs = classes + 5
        channels, strides = (4, 8, 16), (8.0, 16.0, 32.0)
        anchors = torch.tensor([[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119],
                                [116, 90, 156, 198, 373, 326]], dtype=torch.float32).view(3, 3, 2)
        case = Case(name, (1e-4, 1e-5), "models.yolo.Detect " +
                    ("old (v6) grid convention and attribute names" if old_style else "v7.0") +
                    note)
        features = [seeded(71 + i, batch, c, h, w)
                    for i, (c, (h, w)) in enumerate(zip(channels, run_sizes))]
        operands = [case.input(x) for x in features]
        weights, rows = {}, []
        grids, anchor_grids = [], []
        for level, (x, (ny, nx), (run_ny, run_nx)) in enumerate(zip(features, sizes, run_sizes)):
            conv = torch.nn.Conv2d(channels[level], anchors_per_level * outputs, 1)
            weights[f"m.{level}.weight"] = conv.weight.detach()
            weights[f"m.{level}.bias"] = conv.bias.detach()
            grid, anchor_grid = make_grid(ny, nx, level, anchors, strides, old_style,
                                          anchors_per_level)
            grids.append(grid)
            anchor_grids.append(anchor_grid)
            if (run_ny, run_nx) != (ny, nx):
                grid, anchor_grid = make_grid(run_ny, run_nx, level, anchors, strides, old_style,
                                              anchors_per_level)
            with torch.no_grad():
                y = conv(x).view(batch, anchors_per_level, outputs, run_ny, run_nx)
                y = y.permute(0, 1, 3, 4, 2).sigmoid()
                shift = -0.5 if old_style else 0.0
                xy = (y[..., 0:2] * 2 + shift + grid) * strides[level]
                wh = (y[..., 2:4] * 2) ** 2 * anchor_grid
                rows.append(torch.cat((xy, wh, y[..., 4:]), 4).reshape(batch, -1, outputs))
        stride_tensor = torch.tensor(strides)
        if old_style:  # 2022-23 pnnx: pnnx_0..6, strides at pnnx_5
            order = [grids[0], anchor_grids[0], grids[1], anchor_grids[1], grids[2], stride_tensor,
                     anchor_grids[2]]
            names = [f"pnnx_{i}" for i in range(7)]
        else:  # 2026 pnnx: pnnx_00..06, strides at pnnx_01
            order = [grids[0], stride_tensor, anchor_grids[0], grids[1], anchor_grids[1], grids[2],
                     anchor_grids[2]]
            names = [f"pnnx_{i:02d}" for i in range(7)]
        weights.update(dict(zip(names, order)))
        (y,) = case.op("models.yolo.Detect", operands, [torch.cat(rows, 1)], weights=weights,
                       name="24")
        case.output(y)
        case.write()

    detect("detect_v7", old_style=False)
    detect("detect_old_grid_names", old_style=True)
    # Other input sizes than the export's: grids stored for a 256x256 image, run at 128x128 and at
    # 96x160 with a batch of 2 (as YOLOv5s exported at 640 runs at 320 or 384x640).
    export_256 = ((32, 32), (16, 16), (8, 8))
    detect("detect_v7_smaller_than_export", old_style=False, sizes=export_256,
           run_sizes=((16, 16), (8, 8), (4, 4)), note="; grids stored for 256x256, run at 128x128")
    detect("detect_v7_non_square_batch2", old_style=False, sizes=export_256,
           run_sizes=((12, 20), (6, 10), (3, 5)), batch=2,
           note="; grids stored for 256x256, run at 96x160, batch 2")
    detect("detect_old_larger_than_export", old_style=True,
           run_sizes=((8, 10), (4, 5), (2, 3)), note="; run on larger features than stored")


# ---------------------------------------------------------------------------------------------
def norm_layer_cases():
    """LayerNorm, RMSNorm, GroupNorm, InstanceNorm and F.normalize over ranks, batches and dims."""

    def random_affine(seed, shape):
        generator = torch.Generator().manual_seed(seed)
        weight = torch.rand(*shape, generator=generator) + 0.5
        bias = torch.randn(*shape, generator=generator) * 0.1
        return weight, bias

    def functional(name, kind, x, fn, params, operands, note, tolerance=ARITHMETIC):
        """One F.* operator whose weight/bias are operands made by pnnx.Attribute ops."""
        case = Case(name, tolerance, note)
        a = case.input(x)
        names = [a]
        keys = ["$input=" + a]
        for role, tensor in operands:
            (operand,) = case.op("pnnx.Attribute", [], [tensor], weights={"data": tensor},
                                 name=role)
            names.append(operand)
            keys.append(f"${role}={operand}")
        (y,) = case.op(kind, names, [fn(x)], params, keys=" ".join(keys), name="norm")
        case.output(y)
        case.write()

    def layernorm(name, shape, normalized, affine=True, eps=1e-5, seed=40, x=None):
        module = torch.nn.LayerNorm(normalized, eps=eps, elementwise_affine=affine)
        weights = {}
        if affine:
            weight, bias = random_affine(seed + 100, normalized)
            module.weight.data.copy_(weight)
            module.bias.data.copy_(bias)
            weights = {"weight": weight, "bias": bias}
        with torch.no_grad():
            unary(name, "nn.LayerNorm", shape, module,
                  dict(elementwise_affine=affine, eps=eps, normalized_shape=tuple(normalized)),
                  weights, seed=seed, x=x,
                  note=f"nn.LayerNorm({normalized}, eps={eps}, affine={affine}) on {shape}")

    layernorm("layernorm_rank3_batch2", (2, 5, 7), (7,))
    layernorm("layernorm_last2_batch3", (3, 4, 5, 6), (5, 6), seed=41)
    layernorm("layernorm_last3_eps", (2, 3, 4, 5), (3, 4, 5), eps=1e-3, seed=42)
    layernorm("layernorm_noaffine_rank2", (6, 9), (9,), affine=False, seed=43)
    layernorm("layernorm_rank1", (10,), (10,), seed=44)
    layernorm("layernorm_whole_tensor", (2, 3), (2, 3), seed=45)
    # Many rows of a transformer's width: several lane blocks of the last-dimension kernel.
    layernorm("layernorm_many_rows", (2, 300, 24), (24,), seed=46)
    # A mean 10^4 times the spread: a one-pass variance must not cancel away, and the float mean
    # must not shift the outputs. PyTorch's own float32 LayerNorm is off by 1.8e-3 here, so the
    # reference is PyTorch in float64 (rounded to float32).
    large_mean = seeded(47, 2, 6, 16) * 0.01 + 100.0
    module = torch.nn.LayerNorm(16).double()
    weight, bias = random_affine(147, (16,))
    module.weight.data.copy_(weight)
    module.bias.data.copy_(bias)
    with torch.no_grad():
        unary("layernorm_large_mean", "nn.LayerNorm", (2, 6, 16),
              lambda v: module(v.double()).float(),
              dict(elementwise_affine=True, eps=1e-5, normalized_shape=(16,)),
              {"weight": weight, "bias": bias}, x=large_mean,
              note="nn.LayerNorm(16) on 100 + 0.01*randn, reference PyTorch in float64")

    x = seeded(48, 2, 4, 6)
    weight, bias = random_affine(148, (6,))
    functional("layernorm_functional", "F.layer_norm", x,
               lambda v: F.layer_norm(v, (6,), weight, bias, 1e-4),
               dict(eps=1e-4, normalized_shape=(6,)), [("weight", weight), ("bias", bias)],
               "F.layer_norm with weight and bias operands")
    x = seeded(49, 3, 5, 4)
    weight, _ = random_affine(149, (5, 4))
    functional("layernorm_functional_weight_only", "F.layer_norm", x,
               lambda v: F.layer_norm(v, (5, 4), weight, None, 1e-5),
               dict(bias=None, eps=1e-5, normalized_shape=(5, 4)), [("weight", weight)],
               "F.layer_norm over (5,4) with a weight operand and bias=None")
    x = seeded(50, 2, 3, 8)
    functional("layernorm_functional_none", "F.layer_norm", x,
               lambda v: F.layer_norm(v, (8,), None, None, 1e-5),
               dict(bias=None, eps=1e-5, normalized_shape=(8,), weight=None), [],
               "F.layer_norm with weight=None, bias=None")

    # RMSNorm: torch 1.13 has no nn.RMSNorm, so the reference is the formula in torch.
    def rms(v, normalized, weight, eps):
        dims = tuple(range(-len(normalized), 0))
        eps = torch.finfo(torch.float32).eps if eps is None else eps
        y = v * torch.rsqrt(v.pow(2).mean(dims, keepdim=True) + eps)
        return y if weight is None else y * weight

    def rmsnorm(name, shape, normalized, weight=True, eps=None, seed=51):
        w = random_affine(seed + 100, normalized)[0] if weight else None
        unary(name, "nn.RMSNorm", shape, lambda v: rms(v, normalized, w, eps),
              dict(elementwise_affine=False, eps=eps, normalized_shape=tuple(normalized)),
              {"weight": w} if weight else None, seed=seed,
              note=f"RMSNorm({normalized}, eps={eps}, weight={weight}) on {shape}: "
                   "x * rsqrt(mean(x^2) + eps) * weight in torch (pnnx writes "
                   "elementwise_affine=False even with a weight)")

    rmsnorm("rmsnorm_last_eps_none", (2, 5, 8), (8,))
    rmsnorm("rmsnorm_last2_eps", (2, 3, 4, 6), (4, 6), eps=1e-5, seed=52)
    rmsnorm("rmsnorm_no_weight", (3, 7), (7,), weight=False, seed=53)
    x = seeded(54, 2, 6, 5)
    weight = random_affine(154, (5,))[0]
    functional("rmsnorm_functional", "F.rms_norm", x, lambda v: rms(v, (5,), weight, 1e-6),
               dict(eps=1e-6, normalized_shape=(5,)), [("weight", weight)],
               "F.rms_norm with a weight operand, eps 1e-6 (formula in torch)")

    def groupnorm(name, shape, groups, affine=True, eps=1e-5, seed=55):
        module = torch.nn.GroupNorm(groups, shape[1], eps=eps, affine=affine)
        weights = {}
        params = dict(affine=affine, eps=eps, num_channels=shape[1], num_groups=groups)
        if affine:
            weight, bias = random_affine(seed + 100, (shape[1],))
            module.weight.data.copy_(weight)
            module.bias.data.copy_(bias)
            weights = {"weight": weight, "bias": bias}
        with torch.no_grad():
            unary(name, "nn.GroupNorm", shape, module, params, weights, seed=seed,
                  note=f"nn.GroupNorm({groups}, {shape[1]}, affine={affine}, eps={eps}) on {shape}")

    groupnorm("groupnorm_rank4_batch2", (2, 6, 5, 4), 3)
    groupnorm("groupnorm_rank3_pooled", (2, 6, 7), 2, seed=56)
    groupnorm("groupnorm_rank3_per_channel", (3, 4, 9), 4, eps=1e-3, seed=57)
    groupnorm("groupnorm_rank2", (3, 8), 4, seed=58)
    groupnorm("groupnorm_rank5_noaffine", (2, 4, 3, 4, 5), 2, affine=False, seed=59)
    groupnorm("groupnorm_one_group", (2, 3, 4, 5), 1, seed=60)
    x = seeded(61, 2, 4, 5, 6)
    weight, bias = random_affine(161, (4,))
    functional("groupnorm_functional", "F.group_norm", x,
               lambda v: F.group_norm(v, 2, weight, bias, 1e-3),
               dict(eps=1e-3, num_groups=2), [("weight", weight), ("bias", bias)],
               "F.group_norm(2 groups) with weight and bias operands, eps 1e-3")

    def instancenorm(name, kind, shape, channels, affine=False, eps=1e-5, running=False, seed=62):
        cls = getattr(torch.nn, kind.split(".")[1])
        module = cls(channels, eps=eps, affine=affine, track_running_stats=running).eval()
        weights = {}
        if affine:
            weight, bias = random_affine(seed + 100, (channels,))
            module.weight.data.copy_(weight)
            module.bias.data.copy_(bias)
            weights.update(weight=weight, bias=bias)
        if running:
            generator = torch.Generator().manual_seed(seed + 200)
            module.running_mean.copy_(torch.randn(channels, generator=generator) * 0.1)
            module.running_var.copy_(torch.rand(channels, generator=generator) + 0.5)
            weights.update(running_mean=module.running_mean.clone(),
                           running_var=module.running_var.clone())
        with torch.no_grad():
            unary(name, kind, shape, module,
                  dict(affine=affine, eps=eps, num_features=channels,
                       track_running_stats=running), weights, seed=seed,
                  note=f"{kind}({channels}, affine={affine}, eps={eps}, "
                       f"track_running_stats={running}) on {shape}")

    instancenorm("instancenorm1d_batch3", "nn.InstanceNorm1d", (3, 5, 7), 5, affine=True)
    instancenorm("instancenorm1d_unbatched", "nn.InstanceNorm1d", (5, 7), 5, affine=True, seed=63)
    instancenorm("instancenorm2d_unbatched", "nn.InstanceNorm2d", (3, 6, 7), 3, seed=64)
    instancenorm("instancenorm2d_batch2_eps", "nn.InstanceNorm2d", (2, 3, 6, 7), 3, affine=True,
                 eps=1e-3, seed=65)
    instancenorm("instancenorm3d", "nn.InstanceNorm3d", (2, 3, 4, 5, 6), 3, affine=True, seed=66)
    instancenorm("instancenorm2d_running_stats", "nn.InstanceNorm2d", (2, 3, 5, 4), 3,
                 affine=True, running=True, seed=67)
    x = seeded(68, 2, 3, 8, 9)
    weight, bias = random_affine(168, (3,))
    functional("instancenorm_functional", "F.instance_norm", x,
               lambda v: F.instance_norm(v, weight=weight, bias=bias, eps=1e-5),
               dict(eps=1e-5, running_mean=None, running_var=None),
               [("weight", weight), ("bias", bias)],
               "F.instance_norm with weight and bias operands")

    def normalize(name, shape, p, dim, eps=1e-12, seed=70, x=None):
        unary(name, "F.normalize", shape, lambda v: F.normalize(v, p, dim, eps),
              dict(dim=dim, eps=eps, p=p), seed=seed, x=x,
              note=f"F.normalize(p={p}, dim={dim}, eps={eps}) on {shape}")

    normalize("normalize_dim0_batch3", (3, 4, 5), 2.0, 0)
    normalize("normalize_p1_dim2", (2, 3, 4, 5), 1.0, 2, seed=71)
    normalize("normalize_pinf_last", (2, 3, 6), float("inf"), -1, seed=72)
    normalize("normalize_p3_dim1", (2, 5, 4), 3.0, 1, seed=73)
    normalize("normalize_p_half_rows", (4, 6), 0.5, -2, seed=74)
    zeros = seeded(75, 2, 4, 3)
    zeros[0, :, 1] = 0.0
    zeros[1, :, 2] = 1e-8
    normalize("normalize_eps_clamps", (2, 4, 3), 2.0, 1, eps=1e-6, x=zeros)


def parameterised_activation_cases():
    """GELU, Hardtanh, clamp, Mish, Softplus and PReLU: parameters, spellings, ranks, extremes."""
    def act(name, kind, fn, params=None, tolerance=TRANSCENDENTAL, shape=(2, 3, 7, 9), scale=3.0,
            seed=80, x=None, weights=None):
        unary(name, kind, shape, fn, params, weights, tolerance=tolerance, scale=scale, seed=seed,
              x=x, note=f"{kind} {params or ''} on {scale}*randn {shape}")

    act("gelu_module_rank3", "nn.GELU", F.gelu, shape=(2, 5, 7), tolerance=(1e-5, 1e-5))
    act("gelu_functional_tanh", "F.gelu", lambda v: F.gelu(v, approximate="tanh"),
        dict(approximate="tanh"), tolerance=(1e-5, 1e-5), seed=81)
    act("gelu_functional_none", "F.gelu", F.gelu, dict(approximate="none"),
        tolerance=(1e-5, 1e-5), seed=82)
    act("hardtanh_default", "nn.Hardtanh", F.hardtanh, dict(max_val=1.0, min_val=-1.0),
        tolerance=EXACT, seed=83)
    act("hardtanh_functional", "F.hardtanh", lambda v: F.hardtanh(v, -0.5, 1.5),
        dict(max_val=1.5, min_val=-0.5), tolerance=EXACT, seed=84)
    act("clamp_max_only", "torch.clamp", lambda v: torch.clamp(v, max=0.3),
        dict(max=0.3, min=None), tolerance=EXACT, seed=85)
    act("clamp_tensor_method", "Tensor.clamp", lambda v: v.clamp(-1.0, 1.0),
        dict(max=1.0, min=-1.0), tolerance=EXACT, seed=86)
    nan_input = seeded(87, 1, 2, 4, 4, scale=3.0)
    nan_input[0, 1, 2, 3] = float("nan")
    act("clamp_nan", "torch.clamp", lambda v: torch.clamp(v, -1.0, 1.0),
        dict(max=1.0, min=-1.0), tolerance=EXACT, shape=(1, 2, 4, 4), x=nan_input)
    act("mish_functional_large", "F.mish", F.mish, scale=40.0, seed=88)
    act("softplus_default", "nn.Softplus", F.softplus, dict(beta=1, threshold=20), seed=89)
    act("softplus_functional", "F.softplus", lambda v: F.softplus(v, 0.5, 2.0),
        dict(beta=0.5, threshold=2.0), seed=90)
    act("softplus_large", "nn.Softplus", lambda v: F.softplus(v, 3.0, 30.0),
        dict(beta=3.0, threshold=30.0), scale=40.0, seed=91)

    def prelu(name, shape, count, seed=92):
        generator = torch.Generator().manual_seed(seed + 100)
        weight = torch.rand(count, generator=generator) * 0.45 + 0.05
        act(name, "nn.PReLU", lambda v: F.prelu(v, weight), dict(num_parameters=count),
            shape=shape, seed=seed, weights={"weight": weight}, tolerance=(1e-6, 1e-6))

    prelu("prelu_rank3_channels", (2, 5, 7), 5)
    prelu("prelu_rank2_channels", (4, 6), 6, seed=93)
    prelu("prelu_rank5_channels", (2, 3, 2, 3, 4), 3, seed=94)
    prelu("prelu_rank4_shared", (2, 3, 4, 5), 1, seed=95)
    prelu("prelu_rank1_shared", (7,), 1, seed=96)
    x = seeded(97, 2, 4, 5, 6, scale=3.0)
    generator = torch.Generator().manual_seed(197)
    weight = torch.rand(4, generator=generator) * 0.45 + 0.05
    case = Case("prelu_functional", (1e-6, 1e-6), "F.prelu with a per-channel weight operand")
    a = case.input(x)
    (w,) = case.op("pnnx.Attribute", [], [weight], weights={"data": weight}, name="slope")
    (y,) = case.op("F.prelu", [a, w], [F.prelu(x, weight)], {}, keys=f"$input={a} $weight={w}")
    case.output(y)
    case.write()


def shape_op_cases():
    """Issue 11 part B: padding, 1-D convolution and pooling, adaptive max pooling, pixel shuffle,
    select, stack, expand, repeat, max/min over a dim, Tensor.to, F.upsample_nearest."""
    def conv1d(name, shape, out, kernel, stride=1, padding=0, dilation=1, groups=1, bias=True,
               mode="zeros", seed=81):
        torch.manual_seed(seed)
        module = torch.nn.Conv1d(shape[-2], out, kernel, stride, padding, dilation, groups, bias,
                                 padding_mode=mode)
        params = dict(bias=bias, dilation=module.dilation, groups=groups,
                      in_channels=shape[-2], kernel_size=module.kernel_size, out_channels=out,
                      padding=padding if isinstance(padding, str) else module.padding,
                      padding_mode=mode, stride=module.stride)
        weights = {"weight": module.weight.detach()}
        if bias:
            weights["bias"] = module.bias.detach()
        with torch.no_grad():
            unary(name, "nn.Conv1d", shape, module, params, weights, seed=seed,
                  note=f"nn.Conv1d {shape[-2]}->{out} k{kernel} s{stride} p{padding} d{dilation} "
                       f"g{groups} bias={bias} padding_mode={mode} on {shape}")

    conv1d("conv1d_batch3_nobias", (3, 4, 17), 5, 3, padding=1, bias=False)
    conv1d("conv1d_same_even_kernel", (2, 3, 12), 4, 4, padding="same")
    conv1d("conv1d_valid_stride3", (1, 3, 20), 6, 5, stride=3, padding="valid")
    conv1d("conv1d_groups3_dilation2", (2, 6, 15), 9, 3, padding=2, dilation=2, groups=3)
    conv1d("conv1d_depthwise", (2, 4, 11), 4, 3, padding=1, groups=4)
    conv1d("conv1d_pointwise", (2, 8, 9), 5, 1)
    conv1d("conv1d_unbatched", (4, 13), 3, 3, padding=1)
    conv1d("conv1d_reflect", (2, 3, 10), 4, 5, padding=2, mode="reflect")
    conv1d("conv1d_replicate_stride2", (2, 3, 11), 4, 3, stride=2, padding=2, mode="replicate")
    conv1d("conv1d_circular", (1, 3, 9), 2, 3, padding=3, dilation=2, mode="circular")

    def conv_mode(name, shape, out, kernel, mode, stride=1, padding=1, dilation=1, groups=1,
                  seed=82):
        torch.manual_seed(seed)
        module = torch.nn.Conv2d(shape[-3], out, kernel, stride, padding, dilation, groups,
                                 padding_mode=mode)
        params = dict(bias=True, dilation=module.dilation, groups=groups,
                      in_channels=shape[-3], kernel_size=module.kernel_size, out_channels=out,
                      padding=padding if isinstance(padding, str) else module.padding,
                      padding_mode=mode, stride=module.stride)
        weights = {"weight": module.weight.detach(), "bias": module.bias.detach()}
        with torch.no_grad():
            unary(name, "nn.Conv2d", shape, module, params, weights, seed=seed,
                  note=f"nn.Conv2d k{kernel} s{stride} p{padding} d{dilation} g{groups} "
                       f"padding_mode={mode} on {shape}")

    conv_mode("conv_reflect_batch2_stride2", (2, 3, 9, 10), 4, 3, "reflect", stride=2)
    conv_mode("conv_replicate_asymmetric", (1, 4, 7, 8), 6, (3, 5), "replicate", padding=(1, 3))
    conv_mode("conv_circular_dilation2_groups2", (2, 4, 8, 9), 6, 3, "circular", padding=2,
              dilation=2, groups=2)
    conv_mode("conv_reflect_same", (1, 3, 8, 7), 5, 4, "reflect", padding="same")
    conv_mode("conv_circular_pointwise_padded", (1, 3, 4, 5), 2, 1, "circular", padding=2)
    conv_mode("conv_replicate_unbatched", (3, 6, 7), 4, 3, "replicate")

    def pad(name, shape, pads, mode="constant", value=None, seed=83):
        def fn(x):
            if mode == "constant":
                return F.pad(x, pads, mode=mode, value=0.0 if value is None else value)
            return F.pad(x, pads, mode=mode)
        unary(name, "F.pad", shape, fn, dict(mode=mode, pad=pads, value=value),
              tolerance=EXACT, seed=seed, note=f"F.pad {pads} mode={mode} value={value} on {shape}")

    pad("pad_constant_rank5_three_dims", (2, 3, 4, 5, 6), (1, 2, 0, 1, 2, 0), value=-2.5)
    pad("pad_constant_crop", (2, 3, 6, 7), (-1, 2, 3, -2), value=1.0)
    pad("pad_constant_batch_dim", (2, 3, 4), (1, 1, 0, 0, 1, 2))
    pad("pad_constant_last_only_rank1", (7,), (2, 3), value=4.0)
    pad("pad_reflect_1d", (2, 3, 8), (3, 2), mode="reflect")
    pad("pad_reflect_1d_unbatched", (3, 8), (1, 4), mode="reflect")
    pad("pad_reflect_2d_crop", (2, 2, 6, 7), (-1, 3, 2, -2), mode="reflect")
    pad("pad_replicate_3d", (1, 2, 3, 4, 5), (1, 2, 2, 1, 3, 0), mode="replicate")
    pad("pad_replicate_large", (2, 2, 3, 4), (6, 1, 0, 5), mode="replicate")
    pad("pad_circular_2d", (2, 3, 5, 6), (2, 3, 1, 5), mode="circular")
    pad("pad_circular_crop", (1, 2, 6, 7), (-2, 3, 2, -1), mode="circular")
    pad("pad_circular_1d", (2, 3, 5), (5, 2), mode="circular")

    def pad_module(name, kind, shape, padding, value=None, seed=84):
        dims = int(kind[-2])
        module_class = getattr(torch.nn, kind[3:])
        args = (padding,) if value is None else (padding, value)
        module = module_class(*args)
        expanded = tuple(padding) if isinstance(padding, tuple) else (padding,) * (2 * dims)
        params = dict(padding=expanded)
        if value is not None:
            params["value"] = value
        unary(name, kind, shape, module, params, tolerance=EXACT, seed=seed,
              note=f"{kind}{args} on {shape}")

    pad_module("constantpad1d", "nn.ConstantPad1d", (2, 3, 6), (2, 1), value=3.5)
    pad_module("constantpad3d", "nn.ConstantPad3d", (1, 2, 3, 4, 5), (1, 0, 2, 1, 0, 2), value=-1.0)
    pad_module("zeropad2d_asymmetric_batch2", "nn.ZeroPad2d", (2, 3, 4, 5), (0, 2, 3, 1))
    pad_module("reflectionpad1d", "nn.ReflectionPad1d", (2, 3, 7), (3, 1))
    pad_module("reflectionpad2d_unbatched", "nn.ReflectionPad2d", (3, 5, 6), (2, 1, 4, 3))
    pad_module("replicationpad1d", "nn.ReplicationPad1d", (2, 3, 5), (4, 2))
    pad_module("replicationpad3d_batch2", "nn.ReplicationPad3d", (2, 2, 3, 4, 5), (1, 2, 0, 1, 2, 1))

    def pool1d(name, kind, shape, kernel, stride=None, padding=0, dilation=1, ceil=False,
               include=True, seed=85, x=None):
        if "Max" in kind or "max" in kind:
            module = torch.nn.MaxPool1d(kernel, stride, padding, dilation, ceil_mode=ceil)
            params = dict(ceil_mode=ceil, dilation=(dilation,), kernel_size=(kernel,),
                          padding=(padding,), return_indices=False,
                          stride=(module.stride,) if stride is not None or kind.startswith("nn.")
                          else ())
        else:
            module = torch.nn.AvgPool1d(kernel, stride, padding, ceil, include)
            params = dict(ceil_mode=ceil, count_include_pad=include, kernel_size=(kernel,),
                          padding=(padding,),
                          stride=(module.stride[0] if isinstance(module.stride, tuple)
                                  else module.stride,)
                          if stride is not None or kind.startswith("nn.") else ())
        unary(name, kind, shape, module, params, tolerance=EXACT if "ax" in kind else ARITHMETIC,
              seed=seed, x=x, note=f"{kind} k{kernel} s{stride} p{padding} d{dilation} ceil={ceil} "
                                   f"include={include} on {shape}")

    pool1d("maxpool1d_dilation2_ceil", "nn.MaxPool1d", (2, 3, 17), 3, 2, padding=1, dilation=2,
           ceil=True)
    pool1d("maxpool1d_unbatched", "nn.MaxPool1d", (4, 11), 2)
    pool1d("maxpool1d_functional_default_stride", "F.max_pool1d", (2, 3, 9), 3)
    nan_signal = seeded(86, 1, 2, 8)
    nan_signal[0, 1, 3] = float("nan")
    pool1d("maxpool1d_nan", "nn.MaxPool1d", (1, 2, 8), 2, 2, x=nan_signal)
    pool1d("avgpool1d_exclude_pad_ceil", "nn.AvgPool1d", (2, 3, 16), 3, 2, padding=1, ceil=True,
           include=False)
    pool1d("avgpool1d_include_pad", "nn.AvgPool1d", (3, 2, 10), 4, 3, padding=2)
    pool1d("avgpool1d_functional_unbatched", "F.avg_pool1d", (3, 12), 3)

    def adaptive_max(name, shape, size, kind="nn.AdaptiveMaxPool2d", x=None):
        module = torch.nn.AdaptiveMaxPool2d(size)
        unary(name, kind, shape, module, dict(output_size=size, return_indices=False),
              tolerance=EXACT, seed=87, x=x, note=f"{kind} to {size} on {shape}")

    adaptive_max("adaptive_max_batch2_uneven", (2, 3, 11, 13), (4, 5))
    adaptive_max("adaptive_max_keep_width", (1, 2, 6, 9), (3, None))
    adaptive_max("adaptive_max_upsampling", (1, 2, 3, 4), (5, 7))
    adaptive_max("adaptive_max_functional_int", (1, 3, 10, 10), 4, kind="F.adaptive_max_pool2d")
    adaptive_max("adaptive_max_unbatched", (3, 7, 8), (2, 3))
    nan_map = seeded(88, 1, 2, 6, 6)
    nan_map[0, 0, 4, 1] = float("nan")
    adaptive_max("adaptive_max_nan", (1, 2, 6, 6), (2, 2), x=nan_map)

    def shuffle(name, kind, shape, factor):
        if "Unshuffle" in kind or "unshuffle" in kind:
            fn = lambda x: F.pixel_unshuffle(x, factor)
            params = dict(downscale_factor=factor)
        else:
            fn = lambda x: F.pixel_shuffle(x, factor)
            params = dict(upscale_factor=factor)
        unary(name, kind, shape, fn, params, tolerance=EXACT, seed=89,
              note=f"{kind} {factor} on {shape}")

    shuffle("pixelshuffle3_batch2", "nn.PixelShuffle", (2, 18, 3, 4), 3)
    shuffle("pixelshuffle_rank5", "F.pixel_shuffle", (2, 3, 8, 2, 3), 2)
    shuffle("pixelshuffle_unbatched", "nn.PixelShuffle", (4, 3, 5), 2)
    shuffle("pixelunshuffle3_batch2", "nn.PixelUnshuffle", (2, 2, 6, 9), 3)
    shuffle("pixelunshuffle_rank5", "F.pixel_unshuffle", (2, 2, 1, 4, 6), 2)

    def shape_op(name, kind, shape, fn, params, seed=90, keys="$input=0"):
        unary(name, kind, shape, fn, params, tolerance=EXACT, seed=seed, keys=keys,
              note=f"{kind} {params} on {shape}")

    shape_op("select_negative_dim_index", "Tensor.select", (2, 3, 4, 5),
             lambda x: x.select(-2, -1), dict(dim=-2, index=-1))
    shape_op("select_batch_dim", "Tensor.select", (3, 4, 5), lambda x: x.select(0, 1),
             dict(dim=0, index=1))
    shape_op("select_last_dim", "Tensor.select", (2, 3, 4, 5), lambda x: x.select(3, 2),
             dict(dim=3, index=2))
    shape_op("expand_new_leading_dims", "Tensor.expand", (3, 1, 5),
             lambda x: x.expand(2, 4, -1, 6, -1), dict(sizes=(2, 4, -1, 6, -1)))
    shape_op("expand_last_dim", "Tensor.expand", (2, 3, 1), lambda x: x.expand(-1, -1, 7),
             dict(sizes=(-1, -1, 7)))
    shape_op("repeat_longer_than_rank", "Tensor.repeat", (3, 4), lambda x: x.repeat(2, 1, 3, 2),
             dict(sizes=(2, 1, 3, 2)))
    shape_op("repeat_batch", "Tensor.repeat", (2, 3, 2, 5), lambda x: x.repeat(3, 1, 2, 1),
             dict(sizes=(3, 1, 2, 1)))

    def multi(name, kind, shapes, fn, params, outputs=1, seed=91):
        case = Case(name, EXACT, f"{kind} {params} on {shapes}")
        tensors = [seeded(seed + i, *shape) for i, shape in enumerate(shapes)]
        operands = [case.input(x) for x in tensors]
        results = fn(*tensors)
        results = list(results) if isinstance(results, (tuple, list)) else [results]
        ys = case.op(kind, operands, results[:outputs], params,
                     keys="" if kind == "torch.stack" else "$input=0")
        for y in ys:
            case.output(y)
        case.write()

    multi("stack3_last", "torch.stack", [(2, 3, 4)] * 3, lambda *xs: torch.stack(xs, -1),
          dict(dim=-1))
    multi("stack2_dim0", "torch.stack", [(3, 4, 5)] * 2, lambda *xs: torch.stack(xs, 0),
          dict(dim=0))
    multi("stack4_rows", "torch.stack", [(2, 3, 5)] * 4, lambda *xs: torch.stack(xs, 2),
          dict(dim=2))
    multi("stack_vectors", "torch.stack", [(6,)] * 3, lambda *xs: torch.stack(xs, 1), dict(dim=1))
    multi("expand_as", "Tensor.expand_as", [(2, 1, 4), (3, 2, 5, 4)],
          lambda x, other: x.expand_as(other), {})

    def extremum(name, kind, shape, dim, keepdim, outputs, x=None):
        fn = torch.max if kind == "torch.max" else torch.min
        case = Case(name, EXACT, f"{kind} dim={dim} keepdim={keepdim}, {outputs} output(s)")
        x = seeded(92, *shape) if x is None else x
        a = case.input(x)
        if dim is None:
            results, params = [fn(x)], {}
        else:
            values, indices = fn(x, dim, keepdim)
            results, params = [values, indices.float()], dict(dim=dim, keepdim=keepdim)
        ys = case.op(kind, [a], results[:outputs], params, keys="$input=0")
        for y in ys:
            case.output(y)
        case.write()

    extremum("max_last_indices_batch2", "torch.max", (2, 3, 4, 5), -1, False, 2)
    extremum("min_rows_keepdim_indices", "torch.min", (2, 3, 6, 5), 2, True, 2)
    extremum("max_batch_dim", "torch.max", (3, 4, 5), 0, False, 2)
    extremum("min_rank2_dim1", "torch.min", (4, 7), 1, False, 1)
    # Without a dim the result is a scalar, which the case format cannot describe: the C++ test
    # checks that form by hand.
    ties = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
    ties = ties.reshape(1, 3, 4)
    extremum("max_ties_first_index", "torch.max", (1, 3, 4), -1, False, 2, x=ties)
    extremum("min_ties_first_index", "torch.min", (1, 3, 4), 2, True, 2, x=ties)
    nan_values = seeded(93, 2, 5, 3)
    nan_values[1, 2, 0] = float("nan")
    nan_values[0, 4, 2] = float("nan")
    extremum("max_nan_wins", "torch.max", (2, 5, 3), 1, False, 2, x=nan_values)

    # Tensor.to after an index output: the graph of case max_dim1_indices, and other targets.
    def conversion(name, dtype, fn, x):
        case = Case(name, EXACT, f"Tensor.to dtype={dtype}")
        a = case.input(x)
        (y,) = case.op("Tensor.to", [a], [fn(x).float()], dict(copy=False, dtype=dtype),
                       keys="$input=0")
        case.output(y)
        case.write()

    mixed = seeded(94, 2, 3, 5, scale=4.0)
    mixed[0, 0, :3] = torch.tensor([0.0, -0.0, 2.0])
    conversion("to_long_truncates", "torch.long", lambda x: x.to(torch.long), mixed)
    conversion("to_int_truncates", "torch.int", lambda x: x.to(torch.int), mixed)
    conversion("to_bool", "torch.bool", lambda x: x.to(torch.bool), mixed)
    conversion("to_float", "torch.float", lambda x: x.to(torch.float), mixed)

    def nearest(name, shape, size=None, scale=None):
        params = dict(size=size) if size is not None else dict(scale_factor=scale)
        unary(name, "F.upsample_nearest", shape,
              lambda x: F.interpolate(x, size=size, scale_factor=scale, mode="nearest"), params,
              tolerance=EXACT, seed=95, note=f"F.upsample_nearest size={size} scale={scale}")

    nearest("upsample_nearest_fn_size", (2, 3, 4, 5), size=(7, 9))
    nearest("upsample_nearest_fn_scale3", (1, 2, 3, 4), scale=(3.0, 3.0))


def rank_zero_cases():
    """Rank-0 (0-d) tensors: what PyTorch returns for a dot product, a reduction over every
    dimension, one element picked by select, and the layers that take such a tensor as input."""
    def chain(name, inputs, steps, tolerance=ARITHMETIC, outputs=None):
        """inputs: tensors; steps: (kind, operand indices, fn, params, keys) applied in order, each
        appending its result(s) to the operand list; outputs: operand indices (default: last)."""
        case = Case(name, tolerance, "; ".join(f"{kind} {params}" for kind, _, _, params, _ in steps))
        operands = [case.input(x) for x in inputs]
        values = list(inputs)
        for kind, sources, fn, params, keys in steps:
            results = fn(*[values[i] for i in sources])
            results = list(results) if isinstance(results, (tuple, list)) else [results]
            names = [operands[i] for i in sources]
            key_text = " ".join(f"${key}={names[i]}" for key, i in keys)
            made = case.op(kind, names, results, params, keys=key_text, name=f"op{len(values)}")
            operands += made
            values += results
        for index in outputs or [len(operands) - 1]:
            case.output(operands[index])
        case.write()

    v, w = seeded(300, 13), seeded(301, 13)
    x = seeded(302, 3, 4, 5)
    chain("rank0_matmul_dot", [v, w],
          [("torch.matmul", [0, 1], torch.matmul, {}, [("input", 0), ("other", 1)])])
    # The dot product then scales a vector: a rank-0 operand broadcast in an expression.
    chain("rank0_dot_scales_vector", [v, w],
          [("torch.matmul", [0, 1], torch.matmul, {}, [("input", 0), ("other", 1)]),
           ("pnnx.Expression", [2, 0], lambda d, a: d * a, dict(expr="mul(@0,@1)"), [])])
    chain("rank0_einsum_dot", [v, w],
          [("torch.einsum", [0, 1], lambda a, b: torch.einsum("i,i->", a, b),
            dict(equation="i,i->"), [])])
    chain("rank0_sum_all", [x], [("torch.sum", [0], torch.sum, {}, [("input", 0)])])
    chain("rank0_mean_all", [x], [("torch.mean", [0], torch.mean, {}, [("input", 0)])])
    chain("rank0_sum_vector_dim0", [v],
          [("torch.sum", [0], lambda a: torch.sum(a, (0,)), dict(dim=(0,), keepdim=False),
            [("input", 0)])])
    chain("rank0_amax_all", [x],
          [("torch.amax", [0], lambda a: torch.amax(a), dict(dim=(), keepdim=False),
            [("input", 0)])], tolerance=EXACT)
    chain("rank0_amin_all_dims_listed", [x],
          [("torch.amin", [0], lambda a: torch.amin(a, (0, 1, 2)), dict(dim=(0, 1, 2), keepdim=False),
            [("input", 0)])], tolerance=EXACT)
    chain("rank0_max_all", [x], [("torch.max", [0], torch.max, {}, [("input", 0)])], tolerance=EXACT)
    # torch.max over the one dimension of a vector: a rank-0 value and a rank-0 index.
    chain("rank0_max_vector_dim0", [v],
          [("torch.max", [0], lambda a: [r.float() for r in torch.max(a, 0)],
            dict(dim=0, keepdim=False), [("input", 0)])], tolerance=EXACT, outputs=[1, 2])
    chain("rank0_select_vector", [v],
          [("Tensor.select", [0], lambda a: a.select(0, 4), dict(dim=0, index=4), [("input", 0)])],
          tolerance=EXACT)
    # x[1, 2, -1]: item-style indexing is one select per index.
    chain("rank0_item_indexing", [x],
          [("Tensor.select", [0], lambda a: a.select(0, 1), dict(dim=0, index=1), [("input", 0)]),
           ("Tensor.select", [1], lambda a: a.select(0, 2), dict(dim=0, index=2), [("input", 0)]),
           ("Tensor.select", [2], lambda a: a.select(0, -1), dict(dim=0, index=-1),
            [("input", 0)])], tolerance=EXACT)
    total = ("torch.sum", [0], torch.sum, {}, [("input", 0)])
    chain("rank0_unsqueeze", [x],
          [total, ("torch.unsqueeze", [1], lambda a: a.unsqueeze(0), dict(dim=0), [("input", 0)])])
    chain("rank0_reshape", [x],
          [total, ("Tensor.reshape", [1], lambda a: a.reshape(1, 1), dict(shape=(1, 1)),
                   [("input", 0)])])
    chain("rank0_view_minus_one", [x],
          [total, ("Tensor.view", [1], lambda a: a.view(-1), dict(shape=(-1,)), [("input", 0)])])
    chain("rank0_flatten", [x],
          [total, ("torch.flatten", [1], torch.flatten, dict(end_dim=-1, start_dim=0),
                   [("input", 0)])])
    chain("rank0_stack", [x],
          [total, ("torch.amax", [0], lambda a: torch.amax(a), dict(dim=(), keepdim=False),
                   [("input", 0)]),
           ("torch.stack", [1, 2], lambda a, b: torch.stack((a, b)), dict(dim=0), [])])
    chain("rank0_expand", [x],
          [total, ("Tensor.expand", [1], lambda a: a.expand(2, 3), dict(sizes=(2, 3)),
                   [("input", 0)])])
    chain("rank0_activation", [x],
          [("torch.mean", [0], torch.mean, {}, [("input", 0)]),
           ("nn.Sigmoid", [1], torch.sigmoid, {}, [])], tolerance=TRANSCENDENTAL)
    chain("rank0_softmax", [x],
          [total, ("F.softmax", [1], lambda a: F.softmax(a, 0), dict(dim=0), [("input", 0)])],
          tolerance=TRANSCENDENTAL)
    chain("rank0_clamp", [x],
          [total, ("torch.clamp", [1], lambda a: torch.clamp(a, -0.5, 0.5),
                   dict(max=0.5, min=-0.5), [("input", 0)])], tolerance=EXACT)
    chain("rank0_squeeze", [seeded(303, 1, 1)],
          [("torch.squeeze", [0], torch.squeeze, {}, [("input", 0)])], tolerance=EXACT)
    chain("rank0_to", [x],
          [total, ("Tensor.to", [1], lambda a: a.to(torch.float), dict(copy=False, dtype="torch.float"),
                   [("input", 0)])])
    # A rank-0 graph input (pnnx writes no shape for it) scaling a matrix.
    chain("rank0_input", [seeded(304), seeded(305, 3, 4)],
          [("pnnx.Expression", [0, 1], lambda s, m: s * m + s, dict(expr="add(mul(@0,@1),@0)"), [])])


def index_cases():
    """torch.index_select and nn.Embedding / F.embedding: positions read from an operand."""
    def index_select(name, shape, dim, index, constant):
        x = seeded(310, *shape)
        index = torch.tensor(index, dtype=torch.int64)
        case = Case(name, EXACT, f"torch.index_select dim={dim} index={index.tolist()} "
                                 f"({'constant' if constant else 'an input'})")
        a = case.input(x)
        if constant:
            (i,) = case.op("pnnx.Attribute", [], [index], weights={"data": index}, name="indices")
        else:
            i = case.input(index.float(), "i64")
        (y,) = case.op("torch.index_select", [a, i], [torch.index_select(x, dim, index)],
                       dict(dim=dim), keys=f"$input={a} $index={i}")
        case.output(y)
        case.write()

    index_select("index_select_rows_repeated", (5, 4), 0, [4, 0, 0, 2], True)
    index_select("index_select_last_dim", (2, 3, 4, 5), -1, [3, 1], True)
    index_select("index_select_channels_input", (2, 6, 3, 4), 1, [5, 0, 2], False)
    index_select("index_select_rows_of_matrix", (2, 6, 3, 4), 2, [2, 2, 0, 1, 1], False)
    index_select("index_select_rank0_index", (3, 4), 1, 2, True)

    def embedding(name, rows, width, indices, functional):
        torch.manual_seed(311)
        module = torch.nn.Embedding(rows, width)
        indices = torch.tensor(indices, dtype=torch.int64)
        case = Case(name, EXACT, f"{'F.embedding' if functional else 'nn.Embedding'} "
                                 f"{rows}x{width} of indices {tuple(indices.shape)}")
        a = case.input(indices.float(), "i64")
        with torch.no_grad():
            result = module(indices)
        if functional:
            w = case.input(module.weight.detach())
            (y,) = case.op("F.embedding", [a, w], [result], dict(padding_idx=None,
                           scale_grad_by_freq=False, sparse=False), keys=f"$input={a} $weight={w}")
        else:
            (y,) = case.op("nn.Embedding", [a], [result], dict(embedding_dim=width,
                           num_embeddings=rows, sparse=False), {"weight": module.weight.detach()})
        case.output(y)
        case.write()

    embedding("embedding_tokens", 10, 6, [[1, 0, 9, 3], [3, 3, 7, 2]], False)
    embedding("embedding_rank3_indices", 7, 5, [[[1, 2], [6, 0], [5, 5]], [[0, 1], [2, 3], [4, 6]]],
              False)
    embedding("embedding_vector", 8, 3, [7, 0, 4], False)
    embedding("embedding_scalar_index", 8, 3, 5, False)
    embedding("embedding_functional", 9, 4, [[8, 1, 1], [0, 2, 7]], True)


def volume_convolution_cases():
    """Issue 25: nn.Conv3d in every padding mode and window variant, F.conv3d with its weight and
    bias as operands, and nn.BatchNorm1d / nn.BatchNorm3d."""
    def conv3d(name, shape, out, kernel, stride=1, padding=0, dilation=1, groups=1, bias=True,
               mode="zeros", seed=251):
        torch.manual_seed(seed)
        module = torch.nn.Conv3d(shape[-4], out, kernel, stride, padding, dilation, groups, bias,
                                 padding_mode=mode)
        params = dict(bias=bias, dilation=module.dilation, groups=groups,
                      in_channels=shape[-4], kernel_size=module.kernel_size, out_channels=out,
                      padding=padding if isinstance(padding, str) else module.padding,
                      padding_mode=mode, stride=module.stride)
        weights = {"weight": module.weight.detach()}
        if bias:
            weights["bias"] = module.bias.detach()
        with torch.no_grad():
            unary(name, "nn.Conv3d", shape, module, params, weights, seed=seed,
                  note=f"nn.Conv3d {shape[-4]}->{out} k{kernel} s{stride} p{padding} d{dilation} "
                       f"g{groups} bias={bias} padding_mode={mode} on {shape}")

    conv3d("conv3d_cube", (1, 3, 5, 6, 7), 4, 3)
    conv3d("conv3d_strided_padded", (2, 4, 7, 8, 9), 5, (2, 3, 4), stride=(2, 2, 1), padding=2)
    conv3d("conv3d_same_dilated_groups", (1, 4, 6, 7, 8), 6, 3, padding="same",
           dilation=(1, 2, 2), groups=2, bias=False)
    conv3d("conv3d_valid", (1, 2, 6, 5, 7), 3, (3, 2, 3), padding="valid")
    conv3d("conv3d_depthwise_reflect", (1, 4, 5, 6, 7), 4, 2, stride=2, padding=1, groups=4,
           mode="reflect")
    conv3d("conv3d_replicate", (1, 3, 4, 5, 6), 2, 2, padding=2, mode="replicate")
    conv3d("conv3d_circular", (1, 2, 5, 6, 7), 3, 3, padding=(1, 2, 3), mode="circular")
    conv3d("conv3d_unbatched", (3, 4, 5, 6), 2, 3, padding=(0, 1, 2), dilation=(1, 1, 2))

    # F.conv3d: weight and bias are graph inputs.
    case = Case("conv3d_functional", ARITHMETIC, "F.conv3d with weight and bias as inputs, "
                "stride (2,1,1), padding (1,0,2), dilation (1,2,1), groups 2")
    x = seeded(252, 1, 4, 6, 7, 8)
    w = seeded(253, 6, 2, 3, 2, 3, scale=0.3)
    b = seeded(254, 6)
    y = F.conv3d(x, w, b, stride=(2, 1, 1), padding=(1, 0, 2), dilation=(1, 2, 1), groups=2)
    operands = [case.input(x), case.input(w), case.input(b)]
    (out,) = case.op("F.conv3d", operands, [y],
                     dict(dilation=(1, 2, 1), groups=2, padding=(1, 0, 2), stride=(2, 1, 1)),
                     keys="$input=0 $weight=1 $bias=2")
    case.output(out)
    case.write()

    def batchnorm(name, kind, shape, affine, eps, seed=255):
        torch.manual_seed(seed)
        module = getattr(torch.nn, kind.split(".")[1])(shape[1], eps=eps, affine=affine).eval()
        module.running_mean.uniform_(-1, 1)
        module.running_var.uniform_(0.5, 2)
        weights = {"running_mean": module.running_mean, "running_var": module.running_var}
        if affine:
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-1, 1)
            weights.update(weight=module.weight.detach(), bias=module.bias.detach())
        with torch.no_grad():
            unary(name, kind, shape, module, dict(affine=affine, eps=eps, num_features=shape[1]),
                  weights, seed=seed, note=f"{kind} affine={affine} eps={eps} on {shape}")

    batchnorm("batchnorm1d_rank2", "nn.BatchNorm1d", (3, 5), True, 1e-5)
    batchnorm("batchnorm1d_rank3_no_affine", "nn.BatchNorm1d", (2, 4, 7), False, 0.1)
    batchnorm("batchnorm3d_batch2", "nn.BatchNorm3d", (2, 3, 4, 5, 6), True, 1e-3)

    def deconv(name, rank, shape, out, kernel, stride=1, padding=0, output_padding=0, dilation=1,
               groups=1, bias=True, seed=256):
        torch.manual_seed(seed)
        module = getattr(torch.nn, f"ConvTranspose{rank}d")(
            shape[-rank - 1], out, kernel, stride, padding, output_padding, groups, bias, dilation)
        params = dict(bias=bias, dilation=module.dilation, groups=groups,
                      in_channels=shape[-rank - 1], kernel_size=module.kernel_size,
                      out_channels=out, output_padding=module.output_padding,
                      padding=module.padding, padding_mode="zeros", stride=module.stride)
        weights = {"weight": module.weight.detach()}
        if bias:
            weights["bias"] = module.bias.detach()
        with torch.no_grad():
            unary(name, f"nn.ConvTranspose{rank}d", shape, module, params, weights, seed=seed,
                  note=f"nn.ConvTranspose{rank}d {shape[-rank - 1]}->{out} k{kernel} s{stride} "
                       f"p{padding} op{output_padding} d{dilation} g{groups} bias={bias} on {shape}")

    deconv("deconv1d_stride2_output_padding", 1, (2, 4, 9), 6, 3, stride=2, padding=1,
           output_padding=1)
    deconv("deconv1d_groups_dilation_unbatched", 1, (4, 7), 6, 3, padding=2, dilation=2,
           groups=2, bias=False)
    deconv("deconv3d_strided", 3, (1, 4, 3, 4, 5), 6, (2, 3, 4), stride=(2, 2, 1),
           padding=(0, 1, 2), output_padding=(1, 1, 0))
    deconv("deconv3d_groups_dilation_batch2", 3, (2, 4, 3, 3, 4), 4, 3, stride=2, padding=1,
           dilation=(1, 2, 2), groups=2, bias=False)

    # F.conv_transpose1d/2d/3d: weight and bias are graph inputs.
    for rank in (1, 2, 3):
        case = Case(f"deconv{rank}d_functional", ARITHMETIC,
                    f"F.conv_transpose{rank}d with weight and bias as inputs, stride 2, padding 1, "
                    "output_padding 1, groups 2")
        x = seeded(257, 1, 4, *[5, 6, 4][:rank])
        w = seeded(258, 4, 3, *[3, 2, 3][:rank], scale=0.3)
        b = seeded(259, 6)
        y = getattr(F, f"conv_transpose{rank}d")(x, w, b, stride=2, padding=1, output_padding=1,
                                                 groups=2)
        operands = [case.input(x), case.input(w), case.input(b)]
        (out,) = case.op(f"F.conv_transpose{rank}d", operands, [y],
                         dict(dilation=(1,) * rank, groups=2, output_padding=(1,) * rank,
                              padding=(1,) * rank, stride=(2,) * rank),
                         keys="$input=0 $weight=1 $bias=2")
        case.output(out)
        case.write()


def product_cases():
    """Issue 25: F.linear with operand weights, torch.addmm, torch.mv, einsum equations that are
    not batched products, F.pairwise_distance."""
    def graph(name, kind, tensors, result, params=None, keys="", note=""):
        case = Case(name, ARITHMETIC, note or kind)
        operands = [case.input(t) for t in tensors]
        (out,) = case.op(kind, operands, [result], params, keys=keys)
        case.output(out)
        case.write()

    x, w, b = seeded(260, 2, 3, 7), seeded(261, 5, 7), seeded(262, 5)
    graph("linear_functional_bias", "F.linear", [x, w, b], F.linear(x, w, b),
          keys="$input=0 $weight=1 $bias=2")
    v = seeded(263, 7)
    graph("linear_functional_vector_nobias", "F.linear", [v, w], F.linear(v, w),
          dict(bias=None), keys="$input=0 $weight=1")
    i, m1, m2 = seeded(264, 4, 1), seeded(265, 4, 6), seeded(266, 6, 3)
    graph("addmm_broadcast_scaled", "torch.addmm", [i, m1, m2],
          torch.addmm(i, m1, m2, beta=0.5, alpha=1.5), dict(alpha=1.5, beta=0.5),
          keys="$input=0 $mat1=1 $mat2=2")
    r = seeded(267, 3)
    graph("addmm_row_input", "torch.addmm", [r, m1, m2], torch.addmm(r, m1, m2),
          dict(alpha=1, beta=1), keys="$input=0 $mat1=1 $mat2=2")
    mat, vec = seeded(268, 5, 4), seeded(269, 4)
    graph("mv", "torch.mv", [mat, vec], torch.mv(mat, vec), keys="$input=0 $vec=1")
    a, c = seeded(270, 2, 3, 4, 5), seeded(271, 6, 3, 7, 4)
    graph("einsum_two_summed_letters", "torch.einsum", [a, c],
          torch.einsum("imnj,kmln->ijkl", a, c), dict(equation="imnj,kmln->ijkl"))
    sq = seeded(272, 4, 4)
    graph("einsum_trace", "torch.einsum", [sq], torch.einsum("ii", sq), dict(equation="ii"))
    graph("einsum_transpose", "torch.einsum", [a], torch.einsum("ijkl->ljik", a),
          dict(equation="ijkl->ljik"))
    e1, e2, e3 = seeded(273, 2, 5), seeded(274, 3, 5, 4), seeded(275, 2, 4)
    graph("einsum_three_operands", "torch.einsum", [e1, e2, e3],
          torch.einsum("ik,jkl,il->ij", e1, e2, e3), dict(equation="ik,jkl,il->ij"))
    p1, p2 = seeded(276, 3, 4, 6), seeded(277, 4, 6)
    for name, p, keepdim in (("pairwise_distance_p2_keepdim", 2.0, True),
                             ("pairwise_distance_p1_broadcast", 1.0, False),
                             ("pairwise_distance_p3", 3.0, False),
                             ("pairwise_distance_inf", math.inf, False)):
        graph(name, "F.pairwise_distance", [p1, p2],
              F.pairwise_distance(p1, p2, p=p, eps=1e-3, keepdim=keepdim),
              dict(eps=1e-3, keepdim=keepdim, p=p), keys="$x1=0 $x2=1")

def elementwise_cases():
    """Issue 25: activations (CELU ... RReLU, GLU), the softmax family, comparisons, logic and
    bitwise ops on integer-valued inputs, lgamma: parameters, defaults, negative dims, extremes."""
    def act(name, kind, fn, params=None, shape=(2, 3, 7, 9), scale=3.0, seed=300,
            tolerance=TRANSCENDENTAL, x=None):
        unary(name, kind, shape, fn, params, tolerance=tolerance, scale=scale, seed=seed, x=x,
              note=f"{kind} {params or ''} on {scale}*randn {shape}")

    act("celu_default", "nn.CELU", F.celu, dict(alpha=1.0))
    act("celu_functional_alpha", "F.celu", lambda v: F.celu(v, 0.3), dict(alpha=0.3), seed=301)
    act("selu_large", "nn.SELU", F.selu, scale=30.0, seed=302)
    act("hardshrink_default", "nn.Hardshrink", F.hardshrink, dict(lambd=0.5), seed=303,
        tolerance=EXACT)
    act("softshrink_functional", "F.softshrink", lambda v: F.softshrink(v, 1.5),
        dict(lambd=1.5), seed=304, tolerance=EXACT)
    act("tanhshrink_module", "nn.Tanhshrink", F.tanhshrink, seed=305)
    act("softsign_large", "F.softsign", F.softsign, scale=100.0, seed=306)
    act("threshold_negative", "F.threshold", lambda v: F.threshold(v, -0.5, -7.0),
        dict(threshold=-0.5, value=-7.0), seed=307, tolerance=EXACT)
    act("logsigmoid_large", "nn.LogSigmoid", F.logsigmoid, scale=60.0, seed=308)
    act("rrelu_defaults", "nn.RReLU", lambda v: F.rrelu(v, training=False),
        dict(lower=0.125, upper=1.0 / 3.0), seed=309)
    act("lgamma_negative", "torch.lgamma", torch.lgamma, scale=4.0, seed=310)
    act("positive_rank3", "torch.positive", torch.positive, shape=(3, 4, 5), seed=311,
        tolerance=EXACT)
    act("glu_default_dim", "nn.GLU", F.glu, dict(dim=-1), shape=(2, 3, 4, 8), seed=312)
    act("glu_negative_dim", "F.glu", lambda v: F.glu(v, -3), dict(dim=-3), shape=(2, 6, 4, 5),
        seed=313)
    act("glu_batch_dim", "F.glu", lambda v: F.glu(v, 0), dict(dim=0), shape=(4, 3, 5), seed=314)

    # The softmax family on values far apart: log_softmax must stay finite where softmax is 0.
    act("log_softmax_far_apart", "nn.LogSoftmax", lambda v: F.log_softmax(v, 1), dict(dim=1),
        scale=60.0, seed=315)
    act("log_softmax_last_dim", "F.log_softmax", lambda v: F.log_softmax(v, -1), dict(dim=-1),
        seed=316)
    act("log_softmax_implicit_dim", "nn.LogSoftmax", lambda v: F.log_softmax(v, 1),
        dict(dim=None), seed=317)
    act("softmin_negative_dim", "F.softmin", lambda v: F.softmin(v, -2), dict(dim=-2), seed=318)
    act("softmax2d_unbatched", "nn.Softmax2d", lambda v: F.softmax(v, -3), shape=(5, 4, 6),
        seed=319)
    act("softmax2d_batched", "nn.Softmax2d", lambda v: F.softmax(v, -3), shape=(2, 5, 4, 6),
        seed=320)

    def binary(name, kind, fn, a, b, types=(None, None), tolerance=EXACT):
        case = Case(name, tolerance, f"{kind} on {tuple(a.shape)} and {tuple(b.shape)}")
        operands = [case.input(a.float(), types[0]), case.input(b.float(), types[1])]
        (y,) = case.op(kind, operands, [fn(a, b).float()], keys="$input=0 $other=1")
        case.output(y)
        case.write()

    def scalar(name, kind, fn, a, other, declared_type=None, tolerance=EXACT):
        case = Case(name, tolerance, f"{kind} other={other}")
        operand = case.input(a.float(), declared_type)
        (y,) = case.op(kind, [operand], [fn(a, other).float()], dict(other=other),
                       keys="$input=0")
        case.output(y)
        case.write()

    # Comparisons broadcast, and NaN compares unequal to everything (ne is true).
    left = torch.round(seeded(321, 2, 3, 1, 5, scale=2.0))
    right = torch.round(seeded(322, 4, 5, scale=2.0))
    left[0, 1, 0, 2] = float("nan")
    for function in ("eq", "ne", "lt", "le", "gt", "ge"):
        binary(f"compare_{function}_broadcast", f"torch.{function}", getattr(torch, function),
               left, right)
    scalar("compare_gt_scalar", "torch.gt", torch.gt, seeded(323, 3, 4, 5), 0.25)
    # Logic on floats: any nonzero value (NaN too) is true.
    a = torch.round(seeded(324, 3, 1, 6))
    b = torch.round(seeded(325, 4, 6))
    a[1, 0, 2] = float("nan")
    for function in ("logical_and", "logical_or", "logical_xor"):
        binary(f"{function}_broadcast", f"torch.{function}", getattr(torch, function), a, b)
    unary("logical_not_floats", "torch.logical_not", (3, 4, 6), torch.logical_not,
          x=torch.round(seeded(326, 3, 4, 6)), tolerance=EXACT)
    # Bitwise ops on integer tensors, negative values included (two's complement, arithmetic
    # right shift).
    ints = torch.randint(-100, 100, (3, 4, 5), generator=torch.Generator().manual_seed(327))
    more = torch.randint(-100, 100, (4, 5), generator=torch.Generator().manual_seed(328))
    counts = torch.randint(0, 6, (4, 5), generator=torch.Generator().manual_seed(329))
    for function in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        binary(f"{function}_integers", f"torch.{function}", getattr(torch, function), ints, more,
               types=("i64", "i64"))
    binary("bitwise_left_shift_integers", "torch.bitwise_left_shift", torch.bitwise_left_shift,
           ints, counts, types=("i64", "i64"))
    binary("bitwise_right_shift_integers", "torch.bitwise_right_shift",
           torch.bitwise_right_shift, ints, counts, types=("i64", "i64"))
    scalar("bitwise_xor_scalar", "torch.bitwise_xor", torch.bitwise_xor, ints, 5, "i64")
    case = Case("bitwise_not_integers", EXACT, "torch.bitwise_not on i64")
    operand = case.input(ints.float(), "i64")
    (y,) = case.op("torch.bitwise_not", [operand], [torch.bitwise_not(ints).float()],
                   keys="$input=0")
    case.output(y)
    case.write()


# ---------------------------------------------------------------------------------------------
def reduction_scan_cases():
    """Reductions, scans, arg-reductions and topk with the arguments pnnx's own tests leave out:
    every p of torch.norm, correction for std/var, negative dims, keepdim with dim None, topk's
    smallest and unsorted orders on both of PyTorch's selection paths."""
    x = seeded(400, 2, 3, 4, 5)
    for name, p in [("fro", "fro"), ("inf", float("inf")), ("minus_inf", float("-inf")),
                    ("zero", 0.0), ("three", 3.0), ("half", 0.5)]:
        unary(f"norm_p_{name}", "torch.norm", x.shape,
              lambda a, p=p: torch.norm(a, p=p, dim=(1, -1), keepdim=False),
              dict(dim=(1, -1), keepdim=False, p=p), x=x)
    unary("norm_all_default", "torch.norm", x.shape, lambda a: torch.norm(a),
          dict(dim=None, keepdim=False, p="fro"), x=x)
    unary("std_correction_2", "torch.std", x.shape,
          lambda a: torch.std(a, dim=(0, 2), correction=2, keepdim=True),
          dict(dim=(0, 2), keepdim=True, correction=2), x=x)
    unary("var_unbiased_last", "torch.var", x.shape, lambda a: torch.var(a, dim=-1),
          dict(dim=(-1,), keepdim=False, unbiased=True), x=x)
    unary("std_all", "torch.std", x.shape, lambda a: torch.std(a),
          dict(dim=None, keepdim=False, unbiased=True), x=x)
    unary("prod_all", "torch.prod", x.shape, lambda a: torch.prod(a),
          dict(keepdim=False), x=x * 0.5 + 1.0)
    unary("logsumexp_negative_dim", "torch.logsumexp", x.shape,
          lambda a: torch.logsumexp(a, dim=-2, keepdim=True),
          dict(dim=(-2,), keepdim=True), x=x * 40, tolerance=TRANSCENDENTAL)
    unary("cumsum_negative_dim", "torch.cumsum", x.shape, lambda a: torch.cumsum(a, dim=-2),
          dict(dim=-2), x=x)
    unary("cumprod_batch", "torch.cumprod", x.shape, lambda a: torch.cumprod(a, dim=0),
          dict(dim=0), x=x)
    unary("argmax_negative_dim_keepdim", "torch.argmax", x.shape,
          lambda a: torch.argmax(a, dim=-1, keepdim=True).float(), dict(dim=-1, keepdim=True),
          x=x, tolerance=EXACT)
    unary("argmin_all_keepdim", "torch.argmin", x.shape,
          lambda a: torch.argmin(a, dim=None, keepdim=True).float(),
          dict(dim=None, keepdim=True), x=x, tolerance=EXACT)
    unary("argmax_all", "torch.argmax", x.shape, lambda a: torch.argmax(a).float(),
          dict(dim=None, keepdim=False), x=x, tolerance=EXACT)
    # Ties: the first of equal values wins.
    ties = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, -1.0]])
    unary("argmin_ties", "torch.argmin", ties.shape, lambda a: torch.argmin(a, dim=1).float(),
          dict(dim=1, keepdim=False), x=ties, tolerance=EXACT)
    long = seeded(401, 3, 200, 2)
    for name, params in [("smallest_unsorted_partial", dict(k=3, dim=1, largest=False, sorted=False)),
                         ("largest_sorted_partial", dict(k=2, dim=-2, largest=True, sorted=True)),
                         ("smallest_sorted_select", dict(k=50, dim=1, largest=False, sorted=True)),
                         ("largest_unsorted_select", dict(k=7, dim=1, largest=True, sorted=False))]:
        case = Case(f"topk_{name}", EXACT, f"torch.topk {params}")
        a = case.input(long)
        values, indices = torch.topk(long, **params)
        v, i = case.op("torch.topk", [a], [values, indices.float()], params, keys="$input=0")
        case.types[i] = "i64"
        case.output(v)
        case.output(i)
        case.write()


def main():
    if ROOT.exists():
        shutil.rmtree(ROOT)
    ROOT.mkdir(parents=True)
    convolution_cases()
    pooling_cases()
    normalisation_and_linear_cases()
    activation_cases()
    expression_cases()
    shape_cases()
    resize_cases()
    detect_cases()
    norm_layer_cases()
    parameterised_activation_cases()
    shape_op_cases()
    rank_zero_cases()
    index_cases()
    volume_convolution_cases()
    product_cases()
    elementwise_cases()
    reduction_scan_cases()
    print(f"wrote {len(list(ROOT.iterdir()))} cases under {ROOT}")


if __name__ == "__main__":
    main()
