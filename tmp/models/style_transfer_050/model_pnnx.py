# pnnx model stat
# model inputshape = [1,3,128,128]f32
# FLOPS = 1.404G
# memory OPS = 11.468M

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

        self.padconv2d_0 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=3, kernel_size=(9,9), out_channels=16, padding=(4,4), padding_mode='reflect', stride=(1,1))
        self.in1 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=16, track_running_stats=False)
        self.relu = nn.ReLU()
        self.padconv2d_1 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=16, kernel_size=(3,3), out_channels=32, padding=(1,1), padding_mode='reflect', stride=(2,2))
        self.in2 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=32, track_running_stats=False)
        self.pnnx_unique_0 = nn.ReLU()
        self.padconv2d_2 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=32, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(2,2))
        self.in3 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.pnnx_unique_1 = nn.ReLU()
        self.padconv2d_3 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res1_in1 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.res1_relu = nn.ReLU()
        self.padconv2d_4 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res1_in2 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.padconv2d_5 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res2_in1 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.res2_relu = nn.ReLU()
        self.padconv2d_6 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res2_in2 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.padconv2d_7 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res3_in1 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.res3_relu = nn.ReLU()
        self.padconv2d_8 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res3_in2 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.padconv2d_9 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res4_in1 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.res4_relu = nn.ReLU()
        self.padconv2d_10 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res4_in2 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.padconv2d_11 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res5_in1 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.res5_relu = nn.ReLU()
        self.padconv2d_12 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=64, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.res5_in2 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=64, track_running_stats=False)
        self.deconv1_upsample = nn.Upsample(mode='nearest', scale_factor=(2.0,2.0), size=None)
        self.padconv2d_13 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=64, kernel_size=(3,3), out_channels=32, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.in4 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=32, track_running_stats=False)
        self.pnnx_unique_2 = nn.ReLU()
        self.deconv2_upsample = nn.Upsample(mode='nearest', scale_factor=(2.0,2.0), size=None)
        self.padconv2d_14 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=32, kernel_size=(3,3), out_channels=16, padding=(1,1), padding_mode='reflect', stride=(1,1))
        self.in5 = nn.InstanceNorm2d(affine=True, eps=1.000000e-5, num_features=16, track_running_stats=False)
        self.pnnx_unique_3 = nn.ReLU()
        self.padconv2d_15 = nn.Conv2d(bias=True, dilation=(1,1), groups=1, in_channels=16, kernel_size=(9,9), out_channels=3, padding=(4,4), padding_mode='reflect', stride=(1,1))

        archive = zipfile.ZipFile('model.pnnx.bin', 'r')
        self.padconv2d_0.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_0.bias', (16), 'float32')
        self.padconv2d_0.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_0.weight', (16,3,9,9), 'float32')
        self.in1.bias = self.load_pnnx_bin_as_parameter(archive, 'in1.bias', (16), 'float32')
        self.in1.weight = self.load_pnnx_bin_as_parameter(archive, 'in1.weight', (16), 'float32')
        self.padconv2d_1.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_1.bias', (32), 'float32')
        self.padconv2d_1.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_1.weight', (32,16,3,3), 'float32')
        self.in2.bias = self.load_pnnx_bin_as_parameter(archive, 'in2.bias', (32), 'float32')
        self.in2.weight = self.load_pnnx_bin_as_parameter(archive, 'in2.weight', (32), 'float32')
        self.padconv2d_2.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_2.bias', (64), 'float32')
        self.padconv2d_2.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_2.weight', (64,32,3,3), 'float32')
        self.in3.bias = self.load_pnnx_bin_as_parameter(archive, 'in3.bias', (64), 'float32')
        self.in3.weight = self.load_pnnx_bin_as_parameter(archive, 'in3.weight', (64), 'float32')
        self.padconv2d_3.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_3.bias', (64), 'float32')
        self.padconv2d_3.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_3.weight', (64,64,3,3), 'float32')
        self.res1_in1.bias = self.load_pnnx_bin_as_parameter(archive, 'res1.in1.bias', (64), 'float32')
        self.res1_in1.weight = self.load_pnnx_bin_as_parameter(archive, 'res1.in1.weight', (64), 'float32')
        self.padconv2d_4.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_4.bias', (64), 'float32')
        self.padconv2d_4.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_4.weight', (64,64,3,3), 'float32')
        self.res1_in2.bias = self.load_pnnx_bin_as_parameter(archive, 'res1.in2.bias', (64), 'float32')
        self.res1_in2.weight = self.load_pnnx_bin_as_parameter(archive, 'res1.in2.weight', (64), 'float32')
        self.padconv2d_5.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_5.bias', (64), 'float32')
        self.padconv2d_5.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_5.weight', (64,64,3,3), 'float32')
        self.res2_in1.bias = self.load_pnnx_bin_as_parameter(archive, 'res2.in1.bias', (64), 'float32')
        self.res2_in1.weight = self.load_pnnx_bin_as_parameter(archive, 'res2.in1.weight', (64), 'float32')
        self.padconv2d_6.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_6.bias', (64), 'float32')
        self.padconv2d_6.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_6.weight', (64,64,3,3), 'float32')
        self.res2_in2.bias = self.load_pnnx_bin_as_parameter(archive, 'res2.in2.bias', (64), 'float32')
        self.res2_in2.weight = self.load_pnnx_bin_as_parameter(archive, 'res2.in2.weight', (64), 'float32')
        self.padconv2d_7.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_7.bias', (64), 'float32')
        self.padconv2d_7.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_7.weight', (64,64,3,3), 'float32')
        self.res3_in1.bias = self.load_pnnx_bin_as_parameter(archive, 'res3.in1.bias', (64), 'float32')
        self.res3_in1.weight = self.load_pnnx_bin_as_parameter(archive, 'res3.in1.weight', (64), 'float32')
        self.padconv2d_8.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_8.bias', (64), 'float32')
        self.padconv2d_8.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_8.weight', (64,64,3,3), 'float32')
        self.res3_in2.bias = self.load_pnnx_bin_as_parameter(archive, 'res3.in2.bias', (64), 'float32')
        self.res3_in2.weight = self.load_pnnx_bin_as_parameter(archive, 'res3.in2.weight', (64), 'float32')
        self.padconv2d_9.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_9.bias', (64), 'float32')
        self.padconv2d_9.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_9.weight', (64,64,3,3), 'float32')
        self.res4_in1.bias = self.load_pnnx_bin_as_parameter(archive, 'res4.in1.bias', (64), 'float32')
        self.res4_in1.weight = self.load_pnnx_bin_as_parameter(archive, 'res4.in1.weight', (64), 'float32')
        self.padconv2d_10.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_10.bias', (64), 'float32')
        self.padconv2d_10.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_10.weight', (64,64,3,3), 'float32')
        self.res4_in2.bias = self.load_pnnx_bin_as_parameter(archive, 'res4.in2.bias', (64), 'float32')
        self.res4_in2.weight = self.load_pnnx_bin_as_parameter(archive, 'res4.in2.weight', (64), 'float32')
        self.padconv2d_11.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_11.bias', (64), 'float32')
        self.padconv2d_11.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_11.weight', (64,64,3,3), 'float32')
        self.res5_in1.bias = self.load_pnnx_bin_as_parameter(archive, 'res5.in1.bias', (64), 'float32')
        self.res5_in1.weight = self.load_pnnx_bin_as_parameter(archive, 'res5.in1.weight', (64), 'float32')
        self.padconv2d_12.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_12.bias', (64), 'float32')
        self.padconv2d_12.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_12.weight', (64,64,3,3), 'float32')
        self.res5_in2.bias = self.load_pnnx_bin_as_parameter(archive, 'res5.in2.bias', (64), 'float32')
        self.res5_in2.weight = self.load_pnnx_bin_as_parameter(archive, 'res5.in2.weight', (64), 'float32')
        self.padconv2d_13.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_13.bias', (32), 'float32')
        self.padconv2d_13.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_13.weight', (32,64,3,3), 'float32')
        self.in4.bias = self.load_pnnx_bin_as_parameter(archive, 'in4.bias', (32), 'float32')
        self.in4.weight = self.load_pnnx_bin_as_parameter(archive, 'in4.weight', (32), 'float32')
        self.padconv2d_14.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_14.bias', (16), 'float32')
        self.padconv2d_14.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_14.weight', (16,32,3,3), 'float32')
        self.in5.bias = self.load_pnnx_bin_as_parameter(archive, 'in5.bias', (16), 'float32')
        self.in5.weight = self.load_pnnx_bin_as_parameter(archive, 'in5.weight', (16), 'float32')
        self.padconv2d_15.bias = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_15.bias', (3), 'float32')
        self.padconv2d_15.weight = self.load_pnnx_bin_as_parameter(archive, 'padconv2d_15.weight', (3,16,9,9), 'float32')
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
        v_1 = self.padconv2d_0(v_0)
        v_2 = self.in1(v_1)
        v_3 = self.relu(v_2)
        v_4 = self.padconv2d_1(v_3)
        v_5 = self.in2(v_4)
        v_6 = self.pnnx_unique_0(v_5)
        v_7 = self.padconv2d_2(v_6)
        v_8 = self.in3(v_7)
        v_9 = self.pnnx_unique_1(v_8)
        v_10 = self.padconv2d_3(v_9)
        v_11 = self.res1_in1(v_10)
        v_12 = self.res1_relu(v_11)
        v_13 = self.padconv2d_4(v_12)
        v_14 = self.res1_in2(v_13)
        v_15 = (v_14 + v_9)
        v_16 = self.padconv2d_5(v_15)
        v_17 = self.res2_in1(v_16)
        v_18 = self.res2_relu(v_17)
        v_19 = self.padconv2d_6(v_18)
        v_20 = self.res2_in2(v_19)
        v_21 = (v_20 + v_15)
        v_22 = self.padconv2d_7(v_21)
        v_23 = self.res3_in1(v_22)
        v_24 = self.res3_relu(v_23)
        v_25 = self.padconv2d_8(v_24)
        v_26 = self.res3_in2(v_25)
        v_27 = (v_26 + v_21)
        v_28 = self.padconv2d_9(v_27)
        v_29 = self.res4_in1(v_28)
        v_30 = self.res4_relu(v_29)
        v_31 = self.padconv2d_10(v_30)
        v_32 = self.res4_in2(v_31)
        v_33 = (v_32 + v_27)
        v_34 = self.padconv2d_11(v_33)
        v_35 = self.res5_in1(v_34)
        v_36 = self.res5_relu(v_35)
        v_37 = self.padconv2d_12(v_36)
        v_38 = self.res5_in2(v_37)
        v_39 = (v_38 + v_33)
        v_40 = self.deconv1_upsample(v_39)
        v_41 = self.padconv2d_13(v_40)
        v_42 = self.in4(v_41)
        v_43 = self.pnnx_unique_2(v_42)
        v_44 = self.deconv2_upsample(v_43)
        v_45 = self.padconv2d_14(v_44)
        v_46 = self.in5(v_45)
        v_47 = self.pnnx_unique_3(v_46)
        v_48 = self.padconv2d_15(v_47)
        return v_48

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
