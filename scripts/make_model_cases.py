#!/usr/bin/python3
"""Writes the whole-model golden cases of issue 25 into tmp/models/: narrow torchvision models that
need the operators pnnx's own tests exercise one at a time.

    /usr/bin/python3 scripts/make_model_cases.py --pnnx PNNX_BINARY [--only NAME ...]

Each case is made the way tmp/models/README.md describes ("How the cases were made"): the module
is built with torchvision's default init from a fixed seed, every BatchNorm gets random running
statistics and affine parameters (so that conv+bn folding is exercised), it runs in eval mode, is
traced with torch.jit.trace and converted by pnnx (inputshape, fp16=0). The references are the
module's own outputs, and the script checks itself: pnnx's python rebuild (model_pnnx.py) run
with the weights of model.pnnx.bin, and the module in float64, must both stay within a tenth of
the case's tolerance of the float32 reference.

The models are narrow (fewer channels than torchvision's) so that each stays a few MB:
  swin_t_narrow       torchvision's SwinTransformer as swin_t builds it (patch 4, window 7,
                      depths 2,2,6,2, shifted windows: torch.roll, window partition, relative
                      position bias) with embed_dim 16 and heads 1,2,4,8; input 1x3x224x224
  r3d_18_narrow       torchvision's r3d_18 (VideoResNet, BasicBlock, Conv3DSimple, 2,2,2,2) with
                      widths 8,16,32,64 instead of 64..512; input clip 1x3x8x64x64
  super_resolution    the super-resolution net of PyTorch's ONNX tutorial (issue 28): 5x5 conv
                      1 -> 64, tanh, 3x3 conv 64 -> 32, tanh, 3x3 conv 32 -> 9, PixelShuffle(3);
                      input 1x1x128x128 (224x224 would make the 672x672 output alone 1.8 MB)
  googlenet_transform torchvision's googlenet(transform_input=True), full width (its weights are
                      26 MB: not kept in the repository; the script writes it to --out only when
                      asked by name)
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torchvision

ROOT = pathlib.Path(__file__).resolve().parent.parent


def randomize_batchnorm(module, generator):
    """Running statistics and affine parameters that make folding BatchNorm matter."""
    for layer in module.modules():
        if isinstance(layer, torch.nn.modules.batchnorm._BatchNorm):
            count = layer.num_features
            layer.running_mean.copy_(torch.randn(count, generator=generator) * 0.1)
            layer.running_var.copy_(torch.rand(count, generator=generator) + 0.5)
            layer.weight.data.copy_(torch.rand(count, generator=generator) + 0.5)
            layer.bias.data.copy_(torch.randn(count, generator=generator) * 0.1)


def swin_t_narrow():
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2, 6, 2],
                           num_heads=[1, 2, 4, 8], window_size=[7, 7],
                           stochastic_depth_prob=0.2), [1, 3, 224, 224]


def r3d_18_narrow():
    from torchvision.models.video import resnet as video

    class NarrowVideoResNet(video.VideoResNet):
        """VideoResNet with other widths: torchvision's __init__ fixes them at 64..512."""

        def __init__(self, widths, num_classes=400):
            torch.nn.Module.__init__(self)
            self.inplanes = widths[0]
            self.stem = torch.nn.Sequential(
                torch.nn.Conv3d(3, widths[0], kernel_size=(3, 7, 7), stride=(1, 2, 2),
                                padding=(1, 3, 3), bias=False),
                torch.nn.BatchNorm3d(widths[0]), torch.nn.ReLU(inplace=True))
            block, maker = video.BasicBlock, video.Conv3DSimple
            self.layer1 = self._make_layer(block, maker, widths[0], 2, stride=1)
            self.layer2 = self._make_layer(block, maker, widths[1], 2, stride=2)
            self.layer3 = self._make_layer(block, maker, widths[2], 2, stride=2)
            self.layer4 = self._make_layer(block, maker, widths[3], 2, stride=2)
            self.avgpool = torch.nn.AdaptiveAvgPool3d((1, 1, 1))
            self.fc = torch.nn.Linear(widths[3], num_classes)

    return NarrowVideoResNet([8, 16, 32, 64]), [1, 3, 8, 64, 64]


def googlenet_transform():
    return torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True,
                                        transform_input=True), [1, 3, 224, 224]


class SuperResolution(torch.nn.Module):
    # Named layers: pnnx's python rebuild cannot name an attribute after nn.Sequential's "0".
    def __init__(self, upscale=3):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 64, 5, padding=2)
        self.conv2 = torch.nn.Conv2d(64, 32, 3, padding=1)
        self.conv3 = torch.nn.Conv2d(32, upscale * upscale, 3, padding=1)
        self.tanh = torch.nn.Tanh()
        self.shuffle = torch.nn.PixelShuffle(upscale)

    def forward(self, x):
        x = self.tanh(self.conv1(x))
        x = self.tanh(self.conv2(x))
        return self.shuffle(self.conv3(x))


def super_resolution():
    return SuperResolution(), (1, 1, 128, 128)


CASES = {  # name: (builder, tolerance, kept in the repository)
    "swin_t_narrow": (swin_t_narrow, (1e-4, 1e-4), True),
    "r3d_18_narrow": (r3d_18_narrow, (1e-4, 1e-4), True),
    "super_resolution": (super_resolution, (1e-4, 1e-4), True),
    "googlenet_transform": (googlenet_transform, (1e-4, 1e-4), False),
}


def make_case(name, pnnx, out):
    builder, (atol, rtol), _ = CASES[name]
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    module, shape = builder()
    module.eval()
    with torch.no_grad():
        randomize_batchnorm(module, generator)
        x = torch.rand(*shape, generator=generator)
        reference = module(x)
        reference64 = module.double()(x.double()).float()
        module.float()
    folder = out / name
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        torch.jit.trace(module, x).save(work / "model.pt")
        subprocess.run([pnnx, "model.pt", "inputshape=[" + ",".join(map(str, shape)) + "]",
                        "fp16=0"], cwd=work, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        sys.path.insert(0, str(work))
        previous = os.getcwd()
        os.chdir(work)
        try:
            import model_pnnx
            rebuilt = model_pnnx.Model().float().eval()
            with torch.no_grad():
                rebuilt_output = rebuilt(x)
        finally:
            os.chdir(previous)
            sys.path.pop(0)
            sys.modules.pop("model_pnnx", None)
        for label, other in (("pnnx's rebuild", rebuilt_output), ("float64", reference64)):
            excess = (other - reference).abs() - 0.1 * (atol + rtol * reference.abs())
            print(f"{name}: {label} differs by at most {(other - reference).abs().max():.3g}")
            if excess.max().item() > 0:
                sys.exit(f"{name}: {label} deviates from the reference by more than a tenth "
                         "of the tolerance")
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        shutil.copy(work / "model.pnnx.param", folder / "model.pnnx.param")
        shutil.copy(work / "model.pnnx.bin", folder / "model.pnnx.bin")
    x.numpy().astype("<f4").tofile(folder / "in0.f32")
    reference.numpy().astype("<f4").tofile(folder / "out0.f32")
    dims = lambda tensor: ",".join(str(d) for d in tensor.shape)  # noqa: E731
    (folder / "case.txt").write_text(
        f"input in0.f32 {dims(x)}\noutput out0.f32 {dims(reference)}\n"
        f"tolerance {atol:g} {rtol:g}\nnote {name}: scripts/make_model_cases.py, seed 0/1, "
        f"torch {torch.__version__}, torchvision {torchvision.__version__}\n")
    print(f"{name}: written to {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pnnx", required=True)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "tmp/models")
    parser.add_argument("--only", nargs="*", default=[n for n, c in CASES.items() if c[2]])
    arguments = parser.parse_args()
    for name in arguments.only:
        make_case(name, os.path.abspath(arguments.pnnx), arguments.out)


if __name__ == "__main__":
    main()
