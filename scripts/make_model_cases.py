#!/usr/bin/python3
"""Writes the whole-model golden cases of issues 25 and 28 into tmp/models/.

Narrow torchvision models (and a few written here) that need the operators pnnx's own tests
exercise one at a time.

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

Issue 28's common families (bench.sh runs them) calibrate BatchNorm instead (calibrate_batchnorm:
running statistics averaged over 4 seeded batches in train mode, so that the outputs depend on the
input) and keep pnnx's model_pnnx.py in the case, from which the PyTorch peer and the ONNX export
rebuild the module:
  mobilenet_v2_050    mobilenet_v2(width_mult=0.5), 100 classes; 1x3x224x224
  mobilenet_v2_100    torchvision's mobilenet_v2 at full width, 1000 classes; 1x3x224x224 (issue 29's
                      int8 and bf16 rows: the MobileNetV2 users quantise)
  squeezenet1_1       squeezenet1_1 (fire modules, no BatchNorm); 1x3x224x224
  densenet121_g12     DenseNet-121's blocks (6, 12, 24, 16), growth rate 12, 32 initial features;
                      1x3x160x160
  shufflenet_v2_x0_5  shufflenet_v2_x0_5, 100 classes; 1x3x224x224
  mnasnet0_5          mnasnet0_5, 100 classes; 1x3x224x224 (tolerance 5e-4: float64 differs by
                      2.3e-5)
  efficientnet_b0_050 EfficientNet-B0's stages at width 0.5 (SE, SiLU), 100 classes; 1x3x224x224
  regnet_y_400mf_050  RegNetY-400MF's stages at half width (grouped convs, SE); 1x3x224x224
  unet_small          a U-Net: 3 max-pool levels, 16..128 channels, transposed convs, concatenated
                      skips; 1x3x128x128 -> 1x2x128x128
  style_transfer_050  Johnson et al.'s fast style transfer net (pytorch/examples) at half width;
                      1x3x128x128
  ssdlite320_head     SSDLite320 (MobileNetV3-Large 0.5) up to its raw head outputs, 21 classes;
                      1x3x320x320 -> 1x3234x25 (tolerance 5e-4: float64 differs by 1.5e-5)
Run them with --only NAME ... (the default list would also rewrite the issue 25 cases).
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


def calibrate_batchnorm(module, shape, generator, batches=4, batch_size=4):
    """BatchNorm statistics of the network itself (issue 28's recipe), so that the outputs depend
    on the input: random affine parameters, then the module runs in train mode on a few seeded
    uniform [0, 1) batches with momentum None (running statistics = the cumulative average over
    the batches), and is left in eval mode."""
    layers = [layer for layer in module.modules()
              if isinstance(layer, torch.nn.modules.batchnorm._BatchNorm)]
    for layer in layers:
        count = layer.num_features
        layer.reset_running_stats()
        layer.momentum = None
        layer.weight.data.copy_(torch.rand(count, generator=generator) + 0.5)
        layer.bias.data.copy_(torch.randn(count, generator=generator) * 0.1)
    module.train()
    with torch.no_grad():
        for _ in range(batches):
            module(torch.rand(batch_size, *shape[1:], generator=generator))
    module.eval()


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


# Issue 28: common model families, BatchNorm calibrated (calibrate_batchnorm).
def mobilenet_v2_050():
    return torchvision.models.mobilenet_v2(width_mult=0.5, num_classes=100), (1, 3, 224, 224)


def mobilenet_v2_100():
    return torchvision.models.mobilenet_v2(num_classes=1000), (1, 3, 224, 224)


def squeezenet1_1():
    return torchvision.models.squeezenet1_1(num_classes=1000), (1, 3, 224, 224)


def densenet121_g12():
    from torchvision.models.densenet import DenseNet
    return DenseNet(growth_rate=12, block_config=(6, 12, 24, 16), num_init_features=32,
                    num_classes=1000), (1, 3, 160, 160)


def shufflenet_v2_x0_5():
    return torchvision.models.shufflenet_v2_x0_5(num_classes=100), (1, 3, 224, 224)


def mnasnet0_5():
    return torchvision.models.mnasnet0_5(num_classes=100), (1, 3, 224, 224)


def efficientnet_b0_050():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    setting, last_channel = _efficientnet_conf("efficientnet_b0", width_mult=0.5, depth_mult=1.0)
    return EfficientNet(setting, 0.2, num_classes=100, last_channel=last_channel), \
        (1, 3, 224, 224)


def regnet_y_400mf_050():
    from functools import partial
    from torchvision.models.regnet import BlockParams, RegNet
    # regnet_y_400mf's parameters (depth 16, w_a 27.89, w_m 2.09, group width 8, SE 0.25) with
    # w_0 and w_a halved: the same stages (1, 3, 6, 6 blocks) at widths 24, 48, 104, 216.
    params = BlockParams.from_init_params(depth=16, w_0=24, w_a=14, w_m=2.09, group_width=8,
                                          se_ratio=0.25)
    module = RegNet(params, num_classes=1000,
                    norm_layer=partial(torch.nn.BatchNorm2d, eps=1e-05, momentum=0.1))
    # torchvision names the blocks "block1-0", ...: pnnx's python rebuild writes that name as an
    # attribute (a syntax error), so they are renamed block1_0, ... (same modules, same order).
    for stage in module.trunk_output.children():
        stage._modules = type(stage._modules)(
            (key.replace("-", "_"), value) for key, value in stage._modules.items())
    return module, (1, 3, 224, 224)


def conv_bn_relu(inputs, outputs):
    return torch.nn.Sequential(
        torch.nn.Conv2d(inputs, outputs, 3, padding=1, bias=False), torch.nn.BatchNorm2d(outputs),
        torch.nn.ReLU(inplace=True),
        torch.nn.Conv2d(outputs, outputs, 3, padding=1, bias=False),
        torch.nn.BatchNorm2d(outputs), torch.nn.ReLU(inplace=True))


class UNet(torch.nn.Module):
    """U-Net (Ronneberger et al.) with three 2x2 max-pool downsamplings: double conv-bn-relu
    blocks at widths 16, 32, 64 and 128 (bottleneck), 2x2 stride-2 transposed convolutions up,
    skip connections concatenated, a 1x1 conv to 2 classes."""

    def __init__(self, widths=(16, 32, 64, 128), classes=2):
        super().__init__()
        self.enc1 = conv_bn_relu(3, widths[0])
        self.enc2 = conv_bn_relu(widths[0], widths[1])
        self.enc3 = conv_bn_relu(widths[1], widths[2])
        self.bottleneck = conv_bn_relu(widths[2], widths[3])
        self.pool = torch.nn.MaxPool2d(2)
        self.up3 = torch.nn.ConvTranspose2d(widths[3], widths[2], 2, stride=2)
        self.dec3 = conv_bn_relu(2 * widths[2], widths[2])
        self.up2 = torch.nn.ConvTranspose2d(widths[2], widths[1], 2, stride=2)
        self.dec2 = conv_bn_relu(2 * widths[1], widths[1])
        self.up1 = torch.nn.ConvTranspose2d(widths[1], widths[0], 2, stride=2)
        self.dec1 = conv_bn_relu(2 * widths[0], widths[0])
        self.head = torch.nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        b = self.bottleneck(self.pool(e3))
        d3 = self.dec3(torch.cat((self.up3(b), e3), 1))
        d2 = self.dec2(torch.cat((self.up2(d3), e2), 1))
        d1 = self.dec1(torch.cat((self.up1(d2), e1), 1))
        return self.head(d1)


def unet_small():
    return UNet(), (1, 3, 128, 128)


class ConvLayer(torch.nn.Module):
    """Reflection padding then a convolution (pytorch/examples' fast_neural_style); with
    upsample, nearest 2x upsampling first (its UpsampleConvLayer)."""

    def __init__(self, inputs, outputs, kernel, stride=1, upsample=None):
        super().__init__()
        self.upsample = torch.nn.Upsample(scale_factor=upsample, mode="nearest") \
            if upsample else None
        self.pad = torch.nn.ReflectionPad2d(kernel // 2)
        self.conv = torch.nn.Conv2d(inputs, outputs, kernel, stride)

    def forward(self, x):
        if self.upsample is not None:
            x = self.upsample(x)
        return self.conv(self.pad(x))


class ResidualBlock(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, 3)
        self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, 3)
        self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        return self.in2(self.conv2(self.relu(self.in1(self.conv1(x))))) + x


class TransformerNet(torch.nn.Module):
    """Johnson et al.'s fast neural style transfer net as pytorch/examples writes it (9x9 conv,
    two stride-2 3x3 convs, five residual blocks, two upsample-convs, 9x9 conv; instance norm and
    ReLU between), at half width: 16, 32, 64 channels instead of 32, 64, 128."""

    def __init__(self, widths=(16, 32, 64)):
        super().__init__()
        a, b, c = widths
        self.conv1 = ConvLayer(3, a, 9)
        self.in1 = torch.nn.InstanceNorm2d(a, affine=True)
        self.conv2 = ConvLayer(a, b, 3, stride=2)
        self.in2 = torch.nn.InstanceNorm2d(b, affine=True)
        self.conv3 = ConvLayer(b, c, 3, stride=2)
        self.in3 = torch.nn.InstanceNorm2d(c, affine=True)
        self.res1, self.res2, self.res3, self.res4, self.res5 = (ResidualBlock(c)
                                                                  for _ in range(5))
        self.deconv1 = ConvLayer(c, b, 3, upsample=2)
        self.in4 = torch.nn.InstanceNorm2d(b, affine=True)
        self.deconv2 = ConvLayer(b, a, 3, upsample=2)
        self.in5 = torch.nn.InstanceNorm2d(a, affine=True)
        self.deconv3 = ConvLayer(a, 3, 9)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        y = self.relu(self.in1(self.conv1(x)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res5(self.res4(self.res3(self.res2(self.res1(y)))))
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        return self.deconv3(y)


def style_transfer_050():
    module = TransformerNet()
    # Instance norm's affine parameters away from 1 and 0, so that they matter.
    generator = torch.Generator().manual_seed(3)
    for layer in module.modules():
        if isinstance(layer, torch.nn.InstanceNorm2d):
            layer.weight.data.copy_(torch.rand(layer.num_features, generator=generator) + 0.5)
            layer.bias.data.copy_(torch.randn(layer.num_features, generator=generator) * 0.1)
    return module, (1, 3, 128, 128)


class SSDLiteHeadOnly(torch.nn.Module):
    """torchvision's SSDLite320 (MobileNetV3-Large backbone, reduced tail, at width 0.5, its six
    feature maps, SSDLiteHead's depthwise-separable box and class predictors for 6 anchors per
    location and 21 classes, PASCAL VOC's 20 and background) up to the head's raw outputs: box
    regressions and class logits of the 3234 anchors concatenated, (1, 3234, 4 + 21). Anchor
    decoding and NMS stay outside, as in deployed exports."""

    def __init__(self):
        super().__init__()
        from functools import partial
        from torchvision.models.detection import ssdlite
        from torchvision.models.detection import _utils as det_utils
        norm_layer = partial(torch.nn.BatchNorm2d, eps=0.001, momentum=0.03)
        backbone = torchvision.models.mobilenet_v3_large(norm_layer=norm_layer, reduced_tail=True,
                                                         width_mult=0.5)
        ssdlite._normal_init(backbone)
        self.backbone = ssdlite._mobilenet_extractor(backbone, 6, norm_layer)
        out_channels = det_utils.retrieve_out_channels(self.backbone, (320, 320))
        self.head = ssdlite.SSDLiteHead(out_channels, [6] * 6, 21, norm_layer)

    def forward(self, x):
        features = list(self.backbone(x).values())
        outputs = self.head(features)
        return torch.cat((outputs["bbox_regression"], outputs["cls_logits"]), 2)


def ssdlite320_head():
    return SSDLiteHeadOnly(), (1, 3, 320, 320)


# name: (builder, tolerance, kept in the repository, BatchNorm recipe: "random" statistics, the
# issue 25 cases', or "calibrated" on seeded batches, issue 28's)
CASES = {
    "swin_t_narrow": (swin_t_narrow, (1e-4, 1e-4), True, "random"),
    "r3d_18_narrow": (r3d_18_narrow, (1e-4, 1e-4), True, "random"),
    "super_resolution": (super_resolution, (1e-4, 1e-4), True, "random"),
    "googlenet_transform": (googlenet_transform, (1e-4, 1e-4), False, "random"),
    "mobilenet_v2_050": (mobilenet_v2_050, (1e-4, 1e-4), True, "calibrated"),
    "mobilenet_v2_100": (mobilenet_v2_100, (1e-4, 1e-4), True, "calibrated"),
    "squeezenet1_1": (squeezenet1_1, (1e-4, 1e-4), True, "calibrated"),
    "densenet121_g12": (densenet121_g12, (1e-4, 1e-4), True, "calibrated"),
    "shufflenet_v2_x0_5": (shufflenet_v2_x0_5, (1e-4, 1e-4), True, "calibrated"),
    "mnasnet0_5": (mnasnet0_5, (5e-4, 5e-4), True, "calibrated"),
    "efficientnet_b0_050": (efficientnet_b0_050, (1e-4, 1e-4), True, "calibrated"),
    "regnet_y_400mf_050": (regnet_y_400mf_050, (1e-4, 1e-4), True, "calibrated"),
    "unet_small": (unet_small, (1e-4, 1e-4), True, "calibrated"),
    "style_transfer_050": (style_transfer_050, (1e-4, 1e-4), True, "calibrated"),
    "ssdlite320_head": (ssdlite320_head, (5e-4, 5e-4), True, "calibrated"),
}


def make_case(name, pnnx, out):
    builder, (atol, rtol), _, recipe = CASES[name]
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    module, shape = builder()
    if recipe == "calibrated":
        calibrate_batchnorm(module, shape, torch.Generator().manual_seed(2))
    module.eval()
    with torch.no_grad():
        if recipe == "random":
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
        if recipe == "calibrated":
            # The module the PyTorch peer of bench.sh and the ONNX export rebuild from the case
            # (python/lumen/torch_graph.py's load_case_module).
            shutil.copy(work / "model_pnnx.py", folder / "model_pnnx.py")
    x.numpy().astype("<f4").tofile(folder / "in0.f32")
    reference.numpy().astype("<f4").tofile(folder / "out0.f32")
    dims = lambda tensor: ",".join(str(d) for d in tensor.shape)  # noqa: E731
    (folder / "case.txt").write_text(
        f"input in0.f32 {dims(x)}\noutput out0.f32 {dims(reference)}\n"
        f"tolerance {atol:g} {rtol:g}\nnote {name}: scripts/make_model_cases.py, seed 0/1"
        f"{', BatchNorm calibrated on 4 batches of seed 2' if recipe == 'calibrated' else ''}, "
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
