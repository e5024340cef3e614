# pnnx model stat
# model inputshape = [1,3,128,128]f32
# FLOPS = 1.165G
# memory OPS = 11.607M

import os
import numpy as np
import tempfile, zipfile
import torch
import torch.nn as nn
import torch.nn.functional as F
try:
    import torchvision
    import torchaudio
except:
    pass

class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

        self.convbn2d_0 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=3, kernel_size=(3,3), out_channels=16, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.enc1_2 = nn.ReLU()
        self.convbn2d_1 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=16, kernel_size=(3,3), out_channels=16, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.enc1_5 = nn.ReLU()
        self.pool = nn.MaxPool2d(ceil_mode=False, dilation=(1,1), kernel_size=(2,2), padding=(0,0), return_indices=False, stride=(2,2))
        self.convbn2d_2 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=16, kernel_size=(3,3), out_channels=32, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.enc2_2 = nn.ReLU()
        self.convbn2d_3 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=32, kernel_size=(3,3), out_channels=32, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.enc2_5 = nn.ReLU()
        self.pnnx_unique_0 = nn.MaxPool2d(ceil_mode=False, dilation=(1,1), kernel_size=(2,2), padding=(0,0), return_indices=False, stride=(2,2))
        self.convbn2d_4 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=32, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.enc3_2 = nn.ReLU()
        self.convbn2d_5 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.enc3_5 = nn.ReLU()
        self.pnnx_unique_1 = nn.MaxPool2d(ceil_mode=False, dilation=(1,1), kernel_size=(2,2), padding=(0,0), return_indices=False, stride=(2,2))
        self.convbn2d_6 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=128, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.bottleneck_2 = nn.ReLU()
        self.convbn2d_7 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=128, kernel_size=(3,3), out_channels=128, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.bottleneck_5 = nn.ReLU()
        self.up3 = nn.ConvTranspose2d(bias=True, dilation=(1,1), groups=1, in_channels=128, kernel_size=(2,2), out_channels=64, output_padding=(0,0), padding=(0,0), stride=(2,2))
        self.convbn2d_8 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=128, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.dec3_2 = nn.ReLU()
        self.convbn2d_9 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.dec3_5 = nn.ReLU()
        self.up2 = nn.ConvTranspose2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(2,2), out_channels=32, output_padding=(0,0), padding=(0,0), stride=(2,2))
        self.convbn2d_10 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=32, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.dec2_2 = nn.ReLU()
        self.convbn2d_11 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=32, kernel_size=(3,3), out_channels=32, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.dec2_5 = nn.ReLU()
        self.up1 = nn.ConvTranspose2d(bias=True, dilation=(1,1), groups=1, in_channels=32, kernel_size=(2,2), out_channels=16, output_padding=(0,0), padding=(0,0), stride=(2,2))
        self.convbn2d_12 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=32, kernel_size=(3,3), out_channels=16, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.dec1_2 = nn.ReLU()
        self.convbn2d_13 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=16, kernel_size=(3,3), out_channels=16, padding=(1,1), padding_mode='zeros', stride=(1,1))
        self.dec1_5 = nn.ReLU()
        self.head = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=16, kernel_size=(1,1), out_channels=2, padding=(0,0), padding_mode='zeros', stride=(1,1))

        archive = zipfile.ZipFile('model.pnnx.bin', 'r')
        self.convbn2d_0.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_0.bias', (16), 'float32')
        self.convbn2d_0.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_0.weight', (16,3,3,3), 'float32')
        self.convbn2d_1.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_1.bias', (16), 'float32')
        self.convbn2d_1.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_1.weight', (16,16,3,3), 'float32')
        self.convbn2d_2.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_2.bias', (32), 'float32')
        self.convbn2d_2.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_2.weight', (32,16,3,3), 'float32')
        self.convbn2d_3.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_3.bias', (32), 'float32')
        self.convbn2d_3.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_3.weight', (32,32,3,3), 'float32')
        self.convbn2d_4.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_4.bias', (64), 'float32')
        self.convbn2d_4.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_4.weight', (64,32,3,3), 'float32')
        self.convbn2d_5.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_5.bias', (64), 'float32')
        self.convbn2d_5.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_5.weight', (64,64,3,3), 'float32')
        self.convbn2d_6.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_6.bias', (128), 'float32')
        self.convbn2d_6.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_6.weight', (128,64,3,3), 'float32')
        self.convbn2d_7.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_7.bias', (128), 'float32')
        self.convbn2d_7.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_7.weight', (128,128,3,3), 'float32')
        self.up3.bias = self.load_pnnx_bin_as_parameter(archive, 'up3.bias', (64), 'float32')
        self.up3.weight = self.load_pnnx_bin_as_parameter(archive, 'up3.weight', (128,64,2,2), 'float32')
        self.convbn2d_8.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_8.bias', (64), 'float32')
        self.convbn2d_8.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_8.weight', (64,128,3,3), 'float32')
        self.convbn2d_9.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_9.bias', (64), 'float32')
        self.convbn2d_9.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_9.weight', (64,64,3,3), 'float32')
        self.up2.bias = self.load_pnnx_bin_as_parameter(archive, 'up2.bias', (32), 'float32')
        self.up2.weight = self.load_pnnx_bin_as_parameter(archive, 'up2.weight', (64,32,2,2), 'float32')
        self.convbn2d_10.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_10.bias', (32), 'float32')
        self.convbn2d_10.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_10.weight', (32,64,3,3), 'float32')
        self.convbn2d_11.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_11.bias', (32), 'float32')
        self.convbn2d_11.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_11.weight', (32,32,3,3), 'float32')
        self.up1.bias = self.load_pnnx_bin_as_parameter(archive, 'up1.bias', (16), 'float32')
        self.up1.weight = self.load_pnnx_bin_as_parameter(archive, 'up1.weight', (32,16,2,2), 'float32')
        self.convbn2d_12.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_12.bias', (16), 'float32')
        self.convbn2d_12.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_12.weight', (16,32,3,3), 'float32')
        self.convbn2d_13.bias = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_13.bias', (16), 'float32')
        self.convbn2d_13.weight = self.load_pnnx_bin_as_parameter(archive, 'convbn2d_13.weight', (16,16,3,3), 'float32')
        self.head.bias = self.load_pnnx_bin_as_parameter(archive, 'head.bias', (2), 'float32')
        self.head.weight = self.load_pnnx_bin_as_parameter(archive, 'head.weight', (2,16,1,1), 'float32')
        archive.close()

    def load_pnnx_bin_as_parameter(self, archive, key, shape, dtype, requires_grad=True):
        return nn.Parameter(self.load_pnnx_bin_as_tensor(archive, key, shape, dtype), requires_grad)

    def load_pnnx_bin_as_tensor(self, archive, key, shape, dtype):
        fd, tmppath = tempfile.mkstemp()
        with os.fdopen(fd, 'wb') as tmpf, archive.open(key) as keyfile:
            tmpf.write(keyfile.read())
        m = np.memmap(tmppath, dtype=dtype, mode='r', shape=shape).copy()
        os.remove(tmppath)
        return torch.from_numpy(m)

    def forward(self, v_0):
        v_1 = self.convbn2d_0(v_0)
        v_2 = self.enc1_2(v_1)
        v_3 = self.convbn2d_1(v_2)
        v_4 = self.enc1_5(v_3)
        v_5 = self.pool(v_4)
        v_6 = self.convbn2d_2(v_5)
        v_7 = self.enc2_2(v_6)
        v_8 = self.convbn2d_3(v_7)
        v_9 = self.enc2_5(v_8)
        v_10 = self.pnnx_unique_0(v_9)
        v_11 = self.convbn2d_4(v_10)
        v_12 = self.enc3_2(v_11)
        v_13 = self.convbn2d_5(v_12)
        v_14 = self.enc3_5(v_13)
        v_15 = self.pnnx_unique_1(v_14)
        v_16 = self.convbn2d_6(v_15)
        v_17 = self.bottleneck_2(v_16)
        v_18 = self.convbn2d_7(v_17)
        v_19 = self.bottleneck_5(v_18)
        v_20 = self.up3(v_19)
        v_21 = torch.cat((v_20, v_14), dim=1)
        v_22 = self.convbn2d_8(v_21)
        v_23 = self.dec3_2(v_22)
        v_24 = self.convbn2d_9(v_23)
        v_25 = self.dec3_5(v_24)
        v_26 = self.up2(v_25)
        v_27 = torch.cat((v_26, v_9), dim=1)
        v_28 = self.convbn2d_10(v_27)
        v_29 = self.dec2_2(v_28)
        v_30 = self.convbn2d_11(v_29)
        v_31 = self.dec2_5(v_30)
        v_32 = self.up1(v_31)
        v_33 = torch.cat((v_32, v_4), dim=1)
        v_34 = self.convbn2d_12(v_33)
        v_35 = self.dec1_2(v_34)
        v_36 = self.convbn2d_13(v_35)
        v_37 = self.dec1_5(v_36)
        v_38 = self.head(v_37)
        return v_38

def export_torchscript():
    net = Model()
    net.float()
    net.eval()

    torch.manual_seed(0)
    v_0 = torch.rand(1, 3, 128, 128, dtype=torch.float)

    mod = torch.jit.trace(net, v_0)
    mod.save("model_pnnx.py.pt")

def export_onnx():
    net = Model()
    net.float()
    net.eval()

    torch.manual_seed(0)
    v_0 = torch.rand(1, 3, 128, 128, dtype=torch.float)

    torch.onnx.export(net, v_0, "model_pnnx.py.onnx", export_params=True, operator_export_type=torch.onnx.OperatorExportTypes.ONNX_ATEN_FALLBACK, opset_version=13, input_names=['in0'], output_names=['out0'])

def export_pnnx():
    net = Model()
    net.float()
    net.eval()

    torch.manual_seed(0)
    v_0 = torch.rand(1, 3, 128, 128, dtype=torch.float)

    import pnnx
    pnnx.export(net, "model_pnnx.py.pt", v_0)

def export_ncnn():
    export_pnnx()

@torch.no_grad()
def test_inference():
    net = Model()
    net.float()
    net.eval()

    torch.manual_seed(0)
    v_0 = torch.rand(1, 3, 128, 128, dtype=torch.float)

    return net(v_0)

if __name__ == "__main__":
    print(test_inference())
