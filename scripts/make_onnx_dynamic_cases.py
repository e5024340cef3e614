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

Every shared case scripts/make_onnx_cases.py exports is exported with dynamic axes too and run at
its own size and two others (see "The shared corpus's modules" below): tmp/onnx/<case>_dynamic_*.

Needs Debian's python3-torch and python3-onnx:

  /usr/bin/python3 scripts/make_onnx_dynamic_cases.py                    # all of them
  /usr/bin/python3 scripts/make_onnx_dynamic_cases.py --shared relu cat2 # named shared cases only
  /usr/bin/python3 scripts/make_onnx_dynamic_cases.py --shared           # every shared case only
"""
import argparse
import io
import pathlib
import shutil
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "models"
sys.path.insert(0, str(ROOT / "python" / "lumen"))
import case_format  # noqa: E402
import make_onnx_cases  # noqa: E402  (beside this script)
import torch_graph  # noqa: E402
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


# --- The shared corpus's modules with dynamic axes -----------------------------------------------
#
# Every shared case make_onnx_cases.py exports (its CASES, and the big ones it makes on demand) is
# exported again with dynamic axes, as a user would: the batch, and the spatial (N,C,H,W) or
# sequence ((N,C,L), (N,L,E) or (L,N,E)) axes (candidate_axes). An axis is made dynamic only when
# the module itself runs eagerly with it changed: channels or features the weights fix, and axes
# a model_pnnx.py reshapes to constant shapes, a positional embedding of fixed length or a mask
# input of fixed size stay fixed. The one export then runs at the case's own size (references:
# the case's PyTorch outputs) and at two more, with the module run eagerly at each as reference:
#   - generated sizes (other_extents): batch + 1 and + 2, other free axes two more and two fewer
#     (or four, or doubled and halved), inputs drawn with each case input's own mean and spread;
#   - resnet18 and yolov5s_detect: the sizes of ../shared/anysize (inputs and references there),
#     and for yolov5s, whose any-size cases keep batch 1, the case's size at batch 2.
# Folders: tmp/onnx/<case>_dynamic_<size of in0>; the first holds model.onnx, the other sizes a
# symbolic link to it. A case whose folders pass LARGE_CASE bytes is written to --large-output
# instead (not committed).

# Shared cases exported on demand only (over the repository's budget), exported here too.
LARGE_CASES = ["yolov5s_detect", "mobilenet_v3_large_075_160"]
# ../shared/anysize cases: an export run at another size, with the PyTorch module's outputs there.
ANYSIZE = {"resnet18": ["resnet18_160", "resnet18_b3"],
           "yolov5s_detect": ["yolov5s_320", "yolov5s_384x640"]}
LARGE_CASE = 300_000
# Cases written to --large-output, not committed, because Lumen fails them (for the lead to fix):
# (None now: upsample_bilinear2_ac at 2x4x11x13 was, until the linear resize computed its source
# coordinates in double as PyTorch's CPU kernel does.)
LUMEN_FAILS = set()


def candidate_axes(rank):
    """The axes a user makes dynamic: batch, and spatial or sequence axes. An image's channels
    stay fixed; a rank-3 input may be (N,C,L), (N,L,E) or (L,N,E), so each of its axes is tried."""
    return {4: [0, 2, 3], 3: [0, 1, 2]}.get(rank, [0])


def axis_groups(shapes):
    """Input axes that must change together: {(rank, axis, extent): [(input, axis), ...]}.

    Axes of the same position and extent in inputs of the same rank are one size (the batch of
    every input, the sequence of q, k and v); a spatial axis of extent 1 is a broadcast axis (a
    (1,C,1,1) scale) and stays fixed.
    """
    groups = {}
    for index, shape in enumerate(shapes):
        for axis in candidate_axes(len(shape)):
            if len(shape) != 4 or axis == 0 or shape[axis] > 1:
                groups.setdefault((len(shape), axis, shape[axis]), []).append((index, axis))
    return groups


def other_extents(axis, extent):
    """Candidate pairs of other extents for an axis, both kept small (the cases are committed): the
    first (batch) axis, or any of extent 1 or 2 (a sequence-first batch), one and two more; others
    two more and two fewer, else four, else doubled and halved (for a module that wants even
    sizes or more than it is given)."""
    if axis == 0 or extent <= 2:
        return [(extent + 1, extent + 2)]
    pairs = ((extent + 2, extent - 2), (extent + 4, extent - 4), (2 * extent, extent // 2))
    return [pair for pair in pairs if pair[1] >= 1]


def resized(shapes, groups, which):
    """The input shapes with every axis of groups ({key: (members, extents)}) at extents[which]."""
    shapes = [list(shape) for shape in shapes]
    for members, extents in groups.values():
        for index, axis in members:
            shapes[index][axis] = extents[which]
    return [tuple(shape) for shape in shapes]


def draw_inputs(shapes, examples, seed):
    """Inputs of these shapes: the case's own where the shape is unchanged (a mask keeps its
    -inf), else random with the mean and spread of the case's input (which must be finite)."""
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for shape, example in zip(shapes, examples):
        if tuple(example.shape) == tuple(shape):
            inputs.append(example)
        elif not bool(torch.isfinite(example).all()):
            raise ValueError("an input with infinities (a mask) cannot be drawn at another size")
        else:
            inputs.append(torch.randn(*shape, generator=generator) * example.std() + example.mean())
    return inputs


def eager(module, inputs):
    """The module's outputs on inputs, or None when it cannot run at their sizes (or gives NaN,
    which no comparison could tell from a wrong result)."""
    try:
        with torch.no_grad():
            outputs = make_onnx_cases.as_list(module(*inputs))
    except Exception:  # noqa: BLE001 - a size the module does not allow
        return None
    return None if any(bool(torch.isnan(output).any()) for output in outputs) else outputs


def free_groups(module, tensors):
    """{key: (members, (extent A, extent B))} for the axis groups the module lets change: the
    first pair of other_extents at which it runs with that group changed alone."""
    shapes = [tuple(tensor.shape) for tensor in tensors]
    free = {}
    for key, members in axis_groups(shapes).items():
        for extents in other_extents(key[1], key[2]):
            trial = {key: (members, extents)}
            try:
                runs = all(eager(module, draw_inputs(resized(shapes, trial, which), tensors, 0))
                           is not None for which in (0, 1))
            except ValueError:  # a mask input would have to change size
                runs = False
            if runs:
                free[key] = (members, extents)
                break
    return free


def shared_sizes(name, module, tensors, free):
    """[(inputs, references)] at the case's size, then at two others (references None when the
    module cannot run there)."""
    case = case_format.read_case(SHARED / name)
    sizes = [(tensors, [torch.from_numpy(array) for array in case.output_arrays()])]
    if name in ANYSIZE:
        for other in ANYSIZE[name]:
            case = case_format.read_case(SHARED.parent / "anysize" / other)
            inputs = [torch.from_numpy(array) for array in case.input_arrays()]
            sizes.append((inputs, [torch.from_numpy(a) for a in case.output_arrays()]))
        if all(inputs[0].shape[0] == tensors[0].shape[0] for inputs, _ in sizes):
            # No any-size case changes the batch (yolov5s): add the case's size at batch + 1.
            shapes = [(tensor.shape[0] + 1,) + tuple(tensor.shape[1:]) for tensor in tensors]
            inputs = draw_inputs(shapes, tensors, 1)
            sizes.append((inputs, eager(module, inputs)))
        return sizes
    shapes = [tuple(tensor.shape) for tensor in tensors]
    for which in (0, 1):
        inputs = draw_inputs(resized(shapes, free, which), tensors, which + 1)
        sizes.append((inputs, eager(module, inputs)))
    return sizes


def dynamic_axes_of(free, output_shapes, input_count):
    """torch.onnx.export's dynamic_axes: the free input axes, and the output axes that changed."""
    axes = {f"in{index}": {} for index in range(input_count)}
    for number, (members, _) in enumerate(free.values()):
        for index, axis in members:
            axes[f"in{index}"][axis] = f"size{number}"
    for index, shapes in enumerate(zip(*output_shapes)):
        axes[f"out{index}"] = {axis: f"out{index}_axis{axis}"
                               for axis in range(len(shapes[0]))
                               if len({shape[axis] for shape in shapes}) > 1}
    return {name: value for name, value in axes.items() if value}


def write_size(folder, model_folder, model, inputs, references, tolerance, note):
    """One size's case folder: model.onnx (or a link to model_folder's), its data, case.txt."""
    if folder.exists() or folder.is_symlink():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if model_folder is None:
        onnx.save(model, str(folder / "model.onnx"))
    else:
        (folder / "model.onnx").symlink_to(pathlib.Path("..") / model_folder.name / "model.onnx")
    lines = []
    for kind, tensors in (("input", inputs), ("output", references)):
        for index, tensor in enumerate(tensors):
            file_name = f"{ {'input': 'in', 'output': 'out'}[kind]}{index}.f32"
            tensor.detach().numpy().astype(np.float32).tofile(folder / file_name)
            lines.append(f"{kind} {file_name} {shape_text(tensor.shape)}")
    lines.append(f"tolerance {tolerance[0]:g} {tolerance[1]:g}")
    lines.append(f"note {note}")
    (folder / "case.txt").write_text("\n".join(lines) + "\n")
    return sum(path.stat().st_size for path in folder.iterdir() if not path.is_symlink())


def make_shared_case(name, output_root, large_root):
    """Exports one shared case with dynamic axes and writes a case per size; returns a report."""
    try:
        case, module, tensors = make_onnx_cases.checked_module(SHARED / name)
    except make_onnx_cases.Skip as reason:
        return [f"{name}: skipped: {reason}"]
    for layer in module.modules():
        if isinstance(layer, torch_graph.Detect):
            layer.dynamic = True  # grids from the feature size, as YOLOv5's export with dynamic
    if name in ANYSIZE:  # batch, height and width, at the sizes of ../shared/anysize
        free = {key: (members, None) for key, members in
                axis_groups([tuple(tensor.shape) for tensor in tensors]).items()}
    else:
        free = free_groups(module, tensors)
    if not free:
        return [f"{name}: no axis the module lets change (fixed shapes in its graph)"]
    sizes = shared_sizes(name, module, tensors, free)
    if any(outputs is None for _, outputs in sizes):
        return [f"{name}: the module does not run at the sizes with every free axis changed"]
    input_names = [f"in{index}" for index in range(len(tensors))]
    output_names = [f"out{index}" for index in range(len(sizes[0][1]))]
    axes = dynamic_axes_of(free, [[tuple(x.shape) for x in outputs] for _, outputs in sizes],
                           len(tensors))
    opset = make_onnx_cases.OPSETS[0]
    try:
        model = make_onnx_cases.export(module, tensors, input_names, output_names, opset, axes)
    except Exception as error:  # noqa: BLE001
        return [f"{name}: export failed ({str(error).splitlines()[0]})"]
    folders = [f"{name}_dynamic_{'x'.join(str(extent) for extent in inputs[0].shape)}"
               for inputs, _ in sizes]
    size = len(model.SerializeToString()) + sum(
        sum(t.numel() * 4 for t in inputs + outputs) for inputs, outputs in sizes)
    root = output_root if size <= LARGE_CASE and name not in LUMEN_FAILS else large_root
    report = []
    for index, ((inputs, outputs), folder) in enumerate(zip(sizes, folders)):
        note = (f"{name} exported by torch.onnx.export {torch.__version__} at opset {opset} with "
                f"dynamic axes {axes} at {shape_text(tensors[0].shape)}, run at "
                f"{shape_text(inputs[0].shape)} (scripts/make_onnx_dynamic_cases.py); references: "
                f"PyTorch's module run eagerly at that size"
                f"{' (the shared case outputs)' if index == 0 else ''}")
        written = write_size(root / folder, None if index == 0 else root / folders[0], model,
                             inputs, outputs, case.tolerance, note)
        report.append(f"{root / folder}: {written / 1e3:.0f} KB")
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", nargs="*", metavar="CASE",
                        help="only these shared cases (none named: all of them), no hand-written "
                        "module")
    parser.add_argument("--large-output", type=pathlib.Path,
                        default=pathlib.Path("/tmp/lumen_onnx_dynamic"),
                        help="where cases over the size budget go (not committed)")
    args = parser.parse_args()
    if args.shared is None:
        write_modules()
    for name in args.shared or make_onnx_cases.CASES + LARGE_CASES:
        for line in make_shared_case(name, OUTPUT, args.large_output):
            print(line, flush=True)


def write_modules():
    """The hand-written modules above, one case per size."""
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
