#!/usr/bin/python3
"""Writes ONNX golden cases exported with dynamic axes, each run at several input sizes.

Most people export with `dynamic_axes`: a free batch, often free H/W or a free sequence length.
The graph then computes its shapes at run time (Shape -> Gather -> Concat -> Reshape, Resize to
a computed size, Range for positions, ...), and a reader that folds them once at the export size
gets every other size wrong. Each module below is exported once, as torch.onnx.export writes it
(no onnx.shape_inference, no other post-processing), and run by PyTorch at two or three sizes; each
size is a case of its own, tmp/onnx/dynamic_<module>_<size>/, with its own copy of the (small)
model and PyTorch's outputs as references.

The modules are written as users write them:
  - classifier: convolutions and a hand-written flatten, x.view(x.size(0), -1); free batch (only:
    torch exports adaptive_avg_pool2d as an AveragePool for the export's size);
  - segmenter: an encoder, a decoder and F.interpolate(size=x.shape[-2:]); free batch, H and W;
  - encoder: a transformer encoder layer written out (q, k, v split into heads with
    x.size(0), x.size(1) and -1; scaled dot-product attention; LayerNorm; MLP) and
    nn.TransformerEncoderLayer (sequence-first); free batch and sequence;
  - lstm: a bidirectional two-layer LSTM with a linear head; free batch and time.

Needs Debian's python3-torch and python3-onnx:

  /usr/bin/python3 scripts/make_onnx_dynamic_cases.py
"""
import io
import pathlib
import shutil

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "tmp" / "onnx"
OPSET = 14  # torch 1.13's default
TOLERANCE = (1e-5, 1e-4)


class Classifier(nn.Module):
    """Two convolutions, a global pool and a flatten written with x.size(0)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 4)
        return self.fc(x.view(x.size(0), -1))


class Segmenter(nn.Module):
    """An encoder at half resolution, a decoder, and logits resized to the input's size."""

    def __init__(self):
        super().__init__()
        self.encode = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                    nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.classify = nn.Conv2d(8, 5, 1)

    def forward(self, x):
        logits = self.classify(self.encode(x))
        return F.interpolate(logits, size=x.shape[-2:], mode="bilinear", align_corners=False)


class HandWrittenEncoderLayer(nn.Module):
    """Pre-norm self-attention and an MLP, the heads split with the input's own sizes."""

    def __init__(self, width=32, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.project = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, x):
        batch, length = x.size(0), x.size(1)
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q = q.reshape(batch, length, self.heads, -1).transpose(1, 2)
        k = k.reshape(batch, length, self.heads, -1).transpose(1, 2)
        v = v.reshape(batch, length, self.heads, -1).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / (q.size(-1) ** 0.5)
        attended = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(batch, length, -1)
        x = x + self.project(attended)
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    """The hand-written layer, then PyTorch's own (sequence-first: its fast path does not export)."""

    def __init__(self):
        super().__init__()
        self.first = HandWrittenEncoderLayer()
        self.second = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0)

    def forward(self, x):  # (batch, sequence, 32)
        x = self.first(x)
        return self.second(x.transpose(0, 1)).transpose(0, 1)


class Recurrent(nn.Module):
    """A bidirectional two-layer LSTM over (batch, time, features), and a linear head."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 12, num_layers=2, bidirectional=True, batch_first=True)
        self.head = nn.Linear(24, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


# name: (module, example input shape for the export, dynamic axes of the input and output,
#        the sizes each case runs at)
MODULES = {
    "classifier": (Classifier, (1, 3, 16, 16), {0: "batch"}, {0: "batch"},
                   [(1, 3, 16, 16), (3, 3, 16, 16), (5, 3, 16, 16)]),
    "segmenter": (Segmenter, (1, 3, 16, 16), {0: "batch", 2: "height", 3: "width"},
                  {0: "batch", 2: "height", 3: "width"},
                  [(1, 3, 16, 16), (2, 3, 20, 28), (1, 3, 33, 17)]),
    "encoder": (Encoder, (1, 7, 32), {0: "batch", 1: "sequence"}, {0: "batch", 1: "sequence"},
                [(1, 7, 32), (3, 5, 32), (2, 12, 32)]),
    "lstm": (Recurrent, (1, 5, 6), {0: "batch", 1: "time"}, {0: "batch", 1: "time"},
             [(1, 5, 6), (4, 3, 6), (2, 9, 6)]),
}


def export(module, example, input_axes, output_axes):
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(module, (example,), buffer, opset_version=OPSET, input_names=["in0"],
                          output_names=["out0"],
                          dynamic_axes={"in0": input_axes, "out0": output_axes})
    model = onnx.load_from_string(buffer.getvalue())
    onnx.checker.check_model(model)
    return model


def shape_text(shape):
    return ",".join(str(extent) for extent in shape)


def main():
    for name, (make, example_shape, input_axes, output_axes, sizes) in MODULES.items():
        torch.manual_seed(0)
        module = make().eval()
        model = export(module, torch.randn(*example_shape), input_axes, output_axes)
        for shape in sizes:
            folder = OUTPUT / f"dynamic_{name}_{'x'.join(str(extent) for extent in shape)}"
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            onnx.save(model, str(folder / "model.onnx"))
            generator = torch.Generator().manual_seed(sum(shape))
            data = torch.randn(*shape, generator=generator)
            with torch.no_grad():
                reference = module(data)
            data.numpy().astype(np.float32).tofile(folder / "in0.f32")
            reference.numpy().astype(np.float32).tofile(folder / "out0.f32")
            (folder / "case.txt").write_text(
                f"input in0.f32 {shape_text(data.shape)}\n"
                f"output out0.f32 {shape_text(reference.shape)}\n"
                f"tolerance {TOLERANCE[0]:g} {TOLERANCE[1]:g}\n"
                f"note {name} exported by torch.onnx.export {torch.__version__} at opset {OPSET} "
                f"with dynamic axes {input_axes}, exported at {shape_text(example_shape)} and run "
                f"at {shape_text(shape)} (scripts/make_onnx_dynamic_cases.py); references: "
                f"PyTorch's outputs at that size\n")
            print(f"{folder.name}: {sum(f.stat().st_size for f in folder.iterdir()) / 1e3:.0f} KB; "
                  f"ops {' '.join(sorted({node.op_type for node in model.graph.node}))}")


if __name__ == "__main__":
    main()
