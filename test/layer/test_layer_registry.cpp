// The layer registry: every operator type Lumen implements is registered (which also proves the
// registrations survive static linking), and unknown types are reported by name.
#include <gtest/gtest.h>

#include <algorithm>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

TEST(LayerRegistry, RegistersEveryOperatorAndItsAliases) {
  // pnnx.Input and pnnx.Output are not layers: the reader turns them into the graph's inputs
  // and outputs.
  const std::vector<std::string> expected = {"pnnx.Attribute",
                                             "pnnx.Expression",
                                             "nn.Conv2d",
                                             "nn.ConvTranspose2d",
                                             "nn.ReLU",
                                             "F.relu",
                                             "nn.ReLU6",
                                             "F.relu6",
                                             "nn.LeakyReLU",
                                             "F.leaky_relu",
                                             "nn.ELU",
                                             "F.elu",
                                             "nn.SiLU",
                                             "F.silu",
                                             "nn.Sigmoid",
                                             "F.sigmoid",
                                             "nn.Tanh",
                                             "F.tanh",
                                             "nn.Hardswish",
                                             "F.hardswish",
                                             "nn.Hardsigmoid",
                                             "F.hardsigmoid",
                                             "nn.MaxPool2d",
                                             "F.max_pool2d",
                                             "nn.AvgPool2d",
                                             "nn.AdaptiveAvgPool2d",
                                             "F.adaptive_avg_pool2d",
                                             "nn.BatchNorm2d",
                                             "nn.Linear",
                                             "torch.flatten",
                                             "nn.Softmax",
                                             "F.softmax",
                                             "torch.cat",
                                             "nn.Upsample",
                                             "F.upsample",
                                             "F.interpolate",
                                             "Tensor.view",
                                             "Tensor.reshape",
                                             "torch.permute",
                                             "Tensor.permute",
                                             "torch.transpose",
                                             "Tensor.slice",
                                             "torch.split",
                                             "torch.chunk",
                                             "torch.squeeze",
                                             "torch.unsqueeze",
                                             "torch.mean",
                                             "torch.sum",
                                             "nn.ChannelShuffle",
                                             "models.yolo.Detect",
                                             "nn.AdaptiveMaxPool2d",
                                             "F.adaptive_max_pool2d",
                                             "F.avg_pool2d",
                                             "nn.AvgPool1d",
                                             "F.avg_pool1d",
                                             "F.channel_shuffle",
                                             "torch.clamp",
                                             "Tensor.clamp",
                                             "torch.clip",
                                             "Tensor.clip",
                                             "torch.concat",
                                             "nn.Conv1d",
                                             "torch.einsum",
                                             "Tensor.expand",
                                             "Tensor.expand_as",
                                             "torch.max",
                                             "torch.min",
                                             "nn.GELU",
                                             "F.gelu",
                                             "nn.GroupNorm",
                                             "F.group_norm",
                                             "nn.Hardtanh",
                                             "F.hardtanh",
                                             "nn.InstanceNorm1d",
                                             "nn.InstanceNorm2d",
                                             "nn.InstanceNorm3d",
                                             "F.instance_norm",
                                             "nn.LayerNorm",
                                             "F.layer_norm",
                                             "torch.matmul",
                                             "Tensor.matmul",
                                             "torch.bmm",
                                             "torch.mm",
                                             "nn.MaxPool1d",
                                             "F.max_pool1d",
                                             "nn.Mish",
                                             "F.mish",
                                             "nn.MultiheadAttention",
                                             "F.normalize",
                                             "F.pad",
                                             "nn.ConstantPad1d",
                                             "nn.ConstantPad2d",
                                             "nn.ConstantPad3d",
                                             "nn.ZeroPad2d",
                                             "nn.ReflectionPad1d",
                                             "nn.ReflectionPad2d",
                                             "nn.ReplicationPad1d",
                                             "nn.ReplicationPad2d",
                                             "nn.ReplicationPad3d",
                                             "nn.PixelShuffle",
                                             "F.pixel_shuffle",
                                             "nn.PixelUnshuffle",
                                             "F.pixel_unshuffle",
                                             "nn.PReLU",
                                             "F.prelu",
                                             "nn.LSTM",
                                             "nn.GRU",
                                             "nn.RNN",
                                             "Tensor.mean",
                                             "Tensor.sum",
                                             "torch.relu",
                                             "Tensor.relu",
                                             "Tensor.repeat",
                                             "torch.reshape",
                                             "nn.RMSNorm",
                                             "F.rms_norm",
                                             "Tensor.select",
                                             "torch.sigmoid",
                                             "Tensor.sigmoid",
                                             "torch.softmax",
                                             "Tensor.softmax",
                                             "nn.Softplus",
                                             "F.softplus",
                                             "Tensor.split",
                                             "Tensor.chunk",
                                             "torch.tensor_split",
                                             "Tensor.tensor_split",
                                             "Tensor.squeeze",
                                             "torch.stack",
                                             "torch.tanh",
                                             "Tensor.tanh",
                                             "Tensor.transpose",
                                             "Tensor.to",
                                             "Tensor.unsqueeze",
                                             "F.upsample_nearest"};
  const std::vector<std::string> registered = LayerRegistry::RegisteredTypes();
  for (const std::string& type : expected) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
    EXPECT_TRUE(std::count(registered.begin(), registered.end(), type)) << type;
  }
  EXPECT_TRUE(std::is_sorted(registered.begin(), registered.end()));
}

TEST(LayerRegistry, ReportsAnUnknownTypeWithItsNameAndLine) {
  Node op;
  op.type = "nn.Frobnicate";
  op.name = "layer3.frob";
  op.line = 42;
  try {
    LayerRegistry::Create(LayerConfig(op));
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "unsupported operator type nn.Frobnicate 'layer3.frob' (line 42)");
  }
}

}  // namespace
}  // namespace lumen
