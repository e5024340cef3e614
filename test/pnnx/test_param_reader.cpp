// The .pnnx.param reader: real lines, every item kind, and one test per rejected malformation,
// each asserting the message (file:line: what).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "layer/layer_config.hpp"
#include "lumen/error.hpp"
#include "pnnx/param_reader.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

// A param file: the magic, the counts, then the operator lines.
std::string ParamText(int operators, int operands, const std::vector<std::string>& lines) {
  std::string text =
      "7767517\n" + std::to_string(operators) + " " + std::to_string(operands) + "\n";
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

std::string ParseError(const std::string& text) {
  try {
    ParsePnnxParam(text, "model.pnnx.param");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

const std::string kInput = "pnnx.Input pnnx_input_0 0 1 0 #0=(1,3,8,8)f32";
const std::string kOutput = "pnnx.Output pnnx_output_0 1 0 1 #1=(1,3,8,8)f32";

TEST(ParamReader, ReadsARealResNetLine) {
  const Graph model = ParsePnnxParam(
      ParamText(3, 2,
                {"pnnx.Input               pnnx_input_0             0 1 0 #0=(1,3,224,224)f32",
                 "nn.Conv2d                convbn2d_0               1 1 0 1 bias=True "
                 "dilation=(1,1) groups=1 in_channels=3 kernel_size=(7,7) out_channels=64 "
                 "padding=(3,3) padding_mode=zeros stride=(2,2) @bias=(64)f32 "
                 "@weight=(64,3,7,7)f32 $input=0 #0=(1,3,224,224)f32 #1=(1,64,112,112)f32",
                 "pnnx.Output              pnnx_output_0            1 0 1 #1=(1,64,112,112)f32"}),
      "resnet.param");
  ASSERT_EQ(model.nodes.size(), 3u);
  const Node& conv = model.nodes[1];
  EXPECT_EQ(conv.type, "nn.Conv2d");
  EXPECT_EQ(conv.name, "convbn2d_0");
  EXPECT_EQ(conv.line, 4);
  EXPECT_EQ(conv.input_names, std::vector<std::string>{"0"});
  EXPECT_EQ(conv.output_names, std::vector<std::string>{"1"});
  EXPECT_EQ(LayerConfig(conv).IntPairParam("kernel_size"), (std::vector<int>{7, 7}));
  EXPECT_EQ(LayerConfig(conv).StringParam("padding_mode"), "zeros");
  EXPECT_TRUE(LayerConfig(conv).BoolParam("bias"));
  EXPECT_EQ(conv.attributes.at("weight").shape, (std::vector<int>{64, 3, 7, 7}));
  EXPECT_EQ(conv.attributes.at("weight").type, DataType::kFloat32);
  EXPECT_TRUE(conv.attributes.at("weight").data.empty());  // bytes come from the .bin
  EXPECT_EQ(conv.input_keys.at("input"), "0");
  ASSERT_EQ(model.operands.size(), 2u);
  EXPECT_EQ(model.operands[1].name, "1");
  EXPECT_EQ(model.operands[1].shape, (std::vector<int>{1, 64, 112, 112}));
}

TEST(ParamReader, AcceptsCrlfRunsOfSpacesTabsAndLongNames) {
  const Graph model = ParsePnnxParam(
      "7767517\r\n3 2\r\n" + kInput +
          "\r\nnn.AdaptiveAvgPool2d features.1.block.1.avgpool_with_a_very_long_name 1 1 0 1 "
          "output_size=(1,1)\t  #0=(1,3,8,8)f32   #1=(1,3,1,1)f32\r\n"
          "pnnx.Output pnnx_output_0 1 0 1 #1=(1,3,1,1)f32\r\n",
      "crlf.param");
  const Node& pool = model.nodes[1];
  EXPECT_EQ(pool.name, "features.1.block.1.avgpool_with_a_very_long_name");
  EXPECT_EQ(model.operands[1].type, DataType::kFloat32);  // "f32\r" would not parse
  EXPECT_EQ(LayerConfig(pool).IntPairParam("output_size"), (std::vector<int>{1, 1}));
}

TEST(ParamReader, KeepsInputsByPositionAndSeveralOutputs) {
  const Graph model = ParsePnnxParam(
      ParamText(4, 4,
                {kInput, "torch.split split 1 2 0 1 2 dim=1 split_size_or_sections=(1,2) $tensor=0",
                 "torch.cat cat 3 1 1 1 2 3 dim=1", "pnnx.Output out 1 0 3"}),
      "multi.param");
  EXPECT_EQ(model.nodes[1].output_names, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(model.nodes[2].input_names, (std::vector<std::string>{"1", "1", "2"}));
  EXPECT_EQ(model.nodes[1].input_keys.at("tensor"), "0");
}

TEST(ParamReader, ReadsDottedAttributeKeysAndUnknownExtents) {
  const Graph model = ParsePnnxParam(
      ParamText(3, 2,
                {"pnnx.Input in 0 1 0 #0=(?,3,?,?)f32",
                 "models.yolo.Detect 24 1 1 0 1 @m.0.weight=(255,128,1,1)f32 @pnnx_01=(3)f32",
                 "pnnx.Output out 1 0 1"}),
      "dynamic.param");
  EXPECT_EQ(model.operands[0].shape, (std::vector<int>{-1, 3, -1, -1}));
  EXPECT_TRUE(model.nodes[1].attributes.count("m.0.weight"));
  EXPECT_EQ(model.nodes[1].attributes.at("pnnx_01").shape, std::vector<int>{3});
}

TEST(ParamReader, ResolvesForwardReferences) {
  // Lines out of order: the reader links by name after reading all of them.
  const Graph model = ParsePnnxParam(
      ParamText(3, 2, {"pnnx.Output out 1 0 1", "nn.ReLU relu 1 1 0 1", kInput}), "order.param");
  EXPECT_EQ(model.nodes.size(), 3u);
}

TEST(ParamReader, RejectsABadMagic) {
  EXPECT_EQ(ParseError("7767518\n0 0\n"),
            "model.pnnx.param:1: expected the magic number 7767517, got '7767518'");
  EXPECT_EQ(ParseError(""), "model.pnnx.param:1: empty file: expected the magic number 7767517");
}

TEST(ParamReader, RejectsABadCountLine) {
  EXPECT_EQ(ParseError("7767517\n3\n"),
            "model.pnnx.param:2: expected '<operator count> <operand count>', got '3'");
  EXPECT_EQ(ParseError("7767517\n-1 2\n"),
            "model.pnnx.param:2: operator count '-1' is not a non-negative integer");
}

TEST(ParamReader, RejectsTooFewOrTooManyOperatorLines) {
  EXPECT_EQ(ParseError(ParamText(3, 2, {kInput, "nn.ReLU relu 1 1 0 1"})),
            "model.pnnx.param:4: the count line declares 3 operators but the file has 2");
  EXPECT_EQ(ParseError(ParamText(1, 1, {kInput, "nn.ReLU relu 1 1 0 1"})),
            "model.pnnx.param:4: the count line declares 1 operators but there are more "
            "operator lines");
}

TEST(ParamReader, RejectsAnOperandCountThatDisagrees) {
  EXPECT_EQ(ParseError(ParamText(3, 5, {kInput, "nn.ReLU relu 1 1 0 1", kOutput})),
            "model.pnnx.param:2: the count line declares 5 operands but the operators produce 2");
}

TEST(ParamReader, RejectsShortLinesAndBadCounts) {
  EXPECT_EQ(ParseError(ParamText(1, 0, {"nn.ReLU relu 1"})),
            "model.pnnx.param:3: an operator line needs at least 4 tokens (type name inputs "
            "outputs), got 3");
  EXPECT_EQ(ParseError(ParamText(1, 0, {"nn.ReLU relu x 1"})),
            "model.pnnx.param:3: input count 'x' is not a non-negative integer");
  EXPECT_EQ(ParseError(ParamText(1, 0, {"nn.ReLU relu 1 1 0"})),
            "model.pnnx.param:3: operator 'relu' declares 1 inputs and 1 outputs but the line "
            "has only 1 tokens after the counts");
}

TEST(ParamReader, RejectsCountsThatSwallowItemsOrLeaveOperands) {
  EXPECT_EQ(ParseError(ParamText(1, 0, {"nn.ReLU relu 2 0 0 #0=(1)f32"})),
            "model.pnnx.param:3: operator 'relu': expected an operand name, got '#0=(1)f32' (do "
            "the input/output counts match the operand list?)");
  EXPECT_EQ(ParseError(ParamText(1, 1, {"nn.ReLU relu 0 1 0 1"})),
            "model.pnnx.param:3: operator 'relu': item '1' has no '=' (do the input/output counts "
            "match the operand list?)");
}

TEST(ParamReader, RejectsBadShapesAndDtypes) {
  EXPECT_EQ(ParseError(ParamText(1, 1, {"pnnx.Input in 0 1 0 #0=(1,3)f33"})),
            "model.pnnx.param:3: unknown dtype 'f33' in '#0=(1,3)f33'");
  EXPECT_EQ(ParseError(ParamText(1, 1, {"pnnx.Attribute a 0 1 0 @data=(1,0)f32"})),
            "model.pnnx.param:3: weight '@data=(1,0)f32' has a zero extent");
  EXPECT_EQ(ParseError(ParamText(1, 1, {"pnnx.Attribute a 0 1 0 @data=(2)"})),
            "model.pnnx.param:3: unknown dtype '' in '@data=(2)'");
  // "()" is a rank-0 weight, as pnnx writes a 0-d tensor.
  EXPECT_EQ(ParseError(ParamText(1, 1, {"pnnx.Attribute a 0 1 0 @data=()f32"})), "");
  EXPECT_EQ(ParseError(ParamText(1, 1, {"pnnx.Input in 0 1 0 #0=(1,x)f32"})),
            "model.pnnx.param:3: bad extent 'x' in '#0=(1,x)f32'");
  EXPECT_EQ(ParseError(ParamText(1, 1, {"pnnx.Input in 0 1 0 #0=1,3f32"})),
            "model.pnnx.param:3: expected (shape)dtype in '#0=1,3f32'");
}

TEST(ParamReader, RejectsAnInputNoOperatorProduces) {
  EXPECT_EQ(ParseError(ParamText(2, 1, {kInput, "nn.ReLU relu 1 0 7"})),
            "model.pnnx.param:4: operator 'relu' reads operand '7', which no operator produces");
}

TEST(ParamReader, RejectsAnOperandProducedTwice) {
  EXPECT_EQ(ParseError(ParamText(2, 2, {kInput, "nn.ReLU relu 1 1 0 0"})),
            "model.pnnx.param:4: operand '0' is already produced on line 3");
}

TEST(ParamReader, RejectsADuplicateOperatorName) {
  EXPECT_EQ(ParseError(ParamText(2, 2, {kInput, "nn.ReLU pnnx_input_0 1 1 0 1"})),
            "model.pnnx.param:4: operator name 'pnnx_input_0' is already used on line 3");
}

TEST(ParamReader, RejectsAnInputKeyThatNamesNoInput) {
  EXPECT_EQ(ParseError(ParamText(2, 2, {kInput, "F.relu relu 1 1 0 1 $input=1"})),
            "model.pnnx.param:4: '$input=1' names operand '1', which is not an input of "
            "operator 'relu'");
}

TEST(ParamReader, RejectsShapeNotesThatDisagree) {
  EXPECT_EQ(ParseError(ParamText(2, 2, {kInput, "nn.ReLU relu 1 1 0 1 #0=(1,3,8,9)f32"})),
            "model.pnnx.param:4: shape note '#0=(1,3,8,9)f32' disagrees with line 3, which gave "
            "(1,3,8,8)f32");
}

TEST(ParamReader, RejectsMalformedParameterValuesAndRepeats) {
  EXPECT_EQ(ParseError(ParamText(1, 0, {"nn.Foo foo 0 0 kernel_size=(3,3x)"})),
            "model.pnnx.param:3: parameter 'kernel_size=(3,3x)': malformed number '3x'");
  EXPECT_EQ(ParseError(ParamText(1, 0, {"nn.Foo foo 0 0 a=1 a=2"})),
            "model.pnnx.param:3: parameter 'a' is given twice");
  EXPECT_EQ(ParseError(ParamText(1, 0, {"nn.Foo foo 0 0 =1"})),
            "model.pnnx.param:3: item '=1' has an empty key");
}

TEST(ParamReader, ReportsAMissingFile) {
  try {
    ReadPnnxParam("/nonexistent/model.pnnx.param");
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "/nonexistent/model.pnnx.param: cannot open the param file");
  }
}

}  // namespace
}  // namespace lumen
