// ReadPnnxModel: weights attached to their operators, and the cross-checks between the .param
// declarations and the .bin members.
#include <gtest/gtest.h>

#include <cstring>

#include "lumen/base/error.hpp"
#include "lumen/pnnx/pnnx_model.hpp"
#include "lumen/pnnx/storage_zip.hpp"
#include "support/test_files.hpp"
#include "support/zip_writer.hpp"

namespace lumen {
namespace {

using test_support::TestDirectory;
using test_support::WriteFile;
using test_support::ZipWriter;

const std::string kModels = std::string(LUMEN_SOURCE_DIR) + "/tmp/models/";

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
    ReadPnnxModel(param, bin);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(PnnxModel, AttachesTheBytesOfEveryWeight) {
  const PnnxModel model =
      ReadPnnxModel(kModels + "linear/model.pnnx.param", kModels + "linear/model.pnnx.bin");
  StorageZip zip(kModels + "linear/model.pnnx.bin");
  for (const auto& op : model.operators) {
    for (const auto& [key, attribute] : op->attributes) {
      std::vector<char> member;
      zip.Read(op->name + "." + key, &member);
      EXPECT_EQ(attribute.data, member) << op->name << "." << key;
    }
  }
  EXPECT_EQ(model.operators[2]->Attribute("weight").ElementCount(), 360u);
}

TEST(PnnxModel, ReadsAWeightFromAnArchiveOfEitherLayout) {
  for (bool zip64 : {false, true}) {
    ZipWriter writer;
    writer.zip64 = zip64;
    writer.members = {{"fc.weight", std::string(24, '\0')}};
    EXPECT_EQ(ReadError(writer.Bytes()), "");
  }
}

TEST(PnnxModel, NamesTheOperatorAndAttributeOfAMissingWeight) {
  const std::string message = ReadError(ZipWriter().Bytes());
  EXPECT_EQ(message, TestDirectory() +
                         "model.pnnx.bin: missing weight 'fc.weight' for "
                         "attribute '@weight' (declared by nn.Linear 'fc' at " +
                         TestDirectory() + "model.pnnx.param:4)");
}

TEST(PnnxModel, RejectsAWeightWhoseSizeDisagrees) {
  ZipWriter writer;
  writer.members = {{"fc.weight", std::string(20, '\0')}};
  EXPECT_EQ(ReadError(writer.Bytes()),
            TestDirectory() +
                "model.pnnx.bin: weight 'fc.weight' holds 20 bytes but '@weight' "
                "declares 6 x f32 = 24 bytes (declared by nn.Linear 'fc' at " +
                TestDirectory() + "model.pnnx.param:4)");
}

TEST(PnnxModel, OnlyWarnsAboutUnusedMembers) {
  ZipWriter writer;
  writer.members = {{"fc.weight", std::string(24, '\0')}, {"fc.unused", "x"}};
  EXPECT_EQ(ReadError(writer.Bytes()), "");
}

}  // namespace
}  // namespace lumen
