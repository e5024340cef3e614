#!/usr/bin/python3
"""Writes ONNX golden cases at old opsets, and ONNX files of old and new opsets Lumen must refuse.

Model zoos are full of opset 7 to 10 files (Upsample, Slice and Pad with attributes, Clip with
min/max attributes, BatchNormalization with `spatial`). This exports small PyTorch modules with
torch.onnx.export at opsets 7 to 10 (every opset torch can write each at), raw, as a user has them
(no onnx.shape_inference), checked with onnx.checker, into tmp/onnx/opset<N>_<name>/ with the
module's own outputs as references (scripts/make_onnx_cases.py's case format).

It also writes test/data/onnx/hostile/opset_*.onnx: one-node models whose op, at the model's
opset, has semantics Lumen does not reproduce, which test/onnx/test_onnx_reader.cpp expects to be
refused naming the op, the node and the opset. onnx 1.12's checker knows opset 17 at most, so the
opset-18 ones are written with onnx.helper and not checked.

    /usr/bin/python3 scripts/make_onnx_opset_cases.py
"""
import io
import pathlib
import shutil
import warnings

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "tmp" / "onnx"
HOSTILE = ROOT / "test" / "data" / "onnx" / "hostile"
OPSETS = [7, 8, 9, 10]
TOLERANCE = (1e-5, 1e-4)


class UpsampleNet(nn.Module):
    """A small encoder-decoder: nn.Upsample and F.interpolate, nearest (Upsample before opset 10,
    Resize at 10), with BatchNorm2d and MaxPool2d."""

    def __init__(self):
        super().__init__()
        self.encode = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                    nn.MaxPool2d(2))
        self.middle = nn.Conv2d(8, 8, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = self.up(torch.relu(self.middle(self.encode(x))))
        return self.head(F.interpolate(y, scale_factor=(1, 2), mode="nearest"))


class UpsampleToSize(nn.Module):
    """nn.Upsample to a fixed size, which torch exports at opsets 7 and 8 too (as Upsample with a
    scales attribute)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.up = nn.Upsample(size=(8, 15), mode="nearest")

    def forward(self, x):  # (N, 2, 4, 5)
        return torch.tanh(self.up(self.conv(x)))


class Classifier(nn.Module):
    """Conv, average pooling, global pooling, flatten, dropout, linear, softmax."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(),
                                      nn.AvgPool2d(2, stride=1, padding=1,
                                                   count_include_pad=False),
                                      nn.AdaptiveAvgPool2d(1))
        self.classify = nn.Sequential(nn.Dropout(0.3), nn.Linear(8, 10))

    def forward(self, x):
        return torch.softmax(self.classify(torch.flatten(self.features(x), 1)), dim=1)


class BatchNorm1d(nn.Module):
    """BatchNorm1d on (N,C) after a linear layer and on (N,C,L) after a 1-D convolution."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 5)
        self.norm = nn.BatchNorm1d(5)
        self.conv = nn.Conv1d(1, 3, 3, padding=1)
        self.norm_sequence = nn.BatchNorm1d(3)

    def forward(self, x):  # (N, 6)
        y = torch.relu(self.norm(self.linear(x)))  # (N, 5)
        return self.norm_sequence(self.conv(y.unsqueeze(1)))  # (N, 3, 5)


class PadClamp(nn.Module):
    """F.pad (constant with a value, reflect, replicate) and clamp (Pad and Clip attributes before
    opset 11)."""

    def forward(self, x):
        y = torch.clamp(F.pad(x, (1, 2, 0, 1), value=0.5), -0.5, 0.8)
        y = F.pad(y, (1, 1, 2, 1), mode="reflect")
        return torch.clamp(F.pad(y, (0, 1, 1, 0), mode="replicate"), min=0.1)


class SliceSplit(nn.Module):
    """Slicing (Slice attributes before opset 10), torch.split with sizes (Split's attribute),
    squeeze and unsqueeze, a softmax over a middle axis."""

    def forward(self, x):  # (N, 5, 6, 7)
        a = x[:, 1:4, 2:-1, :5]
        b, c = torch.split(a, [1, 2], dim=1)
        y = torch.cat([c, b.squeeze(1).unsqueeze(1) * 2], dim=1).sigmoid()
        return torch.softmax(y, dim=2)


MODULES = {
    "upsample_net": (UpsampleNet, (1, 3, 12, 10)),
    "upsample_to_size": (UpsampleToSize, (1, 2, 4, 5)),
    "classifier": (Classifier, (2, 3, 15, 15)),
    "batchnorm1d": (BatchNorm1d, (4, 6)),
    "pad_clamp": (PadClamp, (1, 2, 5, 6)),
    "slice_split": (SliceSplit, (2, 5, 6, 7)),
}


def randomize_batchnorm(module, generator):
    """Running statistics and affine parameters other than the defaults, so that they count."""
    for layer in module.modules():
        if isinstance(layer, nn.modules.batchnorm._BatchNorm):
            count = layer.num_features
            layer.running_mean.copy_(torch.randn(count, generator=generator) * 0.5)
            layer.running_var.copy_(torch.rand(count, generator=generator) + 0.5)
            layer.weight.data.copy_(torch.randn(count, generator=generator))
            layer.bias.data.copy_(torch.randn(count, generator=generator))


def export(module, example, opset):
    """The raw export at `opset`, or None when torch cannot write the module at it."""
    buffer = io.BytesIO()
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(module, (example,), buffer, opset_version=opset,
                              input_names=["in0"], output_names=["out0"])
    except Exception as error:  # torch's exporter raises several types
        print(f"  opset {opset}: torch cannot export it: {str(error).splitlines()[0][:120]}")
        return None
    model = onnx.load_from_string(buffer.getvalue())
    onnx.checker.check_model(model)
    return model


def shape_text(shape):
    return ",".join(str(extent) for extent in shape)


def write_golden_cases():
    for name, (make, shape) in MODULES.items():
        print(name)
        generator = torch.Generator().manual_seed(7)
        torch.manual_seed(0)
        module = make().eval()
        with torch.no_grad():
            randomize_batchnorm(module, generator)
        data = torch.randn(*shape, generator=generator)
        with torch.no_grad():
            reference = module(data)
        for opset in OPSETS:
            model = export(module, data, opset)
            if model is None:
                continue
            folder = OUTPUT / f"opset{opset}_{name}"
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            onnx.save(model, str(folder / "model.onnx"))
            data.numpy().astype(np.float32).tofile(folder / "in0.f32")
            reference.numpy().astype(np.float32).tofile(folder / "out0.f32")
            ops = " ".join(sorted({node.op_type for node in model.graph.node}))
            (folder / "case.txt").write_text(
                f"input in0.f32 {shape_text(data.shape)}\n"
                f"output out0.f32 {shape_text(reference.shape)}\n"
                f"tolerance {TOLERANCE[0]:g} {TOLERANCE[1]:g}\n"
                f"note {name} exported by torch.onnx.export {torch.__version__} at opset {opset} "
                f"(ops {ops}), raw (scripts/make_onnx_opset_cases.py); references: PyTorch's "
                f"outputs\n")
            print(f"  opset {opset}: {ops}")


def one_node_model(node, inputs, outputs, opset, initializers=()):
    graph = helper.make_graph([node], "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="make_onnx_opset_cases")
    model.ir_version = 8
    if opset <= 17:
        onnx.checker.check_model(model)
    return model


def value(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def write_refused_models():
    """One-node models whose op, at the model's opset, Lumen refuses."""
    image = [value("x", [1, 2, 3, 4])]
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    models = {
        # Upsample's linear mode reads dst / scale: none of Lumen's layers does.
        "opset_upsample_linear.onnx": one_node_model(
            helper.make_node("Upsample", ["x", "scales"], ["y"], name="up", mode="linear"),
            image, [value("y", [1, 2, 6, 8])], 9, [scales]),
        "opset_upsample7_bilinear.onnx": one_node_model(
            helper.make_node("Upsample", ["x"], ["y"], name="up", mode="bilinear",
                             scales=[1.0, 1.0, 2.0, 2.0]),
            image, [value("y", [1, 2, 6, 8])], 7),
        "opset_batchnorm_spatial0.onnx": one_node_model(
            helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="norm",
                             spatial=0),
            image, [value("y", [1, 2, 3, 4])], 7,
            [numpy_helper.from_array(np.ones([2, 3, 4], np.float32), name)
             for name in ("s", "b", "m", "v")]),
        # Before opset 14, BatchNormalization's statistics outputs select training mode.
        "opset_batchnorm9_training_outputs.onnx": one_node_model(
            helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                             ["y", "mean", "var", "saved_mean", "saved_var"], name="norm"),
            image, [value("y", [1, 2, 3, 4])] + [value(name, [2]) for name in
                                                 ("mean", "var", "saved_mean", "saved_var")], 9,
            [numpy_helper.from_array(np.ones([2], np.float32), name)
             for name in ("s", "b", "m", "v")]),
        "opset_convtranspose10_output_shape.onnx": one_node_model(
            helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv",
                             output_shape=[7, 9], strides=[2, 2]),
            image, [value("y", [1, 1, 7, 9])], 10,
            [numpy_helper.from_array(np.ones([2, 1, 2, 2], np.float32), "w")]),
        "opset_maxpool9_ceil_mode.onnx": one_node_model(
            helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2]),
            image, [value("y", [1, 2, 2, 3])], 9),
        "opset_resize18_antialias.onnx": one_node_model(
            helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize",
                             antialias=1, mode="linear"),
            image, [value("y", [1, 2, 6, 8])], 18, [scales]),
        "opset_resize18_axes.onnx": one_node_model(
            helper.make_node("Resize", ["x", "", "scales2"], ["y"], name="resize", axes=[2, 3]),
            image, [value("y", [1, 2, 6, 8])], 18,
            [numpy_helper.from_array(np.array([2, 2], np.float32), "scales2")]),
    }
    # MaxPool has no ceil_mode before opset 10 (ONNX's checker refuses the attribute there).
    models["opset_maxpool9_ceil_mode.onnx"].graph.node[0].attribute.append(
        helper.make_attribute("ceil_mode", 1))
    for name, model in models.items():
        (HOSTILE / name).write_bytes(model.SerializeToString())
        print(f"hostile/{name}")


def write_node_case(name, model, inputs, outputs, note):
    """A golden case of a model made with onnx.helper and numpy references."""
    folder = OUTPUT / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(model.SerializeToString())
    lines = []
    for kind, prefix, arrays in (("input", "in", inputs), ("output", "out", outputs)):
        for i, array in enumerate(arrays):
            array = np.ascontiguousarray(array, dtype="<f4")
            array.tofile(folder / f"{prefix}{i}.f32")
            lines.append(f"{kind} {prefix}{i}.f32 {shape_text(array.shape)}")
    lines.append(f"tolerance {TOLERANCE[0]:g} {TOLERANCE[1]:g}")
    lines.append(f"note {note} (scripts/make_onnx_opset_cases.py); references: numpy, following "
                 f"ONNX's specification")
    (folder / "case.txt").write_text("\n".join(lines) + "\n")
    print(name)


def write_opset18_cases():
    """Opset 18's new versions Lumen maps, one-node models (onnx 1.12 cannot check them)."""
    rng = np.random.default_rng(18)

    # Split with num_outputs: pieces of ceil(7 / 3) = 3 elements, the last one smaller.
    x = rng.standard_normal((2, 7, 3)).astype(np.float32)
    node = helper.make_node("Split", ["x"], ["a", "b", "c"], name="split", axis=1, num_outputs=3)
    model = one_node_model(node, [value("x", [2, 7, 3])],
                           [value(n, None) for n in ("a", "b", "c")], 18)
    write_node_case("opset18_split_num_outputs", model, [x],
                    [x[:, 0:3], x[:, 3:6], x[:, 6:7]], "Split with num_outputs=3 at opset 18")

    # Pad with an axes input: the last axis by (1, 0), axis 1 by (2, 1), with a value.
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    node = helper.make_node("Pad", ["x", "pads", "value", "axes"], ["y"], name="pad")
    initializers = [numpy_helper.from_array(np.array([1, 2, 0, 1], np.int64), "pads"),
                    numpy_helper.from_array(np.array(0.25, np.float32), "value"),
                    numpy_helper.from_array(np.array([-1, 1], np.int64), "axes")]
    model = one_node_model(node, [value("x", [1, 2, 3, 4])], [value("y", None)], 18,
                           initializers)
    reference = np.pad(x, [(0, 0), (2, 1), (0, 0), (1, 0)], constant_values=0.25)
    write_node_case("opset18_pad_axes", model, [x], [reference], "Pad with axes at opset 18")

    # Pad reflect of the last two axes, named by negative axes only.
    node = helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], name="pad", mode="reflect")
    initializers = [numpy_helper.from_array(np.array([1, 2, 2, 1], np.int64), "pads"),
                    numpy_helper.from_array(np.array([-2, -1], np.int64), "axes")]
    model = one_node_model(node, [value("x", [1, 2, 3, 4])], [value("y", None)], 18,
                           initializers)
    reference = np.pad(x, [(0, 0), (0, 0), (1, 2), (2, 1)], mode="reflect")
    write_node_case("opset18_pad_axes_reflect", model, [x], [reference],
                    "Pad reflect with negative axes at opset 18")

    # ReduceMean, ReduceMax, ReduceMin and ReduceL2 with their axes as an input.
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    nodes = [helper.make_node("ReduceMean", ["x", "axes1"], ["mean"], name="mean"),
             helper.make_node("ReduceMax", ["x", "axes_last"], ["max"], name="max", keepdims=0),
             helper.make_node("ReduceMin", ["x", "axes02"], ["min"], name="min"),
             helper.make_node("ReduceL2", ["x", "axes_last"], ["l2"], name="l2", keepdims=0)]
    graph = helper.make_graph(
        nodes, "g", [value("x", [2, 3, 4])], [value(n, None) for n in ("mean", "max", "min", "l2")],
        [numpy_helper.from_array(np.array([1], np.int64), "axes1"),
         numpy_helper.from_array(np.array([-1], np.int64), "axes_last"),
         numpy_helper.from_array(np.array([0, 2], np.int64), "axes02")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    write_node_case("opset18_reduce_axes_input", model, [x],
                    [x.mean(axis=1, keepdims=True), x.max(axis=-1),
                     x.min(axis=(0, 2), keepdims=True), np.sqrt((x * x).sum(axis=-1))],
                    "ReduceMean/Max/Min/L2 with an axes input at opset 18")

    # Resize (nearest, asymmetric, floor: PyTorch's) with the opset-18 defaults for the rest.
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize", mode="nearest",
                            coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    model = one_node_model(node, [value("x", [1, 2, 3, 4])], [value("y", None)], 18,
                           [numpy_helper.from_array(np.array([1, 1, 2, 3], np.float32),
                                                    "scales")])
    rows = np.floor(np.arange(6) / 2.0).astype(int)
    columns = np.floor(np.arange(12) / 3.0).astype(int)
    write_node_case("opset18_resize_nearest", model, [x], [x[:, :, rows][:, :, :, columns]],
                    "Resize nearest at opset 18")

    # Mish, an op of opset 18: x * tanh(softplus(x)).
    x = (rng.standard_normal((2, 5)) * 4).astype(np.float32)
    model = one_node_model(helper.make_node("Mish", ["x"], ["y"], name="mish"),
                           [value("x", [2, 5])], [value("y", None)], 18)
    write_node_case("opset18_mish", model, [x], [x * np.tanh(np.log1p(np.exp(x)))],
                    "Mish at opset 18")


def main():
    write_golden_cases()
    write_opset18_cases()
    write_refused_models()


if __name__ == "__main__":
    main()
