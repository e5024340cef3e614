// ReadPnnxGraph: weights attached to their operators, and the cross-checks between the .param
// declarations and the .bin members.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "lumen/error.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "pnnx/storage_zip.hpp"
#include "support/source_directory.hpp"
#include "support/test_files.hpp"
#include "support/zip_writer.hpp"

namespace lumen {
namespace {

using test_support::TestDirectory;
using test_support::WriteFile;
using test_support::ZipWriter;

const std::string kModels = lumen::test_support::SourceDirectory() + "/tmp/models/";

// A one-operator model declaring a (2,3) f32 weight.
const std::string kParam =
    "7767517\n3 2\n"
    "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
    "nn.Linear fc 1 1 0 1 bias=False in_features=3 out_features=2 @weight=(2,3)f32 "
    "#0=(1,3)f32 #1=(1,2)f32\n"
    "pnnx.Output out 1 0 1 #1=(1,2)f32\n";

std::string ReadError(const std::string& bin_bytes) {
  const std::string param = WriteFile("model.pnnx.param", kParam);
  const std::string bin = WriteFile("model.pnnx.bin", bin_bytes);
  try {
    ReadPnnxGraph(param, bin);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(PnnxReader, AttachesTheBytesOfEveryWeight) {
  const Graph model =
      ReadPnnxGraph(kModels + "linear/model.pnnx.param", kModels + "linear/model.pnnx.bin");
  StorageZip zip(kModels + "linear/model.pnnx.bin");
  for (const auto& op : model.nodes) {
    for (const auto& [key, attribute] : op.attributes) {
      std::vector<char> member;
      zip.Read(op.name + "." + key, &member);
      EXPECT_EQ(attribute.data, member) << op.name << "." << key;
    }
  }
  // pnnx.Input and pnnx.Output became the graph's input and output lists.
  ASSERT_EQ(model.nodes.size(), 2u);  // torch.flatten, nn.Linear
  EXPECT_EQ(model.nodes[1].attributes.at("weight").ElementCount(), 360u);
  EXPECT_EQ(model.input_names.size(), 1u);
  EXPECT_EQ(model.output_names.size(), 1u);
}

TEST(PnnxReader, ReadsAWeightFromAnArchiveOfEitherLayout) {
  for (bool zip64 : {false, true}) {
    ZipWriter writer;
    writer.zip64 = zip64;
    writer.members = {{"fc.weight", std::string(24, '\0')}};
    EXPECT_EQ(ReadError(writer.Bytes()), "");
  }
}

TEST(PnnxReader, NamesTheOperatorAndAttributeOfAMissingWeight) {
  const std::string message = ReadError(ZipWriter().Bytes());
  EXPECT_EQ(message, TestDirectory() +
                         "model.pnnx.bin: missing weight 'fc.weight' for "
                         "attribute '@weight' (declared by nn.Linear 'fc' at " +
                         TestDirectory() + "model.pnnx.param:4)");
}

TEST(PnnxReader, RejectsAWeightWhoseSizeDisagrees) {
  ZipWriter writer;
  writer.members = {{"fc.weight", std::string(20, '\0')}};
  EXPECT_EQ(ReadError(writer.Bytes()),
            TestDirectory() +
                "model.pnnx.bin: weight 'fc.weight' holds 20 bytes but '@weight' "
                "declares 6 x f32 = 24 bytes (declared by nn.Linear 'fc' at " +
                TestDirectory() + "model.pnnx.param:4)");
}

TEST(PnnxReader, OnlyWarnsAboutUnusedMembers) {
  ZipWriter writer;
  writer.members = {{"fc.weight", std::string(24, '\0')}, {"fc.unused", "x"}};
  EXPECT_EQ(ReadError(writer.Bytes()), "");
}

TEST(PnnxReader, RejectsADirectoryAndAnEmptyFile) {
  const std::string empty = WriteFile("empty.pnnx.param", "");
  try {
    ReadPnnxGraph(TestDirectory(), "");
    FAIL() << "a directory was read as a param file";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("is a directory"), std::string::npos) << error.what();
  }
  try {
    ReadPnnxGraph(empty, "");
    FAIL() << "an empty file was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("empty file"), std::string::npos) << error.what();
  }
}

// A tuple that pnnx unpacks right after the operator making it (nn.AdaptiveMaxPool2d with
// return_indices=True) becomes that operator's outputs, and aten::_upsample_nearest_exact3d with
// constant lists becomes F.interpolate with them as parameters. (A suite of its own: lesson 04 of
// the course runs PnnxReader.* as its weight tests, and this needs none of that lesson's code.)
TEST(PnnxReaderRewrites, FoldsTupleUnpacksAndConstantNearestExactUpsamples) {
  const std::string param =
      WriteFile("fold.pnnx.param",
                "7767517\n7 7\n"
                "pnnx.Input in 0 1 0 #0=(1,2,4,4,4)f32\n"
                "nn.AdaptiveMaxPool3d pool 1 1 0 1 output_size=(2,2,2) return_indices=True\n"
                "prim::TupleUnpack unpack 1 2 1 2 3\n"
                "pnnx.Expression size 0 1 4 expr=[3,5,6]\n"
                "pnnx.Expression scale 0 1 5 expr=None\n"
                "aten::_upsample_nearest_exact3d up 3 1 2 4 5 6\n"
                "pnnx.Output out 2 0 3 6\n");
  Graph graph = ReadPnnxParam(param);
  ResolvePnnxInputsAndOutputs(&graph);
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.nodes[0].output_names, std::vector<std::string>({"2", "3"}));
  EXPECT_EQ(graph.nodes[1].type, "F.interpolate");
  EXPECT_EQ(graph.nodes[1].input_names, std::vector<std::string>({"2"}));
  EXPECT_EQ(graph.nodes[1].params.at("size").AsIntArray(), std::vector<int>({3, 5, 6}));
  EXPECT_TRUE(graph.nodes[1].params.at("scale_factor").IsNone());
  EXPECT_EQ(graph.nodes[1].params.at("mode").AsString(), "nearest-exact");
}

}  // namespace
}  // namespace lumen
