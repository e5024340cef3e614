#!/usr/bin/env python3
"""An int8 QDQ copy of an fp32 ONNX model, for ONNX Runtime's own int8 in scripts/bench.sh.

    PYTHONPATH=build/python /usr/bin/python3 scripts/make_qdq_model.py MODEL.onnx CALIBRATION_DIR \
        OUTPUT.onnx

ONNX Runtime quantises a model that carries QuantizeLinear / DequantizeLinear pairs ("QDQ"):
its graph optimiser fuses DequantizeLinear -> Conv -> QuantizeLinear into an int8 convolution.
Its own tool for writing them (onnxruntime.quantization) is Python, which Debian does not package;
this script writes the same pattern with the onnx package, as lumen_quantize quantises:
- every Conv's input and output (after a Relu that alone reads it), and a Gemm's input, per tensor
  to uint8 with a zero point, the range calibrated by running the fp32 model (with Lumen, which
  reads ONNX) on the .npy samples in CALIBRATION_DIR (min/max);
- Conv and Gemm weights per output channel to int8, symmetric; biases to int32 at the input scale
  times the weight scale, as QLinearConv takes them.
Everything else stays float. Lumen reads the result too (QuantizeLinear / DequantizeLinear as
their definitions, in fp32), which is how bench.sh measures its accuracy. Needs numpy, onnx
(python3-onnx) and the lumen module.
"""
import pathlib
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

import lumen


def calibrated_ranges(model_path, names, samples):
    """{tensor name: (min, max)} over the samples, widened to hold 0."""
    session = lumen.Model(str(model_path), fuse=False).session(threads=0)
    session.keep_all_operands()
    ranges = {}
    for sample in samples:
        session.run(sample)
        for name in names:
            values = session.operand(name)
            low, high = float(values.min()), float(values.max())
            old = ranges.get(name, (0.0, 0.0))
            ranges[name] = (min(old[0], low), max(old[1], high))
    return ranges


def uint8_quantization(low, high):
    """(scale, zero point) mapping [low, high] (holding 0) onto 0..255."""
    scale = (high - low) / 255.0 if high > low else 1.0
    return np.float32(scale), np.uint8(np.clip(np.round(-low / scale), 0, 255))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    model_path, calibration_dir, output_path = map(pathlib.Path, sys.argv[1:])
    model = onnx.load(str(model_path))
    graph = model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    readers = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)

    # The tensors to quantise: each Conv/Gemm input, and each Conv output (or its sole Relu's).
    weighted = [n for n in graph.node if n.op_type in ("Conv", "Gemm") and
                len(n.input) >= 2 and n.input[1] in initializers]
    activations = []
    for node in weighted:
        activations.append(node.input[0])
        if node.op_type == "Conv":
            output = node.output[0]
            after = readers.get(output, [])
            if len(after) == 1 and after[0].op_type == "Relu":
                output = after[0].output[0]
            activations.append(output)
    activations = list(dict.fromkeys(activations))
    samples = [np.load(path) for path in sorted(calibration_dir.glob("*.npy"))]
    if not samples:
        sys.exit(f"{calibration_dir}: no .npy sample")
    ranges = calibrated_ranges(model_path, activations, samples)

    new_initializers = [t for t in graph.initializer]
    quantization = {}
    for name in activations:
        scale, zero = uint8_quantization(*ranges[name])
        quantization[name] = (scale, zero)
        new_initializers.append(numpy_helper.from_array(np.array(scale), f"{name}_scale"))
        new_initializers.append(numpy_helper.from_array(np.array(zero), f"{name}_zero_point"))

    def qdq(name):
        """QuantizeLinear then DequantizeLinear of `name`, read as `name`_dq."""
        return [helper.make_node("QuantizeLinear", [name, f"{name}_scale", f"{name}_zero_point"],
                                 [f"{name}_q"]),
                helper.make_node("DequantizeLinear", [f"{name}_q", f"{name}_scale",
                                                      f"{name}_zero_point"], [f"{name}_dq"])]

    weight_nodes = []
    replaced = {}  # (node name, input index) -> new input name
    dropped = set()
    for node in weighted:
        weight = numpy_helper.to_array(initializers[node.input[1]]).astype(np.float32)
        transposed = node.op_type == "Gemm" and any(
            a.name == "transB" and a.i == 1 for a in node.attribute)
        rows = weight if (node.op_type == "Conv" or transposed) else weight.T
        flat = rows.reshape(rows.shape[0], -1)
        largest = np.abs(flat).max(axis=1)
        scales = np.where(largest > 0, largest / 127.0, 1.0).astype(np.float32)
        levels = np.clip(np.round(flat / scales[:, None]), -127, 127).astype(np.int8)
        levels = levels.reshape(rows.shape)
        if rows is not weight:
            levels = np.ascontiguousarray(levels.T)
        axis = 0 if rows is weight else 1
        base = node.name or node.output[0]
        new_initializers += [
            numpy_helper.from_array(levels, f"{base}_weight_q"),
            numpy_helper.from_array(scales, f"{base}_weight_scale"),
            numpy_helper.from_array(np.zeros(len(scales), np.int8), f"{base}_weight_zero_point")]
        weight_nodes.append(helper.make_node(
            "DequantizeLinear", [f"{base}_weight_q", f"{base}_weight_scale",
                                 f"{base}_weight_zero_point"], [f"{base}_weight_dq"], axis=axis))
        replaced[(id(node), 1)] = f"{base}_weight_dq"
        dropped.add(node.input[1])
        if len(node.input) >= 3 and node.input[2] in initializers:
            bias = numpy_helper.to_array(initializers[node.input[2]]).astype(np.float32)
            bias_scales = (quantization[node.input[0]][0] * scales).astype(np.float32)
            new_initializers += [
                numpy_helper.from_array(np.round(bias / bias_scales).astype(np.int32),
                                        f"{base}_bias_q"),
                numpy_helper.from_array(bias_scales, f"{base}_bias_scale"),
                numpy_helper.from_array(np.zeros(len(bias), np.int32), f"{base}_bias_zero_point")]
            weight_nodes.append(helper.make_node(
                "DequantizeLinear", [f"{base}_bias_q", f"{base}_bias_scale",
                                     f"{base}_bias_zero_point"], [f"{base}_bias_dq"], axis=0))
            replaced[(id(node), 2)] = f"{base}_bias_dq"
            dropped.add(node.input[2])

    nodes = list(weight_nodes)
    graph_inputs = {i.name for i in graph.input}
    for name in activations:
        if name in graph_inputs:
            nodes += qdq(name)
    for node in graph.node:
        for index, name in enumerate(node.input):
            if (id(node), index) in replaced:
                node.input[index] = replaced[(id(node), index)]
            elif name in quantization:
                node.input[index] = f"{name}_dq"
        nodes.append(node)
        for name in node.output:
            if name in quantization:
                nodes += qdq(name)
    # Graph outputs that got a QDQ pair keep their float value (read before the pair).
    del graph.node[:]
    graph.node.extend(nodes)
    still_read = {name for node in nodes for name in node.input}
    del graph.initializer[:]
    graph.initializer.extend(t for t in new_initializers
                             if t.name not in dropped or t.name in still_read)
    # The fp32 weights are gone; their value_info and graph-input entries, if any, go too.
    kept_inputs = [i for i in graph.input if i.name not in dropped or i.name in still_read]
    del graph.input[:]
    graph.input.extend(kept_inputs)
    onnx.checker.check_model(model)
    onnx.save(model, str(output_path))
    print(f"{output_path}: {len(weighted)} weighted layers, {len(activations)} activations "
          f"quantised ({len(samples)} calibration samples)")


if __name__ == "__main__":
    main()
