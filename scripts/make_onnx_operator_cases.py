#!/usr/bin/python3
"""Writes golden cases for the ONNX operators of issue 26 into tmp/onnx/op_<name>/.

Two kinds, each tiny:
  - exports: a small torch module using the op, exported with torch.onnx.export as a user would
    (no post-processing); the references are the module's own outputs;
  - one-node models built with onnx.helper, for what torch 1.13 cannot export (Hardmax, GatherND,
    ScatterND, CumSum's exclusive/reverse, LRN, Mean, ...); the references are computed with
    numpy following the ONNX operator specification, quoted beside each.

Each folder holds model.onnx, in0.f32 ... (row-major float32) and out0.f32 ..., and a case.txt
as scripts/make_onnx_cases.py writes it; test/golden/test_golden_cases.cpp runs every tmp/onnx case.

  /usr/bin/python3 scripts/make_onnx_operator_cases.py          (Debian's python3-torch, -onnx)
"""
import io
import pathlib
import shutil

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "tmp" / "onnx"
TOLERANCE = (1e-5, 1e-4)


def declare_shapes(model):
    """Every operand's shape declared, as the golden test requires for now."""
    # TODO(lead): drop once shapes are inferred
    return onnx.shape_inference.infer_shapes(model)


def write_case(name, model, inputs, outputs, note, tolerance=TOLERANCE):
    onnx.checker.check_model(model)
    folder = OUTPUT / f"op_{name}"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    onnx.save(declare_shapes(model), str(folder / "model.onnx"))
    lines = []
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for i, array in enumerate(arrays):
            file_name = f"{'in' if kind == 'input' else 'out'}{i}.f32"
            array = np.asarray(array, dtype="<f4")  # 0-d stays 0-d
            array.tofile(folder / file_name)
            lines.append(f"{kind} {file_name} {','.join(str(x) for x in array.shape)}")
    lines.append(f"tolerance {tolerance[0]:g} {tolerance[1]:g}")
    lines.append(f"note {note} (scripts/make_onnx_operator_cases.py)")
    (folder / "case.txt").write_text("\n".join(lines) + "\n")


def export_case(name, module, inputs, opset):
    """The module exported as torch.onnx.export writes it; references: its own outputs."""
    module.eval()
    buffer = io.BytesIO()
    names = [f"in{i}" for i in range(len(inputs))]
    with torch.no_grad():
        result = module(*inputs)
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        torch.onnx.export(module, tuple(inputs), buffer, opset_version=opset, input_names=names,
                          output_names=[f"out{i}" for i in range(len(outputs))])
    model = onnx.load_from_string(buffer.getvalue())
    write_case(name, model, [x.numpy() for x in inputs],
               [y.float().numpy() for y in outputs],
               f"exported by torch.onnx.export {torch.__version__} at opset {opset}; "
               f"references: the module's outputs")


def node_case(name, op, inputs, outputs, attributes=None, constants=(), opset=13, order=None):
    """One `op` node over float inputs in0, in1, ... and integer `constants` ((name, array)
    pairs), read in `order` (default: the inputs, then the constants), with numpy references
    computed per the ONNX spec."""
    input_names = [f"in{i}" for i in range(len(inputs))]
    node = helper.make_node(op, order or input_names + [c[0] for c in constants],
                            [f"out{i}" for i in range(len(outputs))], name=name,
                            **(attributes or {}))
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, x.shape)
         for n, x in zip(input_names, inputs)],
        [helper.make_tensor_value_info(f"out{i}", TensorProto.FLOAT, np.shape(y))
         for i, y in enumerate(outputs)],
        [numpy_helper.from_array(np.asarray(array), n) for n, array in constants])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    write_case(name, model, inputs, outputs,
               f"one {op} node (onnx.helper, opset {opset}); references: numpy per the ONNX spec")


def random(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


class Lambda(torch.nn.Module):
    """A module computing `function` of its inputs."""

    def __init__(self, function, **buffers):
        super().__init__()
        self.function = function
        for key, value in buffers.items():
            self.register_buffer(key, value)

    def forward(self, *inputs):
        return self.function(self, *inputs)


def export_cases():
    x = torch.from_numpy(random(2, 5, 3))
    y = torch.from_numpy(random(2, 5, 3, seed=1))
    export_case("topk", Lambda(lambda m, a: torch.topk(a, 2, dim=1)), [x], 13)
    export_case("topk_smallest_last", Lambda(lambda m, a: torch.topk(a, 3, largest=False)), [x],
                13)
    index = torch.tensor([[[4, 0, 1]], [[2, 2, 3]]])
    export_case("gather_elements",
                Lambda(lambda m, a: torch.gather(a, 1, m.index) +
                       torch.gather(a, 1, a.argmax(1, keepdim=True)), index=index), [x], 13)
    export_case("scatter_elements",
                Lambda(lambda m, a, b: a.scatter(1, m.index, b[:, :1]), index=index), [x, y], 13)
    export_case("scatter_add",
                Lambda(lambda m, a, b: a.scatter_add(1, m.index, b[:, :1]), index=index), [x, y],
                16)
    export_case("cumsum", Lambda(lambda m, a: torch.cumsum(a, 1) + torch.cumsum(a, -1)), [x], 13)
    export_case("fmod", Lambda(lambda m, a: torch.fmod(a * 3, 1.25)), [x], 13)
    # Integer arithmetic on run-time values: Mod with fmod=0 (Python's sign rule) of an ArgMax
    # moved below zero, and Cast to int64 (dropping the fraction).
    export_case("integer_mod_cast",
                Lambda(lambda m, a: torch.cat([((a.argmax(1) - 4) % 3).float(),
                                               (a[:, 0] * 3).long().float()], 1)), [x], 13)
    export_case("logical",
                Lambda(lambda m, a, b: torch.cat([torch.logical_and(a > 0, b > 0),
                                                  torch.logical_or(a > 0, b > 0),
                                                  torch.logical_xor(a > 0, b > 0),
                                                  ~(a > 0)], 1).float()),
                [x, y], 13)
    export_case("log_softmax", Lambda(lambda m, a: F.log_softmax(a, 1)), [x], 13)
    # Before opset 13 the exporter moves dim last (Transpose) for the old axis semantics.
    export_case("log_softmax_opset11", Lambda(lambda m, a: F.log_softmax(a, 1)), [x], 11)
    export_case("reductions",
                Lambda(lambda m, a: (torch.prod(a, 1), torch.logsumexp(a, 2, keepdim=True),
                                     torch.norm(a, p=1, dim=1), torch.prod(a).unsqueeze(0))),
                [x], 13)
    u = torch.from_numpy(np.linspace(-0.95, 0.95, 30, dtype=np.float32).reshape(2, 5, 3))
    export_case("trigonometry",
                Lambda(lambda m, a: torch.cat([torch.sin(a), torch.cos(a), torch.tan(a),
                                               torch.asin(a),
                                               torch.acos(a), torch.atan(a)], 1)), [u], 13)
    image = torch.from_numpy(random(1, 2, 4, 5))
    grid = torch.from_numpy(random(1, 3, 2, 2) * 0.8)
    export_case("grid_sample",
                Lambda(lambda m, a, g: F.grid_sample(a, g, align_corners=False)), [image, grid],
                16)
    export_case("grid_sample_bicubic_border",
                Lambda(lambda m, a, g: F.grid_sample(a, g, mode="bicubic", padding_mode="border",
                                                     align_corners=True)), [image, grid], 16)
    a, b, c = (torch.from_numpy(random(3, 4)), torch.from_numpy(random(4, 5)),
               torch.from_numpy(random(5, 2)))
    export_case("einsum_chain", Lambda(lambda m, p, q, r: torch.einsum("ij,jk,kl->il", p, q, r)),
                [a, b, c], 13)
    export_case("einsum_trace", Lambda(lambda m, p: torch.einsum("bii->b", p)),
                [torch.from_numpy(random(2, 3, 3))], 13)


def hardmax(x, axis):
    """Hardmax-13: 1 at the first maximum of each slice along axis, 0 elsewhere."""
    positions = np.expand_dims(np.argmax(x, axis=axis), axis)
    result = np.zeros_like(x)
    np.put_along_axis(result, positions, 1, axis=axis)
    return result


def gather_nd(data, indices, batch_dims):
    """GatherND-13 as the spec's reference implementation: the leading batch_dims are shared,
    each index tuple of the last dimension picks an element or slice of the rest."""
    indices = indices.astype(np.int64)
    batch_shape = indices.shape[:batch_dims]
    count = int(np.prod(batch_shape)) if batch_dims else 1
    data_rest = data.reshape((count,) + data.shape[batch_dims:])
    index_rest = indices.reshape((count,) + indices.shape[batch_dims:])
    result = []
    for b in range(count):
        for tuple_ in index_rest[b].reshape(-1, indices.shape[-1]):
            result.append(data_rest[b][tuple(tuple_)])
    return np.asarray(result).reshape(indices.shape[:-1] + data.shape[batch_dims +
                                                                       indices.shape[-1]:])


def scatter_nd(data, indices, updates, reduction):
    """ScatterND-16: output = copy of data; output[indices[idx]] = updates[idx] (or combined
    with add / mul) for each idx of indices.shape[:-1], in order."""
    output = np.copy(data)
    combine = {"none": lambda old, new: new, "add": np.add, "mul": np.multiply}[reduction]
    indices = indices.astype(np.int64)
    for idx in np.ndindex(indices.shape[:-1]):
        target = tuple(indices[idx])
        output[target] = combine(output[target], updates[idx])
    return output


def lrn(x, size, alpha, beta, bias):
    """LRN-13: square_sum[n, c] = sum of x[n, i]^2 for i in [c - floor((size - 1) / 2),
    c + ceil((size - 1) / 2)] within the channels;
    y = x / (bias + alpha / size * square_sum)^beta."""
    channels = x.shape[1]
    square_sum = np.zeros_like(x)
    for c in range(channels):
        low = max(0, c - (size - 1) // 2)
        high = min(channels - 1, c + int(np.ceil((size - 1) / 2)))
        square_sum[:, c] = np.sum(x[:, low:high + 1] ** 2, axis=1)
    return x / (bias + alpha / size * square_sum) ** beta


def node_cases():
    x = random(2, 3, 4)
    node_case("hardmax", "Hardmax", [x], [hardmax(x, -1)])
    node_case("hardmax_axis1", "Hardmax", [x], [hardmax(x, 1)], {"axis": 1})
    # Hardmax-11: the input coerced to 2-D at axis ([2, 12] for axis 1), hardmax along the rows.
    node_case("hardmax_opset11", "Hardmax", [x], [hardmax(x.reshape(2, 12), 1).reshape(x.shape)],
              {"axis": 1}, opset=11)
    node_case("log_softmax_opset11_axis1", "LogSoftmax", [x],
              [(lambda f: f - np.log(np.sum(np.exp(f), 1, keepdims=True)))(
                  x.reshape(2, 12).astype(np.float64)).reshape(x.shape)], {"axis": 1}, opset=11)
    # CumSum-11: exclusive leaves each element out of its own sum, reverse sums from the end.
    forward = np.cumsum(x, axis=1)
    backward = np.flip(np.cumsum(np.flip(x, 1), 1), 1)
    cases = {(0, 1): backward, (1, 0): forward - x, (1, 1): backward - x}
    for (exclusive, reverse), expected in cases.items():
        node_case(f"cumsum_exclusive{exclusive}_reverse{reverse}", "CumSum", [x], [expected],
                  {"exclusive": exclusive, "reverse": reverse},
                  constants=[("axis", np.array(1, np.int64))])
    node_case("mean", "Mean", [x, random(3, 1, seed=2), random(4, seed=3)],
              [(x + random(3, 1, seed=2) + random(4, seed=3)) / 3])
    # torch 1.13 exports neither sinh nor cosh.
    node_case("sinh", "Sinh", [x], [np.sinh(x)])
    node_case("cosh", "Cosh", [x], [np.cosh(x)])
    node_case("thresholded_relu", "ThresholdedRelu", [x], [np.where(x > 0.5, x, 0)],
              {"alpha": 0.5})
    node_case("reduce_sum_square", "ReduceSumSquare", [x], [np.sum(x * x, (0, 2))],
              {"axes": [0, -1], "keepdims": 0})
    node_case("reduce_log_sum", "ReduceLogSum", [np.abs(x)],
              [np.log(np.sum(np.abs(x), 1, keepdims=True))], {"axes": [1]})
    node_case("reduce_l1_all", "ReduceL1", [x], [np.sum(np.abs(x), keepdims=True)])
    image = random(1, 5, 3, 3)
    node_case("lrn", "LRN", [image], [lrn(image, 3, 0.02, 0.75, 2.0)],
              {"size": 3, "alpha": 0.02, "beta": 0.75, "bias": 2.0})
    # GatherND and ScatterND with constant integer indices, and with run-time (float) ones.
    data = random(2, 3, 4)
    tuples = np.array([[[1, 2], [0, -1]], [[2, 0], [1, 1]]], np.int64)
    node_case("gather_nd_batch1", "GatherND", [data], [gather_nd(data, tuples, 1)],
              {"batch_dims": 1}, constants=[("indices", tuples)])
    pairs = np.array([[1, 2], [0, 0], [1, 0]], np.int64)
    node_case("gather_nd_runtime_indices", "GatherND", [data, pairs.astype(np.float32)],
              [gather_nd(data, pairs, 0)])
    rows = np.array([[2], [0]], np.int64)
    updates = random(2, 4, seed=4)
    table = random(3, 4, seed=5)
    node_case("scatter_nd", "ScatterND", [table, updates],
              [scatter_nd(table, rows, updates, "none")], constants=[("indices", rows)],
              order=["in0", "indices", "in1"])
    repeated = np.array([[1], [1], [0]], np.int64)
    updates3 = random(3, 4, seed=6)
    node_case("scatter_nd_add", "ScatterND", [table, updates3],
              [scatter_nd(table, repeated, updates3, "add")], {"reduction": "add"},
              constants=[("indices", repeated)], order=["in0", "indices", "in1"], opset=16)


def window_pads(pads, spatial):
    """ONNX pads (x1_begin, x2_begin, ..., x1_end, x2_end, ...) as numpy's pad widths over the
    last `spatial` axes of an (N, C, ...) tensor."""
    return [(0, 0), (0, 0)] + [(pads[i], pads[i + spatial]) for i in range(spatial)]


def same_pads(kernel, dilations, upper, strides=None, extents=None):
    """auto_pad SAME: the output is ceil(extent / stride) long, so the total pad is
    (output - 1) * stride + (kernel - 1) * dilation + 1 - extent (at least 0); its odd half goes
    at the end (SAME_UPPER) or the beginning (SAME_LOWER)."""
    strides = strides or [1] * len(kernel)
    extents = extents or [1] * len(kernel)  # any extent gives the same pads for stride 1
    totals = [max(0, (-(-e // s) - 1) * s + (k - 1) * d + 1 - e)
              for k, d, s, e in zip(kernel, dilations, strides, extents)]
    begins = [t // 2 if upper else t - t // 2 for t in totals]
    return begins + [t - b for t, b in zip(totals, begins)]


def windows(x, kernel, strides, dilations):
    """Every window of the last len(kernel) axes of x: an array (..., out..., kernel...)."""
    spatial = len(kernel)
    out = [(x.shape[-spatial + i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1
           for i in range(spatial)]
    result = np.empty(x.shape[:-spatial] + tuple(out) + tuple(kernel), x.dtype)
    for position in np.ndindex(*out):
        for offset in np.ndindex(*kernel):
            index = tuple(p * s + o * d for p, s, o, d in zip(position, strides, offset,
                                                             dilations))
            result[(Ellipsis,) + position + offset] = x[(Ellipsis,) + index]
    return result


def conv(x, w, b, strides, pads, dilations):
    """Conv-11: the input zero-padded by pads, then every window times the (M, C, k...) weight,
    summed over channels and kernel, plus the bias."""
    spatial = w.ndim - 2
    padded = np.pad(x.astype(np.float64), window_pads(pads, spatial))
    patches = windows(padded, w.shape[2:], strides, dilations)  # (N, C, out..., k...)
    axes = [1] + list(range(2 + spatial, 2 + 2 * spatial))
    result = np.tensordot(patches, w.astype(np.float64), axes=(axes, [1] + list(
        range(2, 2 + spatial))))  # (N, out..., M)
    result = np.moveaxis(result, -1, 1) + b.reshape((1, -1) + (1,) * spatial)
    return result.astype(np.float32)


def conv_transpose(x, w, b, strides, pads, output_padding):
    """ConvTranspose-11 (2-D, group 1, dilation 1): every input element scatters itself times the
    (C, M, kH, kW) weight at (i * stride + ki, j * stride + kj); the full output,
    stride * (in - 1) + output_padding + kernel long, is then cut by pads at each end."""
    n, _, h, w_in = x.shape
    _, m, kh, kw = w.shape
    full = np.zeros((n, m, strides[0] * (h - 1) + output_padding[0] + kh,
                     strides[1] * (w_in - 1) + output_padding[1] + kw))
    for i in range(h):
        for j in range(w_in):
            full[:, :, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw] += \
                np.einsum("nc,cmxy->nmxy", x[:, :, i, j], w)
    full += b.reshape(1, -1, 1, 1)
    return full[:, :, pads[0]:full.shape[2] - pads[2], pads[1]:full.shape[3] - pads[3]].astype(
        np.float32)


def pool(x, kernel, strides, pads, kind, count_include_pad=0):
    """MaxPool / AveragePool-11 (no ceil_mode): windows over the input padded by pads; a max
    ignores the pads (-inf), an average divides by the kernel's size (count_include_pad=1) or by
    the number of input elements in the window."""
    spatial = len(kernel)
    ones = [1] * spatial
    fill = -np.inf if kind == "max" else 0.0
    padded = np.pad(x.astype(np.float64), window_pads(pads, spatial), constant_values=fill)
    patches = windows(padded, kernel, strides, ones)
    axes = tuple(range(-spatial, 0))
    if kind == "max":
        return patches.max(axis=axes).astype(np.float32)
    sums = patches.sum(axis=axes)
    if count_include_pad:
        return (sums / np.prod(kernel)).astype(np.float32)
    mask = np.pad(np.ones_like(x, dtype=np.float64), window_pads(pads, spatial))
    counts = windows(mask, kernel, strides, ones).sum(axis=axes)
    return (sums / counts).astype(np.float32)


def layer_norm(x, scale, bias, axis, epsilon):
    """LayerNormalization-17: over the axes from `axis` on, D = X - mean(X),
    Y = D / sqrt(mean(D^2) + epsilon) * scale + bias (scale and bias broadcasting)."""
    axes = tuple(range(axis % x.ndim, x.ndim))
    x = x.astype(np.float64)
    centered = x - x.mean(axis=axes, keepdims=True)
    normalized = centered / np.sqrt((centered ** 2).mean(axis=axes, keepdims=True) + epsilon)
    return (normalized * scale + bias).astype(np.float32)


def window_cases():
    x = random(1, 2, 6, 7)
    w = random(3, 2, 4, 3, seed=7) * 0.3
    b = random(3, seed=8)
    constants = [("w", w), ("b", b)]
    order = ["in0", "w", "b"]
    pads = same_pads([4, 3], [1, 2], upper=True)
    node_case("conv_same_upper", "Conv", [x], [conv(x, w, b, [1, 1], pads, [1, 2])],
              {"auto_pad": "SAME_UPPER", "dilations": [1, 2]}, constants, order=order)
    line = random(1, 2, 9)
    w1 = random(3, 2, 2, seed=9)
    node_case("conv1d_same_lower", "Conv", [line],
              [conv(line, w1, b, [1], same_pads([2], [1], upper=False), [1])],
              {"auto_pad": "SAME_LOWER"}, [("w", w1), ("b", b)], order=order)
    strided = same_pads([4, 3], [1, 1], False, [3, 2], [6, 7])
    node_case("conv_same_lower_stride2", "Conv", [x], [conv(x, w, b, [3, 2], strided, [1, 1])],
              {"auto_pad": "SAME_LOWER", "strides": [3, 2]}, constants, order=order)
    node_case("conv_asymmetric_pads", "Conv", [x],
              [conv(x, w, b, [2, 2], [0, 1, 2, 0], [1, 1])],
              {"pads": [0, 1, 2, 0], "strides": [2, 2]}, constants, order=order)
    up = random(1, 2, 3, 4)
    wt = random(2, 3, 3, 3, seed=10) * 0.3
    total = [0 + 3 - 2] * 2  # output_padding + (kernel - 1) * dilation + 1 - stride
    same = [total[0] // 2, total[1] // 2, total[0] - total[0] // 2, total[1] - total[1] // 2]
    node_case("conv_transpose_same_upper", "ConvTranspose", [up],
              [conv_transpose(up, wt, b, [2, 2], same, [0, 0])],
              {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, [("w", wt), ("b", b)], order=order)
    node_case("conv_transpose_asymmetric_pads", "ConvTranspose", [up],
              [conv_transpose(up, wt, b, [2, 2], [1, 0, 0, 2], [1, 1])],
              {"pads": [1, 0, 0, 2], "strides": [2, 2], "output_padding": [1, 1]},
              [("w", wt), ("b", b)], order=order)
    # output_shape (6, 7): the full (7, 9) output cut by total - total / 2 at the start
    # (auto_pad NOTSET) and total / 2 at the end.
    full = conv_transpose(up, wt, b, [2, 2], [0, 0, 0, 0], [0, 0])
    cut = [full.shape[2] - 6, full.shape[3] - 7]
    node_case("conv_transpose_output_shape", "ConvTranspose", [up],
              [full[:, :, cut[0] - cut[0] // 2:full.shape[2] - cut[0] // 2,
                    cut[1] - cut[1] // 2:full.shape[3] - cut[1] // 2]],
              {"output_shape": [6, 7], "strides": [2, 2]}, [("w", wt), ("b", b)], order=order)
    node_case("maxpool_same_upper_stride2", "MaxPool", [x],
              [pool(x, [3, 2], [2, 2], same_pads([3, 2], [1, 1], True, [2, 2], [6, 7]), "max")],
              {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "SAME_UPPER"})
    node_case("avgpool_same_lower_stride2_exclude_pad", "AveragePool", [x],
              [pool(x, [3, 3], [2, 2], same_pads([3, 3], [1, 1], False, [2, 2], [6, 7]),
                    "average")],
              {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_LOWER"})
    node_case("maxpool_same_upper", "MaxPool", [x],
              [pool(x, [2, 2], [1, 1], same_pads([2, 2], [1, 1], True), "max")],
              {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER"})
    node_case("maxpool_pads_beyond_half_kernel", "MaxPool", [x],
              [pool(x, [3, 2], [2, 1], [2, 1, 2, 1], "max")],
              {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [2, 1, 2, 1]})
    node_case("avgpool_asymmetric_exclude_pad", "AveragePool", [x],
              [pool(x, [3, 3], [2, 2], [0, 1, 2, 1], "average")],
              {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [0, 1, 2, 1]})
    node_case("avgpool1d_pads_beyond_half_include_pad", "AveragePool", [line],
              [pool(line, [3], [1], [2, 2], "average", 1)],
              {"kernel_shape": [3], "pads": [2, 2], "count_include_pad": 1})
    cube = random(2, 3, 4)
    scale, shift = random(3, 4, seed=11), random(3, 4, seed=12)
    node_case("layernorm_axis1", "LayerNormalization", [cube],
              [layer_norm(cube, scale, shift, 1, 1e-5)], {"axis": 1},
              [("scale", scale), ("bias", shift)], opset=17)
    last = random(4, seed=13)
    node_case("layernorm_axis_m2_broadcast_scale", "LayerNormalization", [cube],
              [layer_norm(cube, last, 0, -2, 1e-3)], {"axis": -2, "epsilon": 1e-3},
              [("scale", last)], opset=17)


MAPPER_MODELS = ROOT / "test" / "data" / "onnx" / "mappers"


def mapper_models():
    """One-node models for test/onnx/test_onnx_operator_mappers.cpp: which Lumen nodes a mapping
    makes, and the variants the reader refuses (no references: they are read, not run)."""
    if MAPPER_MODELS.exists():
        shutil.rmtree(MAPPER_MODELS)
    MAPPER_MODELS.mkdir(parents=True)

    def save(name, op, inputs, opset=13, initializers=(), **attributes):
        node = helper.make_node(op, inputs, ["y"], name="node", **attributes)
        graph = helper.make_graph(
            [node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(np.asarray(array), n) for n, array in initializers])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        (MAPPER_MODELS / f"{name}.onnx").write_bytes(model.SerializeToString())

    ones = np.ones((3, 2, 3, 3), np.float32)
    save("hardmax_opset11_axis1", "Hardmax", ["x"], 11, axis=1)
    save("logsoftmax_axis1", "LogSoftmax", ["x"], axis=1)
    save("conv_same_upper_stride2", "Conv", ["x", "w"], initializers=[("w", ones)],
         auto_pad="SAME_UPPER", strides=[2, 2])
    save("maxpool_same_lower", "MaxPool", ["x"], kernel_shape=[2, 2], auto_pad="SAME_LOWER")
    save("conv_transpose_output_shape", "ConvTranspose", ["x", "w"],
         initializers=[("w", np.ones((2, 3, 3, 3), np.float32))], strides=[2, 2],
         output_shape=[8, 9])
    save("lrn_even_size", "LRN", ["x"], size=4)
    save("scatter_elements_mean", "ScatterElements", ["x", "x", "x"], reduction="mean")
    save("cast_string", "Cast", ["x"], to=TensorProto.STRING)
    save("topk_runtime_k", "TopK", ["x", "x"])
    save("cumsum_two_axes", "CumSum", ["x", "axis"],
         initializers=[("axis", np.array([0, 1], np.int64))])
    save("conv_unknown_auto_pad", "Conv", ["x", "w"], initializers=[("w", ones)],
         auto_pad="SAME_MIDDLE")
    save("conv_negative_pads", "Conv", ["x", "w"], initializers=[("w", ones)],
         pads=[1, -1, 1, 1])


def quantize_dequantize(x, scale, zero_point, low, high):
    """QuantizeLinear then DequantizeLinear per the ONNX spec: round half to even, saturate."""
    q = np.clip(np.round(x / scale) + zero_point, low, high)  # np.round: half to even
    return ((q - zero_point) * scale).astype(np.float32)


def quantization_cases():
    """QuantizeLinear -> DequantizeLinear pairs (a QDQ model's unit) with uint8 and int8 zero
    points: ties, saturation at both ends, a negative zero point."""
    def qdq_case(name, x, scale, zero_point, expected):
        nodes = [helper.make_node("QuantizeLinear", ["in0", "scale", "zero_point"], ["q"],
                                  name=f"{name}_q"),
                 helper.make_node("DequantizeLinear", ["q", "scale", "zero_point"], ["out0"],
                                  name=f"{name}_dq")]
        graph = helper.make_graph(
            nodes, name, [helper.make_tensor_value_info("in0", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info("out0", TensorProto.FLOAT, x.shape)],
            [numpy_helper.from_array(scale, "scale"),
             numpy_helper.from_array(zero_point, "zero_point")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        write_case(name, model, [x], [expected],
                   "QuantizeLinear then DequantizeLinear (onnx.helper, opset 13); references: "
                   "numpy per the ONNX spec")

    # Per tensor, uint8: multiples of half a step (ties), and values beyond 0..255 on both sides.
    scale = np.array(0.5, np.float32)
    zero_point = np.array(10, np.uint8)
    x = (np.arange(-12, 12, dtype=np.float32) * 0.25 + random(24) * 0.1).reshape(2, 3, 4)
    x[0, 0, :] = [-10.0, 200.0, 0.75, 1.25]  # saturation low and high, ties at 1.5 and 2.5 steps
    qdq_case("quantize_linear_uint8", x, scale, zero_point,
             quantize_dequantize(x, scale, zero_point.astype(np.float32), 0, 255))
    # Per tensor, int8 with a negative zero point: saturation at -128 and 127. (Per axis, a
    # DequantizeLinear needs the rank of its input when loading, which Lumen knows for graph inputs
    # and constants only: QDQ models quantise weights per axis, constants, and activations per
    # tensor.)
    image = random(2, 3, 4, 5) * 4
    qdq_case("quantize_linear_int8", image, np.array(0.05, np.float32), np.array(-20, np.int8),
             quantize_dequantize(image, 0.05, -20.0, -128, 127))

    # A QDQ convolution as ONNX Runtime's quantiser writes one: the activation through a
    # QuantizeLinear / DequantizeLinear pair, the weights int8 per output channel behind a
    # DequantizeLinear (axis 0), the bias int32 at input scale times weight scale (axis 0).
    x = random(1, 3, 6, 7)
    weight = random(4, 3, 3, 3, seed=1)
    bias = random(4, seed=2)
    x_scale, x_zero = np.float32(0.03), np.uint8(128)
    w_scales = (np.abs(weight).reshape(4, -1).max(1) / 127).astype(np.float32)
    w_levels = np.clip(np.round(weight / w_scales[:, None, None, None]), -127, 127).astype(np.int8)
    b_scales = (x_scale * w_scales).astype(np.float32)
    b_levels = np.round(bias / b_scales).astype(np.int32)
    nodes = [
        helper.make_node("QuantizeLinear", ["in0", "x_scale", "x_zero"], ["xq"], name="xq"),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xdq"], name="xdq"),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wdq"], name="wdq",
                         axis=0),
        helper.make_node("DequantizeLinear", ["b", "b_scale", "b_zero"], ["bdq"], name="bdq",
                         axis=0),
        helper.make_node("Conv", ["xdq", "wdq", "bdq"], ["out0"], name="conv", pads=[1, 1, 1, 1])]
    constants = [(np.array(x_scale), "x_scale"), (np.array(x_zero), "x_zero"), (w_levels, "w"),
                 (w_scales, "w_scale"), (np.zeros(4, np.int8), "w_zero"), (b_levels, "b"),
                 (b_scales, "b_scale"), (np.zeros(4, np.int32), "b_zero")]
    expected_x = quantize_dequantize(x, x_scale, np.float32(x_zero), 0, 255)
    expected = conv(expected_x, w_levels * w_scales[:, None, None, None], b_levels * b_scales,
                    [1, 1], [1, 1, 1, 1], [1, 1])
    graph = helper.make_graph(
        nodes, "qdq_conv", [helper.make_tensor_value_info("in0", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("out0", TensorProto.FLOAT, expected.shape)],
        [numpy_helper.from_array(array, name) for array, name in constants])
    write_case("qdq_conv", helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
               [x], [expected], "a QDQ Conv as ONNX Runtime's quantiser writes it (onnx.helper, "
               "opset 13); reference: numpy's convolution of the dequantised values")


def main():
    export_cases()
    node_cases()
    quantization_cases()
    window_cases()
    mapper_models()


if __name__ == "__main__":
    main()
