// .npy files: what np.save writes is read (float32 as it is, other numbers converted), what
// Lumen writes has numpy's own header, and malformed or refused files give lumen::Error before
// any allocation the header asks for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/npy_file.hpp"
#include "lumen/error.hpp"
#include "support/test_files.hpp"

namespace lumen {
namespace {

using test_support::WriteFile;
using ::testing::HasSubstr;

// A version 1.0 .npy file as numpy writes it: magic, version, header length, the dictionary
// padded with spaces to 64 bytes and ended by a newline, then `data`.
std::string NpyFile(const std::string& dictionary, const std::string& data) {
  std::string header = dictionary;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

// The bytes of `values` of any trivially copyable type.
template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// The message of the lumen::Error reading `bytes` as a .npy file throws, or "" if none.
std::string ReadError(const std::string& bytes) {
  const std::string path = WriteFile("bad.npy", bytes);
  try {
    ReadNpyFile(path);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(NpyFileTest, ReadsFloat32InCOrder) {
  const std::string path =
      WriteFile("x.npy", NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                 Bytes(std::vector<float>{1, 2, 3, 4, 5, 6})));
  const Tensor tensor = ReadNpyFile(path);
  EXPECT_EQ(tensor.shape(), (Shape{2, 3}));
  EXPECT_EQ(tensor.ToRowMajor(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(tensor.at({1, 0}), 4.0f);
}

TEST(NpyFileTest, ConvertsOtherNumberTypesToFloat32) {
  const std::string shape = "'fortran_order': False, 'shape': (3,), }";
  EXPECT_EQ(ReadNpyFile(WriteFile("f8.npy", NpyFile("{'descr': '<f8', " + shape,
                                                    Bytes(std::vector<double>{0.5, -2, 1e3}))))
                .ToRowMajor(),
            (std::vector<float>{0.5f, -2.0f, 1000.0f}));
  EXPECT_EQ(ReadNpyFile(WriteFile("i8.npy", NpyFile("{'descr': '<i8', " + shape,
                                                    Bytes(std::vector<int64_t>{7, -1, 0}))))
                .ToRowMajor(),
            (std::vector<float>{7.0f, -1.0f, 0.0f}));
  EXPECT_EQ(ReadNpyFile(WriteFile("i4.npy", NpyFile("{'descr': '<i4', " + shape,
                                                    Bytes(std::vector<int32_t>{3, 2, 1}))))
                .ToRowMajor(),
            (std::vector<float>{3.0f, 2.0f, 1.0f}));
  EXPECT_EQ(ReadNpyFile(WriteFile("b1.npy", NpyFile("{'descr': '|b1', " + shape,
                                                    std::string("\x01\x00\x01", 3))))
                .ToRowMajor(),
            (std::vector<float>{1.0f, 0.0f, 1.0f}));
}

TEST(NpyFileTest, RankZeroAndOneShapes) {
  const Tensor scalar = ReadNpyFile(
      WriteFile("s.npy", NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
                                 Bytes(std::vector<float>{2.5f}))));
  EXPECT_EQ(scalar.shape(), Shape{});
  EXPECT_EQ(scalar.ToRowMajor(), std::vector<float>{2.5f});
  // Keys in another order, double quotes and no trailing comma are Python literals too.
  const Tensor vector = ReadNpyFile(
      WriteFile("v.npy", NpyFile("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}",
                                 Bytes(std::vector<float>{1, 2}))));
  EXPECT_EQ(vector.shape(), Shape{2});
}

TEST(NpyFileTest, WritesWhatItReadsWithNumpysHeader) {
  const Tensor tensor = Tensor::FromRowMajor(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2});
  const std::string bytes = NpyBytes(tensor);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_THAT(bytes, HasSubstr("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }"));
  const size_t data_offset = bytes.size() - 6 * sizeof(float);
  EXPECT_EQ(data_offset % 64, 0u);
  EXPECT_EQ(bytes[data_offset - 1], '\n');
  const Tensor back = ReadNpyFile(WriteFile("round.npy", bytes));
  EXPECT_EQ(back.shape(), tensor.shape());
  EXPECT_EQ(back.ToRowMajor(), tensor.ToRowMajor());
  EXPECT_THAT(NpyBytes(Tensor::FromRowMajor(std::vector<float>{1}, {1})),
              HasSubstr("'shape': (1,), }"));
  EXPECT_THAT(NpyBytes(Tensor::FromRowMajor(std::vector<float>{1}, {})),
              HasSubstr("'shape': (), }"));
}

TEST(NpyFileTest, RefusesWhatItDoesNotRead) {
  const std::string data = Bytes(std::vector<float>{1, 2, 3, 4});
  EXPECT_THAT(
      ReadError(NpyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", data)),
      HasSubstr("Fortran order"));
  EXPECT_THAT(ReadError(NpyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", data)),
              HasSubstr("'>f4' is not read"));
  EXPECT_THAT(ReadError(NpyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", data)),
              HasSubstr("'<c8' is not read"));
}

TEST(NpyFileTest, MalformedHeadersAreErrorsNotCrashes) {
  const std::string data = Bytes(std::vector<float>{1, 2, 3, 4});
  const std::string good_keys = "'descr': '<f4', 'fortran_order': False, ";
  EXPECT_THAT(ReadError(""), HasSubstr("not a .npy file"));
  EXPECT_THAT(ReadError("PK\x03\x04 a zip file"), HasSubstr("not a .npy file"));
  EXPECT_THAT(ReadError(std::string("\x93NUMPY\x01", 7)), HasSubstr("not a .npy file"));
  EXPECT_THAT(ReadError(std::string("\x93NUMPY\x07\x00\x10\x00", 10)), HasSubstr("version 7"));
  // A length field far beyond the file, or beyond any sane header: refused, nothing allocated.
  EXPECT_THAT(ReadError(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13)),
              HasSubstr("more than the 65536 accepted"));
  EXPECT_THAT(ReadError(std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17)),
              HasSubstr("cut short"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (2, 2)", data)),
              HasSubstr("malformed"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (2, x), }", data)),
              HasSubstr("expected a shape extent"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (-4,), }", data)),
              HasSubstr("malformed"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (99999999999,), }", data)),
              HasSubstr("above 2^32 - 1"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (1,1,1,1,1,1,1,1,1,1), }", data)),
              HasSubstr("more than 8 extents"));
  EXPECT_THAT(ReadError(NpyFile("{'descr': '<f4', 'shape': (4,), }", data)),
              HasSubstr("needs 'descr', 'fortran_order' and 'shape'"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (4,), 'extra': 1}", data)),
              HasSubstr("unknown key 'extra'"));
  EXPECT_THAT(ReadError(NpyFile("{'descr': '<f4, 'fortran_order': False, 'shape': (4,), }", data)),
              HasSubstr("malformed"));
  // A huge shape with few bytes behind it: the size check comes before any allocation.
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (65536, 65536), }", data)),
              HasSubstr("(17179869184 bytes), the file holds 16 bytes after the header"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (4294967295, 4294967295), }", data)),
              HasSubstr("overflows"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (5,), }", data)),
              HasSubstr("the file holds 16 bytes after the header"));
  EXPECT_THAT(ReadError(NpyFile("{" + good_keys + "'shape': (3,), }", data)),
              HasSubstr("(3) of '<f4' (12 bytes)"));
}

TEST(NpyFileTest, MissingFileAndDirectoryAreNamed) {
  EXPECT_THROW(ReadNpyFile("/nonexistent/x.npy"), Error);
  try {
    ReadNpyFile(test_support::TestDirectory());
    FAIL() << "a directory was read";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("is a directory"));
  }
}

}  // namespace
}  // namespace lumen
