// A store-only ZIP archive built in memory, to test the .pnnx.bin reader on archives pnnx never
// wrote: both record layouts, and damaged ones.
#ifndef LUMEN_TEST_SUPPORT_ZIP_WRITER_HPP_
#define LUMEN_TEST_SUPPORT_ZIP_WRITER_HPP_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pnnx/storage_zip.hpp"

namespace lumen {
namespace test_support {

// A store-only ZIP written by hand, as old pnnx (plain records) or new pnnx (ZIP64 records with
// saturated 32-bit fields) writes it, with switches to damage it.
struct ZipWriter {
  bool zip64 = false;
  uint16_t flags = 0;
  uint16_t method = 0;
  bool corrupt_crc = false;
  // ZIP64 with only the offset saturated (the sizes fit in 32 bits), as a general ZIP64 writer
  // does for small members past 4 GiB: the ZIP64 block then holds the offset alone.
  bool zip64_offset_only = false;
  // An extra block of this many bytes in each local header only (a timestamp, say): the local
  // and central headers then differ in length, and the data starts after the local one.
  uint16_t local_only_extra = 0;
  std::vector<std::pair<std::string, std::string>> members;

  // Appends `value` as `bytes` little-endian bytes.
  static void Put(std::string* out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  }

  // The whole archive.
  std::string Bytes() const {
    std::string archive;
    std::string directory;
    for (const auto& [name, data] : members) {
      const uint64_t offset = archive.size();
      uint32_t crc = Crc32(data.data(), data.size());
      if (corrupt_crc) crc ^= 1;
      const uint32_t size32 =
          zip64 && !zip64_offset_only ? 0xFFFFFFFF : static_cast<uint32_t>(data.size());
      std::string extra;
      std::string central_extra;
      if (zip64 && zip64_offset_only) {  // id 1, 8 bytes: the offset alone (central header only)
        Put(&central_extra, 1, 2);
        Put(&central_extra, 8, 2);
        Put(&central_extra, offset, 8);
      } else if (zip64) {  // id 1, 28 bytes: both sizes, the offset, the disk
        Put(&extra, 1, 2);
        Put(&extra, 28, 2);
        Put(&extra, data.size(), 8);
        Put(&extra, data.size(), 8);
        Put(&extra, 0, 8);
        Put(&extra, 0, 4);
        central_extra = extra;
        central_extra.replace(20, 8, std::string(reinterpret_cast<const char*>(&offset), 8));
      }
      if (local_only_extra > 0) {  // id 0x5455 (extended timestamp), filler bytes
        Put(&extra, 0x5455, 2);
        Put(&extra, local_only_extra, 2);
        extra += std::string(local_only_extra, '\x5a');
      }
      Put(&archive, 0x04034b50, 4);
      Put(&archive, 0, 2);
      Put(&archive, flags, 2);
      Put(&archive, method, 2);
      Put(&archive, 0, 4);
      Put(&archive, crc, 4);
      Put(&archive, size32, 4);
      Put(&archive, size32, 4);
      Put(&archive, name.size(), 2);
      Put(&archive, extra.size(), 2);
      archive += name + extra + data;

      Put(&directory, 0x02014b50, 4);
      Put(&directory, 0, 2);
      Put(&directory, 0, 2);
      Put(&directory, flags, 2);
      Put(&directory, method, 2);
      Put(&directory, 0, 4);
      Put(&directory, crc, 4);
      Put(&directory, size32, 4);
      Put(&directory, size32, 4);
      Put(&directory, name.size(), 2);
      Put(&directory, central_extra.size(), 2);
      Put(&directory, 0, 2);
      Put(&directory, zip64 ? 0xFFFF : 0, 2);
      Put(&directory, 0, 2);
      Put(&directory, 0, 4);
      Put(&directory, zip64 ? 0xFFFFFFFF : offset, 4);  // saturated: the ZIP64 block has it
      directory += name + central_extra;
    }
    const uint64_t directory_offset = archive.size();
    archive += directory;
    if (zip64) {
      const uint64_t record = archive.size();
      Put(&archive, 0x06064b50, 4);
      Put(&archive, 44, 8);
      Put(&archive, 0, 4);
      Put(&archive, 0, 8);
      Put(&archive, members.size(), 8);
      Put(&archive, members.size(), 8);
      Put(&archive, directory.size(), 8);
      Put(&archive, directory_offset, 8);
      Put(&archive, 0x07064b50, 4);
      Put(&archive, 0, 4);
      Put(&archive, record, 8);
      Put(&archive, 1, 4);
    }
    Put(&archive, 0x06054b50, 4);
    Put(&archive, 0, 4);
    Put(&archive, zip64 ? 0xFFFF : members.size(), 2);
    Put(&archive, zip64 ? 0xFFFF : members.size(), 2);
    Put(&archive, zip64 ? 0xFFFFFFFF : directory.size(), 4);
    Put(&archive, zip64 ? 0xFFFFFFFF : directory_offset, 4);
    Put(&archive, 0, 2);
    return archive;
  }
};

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_ZIP_WRITER_HPP_
