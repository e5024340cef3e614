#include "io/npy_file.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <vector>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
// numpy itself refuses headers above 10000 bytes unless told otherwise; a length field says up to
// 4 GB, which a malformed file must not make us read.
constexpr size_t kMaxHeaderBytes = 65536;

// The element types read, with their sizes.
struct ElementType {
  const char* descr;
  size_t bytes;
};
constexpr ElementType kReadTypes[] = {
    {"<f4", 4}, {"<f8", 8}, {"<i4", 4}, {"<i8", 8}, {"|b1", 1},
};

// A cursor over the header's dictionary text, the Python literal np.save writes:
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }
class HeaderText {
 public:
  HeaderText(const std::string& text, const std::string& where) : text_(text), where_(where) {}

  void SkipSpaces() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) {
      ++position_;
    }
  }
  // True (and consumed) if the next non-space character is `c`.
  bool Accept(char c) {
    SkipSpaces();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Accept(c)) Fail(Concat("expected '", c, "'"));
  }
  // A quoted string, in single or double quotes, without escapes (numpy writes none).
  std::string String() {
    SkipSpaces();
    if (position_ >= text_.size() || (text_[position_] != '\'' && text_[position_] != '"')) {
      Fail("expected a quoted string");
    }
    const char quote = text_[position_++];
    const size_t end = text_.find(quote, position_);
    if (end == std::string::npos) Fail("a string has no closing quote");
    std::string value = text_.substr(position_, end - position_);
    position_ = end + 1;
    return value;
  }
  // Python's True or False.
  bool Boolean() {
    SkipSpaces();
    for (const auto& [word, value] :
         {std::pair<const char*, bool>{"True", true}, {"False", false}}) {
      if (text_.compare(position_, std::strlen(word), word) == 0) {
        position_ += std::strlen(word);
        return value;
      }
    }
    Fail("expected True or False");
    return false;
  }
  // A tuple of non-negative integers: "()", "(5,)", "(1, 3, 224, 224)".
  Shape Tuple() {
    Expect('(');
    Shape shape;
    while (!Accept(')')) {
      if (shape.size() == kMaxRank) Fail(Concat("the shape has more than ", kMaxRank, " extents"));
      SkipSpaces();
      uint64_t extent = 0;
      size_t digits = 0;
      while (position_ < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[position_]))) {
        extent = extent * 10 + static_cast<uint64_t>(text_[position_++] - '0');
        if (extent > std::numeric_limits<uint32_t>::max()) {
          Fail("a shape extent is above 2^32 - 1");
        }
        ++digits;
      }
      if (digits == 0) Fail("expected a shape extent");
      shape.push_back(static_cast<uint32_t>(extent));
      if (!Accept(',')) {
        Expect(')');
        break;
      }
    }
    return shape;
  }
  bool AtEnd() {
    SkipSpaces();
    return position_ == text_.size();
  }
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(Concat(where_, ": malformed .npy header (", what, " at character ", position_,
                       " of \"", text_.substr(0, 200), "\")"));
  }

 private:
  const std::string& text_;
  const std::string& where_;
  size_t position_ = 0;
};

// The file's size in bytes; throws for a directory or a file that cannot be opened.
size_t FileSize(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) throw Error(Concat(path, ": cannot open (no such file?)"));
  if (S_ISDIR(info.st_mode)) throw Error(Concat(path, ": is a directory, not a .npy file"));
  return static_cast<size_t>(info.st_size);
}

// The first `count` bytes of the file (fewer if it is shorter).
std::string ReadPrefix(const std::string& path, size_t count) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(Concat(path, ": cannot open"));
  std::string bytes(count, '\0');
  file.read(bytes.data(), static_cast<std::streamsize>(count));
  bytes.resize(static_cast<size_t>(file.gcount()));
  return bytes;
}

// Little-endian unsigned integer of `bytes` bytes at `data`.
size_t LittleEndian(const char* data, size_t bytes) {
  size_t value = 0;
  for (size_t i = bytes; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(data[i]);
  return value;
}

// Where the dictionary starts and how long it is, from the magic, version and length field.
void HeaderBounds(const std::string& bytes, const std::string& where, size_t* start,
                  size_t* length) {
  if (bytes.size() < kMagicBytes + 2 || bytes.compare(0, kMagicBytes, kMagic) != 0) {
    throw Error(Concat(where, ": not a .npy file (it does not start with \\x93NUMPY)"));
  }
  const int major = static_cast<unsigned char>(bytes[kMagicBytes]);
  if (major < 1 || major > 3) {
    throw Error(Concat(where, ": .npy format version ", major, " is not one of 1, 2, 3"));
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  *start = kMagicBytes + 2 + length_bytes;
  if (bytes.size() < *start) throw Error(Concat(where, ": the .npy header is cut short"));
  *length = LittleEndian(bytes.data() + kMagicBytes + 2, length_bytes);
  if (*length > kMaxHeaderBytes) {
    throw Error(Concat(where, ": the .npy header claims ", *length, " bytes, more than the ",
                       kMaxHeaderBytes, " accepted"));
  }
  if (bytes.size() < *start + *length) throw Error(Concat(where, ": the .npy header is cut short"));
}

}  // namespace

NpyHeader ParseNpyHeader(const std::string& bytes, const std::string& where) {
  size_t start = 0;
  size_t length = 0;
  HeaderBounds(bytes, where, &start, &length);
  const std::string text = bytes.substr(start, length);
  HeaderText parser(text, where);
  bool has_type = false, has_order = false, has_shape = false, fortran_order = false;
  NpyHeader header;
  parser.Expect('{');
  while (!parser.Accept('}')) {
    const std::string key = parser.String();
    parser.Expect(':');
    if (key == "descr") {
      header.type = parser.String();
      has_type = true;
    } else if (key == "fortran_order") {
      fortran_order = parser.Boolean();
      has_order = true;
    } else if (key == "shape") {
      header.shape = parser.Tuple();
      has_shape = true;
    } else {
      parser.Fail(Concat("unknown key '", key, "'"));
    }
    if (!parser.Accept(',')) {
      parser.Expect('}');
      break;
    }
  }
  if (!parser.AtEnd()) parser.Fail("text after the dictionary");
  if (!has_type || !has_order || !has_shape) {
    parser.Fail("the dictionary needs 'descr', 'fortran_order' and 'shape'");
  }
  if (fortran_order) {
    throw Error(Concat(where,
                       ": the array is in Fortran order; save it in C order "
                       "(np.save(path, np.ascontiguousarray(x)))"));
  }
  for (const ElementType& type : kReadTypes) {
    if (header.type == type.descr) header.item_bytes = type.bytes;
  }
  if (header.item_bytes == 0) {
    throw Error(Concat(where, ": element type '", header.type,
                       "' is not read; save float32 ('<f4'), or float64, int32, int64 or bool, "
                       "little-endian (x.astype(np.float32))"));
  }
  header.data_offset = start + length;
  return header;
}

NpyHeader ReadNpyHeader(const std::string& path) {
  FileSize(path);  // a clear message for a missing file or a directory
  // The longest header accepted and its fixed part: a bounded read whatever the file says.
  return ParseNpyHeader(ReadPrefix(path, kMagicBytes + 2 + 4 + kMaxHeaderBytes), path);
}

Tensor ReadNpyFile(const std::string& path) {
  const NpyHeader header = ReadNpyHeader(path);
  size_t count = 0;
  size_t data_bytes = 0;
  try {
    count = ShapeElementCount(header.shape);
    data_bytes = CheckedMultiply(count, header.item_bytes, ".npy data bytes");
  } catch (const Error& error) {
    throw Error(Concat(path, ": ", error.what()));
  }
  const size_t file_bytes = FileSize(path);
  if (file_bytes < header.data_offset || file_bytes - header.data_offset != data_bytes) {
    throw Error(Concat(path, ": the header says ", ShapeToString(header.shape), " of '",
                       header.type, "' (", data_bytes, " bytes), the file holds ",
                       file_bytes < header.data_offset ? 0 : file_bytes - header.data_offset,
                       " bytes after the header"));
  }
  std::vector<char> data;
  std::vector<float> values;
  try {
    data.resize(data_bytes);
    values.resize(count);
  } catch (const std::bad_alloc&) {
    throw Error(Concat(path, ": cannot allocate ", data_bytes, " bytes to read it"));
  }
  std::ifstream file(path, std::ios::binary);
  file.seekg(static_cast<std::streamoff>(header.data_offset));
  file.read(data.data(), static_cast<std::streamsize>(data_bytes));
  if (!file) throw Error(Concat(path, ": read error"));
  // Host order is little-endian on every machine Lumen builds for (x86-64, AArch64).
  for (size_t i = 0; i < count; ++i) {
    const char* item = data.data() + i * header.item_bytes;
    if (header.type == "<f4") {
      std::memcpy(&values[i], item, sizeof(float));
    } else if (header.type == "<f8") {
      double value;
      std::memcpy(&value, item, sizeof(value));
      values[i] = static_cast<float>(value);
    } else if (header.type == "<i4") {
      int32_t value;
      std::memcpy(&value, item, sizeof(value));
      values[i] = static_cast<float>(value);
    } else if (header.type == "<i8") {
      int64_t value;
      std::memcpy(&value, item, sizeof(value));
      values[i] = static_cast<float>(value);
    } else {
      values[i] = *item != 0 ? 1.0f : 0.0f;
    }
  }
  return Tensor::FromRowMajor(values, header.shape);
}

std::string NpyBytes(const Tensor& tensor) {
  const Shape& extents = tensor.shape();
  std::string shape = "(";
  for (size_t i = 0; i < extents.size(); ++i) shape += Concat(i > 0 ? ", " : "", extents[i]);
  shape += extents.size() == 1 ? ",)" : ")";  // Python's one-element tuple
  std::string dictionary =
      Concat("{'descr': '<f4', 'fortran_order': False, 'shape': ", shape, ", }");
  // The elements start at a multiple of 64 bytes; the header ends with a newline.
  const size_t prefix = kMagicBytes + 2 + 2;
  const size_t padded = (prefix + dictionary.size() + 1 + 63) / 64 * 64;
  dictionary.append(padded - prefix - dictionary.size() - 1, ' ');
  dictionary += '\n';
  std::string bytes(kMagic, kMagicBytes);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(dictionary.size() & 0xff);
  bytes += static_cast<char>(dictionary.size() >> 8);
  bytes += dictionary;
  const std::vector<float> values = tensor.ToRowMajor();
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  return bytes;
}

void WriteNpyFile(const std::string& path, const Tensor& tensor) {
  const std::string bytes = NpyBytes(tensor);
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw Error(Concat(path, ": cannot write"));
}

}  // namespace lumen
