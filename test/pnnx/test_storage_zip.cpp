// The .pnnx.bin storage zip: both pnnx writers' layouts (plain ZIP and ZIP64), unaligned members,
// and every damaged archive rejected with a message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "lumen/error.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/storage_zip.hpp"
#include "support/source_directory.hpp"
#include "support/test_files.hpp"
#include "support/zip_writer.hpp"

namespace lumen {
namespace {

using test_support::WriteFile;
using test_support::ZipWriter;
using ::testing::HasSubstr;

const std::string kModels = lumen::test_support::SourceDirectory() + "/tmp/models/";

std::string OpenError(const std::string& path) {
  try {
    StorageZip zip(path);
    for (const std::string& member : zip.MemberNames()) {
      std::vector<char> bytes;
      zip.Read(member, &bytes);
    }
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(StorageZip, ReadsTheZip64ArchiveOfARealExport) {
  StorageZip zip(kModels + "conv3x3_s1_p1/model.pnnx.bin");
  const Graph model = ReadPnnxParam(kModels + "conv3x3_s1_p1/model.pnnx.param");
  for (const auto& op : model.nodes) {
    for (const auto& [key, attribute] : op.attributes) {
      const std::string member = op.name + "." + key;
      ASSERT_TRUE(zip.Contains(member)) << member;
      EXPECT_EQ(zip.MemberSize(member), attribute.DeclaredByteCount()) << member;
      std::vector<char> bytes;
      zip.Read(member, &bytes);  // checks the CRC
      EXPECT_EQ(bytes.size(), attribute.DeclaredByteCount());
    }
  }
}

TEST(StorageZip, ReadsPlainAndZip64ArchivesWithUnalignedMembers) {
  for (bool zip64 : {false, true}) {
    ZipWriter writer;
    writer.zip64 = zip64;
    writer.members = {{"conv.weight", std::string("\x01\x02\x03", 3)},  // 3 bytes: misaligns
                      {"a.b.c.bias", std::string(8, '\x7f')}};
    StorageZip zip(WriteFile(zip64 ? "zip64.bin" : "plain.bin", writer.Bytes()));
    EXPECT_EQ(zip.MemberNames(), (std::vector<std::string>{"a.b.c.bias", "conv.weight"}));
    std::vector<char> bytes;
    zip.Read("a.b.c.bias", &bytes);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), std::string(8, '\x7f'));
    zip.Read("conv.weight", &bytes);
    EXPECT_EQ(bytes.size(), 3u);
  }
}

TEST(StorageZip, FindsTheDataAfterTheLocalHeaderNotTheCentralOne) {
  // The local header's extra field may be longer than the central one's: the data starts after
  // the local header's own name and extra field.
  for (bool zip64 : {false, true}) {
    ZipWriter writer;
    writer.zip64 = zip64;
    writer.local_only_extra = 9;
    writer.members = {{"w", std::string("\x01\x02\x03\x04", 4)}, {"b", std::string("xyz")}};
    StorageZip zip(WriteFile(zip64 ? "local_extra64.bin" : "local_extra.bin", writer.Bytes()));
    std::vector<char> bytes;
    zip.Read("w", &bytes);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), std::string("\x01\x02\x03\x04", 4));
    zip.Read("b", &bytes);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "xyz");
  }
}

TEST(StorageZip, ReadsOnlyTheSaturatedFieldsFromTheZip64Block) {
  // The ZIP64 block holds 64-bit values for the saturated fields only, in the order uncompressed
  // size, compressed size, offset: here the offset alone.
  ZipWriter writer;
  writer.zip64 = true;
  writer.zip64_offset_only = true;
  writer.members = {{"first", std::string("abcde")}, {"second", std::string("0123456789")}};
  StorageZip zip(WriteFile("zip64_offset_only.bin", writer.Bytes()));
  EXPECT_EQ(zip.MemberSize("first"), 5u);
  EXPECT_EQ(zip.MemberSize("second"), 10u);
  std::vector<char> bytes;
  zip.Read("second", &bytes);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "0123456789");
}

TEST(StorageZip, ReadsAnEmptyArchive) {
  StorageZip zip(WriteFile("empty.bin", ZipWriter().Bytes()));
  EXPECT_TRUE(zip.MemberNames().empty());
  StorageZip weightless(kModels + "relu/model.pnnx.bin");  // pnnx's archive of no weights
  EXPECT_TRUE(weightless.MemberNames().empty());
}

TEST(StorageZip, RejectsAFileThatIsNotAZip) {
  const std::string path = WriteFile("text.bin", "this is not a zip archive at all");
  EXPECT_EQ(OpenError(path), path +
                                 ": no end-of-central-directory record: the file is truncated "
                                 "or is not a ZIP archive");
  const std::string short_path = WriteFile("short.bin", "PK");
  EXPECT_EQ(OpenError(short_path), short_path + ": only 2 bytes: too short to be a ZIP archive");
  EXPECT_EQ(OpenError("/nonexistent.bin"), "/nonexistent.bin: cannot open the bin file");
}

TEST(StorageZip, RejectsATruncatedRealArchive) {
  std::ifstream file(kModels + "conv3x3_s1_p1/model.pnnx.bin", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_THAT(OpenError(WriteFile("truncated.bin", bytes.substr(0, bytes.size() / 2))),
              HasSubstr("no end-of-central-directory record: the file is truncated"));
}

TEST(StorageZip, RejectsAMemberPastTheEndOfTheFile) {
  ZipWriter writer;
  writer.members = {{"w", std::string(64, 'x')}};
  std::string bytes = writer.Bytes();
  // The central directory starts after the local header (30 bytes), the name and the data; make
  // its two size fields claim 1000 bytes.
  const size_t directory = 30 + 1 + 64;
  std::string size;
  ZipWriter::Put(&size, 1000, 4);
  bytes.replace(directory + 20, 4, size);
  bytes.replace(directory + 24, 4, size);
  const std::string path = WriteFile("past_end.bin", bytes);
  EXPECT_EQ(OpenError(path), path + ": member 'w' needs bytes [31, 1031) but the file has " +
                                 std::to_string(bytes.size()) + " bytes: it is truncated");
}

TEST(StorageZip, RejectsCompressionEncryptionAndDataDescriptors) {
  ZipWriter compressed;
  compressed.method = 8;
  compressed.members = {{"w", "abcd"}};
  EXPECT_THAT(OpenError(WriteFile("deflate.bin", compressed.Bytes())),
              HasSubstr("member 'w' is compressed (method 8); pnnx weights must be stored "
                        "uncompressed"));
  ZipWriter encrypted;
  encrypted.flags = 1;
  encrypted.members = {{"w", "abcd"}};
  EXPECT_THAT(OpenError(WriteFile("encrypted.bin", encrypted.Bytes())),
              HasSubstr("member 'w' is encrypted"));
  ZipWriter descriptor;
  descriptor.flags = 8;
  descriptor.members = {{"w", "abcd"}};
  EXPECT_THAT(OpenError(WriteFile("descriptor.bin", descriptor.Bytes())),
              HasSubstr("member 'w' uses a data descriptor, which pnnx never writes"));
}

TEST(StorageZip, RejectsACorruptMember) {
  ZipWriter writer;
  writer.corrupt_crc = true;
  writer.members = {{"w", "abcd"}};
  EXPECT_THAT(OpenError(WriteFile("crc.bin", writer.Bytes())),
              HasSubstr("member 'w' fails its CRC-32 check"));
}

TEST(StorageZip, RejectsDuplicateMembers) {
  ZipWriter writer;
  writer.members = {{"w", "abcd"}, {"w", "efgh"}};
  EXPECT_THAT(OpenError(WriteFile("duplicate.bin", writer.Bytes())),
              HasSubstr("member 'w' appears twice"));
}

// Found by the storage_zip fuzzer: a ZIP64 extra block whose size runs past the entry's extra
// field (and past the central directory) made the reader load 8 bytes beyond its buffer.
TEST(StorageZip, RejectsAnExtraBlockPastTheExtraField) {
  const std::string path =
      lumen::test_support::SourceDirectory() + "/test/data/zip/fuzz_extra_block_past_field.bin";
  // The mutated member name holds NUL bytes: the message shows them escaped, not cut short.
  EXPECT_EQ(OpenError(path), path +
                                 ": member '\\x00\\x00\\x00 \\x00\\x00\\x00\\x09': an extra-field "
                                 "block runs past the entry's extra field");
}

TEST(StorageZip, ComputesTheStandardCrc32) {
  EXPECT_EQ(Crc32("123456789", 9), 0xCBF43926u);  // the check value of CRC-32/ISO-HDLC
}

}  // namespace
}  // namespace lumen
