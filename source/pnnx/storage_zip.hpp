// Reader for the binary half of a PNNX model: the .pnnx.bin "storage zip".
//
// A .pnnx.bin is an ordinary ZIP archive whose members are stored uncompressed, one per weight,
// named "<operator name>.<attribute key>". pnnx before 2024 wrote plain ZIP records; newer pnnx
// writes ZIP64 records for every member. Members are not aligned in the file.
#ifndef LUMEN_PNNX_STORAGE_ZIP_HPP_
#define LUMEN_PNNX_STORAGE_ZIP_HPP_

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace lumen {

// Computes the standard ZIP CRC-32 of `size` bytes.
uint32_t Crc32(const char* bytes, size_t size);

// A read-only view of a store-only ZIP archive: its member names, sizes and bytes.
class StorageZip {
 public:
  // Opens `path` and reads its central directory (following ZIP64 records where present).
  // Throws lumen::Error if the file is not a store-only ZIP or a member lies outside the file.
  explicit StorageZip(const std::string& path);

  // True if the archive has a member called `name` (the full string; names may contain dots).
  bool Contains(const std::string& name) const;

  // Size in bytes of a member; throws lumen::Error if there is no such member.
  uint64_t MemberSize(const std::string& name) const;

  // All member names, sorted.
  std::vector<std::string> MemberNames() const;

  // Reads one member into `bytes` (resized to fit) and checks its CRC-32.
  void Read(const std::string& name, std::vector<char>* bytes);

 private:
  // Where one member's bytes are.
  struct Member {
    uint64_t data_offset = 0;
    uint64_t size = 0;
    uint32_t crc32 = 0;
  };

  // Reads `size` bytes at `offset`; throws if the file is shorter.
  std::vector<char> ReadAt(uint64_t offset, uint64_t size);

  std::string path_;
  std::ifstream file_;
  uint64_t file_size_ = 0;
  std::map<std::string, Member> members_;
};

}  // namespace lumen

#endif  // LUMEN_PNNX_STORAGE_ZIP_HPP_
