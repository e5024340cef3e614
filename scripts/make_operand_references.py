#!/usr/bin/env python3
"""PyTorch's values of intermediate operands of tmp/models/resnet18, for Lumen's extract test.

    /usr/bin/python3 scripts/make_operand_references.py

Runs the case's graph op by op in PyTorch (scripts/pytorch_peer.py's PnnxModule, built from the
same .pnnx.bin) on the case's input, checks that its output reproduces the case's out0.f32 (the
original module's), and writes the operands listed in OPERANDS to
tmp/models/resnet18/operands/<name>.f32 (row-major float32) with operands/index.txt
("name shape" per line). test/runtime/test_extract.cpp extracts each with Lumen and compares.
"""
import pathlib

import numpy as np
import torch

import pytorch_peer

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASE = ROOT / "tmp/models/resnet18"
# The stem convolution (before its ReLU, so read with fusion off) and its ReLU, the max pool, the
# output of each residual stage, the pooled features and the flattened ones.
OPERANDS = ["1", "2", "3", "13", "24", "35", "46", "47", "48"]


def main():
    module = pytorch_peer.PnnxModule(CASE / "model.pnnx.param", CASE / "model.pnnx.bin").eval()
    x = torch.from_numpy(np.fromfile(CASE / "in0.f32", dtype="<f4").reshape(1, 3, 224, 224))
    with torch.inference_mode():
        values = module.operands(x)
    expected = np.fromfile(CASE / "out0.f32", dtype="<f4").reshape(1, 1000)
    difference = np.abs(values["pnnx.Output"].numpy() - expected).max()
    if difference > 1e-4:
        raise SystemExit(f"the op-by-op graph differs from the case's output by {difference}")
    out = CASE / "operands"
    out.mkdir(exist_ok=True)
    lines = []
    for name in OPERANDS:
        value = values[name].contiguous().numpy().astype("<f4")
        value.tofile(out / f"{name}.f32")
        lines.append(f"{name} {','.join(str(d) for d in value.shape)}")
    (out / "index.txt").write_text("\n".join(lines) + "\n")
    print(f"wrote {len(OPERANDS)} operands to {out} (graph output matches to {difference:.2g})")


if __name__ == "__main__":
    main()
