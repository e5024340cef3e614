// The ONNX reader: op cases against PyTorch, what the exporter's constructs become, and a clear
// lumen::Error for every hostile file. The models are made by scripts/make_onnx_test_models.py.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "graph/graph_reader.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "onnx/onnx_reader.hpp"
#include "support/case_runner.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

const std::string kData = lumen::test_support::SourceDirectory() + "/test/data/onnx";

// The message ReadGraph throws for the file, or "" when it reads the file.
std::string ReadError(const std::string& path, const std::string& weights_path = "") {
  try {
    ReadGraph(path, weights_path);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// The op cases: folders under test/data/onnx holding a case.txt.
std::vector<std::string> OpCases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    if (std::filesystem::exists(entry.path() / "case.txt")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

class OnnxOpCaseTest : public testing::TestWithParam<std::string> {};

TEST_P(OnnxOpCaseTest, MatchesPyTorch) {
  test_support::ExpectCaseMatches(kData + "/" + GetParam());
}

INSTANTIATE_TEST_SUITE_P(OnnxReader, OnnxOpCaseTest, testing::ValuesIn(OpCases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(OnnxReader, EveryCaseFolderIsFound) { EXPECT_GE(OpCases().size(), 15u); }

// Every node type the reader writes is a layer Lumen has.
TEST(OnnxReader, MapsOntoRegisteredLayers) {
  for (const char* type : {"nn.Conv2d",
                           "nn.ConvTranspose2d",
                           "nn.Linear",
                           "torch.matmul",
                           "nn.BatchNorm2d",
                           "pnnx.Attribute",
                           "pnnx.Expression",
                           "nn.MaxPool2d",
                           "nn.AvgPool2d",
                           "nn.AdaptiveAvgPool2d",
                           "torch.flatten",
                           "Tensor.reshape",
                           "torch.permute",
                           "torch.squeeze",
                           "torch.unsqueeze",
                           "nn.Softmax",
                           "Tensor.slice",
                           "Tensor.select",
                           "torch.index_select",
                           "torch.split",
                           "torch.chunk",
                           "torch.mean",
                           "torch.sum",
                           "nn.Upsample",
                           "torch.cat",
                           "nn.ELU",
                           "nn.LeakyReLU",
                           "nn.Hardsigmoid",
                           "nn.ReLU",
                           "nn.ReLU6",
                           "nn.Sigmoid",
                           "nn.Tanh",
                           "nn.Hardswish",
                           "torch.einsum",
                           "nn.LSTM",
                           "nn.GRU",
                           "nn.RNN",
                           "torch.stack",
                           "F.pad",
                           "Tensor.repeat",
                           "nn.PixelShuffle",
                           "nn.PixelUnshuffle",
                           "nn.ChannelShuffle",
                           "nn.InstanceNorm1d",
                           "nn.InstanceNorm2d",
                           "nn.InstanceNorm3d",
                           "torch.max",
                           "torch.min",
                           "nn.MaxPool1d",
                           "nn.AvgPool1d"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

TEST(OnnxReader, GemmBecomesOneLinearLayer) {
  const Graph graph = ReadOnnxGraph(kData + "/gemm_alpha_beta/model.onnx");
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].type, "nn.Linear");
  EXPECT_EQ(graph.nodes[0].params.at("in_features").AsInt(), 3);
  EXPECT_EQ(graph.nodes[0].params.at("out_features").AsInt(), 4);
  // alpha and transB=0 are folded into the (N,K) weight, beta into the bias.
  EXPECT_EQ(graph.nodes[0].attributes.at("weight").shape, (std::vector<int>{4, 3}));
  EXPECT_EQ(graph.input_names, std::vector<std::string>{"a"});  // b and c are weights
  EXPECT_EQ(graph.output_names, std::vector<std::string>{"y"});
}

TEST(OnnxReader, ShapeArithmeticIsComputedWhenASessionPlans) {
  // Shape -> Gather -> Unsqueeze -> Concat -> Reshape: x.reshape(x.size(0), -1). The arithmetic
  // is computed for each input shape a session plans, and only the reshape runs.
  const std::shared_ptr<const Model> model = Model::Load(kData + "/shape_subgraph/model.onnx");
  Session session(model);
  for (const Shape& shape : {Shape{2, 3, 4}, Shape{5, 2, 7}, Shape{1, 1, 1}}) {
    Tensor input(shape);
    const std::vector<Tensor> outputs = session.Run({input});
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].shape(), (Shape{shape[0], shape[1] * shape[2]}));
    std::vector<std::string> ran;
    for (const OperatorProfile& step : session.Profile()) ran.push_back(step.type);
    EXPECT_EQ(ran, (std::vector<std::string>{"lumen.Reshape"}));
  }
}

TEST(OnnxReader, ScalarsAreWrittenIntoExpressions) {
  const Graph graph = ReadOnnxGraph(kData + "/identity_and_constants/model.onnx");
  std::vector<std::string> expressions;
  for (const Node& node : graph.nodes) {
    if (node.type == "pnnx.Expression") expressions.push_back(node.params.at("expr").AsString());
  }
  EXPECT_NE(std::find(expressions.begin(), expressions.end(), "sub(@0,1.5)"), expressions.end());
  EXPECT_NE(std::find(expressions.begin(), expressions.end(), "pow(@0,2)"), expressions.end());
  // The output that is the input passed through Identity gets its own operand.
  EXPECT_NE(std::find(expressions.begin(), expressions.end(), "identity(@0)"), expressions.end());
}

TEST(OnnxReader, PicksTheFormatByContent) {
  EXPECT_TRUE(LooksLikeOnnx(std::string("\x08\x07", 2)));
  EXPECT_FALSE(LooksLikeOnnx("7767517\n"));
  EXPECT_FALSE(LooksLikeOnnx(""));
  EXPECT_EQ(ReadError(kData + "/hostile/valid.onnx"), "");
  // A copy without the .onnx extension is still read as ONNX.
  const std::string copy = testing::TempDir() + "/model_without_extension";
  std::filesystem::copy_file(kData + "/hostile/valid.onnx", copy,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(ReadError(copy), "");
  EXPECT_NE(ReadError(kData + "/hostile/valid.onnx", "weights.bin").find("holds its own weights"),
            std::string::npos);
}

TEST(OnnxReader, ReadsExternalDataInsideTheModelsFolder) {
  EXPECT_EQ(ReadError(kData + "/hostile/external_inside.onnx"), "");
}

// Each hostile file: the message names the problem.
struct HostileCase {
  const char* file;
  const char* expected;  // a part of the message
};

class OnnxHostileTest : public testing::TestWithParam<HostileCase> {};

TEST_P(OnnxHostileTest, IsAClearError) {
  const std::string message = ReadError(kData + "/hostile/" + GetParam().file);
  EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
  EXPECT_NE(message.find(GetParam().file), std::string::npos) << "names the file: " << message;
}

INSTANTIATE_TEST_SUITE_P(
    OnnxReader, OnnxHostileTest,
    testing::Values(
        HostileCase{"truncated.onnx", "truncated or malformed"},
        HostileCase{"malformed.onnx", "truncated or malformed"},
        HostileCase{"raw_data_short.onnx",
                    "raw_data holds 10 bytes but dims (4,4) of FLOAT need 64"},
        HostileCase{"external_outside.onnx", "must be a relative path inside the model's folder"},
        HostileCase{"external_absolute.onnx", "must be a relative path inside the model's folder"},
        HostileCase{"external_short.onnx", "holds fewer than 64 bytes"},
        HostileCase{"cycle.onnx", "the graph has a cycle"},
        HostileCase{"missing_input.onnx", "reads 'nowhere', which no node"},
        HostileCase{"unsupported_op.onnx", "Unique, first at node 'unique'"},
        HostileCase{"unsupported_op.onnx", "opset 13"},
        HostileCase{"old_opset.onnx",
                    "node 'relu' (Relu, opset 5): version 1 of Relu (the one opset 5 uses) is not "
                    "supported"},
        // Ops whose semantics at the model's opset Lumen does not reproduce
        // (scripts/make_onnx_opset_cases.py).
        HostileCase{"opset_upsample_linear.onnx",
                    "node 'up' (Upsample, opset 9): mode 'linear' before opset 11"},
        HostileCase{"opset_upsample7_bilinear.onnx",
                    "node 'up' (Upsample, opset 7): mode 'bilinear' before opset 11"},
        HostileCase{"opset_batchnorm_spatial0.onnx",
                    "node 'norm' (BatchNormalization, opset 7): spatial=0"},
        HostileCase{"opset_batchnorm9_training_outputs.onnx",
                    "node 'norm' (BatchNormalization, opset 9): BatchNormalization with the "
                    "running statistics' outputs computes in training mode"},
        HostileCase{"opset_convtranspose10_output_shape.onnx",
                    "node 'deconv' (ConvTranspose, opset 10): output_shape and auto_pad of "
                    "ConvTranspose before opset 11"},
        HostileCase{"opset_maxpool9_ceil_mode.onnx",
                    "node 'pool' (MaxPool, opset 9): MaxPool has no attribute ceil_mode before "
                    "opset 10"},
        HostileCase{"opset_resize18_antialias.onnx",
                    "node 'resize' (Resize, opset 18): antialias=1 is not supported"},
        HostileCase{"opset_resize18_axes.onnx",
                    "node 'resize' (Resize, opset 18): the axes attribute (opset 18) is not "
                    "supported"},
        HostileCase{"integer_input.onnx", "element type INT64"},
        HostileCase{"resize_cubic.onnx",
                    "node 'resize' (Resize, opset 13): mode 'cubic' is not supported"},
        HostileCase{"huge_initializer_dims.onnx",
                    "initializer 'w': dims (1048576,1048576) hold more than"},
        HostileCase{"constant_of_shape_huge.onnx",
                    "node 'fill' (ConstantOfShape, opset 13): evaluating this when loading would "
                    "make a tensor of (1073741824)"},
        HostileCase{"broadcast_huge.onnx",
                    "node 'outer' (Mul, opset 13): evaluating this when loading would make a "
                    "tensor of (4096,8192)"},
        HostileCase{"lstm_missing_weights.onnx",
                    "node 'lstm' (LSTM, opset 13): the weight W (input 1) is missing"},
        HostileCase{"gru_linear_before_reset_0.onnx",
                    "node 'gru' (GRU, opset 13): linear_before_reset=0 is not supported"},
        HostileCase{"gru_reverse.onnx",
                    "node 'gru' (GRU, opset 13): direction 'reverse' is not supported"},
        HostileCase{"pad_wrap.onnx", "node 'pad' (Pad, opset 13): mode 'wrap' is not supported"},
        HostileCase{"shape_without_input.onnx",
                    "node 'shape' (Shape, opset 13): input 0 is missing"},
        // Found by the ONNX fuzzer: a Transpose without perm and without its input read past
        // the end of the node's input list.
        HostileCase{"fuzz_transpose_no_input.onnx",
                    "node '/Transpose' (Transpose, opset 17): input 0 is missing"},
        // Found by the ONNX fuzzer: a Pad whose axes input counts back 2^51 axes sized its pads
        // list by that rank (an allocation of petabytes).
        // The ONNX fuzzer's find (UndefinedBehaviorSanitizer): scalars read from constants with no
        // element, past their end.
        HostileCase{"clip_empty_min.onnx",
                    "node 'clip' (Clip, opset 13): min (0) FLOAT must be one value"},
        HostileCase{"range_empty_start.onnx",
                    "node 'range' (Range, opset 13): input 0 must be one value"},
        // The ONNX fuzzer's find (UndefinedBehaviorSanitizer): the product of a constant Reshape's
        // target extents overflowed int64.
        HostileCase{"fuzz_reshape_shape_overflow.onnx",
                    "node '/m/Reshape' (Reshape, opset 13): shape (562949953421311,4398046511358) "
                    "has more elements than an int64 counts"},
        HostileCase{"fuzz_pad_axes_huge.onnx",
                    "node 'pad' (Pad, opset 18): axis -2251799813685250 needs a rank above 8, "
                    "the largest Lumen holds"}),
    [](const testing::TestParamInfo<HostileCase>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.')) + "_" + std::to_string(info.index);
      return name;
    });

// The message of the lumen::Error that loading `file` (in hostile/) and running it at its declared
// input shapes, within 256 MB, throws; "" if it runs.
std::string RunError(const std::string& file) {
  try {
    const std::shared_ptr<const Model> model = Model::Load(kData + "/hostile/" + file);
    SessionOptions options;
    options.threads = 1;
    options.max_memory_bytes = size_t{256} << 20;
    Session session(model, options);
    for (size_t i = 0; i < model->input_names().size(); ++i) session.input(i).Fill(0.5f);
    session.Run();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(OnnxReader, AnExpandToAbsurdDimsIsRefusedWhenPlanned) {
  // Read without allocating anything that size (Tensor.expand, not a tensor of zeros); the session
  // then refuses to plan a (2^20, 2^20) output.
  EXPECT_EQ(ReadError(kData + "/hostile/expand_huge.onnx"), "");
  const std::string message = RunError("expand_huge.onnx");
  EXPECT_NE(message.find("more than the memory budget"), std::string::npos) << message;
}

TEST(OnnxReader, AbsurdDeclaredInputDimsAreRefusedWhenPlanned) {
  // Size of a (2^20, 2^20, 2^20) input: shapes are a session's, so the model loads, and a session
  // at the declared shape refuses the input's element count before allocating anything.
  EXPECT_EQ(ReadError(kData + "/hostile/declared_dims_huge.onnx"), "");
  const std::string message = RunError("declared_dims_huge.onnx");
  EXPECT_THAT(message, HasSubstr("(1048576,1048576,1048576)")) << message;
}

TEST(OnnxReader, AGatherPastTheEndIsAnErrorNamingNodeIndexAndExtent) {
  // Both used to run and return an empty (1,0,8,8) or a clamped result.
  std::string message = RunError("gather_index_out_of_range.onnx");
  EXPECT_THAT(message, HasSubstr("'/Gather'")) << message;
  EXPECT_THAT(message, HasSubstr("index 100 is out of range for dim 1 of extent 4")) << message;
  message = RunError("gather_indices_out_of_range.onnx");
  EXPECT_THAT(message, HasSubstr("torch.index_select '/Gather'")) << message;
  EXPECT_THAT(message, HasSubstr("index 4 is out of range for dim 1 of extent 4")) << message;
}

TEST(OnnxReader, AHugePadIsRefusedBeforeItsPlanIsMade) {
  // Found by the ONNX fuzzer: a Pad of about 2^30 built its per-index source tables while its
  // output shape was inferred, before the memory budget was checked (a minute under ASan).
  // The tables took 9 s and gigabytes in a Release build; refusing takes microseconds.
  const auto start = std::chrono::steady_clock::now();
  const std::string message = RunError("fuzz_pad_timeout.onnx");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_NE(message.find("more than the memory budget"), std::string::npos) << message;
}

TEST(OnnxReader, AnEmptyPadOutputWithManyChannelsTakesNoMemory) {
  // Found by the ONNX fuzzer: padding an empty (1,2,0,4) input to (1,704643085,0,33554436), no
  // element, allocated 5.6 GB of Armadillo's per-slice pointers while the session planned (an
  // out-of-memory abort). Now nothing is allocated for the empty output, which the session
  // computes while planning without preparing the Pad (whose per-channel tables took 5 GB): the
  // model runs, within a budget of 256 MB.
  EXPECT_EQ(RunError("fuzz_pad_empty_channels_huge.onnx"), "");
}

TEST(OnnxReader, AConstantWithoutValuesLoads) {
  // Found by the ONNX fuzzer (UndefinedBehaviorSanitizer): a float constant holding no value was
  // copied with memcpy from a null pointer. It loads; the run then stops at the Gather its
  // mutation broke.
  const std::string message = RunError("fuzz_constant_no_values.onnx");
  EXPECT_THAT(message, HasSubstr("index 2147483647 is out of range for dim 1 of extent 5"))
      << message;
}

TEST(OnnxReader, AnEmptyBatchRunsThroughAResize) {
  // Found by the ONNX fuzzer: a nearest Resize of a batch of 0 divided by its channel count, 0
  // (SIGFPE in a Release build). The model runs; its output holds no element.
  EXPECT_EQ(RunError("fuzz_resize_empty_batch.onnx"), "");
}

TEST(OnnxReader, EmptyAndCutBytesAreErrors) {
  EXPECT_THROW(ReadOnnxGraphFromBytes("", "empty.onnx", ""), Error);
  std::ifstream file(kData + "/hostile/valid.onnx", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 10u);
  // Every prefix is either a smaller valid message or an error: never a crash.
  for (size_t length = 0; length < bytes.size(); ++length) {
    try {
      ReadOnnxGraphFromBytes(bytes.substr(0, length), "cut.onnx", "");
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace lumen
