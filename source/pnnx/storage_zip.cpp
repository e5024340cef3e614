#include "pnnx/storage_zip.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <string>

#include "lumen/error.hpp"

namespace lumen {
namespace {

// ZIP record signatures ("PK" followed by two bytes), as little-endian 32-bit values.
constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndOfDirectorySignature = 0x06054b50;
constexpr uint32_t kZip64EndOfDirectorySignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;

constexpr size_t kEndOfDirectorySize = 22;
constexpr size_t kMaxCommentSize = 65535;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kLocalHeaderSize = 30;

// Reads an unsigned little-endian integer of `bytes` bytes.
uint64_t ReadLittleEndian(const char* data, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(data[i]);
  return value;
}

uint16_t U16(const std::vector<char>& buffer, size_t offset) {
  return static_cast<uint16_t>(ReadLittleEndian(buffer.data() + offset, 2));
}
uint32_t U32(const std::vector<char>& buffer, size_t offset) {
  return static_cast<uint32_t>(ReadLittleEndian(buffer.data() + offset, 4));
}
uint64_t U64(const std::vector<char>& buffer, size_t offset) {
  return ReadLittleEndian(buffer.data() + offset, 8);
}

// `text` with every byte outside printable ASCII written as \xNN, for messages: a damaged
// archive's member name may hold NUL bytes, which would cut an error message short.
std::string Printable(const std::string& text) {
  std::string shown;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F) {
      shown += c;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      shown += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
    }
  }
  return shown;
}

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    table[i] = crc;
  }
  return table;
}

}  // namespace

uint32_t Crc32(const char* bytes, size_t size) {
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc = table[(crc ^ static_cast<uint8_t>(bytes[i])) & 0xFF] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

std::vector<char> StorageZip::ReadAt(uint64_t offset, uint64_t size) {
  if (offset > file_size_ || size > file_size_ - offset) {
    throw Error(Concat(path_, ": needs bytes [", offset, ", ", offset + size, ") but the file has ",
                       file_size_, " bytes: it is truncated or corrupt"));
  }
  std::vector<char> buffer(size);
  file_.seekg(static_cast<std::streamoff>(offset));
  file_.read(buffer.data(), static_cast<std::streamsize>(size));
  if (!file_) throw Error(Concat(path_, ": read error at byte ", offset));
  return buffer;
}

StorageZip::StorageZip(const std::string& path) : path_(path) {
  // A directory opens as a stream on Linux; its reported size would be read as an archive.
  struct stat info {};
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw Error(Concat(path, ": is a directory, not a bin file"));
  }
  file_.open(path, std::ios::binary);
  if (!file_) throw Error(Concat(path, ": cannot open the bin file"));
  file_.seekg(0, std::ios::end);
  const std::streamoff end = file_.tellg();
  if (end < 0) throw Error(Concat(path, ": cannot tell the size of the bin file"));
  file_size_ = static_cast<uint64_t>(end);
  const auto fail = [&](const std::string& message) { throw Error(Concat(path_, ": ", message)); };
  if (file_size_ < kEndOfDirectorySize) {
    fail(Concat("only ", file_size_, " bytes: too short to be a ZIP archive"));
  }

  // The end-of-central-directory record sits at the very end, after an optional comment.
  const uint64_t tail_size = std::min<uint64_t>(file_size_, kEndOfDirectorySize + kMaxCommentSize);
  const std::vector<char> tail = ReadAt(file_size_ - tail_size, tail_size);
  size_t end_record = tail_size;
  for (size_t pos = tail_size - kEndOfDirectorySize + 1; pos-- > 0;) {
    if (U32(tail, pos) == kEndOfDirectorySignature) {
      end_record = pos;
      break;
    }
  }
  if (end_record == tail_size) {
    fail("no end-of-central-directory record: the file is truncated or is not a ZIP archive");
  }
  const uint64_t end_record_offset = file_size_ - tail_size + end_record;
  uint64_t entry_count = U16(tail, end_record + 10);
  uint64_t directory_size = U32(tail, end_record + 12);
  uint64_t directory_offset = U32(tail, end_record + 16);

  // Saturated fields mean the real values are in the ZIP64 end record, found through its locator.
  if (entry_count == 0xFFFF || directory_size == 0xFFFFFFFF || directory_offset == 0xFFFFFFFF) {
    if (end_record_offset < 20) fail("ZIP64 fields are saturated but there is no ZIP64 locator");
    const std::vector<char> locator = ReadAt(end_record_offset - 20, 20);
    if (U32(locator, 0) != kZip64LocatorSignature) {
      fail("ZIP64 fields are saturated but there is no ZIP64 locator");
    }
    const std::vector<char> zip64_end = ReadAt(U64(locator, 8), 56);
    if (U32(zip64_end, 0) != kZip64EndOfDirectorySignature) {
      fail("the ZIP64 locator does not point at a ZIP64 end-of-central-directory record");
    }
    entry_count = U64(zip64_end, 32);
    directory_size = U64(zip64_end, 40);
    directory_offset = U64(zip64_end, 48);
  }
  if (directory_offset > end_record_offset ||
      directory_size > end_record_offset - directory_offset) {
    fail(Concat("the central directory [", directory_offset, ", ",
                directory_offset + directory_size, ") does not fit in the file"));
  }

  // LESSON 04 BEGIN: one member per central directory entry
  const std::vector<char> directory = ReadAt(directory_offset, directory_size);
  size_t pos = 0;
  for (uint64_t entry = 0; entry < entry_count; ++entry) {
    if (pos + kCentralHeaderSize > directory.size() ||
        U32(directory, pos) != kCentralHeaderSignature) {
      fail(
          Concat("central directory entry ", entry, " of ", entry_count, " is missing or corrupt"));
    }
    const uint16_t flags = U16(directory, pos + 8);
    const uint16_t method = U16(directory, pos + 10);
    const uint32_t crc32 = U32(directory, pos + 16);
    uint64_t compressed_size = U32(directory, pos + 20);
    uint64_t size = U32(directory, pos + 24);
    const uint16_t name_length = U16(directory, pos + 28);
    const uint16_t extra_length = U16(directory, pos + 30);
    const uint16_t comment_length = U16(directory, pos + 32);
    uint64_t local_offset = U32(directory, pos + 42);
    const size_t name_start = pos + kCentralHeaderSize;
    if (name_start + name_length + extra_length + comment_length > directory.size()) {
      fail(Concat("central directory entry ", entry, " runs past the directory"));
    }
    const std::string name(directory.data() + name_start, name_length);
    const std::string shown = Printable(name);  // for messages

    // ZIP64 extra block: 64-bit values for exactly the fields saturated above, in this order.
    size_t extra = name_start + name_length;
    const size_t extra_end = extra + extra_length;
    while (extra + 4 <= extra_end) {
      const uint16_t block_id = U16(directory, extra);
      const uint16_t block_size = U16(directory, extra + 2);
      // A block must end inside the extra field (found by the fuzzer: a block size past its end
      // made the ZIP64 values below read beyond the directory).
      if (extra + 4 + block_size > extra_end) {
        fail(
            Concat("member '", shown, "': an extra-field block runs past the entry's extra field"));
      }
      size_t field = extra + 4;
      if (block_id == kZip64ExtraId) {
        for (uint64_t* value : {&size, &compressed_size, &local_offset}) {
          if (*value != 0xFFFFFFFF) continue;
          if (field + 8 > extra + 4 + block_size)
            fail(Concat("member '", shown, "': bad ZIP64 block"));
          *value = U64(directory, field);
          field += 8;
        }
      }
      extra += 4 + block_size;
    }

    if (flags & 0x1) fail(Concat("member '", shown, "' is encrypted"));
    if (flags & 0x8)
      fail(Concat("member '", shown, "' uses a data descriptor, which pnnx never writes"));
    if (method != 0) {
      fail(Concat("member '", shown, "' is compressed (method ", method,
                  "); pnnx weights must be stored uncompressed"));
    }
    if (compressed_size != size) {
      fail(Concat("member '", shown, "' has compressed size ", compressed_size,
                  " != uncompressed size ", size));
    }
    // The data starts after the local header, whose extra field may differ from the central one.
    const std::vector<char> local = ReadAt(local_offset, kLocalHeaderSize);
    if (U32(local, 0) != kLocalHeaderSignature) {
      fail(Concat("member '", shown, "': no local header at byte ", local_offset));
    }
    const uint64_t data_offset = local_offset + kLocalHeaderSize + U16(local, 26) + U16(local, 28);
    if (data_offset > file_size_ || size > file_size_ - data_offset) {
      fail(Concat("member '", shown, "' needs bytes [", data_offset, ", ", data_offset + size,
                  ") but the file has ", file_size_, " bytes: it is truncated"));
    }
    if (!members_.emplace(name, Member{data_offset, size, crc32}).second) {
      fail(Concat("member '", shown, "' appears twice"));
    }
    pos = extra_end + comment_length;
  }
  // LESSON 04 END
}

bool StorageZip::Contains(const std::string& name) const { return members_.count(name) > 0; }

uint64_t StorageZip::MemberSize(const std::string& name) const {
  const auto found = members_.find(name);
  if (found == members_.end()) throw Error(Concat(path_, ": no member '", name, "'"));
  return found->second.size;
}

std::vector<std::string> StorageZip::MemberNames() const {
  std::vector<std::string> names;
  for (const auto& [name, member] : members_) names.push_back(name);
  return names;
}

void StorageZip::Read(const std::string& name, std::vector<char>* bytes) {
  // LESSON 04 BEGIN: copy a member's bytes out and check their CRC-32
  const auto found = members_.find(name);
  if (found == members_.end()) throw Error(Concat(path_, ": no member '", name, "'"));
  *bytes = ReadAt(found->second.data_offset, found->second.size);
  const uint32_t crc32 = Crc32(bytes->data(), bytes->size());
  if (crc32 != found->second.crc32) {
    throw Error(Concat(path_, ": member '", name, "' fails its CRC-32 check (stored ", std::hex,
                       found->second.crc32, ", computed ", crc32, "): the file is corrupt"));
  }
  // LESSON 04 END
}

}  // namespace lumen
