#!/usr/bin/python3
"""Writes golden cases that run argument variants of pnnx's operators through pnnx itself: small
modules that use an operator in several ways PyTorch allows (negative dims, padding and ceil
modes, align_corners, every grid_sample mode, ...), traced and converted by pnnx as a user would,
with the module's own outputs as references. They complement tmp/pnnx_ops (pnnx's own tests,
whose inputs are often too large to keep) for the ops those cases leave out.

    /usr/bin/python3 scripts/make_pnnx_variant_cases.py --pnnx PNNX_BINARY [--only NAME ...]

Each case goes to tmp/pnnx_ops/variants_<name>/ in the corpus format (tmp/models/README.md), with
tolerance 1e-5 absolute plus 1e-4 relative. The script is deterministic (seeded inputs).
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import tempfile

import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Pools3d(torch.nn.Module):
    """3-D max, average and adaptive pooling with padding, ceil_mode and uneven windows."""

    def __init__(self):
        super().__init__()
        self.max = torch.nn.MaxPool3d(3, stride=2, padding=1, ceil_mode=True)
        self.max_dilated = torch.nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), dilation=(1, 2, 1))
        self.average = torch.nn.AvgPool3d((2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1),
                                          count_include_pad=False)
        self.average_ceil = torch.nn.AvgPool3d(2, stride=2, ceil_mode=True, divisor_override=3)
        self.adaptive_average = torch.nn.AdaptiveAvgPool3d((2, None, 3))
        self.adaptive_max = torch.nn.AdaptiveMaxPool3d(3)

    def forward(self, x):
        return (self.max(x), self.max_dilated(x), self.average(x), self.average_ceil(x),
                self.adaptive_average(x), self.adaptive_max(x))


class PoolIndices(torch.nn.Module):
    """Max pooling that also returns where each maximum came from."""

    def forward(self, x):
        y1, i1 = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
        y2, i2 = F.adaptive_max_pool2d(x, (3, 4), return_indices=True)
        return y1, i1, y2, i2


class LpAndLrn(torch.nn.Module):
    """Power-average pooling and local response normalisation."""

    def forward(self, x):
        return (F.lp_pool2d(x, 2, (2, 3), stride=2, ceil_mode=True),
                F.lp_pool1d(x.flatten(2), 3.0, 4, stride=3),
                F.local_response_norm(x, 3, alpha=1e-2, beta=0.75, k=2.0),
                F.local_response_norm(x, 4))


class Resizes(torch.nn.Module):
    """interpolate in 1-D, 2-D and 3-D, every mode, sizes and scale factors."""

    def forward(self, x):
        volume = x.unsqueeze(2).repeat(1, 1, 3, 1, 1)
        return (F.interpolate(x.flatten(2), scale_factor=1.7, mode="linear", align_corners=False),
                F.interpolate(x.flatten(2), size=11, mode="linear", align_corners=True),
                F.interpolate(x, size=(9, 13), mode="bicubic", align_corners=False),
                F.interpolate(x, scale_factor=(2, 1.5), mode="bilinear", align_corners=True),
                F.interpolate(x, size=(7, 10), mode="nearest-exact"),
                F.interpolate(x, scale_factor=2.5, mode="nearest"),
                F.interpolate(volume, scale_factor=(1.5, 2, 0.5), mode="trilinear"),
                F.interpolate(volume, size=(4, 3, 9), mode="nearest"))


class Patches(torch.nn.Module):
    """unfold into patches and fold them back, with padding, stride and dilation."""

    def forward(self, x):
        columns = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
        return columns, F.fold(columns, x.shape[-2:], (2, 3), dilation=(1, 2), padding=1,
                               stride=(2, 1))


class GridSample(torch.nn.Module):
    """grid_sample in every mode and padding mode, with and without align_corners."""

    def forward(self, x, grid):
        outputs = []
        for mode in ("bilinear", "nearest", "bicubic"):
            for padding in ("zeros", "border", "reflection"):
                for corners in (False, True):
                    outputs.append(F.grid_sample(x, grid, mode=mode, padding_mode=padding,
                                                 align_corners=corners))
        return tuple(outputs)


class Layout(torch.nn.Module):
    """roll, flip, narrow, tile, repeat_interleave, diag, cross, t and unbind."""

    def forward(self, x, m, a, b):
        first, second, third = torch.unbind(x, dim=1)
        return (torch.roll(x, (2, -1), (1, -1)), torch.roll(x, 7), torch.flip(x, [0, -1]),
                torch.narrow(x, -1, -3, 2), x.tile((2, 1, 3)), x.repeat_interleave(2, dim=1),
                torch.diag(m, -1), torch.diag(m[0], 2), torch.cross(a, b, dim=1), m.t(),
                first + third * second)


class Indexing(torch.nn.Module):
    """gather, scatter_add, where and masked_fill with broadcasting."""

    def __init__(self):
        super().__init__()
        generator = torch.Generator().manual_seed(3)
        self.register_buffer("index", torch.randint(0, 5, (2, 3, 4), generator=generator))

    def forward(self, x, y):
        return (torch.gather(x, 1, self.index), torch.gather(x, -1, self.index[:, :, :3] % 4),
                torch.scatter_add(x, 1, self.index, y), torch.where(x > 0, x, y[:, :1]),
                torch.where(y[:, 1:2] < 0.5, 1.5, x), x.masked_fill(y[:, 2:] > 0, -2.0))


class AdvancedIndex(torch.nn.Module):
    """Indexing with constant lists: next to each other or apart, negative positions, bool masks,
    a list of one broadcast against a longer one."""

    def forward(self, x):
        return (x[[2, 0, -1], [1, 1, 0]], x[:, [3, -2]], x[[1, 0], :, [4, 0]], x[..., [0, 2, 2]],
                x[[True, False, True]], x[[1], :, [0, 3, 2]], x[:, [True, False, False, True], 1:])


CASES = {  # name: (module, input shapes)
    "pools3d": (Pools3d, [(1, 3, 7, 9, 11)]),
    "pool_indices": (PoolIndices, [(1, 3, 9, 10)]),
    "lp_pool_and_lrn": (LpAndLrn, [(1, 6, 7, 9)]),
    "resizes": (Resizes, [(1, 2, 5, 6)]),
    "patches": (Patches, [(1, 2, 6, 7)]),
    "grid_sample": (GridSample, [(1, 2, 5, 6), (1, 4, 7, 2)]),
    "layout": (Layout, [(2, 3, 5), (4, 4), (2, 3, 4), (2, 3, 4)]),
    "indexing": (Indexing, [(2, 5, 4), (2, 3, 4)]),
    "advanced_index": (AdvancedIndex, [(3, 4, 5)]),
}


def inputs_for(name, shapes):
    generator = torch.Generator().manual_seed(sum(map(ord, name)))
    tensors = [torch.randn(shape, generator=generator) for shape in shapes]
    if name == "grid_sample":  # sample a little outside [-1, 1] too, where padding matters
        tensors[1] = tensors[1].clamp(-1.0, 1.0) * 1.2
    if name == "lp_pool_and_lrn":  # a fractional power of a negative number is NaN in PyTorch
        tensors[0] = tensors[0].abs()
    return tensors


def flatten(value):
    if isinstance(value, torch.Tensor):
        return [value]
    return [tensor for item in value for tensor in flatten(item)]


def make_case(name, pnnx, out):
    builder, shapes = CASES[name]
    module = builder().eval()
    inputs = inputs_for(name, shapes)
    with torch.no_grad():
        outputs = flatten(module(*inputs))
    folder = out / f"variants_{name}"
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        torch.jit.trace(module, tuple(inputs)).save(work / "model.pt")
        shape_text = ",".join("[" + ",".join(map(str, shape)) + "]" for shape in shapes)
        subprocess.run([pnnx, "model.pt", f"inputshape={shape_text}", "fp16=0"], cwd=work,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        shutil.copy(work / "model.pnnx.param", folder / "model.pnnx.param")
        shutil.copy(work / "model.pnnx.bin", folder / "model.pnnx.bin")
    lines = []
    for kind, prefix, tensors in (("input", "in", inputs), ("output", "out", outputs)):
        for index, tensor in enumerate(tensors):
            tensor.float().contiguous().numpy().astype("<f4").tofile(folder / f"{prefix}{index}.f32")
            lines.append(f"{kind} {prefix}{index}.f32 " + (",".join(map(str, tensor.shape)) or "()"))
    lines += ["tolerance 1e-5 1e-4",
              f"note scripts/make_pnnx_variant_cases.py {name}: {' '.join(builder.__doc__.split())}"]
    (folder / "case.txt").write_text("\n".join(lines) + "\n")
    print(f"{name}: {len(outputs)} outputs written to {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pnnx", required=True)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "tmp/pnnx_ops")
    parser.add_argument("--only", nargs="*", default=list(CASES))
    arguments = parser.parse_args()
    for name in arguments.only:
        make_case(name, os.path.abspath(arguments.pnnx), arguments.out)


if __name__ == "__main__":
    main()
