#!/usr/bin/python3
"""Writes the small ONNX models of test/onnx/ into test/data/onnx/.

Two kinds:
  - op cases (<name>/ with model.onnx, in*.f32, out*.f32, case.txt): one ONNX construct each
    whose mapping onto Lumen's layers has a rule of its own (Gemm's alpha/beta/transB, Flatten at
    axis 2, Unsqueeze of several negative axes, the exporter's Shape -> Gather -> Unsqueeze ->
    Concat -> Reshape subgraph, ...). The expected outputs are PyTorch's, computing what the
    ONNX operator specification says the node computes;
  - hostile files (hostile/<name>.onnx): a truncated or malformed protobuf, raw_data shorter
    than its dims, external data outside the model's folder, a cycle, a missing input, an
    unsupported op, an unsupported opset, absurd dims. test/onnx/test_onnx_reader.cpp expects a
    clear lumen::Error for each. The fuzz_*.onnx beside them are the fuzzer's findings, not
    written here (and kept when this runs).

  /usr/bin/python3 scripts/make_onnx_test_models.py      (Debian's python3-torch, python3-onnx)
"""
import pathlib
import shutil

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "test" / "data" / "onnx"
FLOAT = TensorProto.FLOAT


def value(name, shape, element_type=FLOAT):
    return helper.make_tensor_value_info(name, element_type, shape)


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def model(nodes, inputs, outputs, initializers=(), opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    result = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                               producer_name="make_onnx_test_models")
    result.ir_version = 8
    return result


def write_case(name, onnx_model, inputs, outputs, tolerance=(1e-5, 1e-5)):
    onnx_model = onnx.shape_inference.infer_shapes(onnx_model)
    onnx.checker.check_model(onnx_model)
    folder = OUTPUT / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    onnx.save(onnx_model, str(folder / "model.onnx"))
    lines = []
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for i, array in enumerate(arrays):
            array = np.ascontiguousarray(array, dtype="<f4")
            file_name = f"{'in' if kind == 'input' else 'out'}{i}.f32"
            array.tofile(folder / file_name)
            lines.append(f"{kind} {file_name} {','.join(str(x) for x in array.shape)}")
    lines.append(f"tolerance {tolerance[0]:g} {tolerance[1]:g}")
    lines.append("note made by scripts/make_onnx_test_models.py; outputs from PyTorch")
    (folder / "case.txt").write_text("\n".join(lines) + "\n")


def random(*shape):
    return torch.randn(*shape, generator=GENERATOR)


GENERATOR = torch.Generator().manual_seed(16)


def op_cases():
    # Gemm with transB=0, alpha and beta: 0.5 * A @ B + 2 * C.
    a, b, c = random(2, 3), random(3, 4), random(4)
    write_case("gemm_alpha_beta", model(
        [helper.make_node("Gemm", ["a", "b", "c"], ["y"], alpha=0.5, beta=2.0)],
        [value("a", [2, 3])], [value("y", [2, 4])], [tensor("b", b.numpy()), tensor("c", c.numpy())]),
        [a], [0.5 * a @ b + 2 * c])

    # Flatten at axis 2 gives a matrix (d0*d1, d2*d3).
    x = random(2, 3, 4, 5)
    write_case("flatten_axis2", model(
        [helper.make_node("Flatten", ["x"], ["y"], axis=2)],
        [value("x", [2, 3, 4, 5])], [value("y", [6, 20])]), [x], [x.reshape(6, 20)])

    # Unsqueeze with several axes, one negative: axes index the output (rank 4).
    x = random(3, 4)
    write_case("unsqueeze_axes", model(
        [helper.make_node("Unsqueeze", ["x", "axes"], ["y"])],
        [value("x", [3, 4])], [value("y", [1, 3, 4, 1])], [tensor("axes", np.array([-1, 0]))]),
        [x], [x.reshape(1, 3, 4, 1)])

    # The exporter's dynamic reshape: Shape -> Gather -> Unsqueeze -> Concat -> Reshape,
    # evaluated once when loading.
    x = random(2, 3, 4)
    write_case("shape_subgraph", model(
        [helper.make_node("Shape", ["x"], ["shape"]),
         helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
         helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"]),
         helper.make_node("Concat", ["batch1", "minus_one"], ["target"], axis=0),
         helper.make_node("Reshape", ["x", "target"], ["y"])],
        [value("x", [2, 3, 4])], [value("y", [2, 12])],
        [tensor("zero", np.array(0)), tensor("axes", np.array([0])),
         tensor("minus_one", np.array([-1]))]), [x], [x.reshape(2, 12)])

    # Reshape's 0 copies the input's extent.
    x = random(2, 3, 4)
    write_case("reshape_zero", model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [value("x", [2, 3, 4])], [value("y", [2, 12])], [tensor("shape", np.array([0, -1]))]),
        [x], [x.reshape(2, 12)])

    # Slice with a negative start, an INT64_MAX end, an axis and a step.
    x = random(4, 6)
    write_case("slice_negative_start", model(
        [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
        [value("x", [4, 6])], [value("y", [4, 2])],
        [tensor("starts", np.array([-3])), tensor("ends", np.array([2**63 - 1])),
         tensor("axes", np.array([1])), tensor("steps", np.array([2]))]), [x], [x[:, -3::2]])

    # Gather of one (negative) index drops the axis.
    x = random(3, 4, 5)
    write_case("gather_scalar", model(
        [helper.make_node("Gather", ["x", "index"], ["y"], axis=1)],
        [value("x", [3, 4, 5])], [value("y", [3, 5])], [tensor("index", np.array(-1))]),
        [x], [x[:, -1]])

    # Split into sizes 2 and 4.
    x = random(2, 6)
    write_case("split_sizes", model(
        [helper.make_node("Split", ["x", "split"], ["y0", "y1"], axis=1)],
        [value("x", [2, 6])], [value("y0", [2, 2]), value("y1", [2, 4])],
        [tensor("split", np.array([2, 4]))]), [x], [x[:, :2], x[:, 2:]])

    # Clip with both bounds, and HardSigmoid with other than PyTorch's alpha and beta.
    x = random(3, 5) * 3
    write_case("clip_hardsigmoid", model(
        [helper.make_node("Clip", ["x", "low", "high"], ["y0"]),
         helper.make_node("HardSigmoid", ["x"], ["y1"], alpha=0.3, beta=0.4)],
        [value("x", [3, 5])], [value("y0", [3, 5]), value("y1", [3, 5])],
        [tensor("low", np.array(-1.0, np.float32)), tensor("high", np.array(0.5, np.float32))]),
        [x], [x.clamp(-1.0, 0.5), (0.3 * x + 0.4).clamp(0, 1)])

    # BatchNormalization of a rank-3 input (BatchNorm1d), with its epsilon.
    x = random(2, 3, 5)
    scale, bias, mean, variance = random(3), random(3), random(3), random(3).abs() + 0.5
    write_case("batchnorm_rank3", model(
        [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)],
        [value("x", [2, 3, 5])], [value("y", [2, 3, 5])],
        [tensor("s", scale.numpy()), tensor("b", bias.numpy()), tensor("m", mean.numpy()),
         tensor("v", variance.numpy())]),
        [x], [torch.nn.functional.batch_norm(x, mean, variance, scale, bias, eps=1e-3)])

    # Expand broadcasts both ways: (3,1) to (2,3,4).
    x = random(3, 1)
    write_case("expand", model(
        [helper.make_node("Expand", ["x", "shape"], ["y"])],
        [value("x", [3, 1])], [value("y", [2, 3, 4])], [tensor("shape", np.array([2, 1, 4]))]),
        [x], [x.expand(2, 3, 4)])

    # Outputs that are an input passed through Identity, and arithmetic with a known tensor and
    # known scalars: (x - 1.5) / 2 and x ** 2 + c.
    x = random(2, 4)
    c = random(4)
    write_case("identity_and_constants", model(
        [helper.make_node("Identity", ["x"], ["y0"]),
         helper.make_node("Sub", ["x", "one_and_a_half"], ["t"]),
         helper.make_node("Div", ["t", "two"], ["y1"]),
         helper.make_node("Pow", ["x", "two"], ["square"]),
         helper.make_node("Add", ["square", "c"], ["y2"])],
        [value("x", [2, 4])], [value("y0", [2, 4]), value("y1", [2, 4]), value("y2", [2, 4])],
        [tensor("one_and_a_half", np.array(1.5, np.float32)), tensor("two", np.array(2.0, np.float32)),
         tensor("c", c.numpy())]), [x], [x, (x - 1.5) / 2, x ** 2 + c])

    # Resize, nearest, as PyTorch exports nn.Upsample(scale_factor=2).
    x = random(1, 2, 3, 4)
    write_case("resize_nearest", model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest",
                          coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
        [value("x", [1, 2, 3, 4])], [value("y", [1, 2, 6, 8])],
        [tensor("scales", np.array([1, 1, 2, 2], np.float32))]),
        [x], [torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest")])

    # Max of three inputs, Transpose without perm, ReduceMean with its axes attribute.
    a, b, c = random(2, 3), random(2, 3), random(3)
    x = random(2, 3, 4)
    write_case("max_transpose_mean", model(
        [helper.make_node("Max", ["a", "b", "c"], ["y0"]),
         helper.make_node("Transpose", ["x"], ["y1"]),
         helper.make_node("ReduceMean", ["x"], ["y2"], axes=[1], keepdims=0)],
        [value("a", [2, 3]), value("b", [2, 3]), value("c", [3]), value("x", [2, 3, 4])],
        [value("y0", [2, 3]), value("y1", [4, 3, 2]), value("y2", [2, 4])]),
        [a, b, c, x], [torch.max(torch.max(a, b), c), x.permute(2, 1, 0), x.mean(1)])

    # A 1-D convolution with padding, stride and groups.
    x = random(2, 4, 10)
    weight, bias = random(6, 2, 3), random(6)
    write_case("conv1d", model(
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1], strides=[2], group=2)],
        [value("x", [2, 4, 10])], [value("y", [2, 6, 5])],
        [tensor("w", weight.numpy()), tensor("b", bias.numpy())]),
        [x], [torch.nn.functional.conv1d(x, weight, bias, stride=2, padding=1, groups=2)])

    # x * sigmoid(x) and hardsigmoid(x) * x as PyTorch exports SiLU and Hardswish: read as
    # nn.SiLU and nn.Hardswish.
    x = random(2, 3, 4) * 4
    write_case("gated_activations", model(
        [helper.make_node("Sigmoid", ["x"], ["s"]),
         helper.make_node("Mul", ["x", "s"], ["y0"]),
         helper.make_node("HardSigmoid", ["x"], ["h"], alpha=1.0 / 6, beta=0.5),
         helper.make_node("Mul", ["h", "x"], ["y1"])],
        [value("x", [2, 3, 4])], [value("y0", [2, 3, 4]), value("y1", [2, 3, 4])]),
        [x], [torch.nn.functional.silu(x), torch.nn.functional.hardswish(x)])

    # LayerNormalization (opset 17) over the last two axes, no bias, a non-default epsilon: read
    # as nn.LayerNorm with normalized_shape (4, 5).
    x, scale = random(2, 3, 4, 5), random(4, 5)
    write_case("layernorm_axis_m2_nobias", model(
        [helper.make_node("LayerNormalization", ["x", "scale"], ["y"], axis=-2, epsilon=1e-3)],
        [value("x", [2, 3, 4, 5])], [value("y", [2, 3, 4, 5])], [tensor("scale", scale.numpy())],
        opset=17), [x], [torch.nn.functional.layer_norm(x, (4, 5), scale, None, 1e-3)])

    recurrent_cases()
    layout_cases()


def onnx_gates(weight, order):
    """PyTorch's stacked gate blocks (along axis 0) in ONNX's order: `order` lists, for each
    ONNX gate, the PyTorch gate that holds it."""
    blocks = weight.chunk(len(order), 0)
    return torch.cat([blocks[i] for i in order], 0)


def recurrent_onnx_weights(module, gate_order, directions):
    """W, R, B of an ONNX LSTM/GRU/RNN node from a one-layer torch module."""
    suffixes = ["_l0", "_l0_reverse"][:directions]
    w = torch.stack([onnx_gates(getattr(module, "weight_ih" + s), gate_order) for s in suffixes])
    r = torch.stack([onnx_gates(getattr(module, "weight_hh" + s), gate_order) for s in suffixes])
    b = torch.stack([torch.cat([onnx_gates(getattr(module, "bias_ih" + s), gate_order),
                                onnx_gates(getattr(module, "bias_hh" + s), gate_order)])
                     for s in suffixes])
    return w.detach(), r.detach(), b.detach()


def onnx_y(y, directions, hidden):
    """PyTorch's (L, N, D*H) output as ONNX's Y: (L, D, N, H)."""
    length, batch = y.shape[0], y.shape[1]
    return y.reshape(length, batch, directions, hidden).permute(0, 2, 1, 3)


def recurrent_cases():
    # LSTM, bidirectional, initial_h and initial_c given at run time, every output. ONNX's gates
    # are i, o, f, c (PyTorch's i, f, g, o), its B is [Wb; Rb].
    torch.manual_seed(160)
    lstm = torch.nn.LSTM(5, 6, bidirectional=True)
    w, r, b = recurrent_onnx_weights(lstm, [0, 3, 1, 2], 2)
    x, h0, c0 = random(4, 3, 5), random(2, 3, 6), random(2, 3, 6)
    with torch.no_grad():
        y, (h, c) = lstm(x, (h0, c0))
    write_case("lstm_bidirectional_initial_state", model(
        [helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0"], ["y", "yh", "yc"],
                          direction="bidirectional", hidden_size=6)],
        [value("x", [4, 3, 5]), value("h0", [2, 3, 6]), value("c0", [2, 3, 6])],
        [value("y", [4, 2, 3, 6]), value("yh", [2, 3, 6]), value("yc", [2, 3, 6])],
        [tensor("w", w.numpy()), tensor("r", r.numpy()), tensor("b", b.numpy())]),
        [x, h0, c0], [onnx_y(y, 2, 6), h, c])

    # GRU, forward, linear_before_reset=1 (PyTorch's formula), no initial state, only Y_h used.
    # ONNX's gates are z, r, h (PyTorch's r, z, n).
    gru = torch.nn.GRU(4, 5)
    w, r, b = recurrent_onnx_weights(gru, [1, 0, 2], 1)
    x = random(6, 2, 4)
    with torch.no_grad():
        _, h = gru(x)
    write_case("gru_linear_before_reset", model(
        [helper.make_node("GRU", ["x", "w", "r", "b"], ["", "yh"], hidden_size=5,
                          linear_before_reset=1)],
        [value("x", [6, 2, 4])], [value("yh", [1, 2, 5])],
        [tensor("w", w.numpy()), tensor("r", r.numpy()), tensor("b", b.numpy())]), [x], [h])

    # RNN with Relu, no bias, initial_h at run time, Y only.
    rnn = torch.nn.RNN(3, 4, nonlinearity="relu", bias=False)
    w = rnn.weight_ih_l0.detach().unsqueeze(0)
    r = rnn.weight_hh_l0.detach().unsqueeze(0)
    x, h0 = random(5, 2, 3), random(1, 2, 4)
    with torch.no_grad():
        y, _ = rnn(x, h0)
    write_case("rnn_relu_initial_state", model(
        [helper.make_node("RNN", ["x", "w", "r", "", "", "h0"], ["y"], hidden_size=4,
                          activations=["Relu"])],
        [value("x", [5, 2, 3]), value("h0", [1, 2, 4])], [value("y", [5, 1, 2, 4])],
        [tensor("w", w.numpy()), tensor("r", r.numpy())]), [x, h0], [onnx_y(y, 1, 4)])


def depth_to_space(x, block, mode):
    """ONNX's DepthToSpace as its specification writes it (reshape, transpose, reshape)."""
    n, c, h, w = x.shape
    if mode == "DCR":
        t = x.reshape(n, block, block, c // block**2, h, w).permute(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // block**2, block, block, h, w).permute(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // block**2, h * block, w * block)


def space_to_depth(x, block):
    """ONNX's SpaceToDepth as its specification writes it."""
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // block, block, w // block, block).permute(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * block * block, h // block, w // block)


def layout_cases():
    functional = torch.nn.functional
    # Pad: reflect and edge (PyTorch's replicate) on the last two axes, constant with a value and
    # a negative (cropping) pad on a rank-3 tensor.
    x = random(2, 3, 4, 5)
    v = random(2, 4, 6)
    write_case("pad_modes", model(
        [helper.make_node("Pad", ["x", "pads"], ["y0"], mode="reflect"),
         helper.make_node("Pad", ["x", "pads"], ["y1"], mode="edge"),
         helper.make_node("Pad", ["v", "pads3", "value"], ["y2"], mode="constant")],
        [value("x", [2, 3, 4, 5]), value("v", [2, 4, 6])],
        [value("y0", [2, 3, 7, 7]), value("y1", [2, 3, 7, 7]), value("y2", [2, 6, 7])],
        [tensor("pads", np.array([0, 0, 1, 2, 0, 0, 2, 0])),
         tensor("pads3", np.array([0, 1, -1, 0, 1, 2])), tensor("value", np.array(0.75, np.float32))]),
        [x, v], [functional.pad(x, (2, 0, 1, 2), mode="reflect"),
                 functional.pad(x, (2, 0, 1, 2), mode="replicate"),
                 functional.pad(v, (-1, 2, 1, 1), value=0.75)])

    # DepthToSpace in both modes, SpaceToDepth: references from the specification's formulas.
    x = random(2, 8, 3, 2)
    s = random(1, 3, 4, 6)
    write_case("depth_space", model(
        [helper.make_node("DepthToSpace", ["x"], ["y0"], blocksize=2, mode="DCR"),
         helper.make_node("DepthToSpace", ["x"], ["y1"], blocksize=2, mode="CRD"),
         helper.make_node("SpaceToDepth", ["s"], ["y2"], blocksize=2)],
        [value("x", [2, 8, 3, 2]), value("s", [1, 3, 4, 6])],
        [value("y0", [2, 2, 6, 4]), value("y1", [2, 2, 6, 4]), value("y2", [1, 12, 2, 3])]),
        [x, s], [depth_to_space(x, 2, "DCR"), depth_to_space(x, 2, "CRD"), space_to_depth(s, 2)])

    # Tile of a rank-3 tensor.
    x = random(2, 1, 3)
    write_case("tile", model(
        [helper.make_node("Tile", ["x", "repeats"], ["y"])],
        [value("x", [2, 1, 3])], [value("y", [2, 4, 6])], [tensor("repeats", np.array([1, 4, 2]))]),
        [x], [x.repeat(1, 4, 2)])

    # InstanceNormalization of a rank-3 and a rank-5 input with scale, bias and epsilon.
    x, v = random(2, 3, 7), random(1, 2, 3, 2, 4)
    scale, bias, scale2, bias2 = random(3), random(3), random(2), random(2)
    write_case("instance_norm_ranks", model(
        [helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y0"], epsilon=1e-3),
         helper.make_node("InstanceNormalization", ["v", "s2", "b2"], ["y1"])],
        [value("x", [2, 3, 7]), value("v", [1, 2, 3, 2, 4])],
        [value("y0", [2, 3, 7]), value("y1", [1, 2, 3, 2, 4])],
        [tensor("s", scale.numpy()), tensor("b", bias.numpy()), tensor("s2", scale2.numpy()),
         tensor("b2", bias2.numpy())]),
        [x, v], [functional.instance_norm(x, weight=scale, bias=bias, eps=1e-3),
                 functional.instance_norm(v, weight=scale2, bias=bias2, eps=1e-5)])

    # ReduceMax over two axes without keepdims, ReduceMin over every axis, ReduceL2 over one
    # negative axis, ArgMax along the last axis (cast to float, as PyTorch's export does).
    x = random(3, 4, 5)
    write_case("reduce_extrema_l2_argmax", model(
        [helper.make_node("ReduceMax", ["x"], ["y0"], axes=[0, 2], keepdims=0),
         helper.make_node("ReduceMin", ["x"], ["y1"]),
         helper.make_node("ReduceL2", ["x"], ["y2"], axes=[-2], keepdims=0),
         helper.make_node("ArgMax", ["x"], ["index"], axis=-1, keepdims=1),
         helper.make_node("Cast", ["index"], ["y3"], to=FLOAT)],
        [value("x", [3, 4, 5])],
        [value("y0", [4]), value("y1", [1, 1, 1]), value("y2", [3, 5]), value("y3", [3, 4, 1])]),
        [x], [torch.amax(x, (0, 2)), torch.amin(x, (0, 1, 2), keepdim=True),
              torch.linalg.vector_norm(x, dim=-2), x.argmax(-1, keepdim=True).float()])

    # 1-D MaxPool with dilation and padding, 1-D AveragePool counting the padding.
    x = random(2, 3, 11)
    write_case("pool_1d", model(
        [helper.make_node("MaxPool", ["x"], ["y0"], kernel_shape=[3], strides=[2], pads=[1, 1],
                          dilations=[2]),
         helper.make_node("AveragePool", ["x"], ["y1"], kernel_shape=[4], strides=[3], pads=[2, 2],
                          count_include_pad=1)],
        [value("x", [2, 3, 11])], [value("y0", [2, 3, 5]), value("y1", [2, 3, 4])]),
        [x], [functional.max_pool1d(x, 3, 2, 1, dilation=2),
              functional.avg_pool1d(x, 4, 3, 2, count_include_pad=True)])


def hostile_models():
    folder = OUTPUT / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    # fuzz_*.onnx are inputs the ONNX fuzzer found (scripts/fuzz.sh), kept as they were found.
    for path in folder.iterdir():
        if not path.name.startswith("fuzz_"):
            path.unlink()
    relu = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [value("x", [2, 3])],
                 [value("y", [2, 3])], [tensor("unused", np.ones((4, 4), np.float32))])
    valid = relu.SerializeToString()
    (folder / "valid.onnx").write_bytes(valid)
    (folder / "truncated.onnx").write_bytes(valid[:len(valid) - 20])
    (folder / "malformed.onnx").write_bytes(b"\x08\x07\x3a\xff\xff\xff\xff\x0f garbage")

    short = onnx.ModelProto()
    short.CopyFrom(relu)
    short.graph.initializer[0].raw_data = b"\x00" * 10  # (4,4) floats need 64 bytes
    (folder / "raw_data_short.onnx").write_bytes(short.SerializeToString())

    def external(location):
        result = onnx.ModelProto()
        result.CopyFrom(relu)
        weights = result.graph.initializer[0]
        weights.ClearField("raw_data")
        weights.data_location = TensorProto.EXTERNAL
        for key, text in (("location", location), ("offset", "0"), ("length", "64")):
            entry = weights.external_data.add()
            entry.key, entry.value = key, text
        return result.SerializeToString()

    (folder / "external_outside.onnx").write_bytes(external("../hostile_secret.bin"))
    (folder / "external_absolute.onnx").write_bytes(external("/etc/passwd"))
    (folder / "external_inside.onnx").write_bytes(external("external_inside.bin"))
    np.arange(16, dtype="<f4").tofile(folder / "external_inside.bin")
    (folder / "external_short.onnx").write_bytes(external("external_short.bin"))
    np.arange(3, dtype="<f4").tofile(folder / "external_short.bin")

    cycle = model([helper.make_node("Relu", ["b"], ["a"], name="first"),
                   helper.make_node("Relu", ["a"], ["b"], name="second"),
                   helper.make_node("Add", ["x", "b"], ["y"], name="add")],
                  [value("x", [2, 3])], [value("y", [2, 3])])
    (folder / "cycle.onnx").write_bytes(cycle.SerializeToString())
    missing = model([helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")],
                    [value("x", [2, 3])], [value("y", [2, 3])])
    (folder / "missing_input.onnx").write_bytes(missing.SerializeToString())
    # Unique: an op whose output's extent depends on the values, which Lumen's plans cannot hold.
    unsupported = model([helper.make_node("Unique", ["x"], ["y"], name="unique")],
                        [value("x", [2, 3])], [value("y", [6])])
    (folder / "unsupported_op.onnx").write_bytes(unsupported.SerializeToString())
    # Relu at opset 5 is version 1 (consumed_inputs), which Lumen does not read.
    old = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [value("x", [2, 3])],
                [value("y", [2, 3])], opset=5)
    (folder / "old_opset.onnx").write_bytes(old.SerializeToString())
    integer = model([helper.make_node("Relu", ["x"], ["y"])],
                    [value("x", [2, 3], TensorProto.INT64)], [value("y", [2, 3], TensorProto.INT64)])
    (folder / "integer_input.onnx").write_bytes(integer.SerializeToString())
    # Resize's cubic mode: PyTorch's bicubic uses another coefficient and rounding.
    cubic = model([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize",
                                    mode="cubic")],
                  [value("x", [1, 1, 4, 4])], [value("y", [1, 1, 8, 8])],
                  [tensor("scales", np.array([1, 1, 2, 2], np.float32))])
    (folder / "resize_cubic.onnx").write_bytes(cubic.SerializeToString())

    # Gather past the end of its axis (extent 4): PyTorch raises IndexError and ONNX Runtime
    # fails; Lumen once returned an empty (1,0,8,8) tensor.
    for name, indices, shape in (("gather_index_out_of_range", np.array(100), [1, 8, 8]),
                                 ("gather_indices_out_of_range", np.array([0, 4]), [1, 2, 8, 8])):
        gather = model([helper.make_node("Gather", ["x", "indices"], ["y"], name="/Gather", axis=1)],
                       [value("x", [1, 4, 8, 8])], [value("y", shape)],
                       [tensor("indices", indices)])
        (folder / f"{name}.onnx").write_bytes(gather.SerializeToString())

    # Absurd sizes: each must be refused before anything that size is allocated.
    huge = model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [value("x", [2, 3])],
                 [value("y", [2, 3])])
    weight = huge.graph.initializer.add()
    weight.name, weight.data_type = "w", FLOAT
    weight.dims.extend([2**20, 2**20])  # 2^40 elements, no data
    (folder / "huge_initializer_dims.onnx").write_bytes(huge.SerializeToString())
    filled = model([helper.make_node("ConstantOfShape", ["shape"], ["zeros"], name="fill"),
                    helper.make_node("Add", ["x", "zeros"], ["y"], name="add")],
                   [value("x", [2, 3])], [value("y", [2**30])],
                   [tensor("shape", np.array([2**30]))])
    (folder / "constant_of_shape_huge.onnx").write_bytes(filled.SerializeToString())
    outer = model([helper.make_node("Mul", ["column", "row"], ["table"], name="outer"),
                   helper.make_node("Add", ["x", "table"], ["y"], name="add")],
                  [value("x", [1, 1])], [value("y", [2**12, 2**13])],
                  [tensor("column", np.ones((2**12, 1), np.float32)),
                   tensor("row", np.ones((1, 2**13), np.float32))])
    (folder / "broadcast_huge.onnx").write_bytes(outer.SerializeToString())
    declared = model([helper.make_node("Size", ["x"], ["count"], name="size"),
                      helper.make_node("Cast", ["count"], ["float_count"], name="cast", to=FLOAT),
                      helper.make_node("Add", ["x", "float_count"], ["y"], name="add")],
                     [value("x", [2**20, 2**20, 2**20])], [value("y", [2**20, 2**20, 2**20])])
    (folder / "declared_dims_huge.onnx").write_bytes(declared.SerializeToString())
    expanded = model([helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")],
                     [value("x", [1, 1])], [value("y", [2**20, 2**20])],
                     [tensor("shape", np.array([2**20, 2**20]))])
    (folder / "expand_huge.onnx").write_bytes(expanded.SerializeToString())

    # A required input left out, and attributes Lumen's layers do not compute: refused by name.
    no_weights = model([helper.make_node("LSTM", ["x"], ["y"], name="lstm", hidden_size=4)],
                       [value("x", [3, 1, 2])], [value("y", [3, 1, 1, 4])])
    (folder / "lstm_missing_weights.onnx").write_bytes(no_weights.SerializeToString())
    torch.manual_seed(161)
    gru = torch.nn.GRU(2, 3)
    w, r, b = recurrent_onnx_weights(gru, [1, 0, 2], 1)
    before = model([helper.make_node("GRU", ["x", "w", "r", "b"], ["y"], name="gru",
                                     hidden_size=3, linear_before_reset=0)],
                   [value("x", [3, 1, 2])], [value("y", [3, 1, 1, 3])],
                   [tensor("w", w.numpy()), tensor("r", r.numpy()), tensor("b", b.numpy())])
    (folder / "gru_linear_before_reset_0.onnx").write_bytes(before.SerializeToString())
    reverse = model([helper.make_node("GRU", ["x", "w", "r", "b"], ["y"], name="gru",
                                      hidden_size=3, linear_before_reset=1, direction="reverse")],
                    [value("x", [3, 1, 2])], [value("y", [3, 1, 1, 3])],
                    [tensor("w", w.numpy()), tensor("r", r.numpy()), tensor("b", b.numpy())])
    (folder / "gru_reverse.onnx").write_bytes(reverse.SerializeToString())
    wrap = model([helper.make_node("Pad", ["x", "pads"], ["y"], name="pad", mode="wrap")],
                 [value("x", [2, 3])], [value("y", [2, 5])], [tensor("pads", np.array([0, 1, 0, 1]))])
    (folder / "pad_wrap.onnx").write_bytes(wrap.SerializeToString())
    no_input = model([helper.make_node("Shape", [], ["shape"], name="shape"),
                      helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
                     [value("x", [2, 3])], [value("y", [2, 3])])
    (folder / "shape_without_input.onnx").write_bytes(no_input.SerializeToString())


def empty_scalar_models():
    """A Clip whose min and a Range whose start are constants of no element (the ONNX fuzzer's
    find: both were read past their end): each must be a clear error."""
    folder = OUTPUT / "hostile"
    clip = model([helper.make_node("Clip", ["x", "low"], ["y"], name="clip")],
                 [value("x", [2, 3])], [value("y", [2, 3])],
                 [tensor("low", np.zeros([0], dtype=np.float32))])
    (folder / "clip_empty_min.onnx").write_bytes(clip.SerializeToString())
    arange = model([helper.make_node("Range", ["start", "limit", "delta"], ["r"], name="range"),
                    helper.make_node("Add", ["x", "r"], ["y"], name="add")],
                   [value("x", [4])], [value("y", [4])],
                   [tensor("start", np.zeros([0], dtype=np.float32)),
                    tensor("limit", np.array(4, dtype=np.float32)),
                    tensor("delta", np.array(1, dtype=np.float32))])
    (folder / "range_empty_start.onnx").write_bytes(arange.SerializeToString())


def gather_cases():
    """Written last: the shared generator then leaves the earlier cases' data as it was."""
    # Gather of a list of indices (repeated, reordered, one negative) keeps the axis, sized by the
    # list.
    x = random(3, 4, 5)
    write_case("gather_indices", model(
        [helper.make_node("Gather", ["x", "indices"], ["y"], axis=1)],
        [value("x", [3, 4, 5])], [value("y", [3, 4, 5])],
        [tensor("indices", np.array([2, -1, 0, 2]))]), [x], [x[:, [2, 3, 0, 2]]])


if __name__ == "__main__":
    op_cases()
    hostile_models()
    empty_scalar_models()
    gather_cases()
    print(f"wrote {OUTPUT}")
