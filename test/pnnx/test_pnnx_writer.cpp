// The PNNX writer: the zip it writes reads back through StorageZip (and what it refuses), and real
// exports read, written back and loaded again compute exactly what the originals compute.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "pnnx/pnnx_writer.hpp"
#include "pnnx/storage_zip.hpp"
#include "pnnx/zip_writer.hpp"
#include "support/source_directory.hpp"
#include "support/test_files.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

const std::string kModels = test_support::SourceDirectory() + "/tmp/models/";

TEST(StoredZipWriter, WritesMembersStorageZipReadsBack) {
  StoredZipWriter writer;
  const std::vector<char> empty;
  const std::vector<char> bytes = {'\x00', '\x7f', '\x80', '\xff', 'a'};
  writer.Add("conv.weight", bytes);
  writer.Add("a.b.c", empty);
  const std::string path = test_support::TestDirectory() + "writer_members.bin";
  writer.Write(path);
  StorageZip zip(path);
  EXPECT_EQ(zip.MemberNames(), (std::vector<std::string>{"a.b.c", "conv.weight"}));
  std::vector<char> read;
  zip.Read("conv.weight", &read);  // checks the CRC too
  EXPECT_EQ(read, bytes);
  zip.Read("a.b.c", &read);
  EXPECT_TRUE(read.empty());
}

TEST(StoredZipWriter, RefusesARepeatedOrEmptyName) {
  StoredZipWriter writer;
  writer.Add("x.weight", {'1'});
  try {
    writer.Add("x.weight", {'2'});
    ADD_FAILURE() << "added twice";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("'x.weight' added twice"));
  }
  EXPECT_THROW(writer.Add("", {'3'}), Error);
}

TEST(StoredZipWriter, NamesAFileItCannotWrite) {
  StoredZipWriter writer;
  try {
    writer.Write("/nonexistent-folder/model.pnnx.bin");
    ADD_FAILURE() << "wrote";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("/nonexistent-folder/model.pnnx.bin: cannot write"));
  }
}

TEST(PnnxWriter, ParamTextReadsBackToTheSameText) {
  const std::string text =
      "7767517\n4 3\n"
      "pnnx.Input in 0 1 x #x=(1,3,?,8)f32\n"
      "nn.Conv2d conv 1 1 x y bias=False kernel_size=(1,1) @weight=(2,3,1,1)f32 #y=(1,2,?,8)f32\n"
      "torch.cat cat 2 1 y y z dim=1 $tensors=y #z=(1,4,?,8)f32\n"
      "pnnx.Output out 1 0 z\n";
  const Graph graph = ParsePnnxParam(text, "given.pnnx.param");
  const std::string written = PnnxParamText(graph);
  EXPECT_EQ(PnnxParamText(ParsePnnxParam(written, "written.pnnx.param")), written);
  EXPECT_THAT(written, HasSubstr("nn.Conv2d conv 1 1 x y bias=False kernel_size=(1,1) "
                                 "@weight=(2,3,1,1)f32 #y=(1,2,?,8)f32\n"));
  EXPECT_THAT(written, HasSubstr("$tensors=y"));
}

TEST(PnnxWriter, RefusesAWeightWhoseBytesDisagreeWithItsShape) {
  Graph graph =
      ParsePnnxParam("7767517\n1 0\nfoldable.Constant c 0 0 @data=(2,2)f32\n", "given.pnnx.param");
  graph.nodes[0].attributes["data"].data.resize(12);
  try {
    WritePnnxModel(graph, test_support::TestDirectory() + "bad.pnnx.param",
                   test_support::TestDirectory() + "bad.pnnx.bin");
    ADD_FAILURE() << "wrote";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("weight '@data' holds 12 bytes but declares 16"));
  }
}

// Real exports of several kinds (a CNN, a recurrent net, attention, tuple outputs, an operator
// returning a tuple, a detection head), read with their weights, written back and loaded again:
// the outputs must be bit for bit the original model's on the case's inputs. One test per export,
// named after it (so that the sanitizer runs' filter leaves out the whole models, as it does
// their golden cases).
class PnnxWriterRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(PnnxWriterRoundTrip, RunsTheSameAfterARoundTrip) {
  const std::string name = GetParam();
  const GoldenCase golden = ReadGoldenCase(kModels + name);
  Graph file = ReadPnnxParam(golden.param_path);
  ReadPnnxWeights(golden.bin_path, golden.param_path, &file);
  const std::string prefix = test_support::TestDirectory() + "round_trip_" + name;
  WritePnnxModel(file, prefix + ".pnnx.param", prefix + ".pnnx.bin");

  const auto original = Model::Load(golden.param_path);
  const auto written = Model::Load(prefix + ".pnnx.param");
  EXPECT_EQ(written->operator_count(), original->operator_count());
  EXPECT_EQ(written->input_names(), original->input_names());
  EXPECT_EQ(written->output_names(), original->output_names());
  std::vector<Tensor> inputs;
  for (const GoldenCase::DataFile& input : golden.inputs) {
    inputs.push_back(ReadTensorFile(input.path, input.shape));
  }
  inputs.resize(original->input_names().size());  // cases whose inputs pnnx folded away
  Session original_session(original);
  Session written_session(written);
  const std::vector<Tensor> expected = original_session.Run(inputs);
  const std::vector<Tensor> got = written_session.Run(inputs);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape(), expected[i].shape());
    EXPECT_EQ(got[i].ToRowMajor(), expected[i].ToRowMajor()) << "output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(RealExports, PnnxWriterRoundTrip,
                         ::testing::Values("resnet18", "lstm_classifier", "mha_causal_mask",
                                           "tuple_output", "max_dim1_indices",
                                           "adaptive_maxpool_3x3", "chunk3_dim3", "yolov5s_detect",
                                           "upsample_nearest2"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace lumen
