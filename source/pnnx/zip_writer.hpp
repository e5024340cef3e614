// Writer for the binary half of a PNNX model: a store-only ZIP archive, one member per weight,
// as storage_zip.hpp reads it back (and as pnnx and Python's zipfile read it).
//
// Plain ZIP records only: an archive whose members or total size pass 4 GiB would need ZIP64
// records, which this writer does not write; it refuses such an archive instead.
#ifndef LUMEN_PNNX_ZIP_WRITER_HPP_
#define LUMEN_PNNX_ZIP_WRITER_HPP_

#include <cstdint>
#include <string>
#include <vector>

namespace lumen {

// Builds a store-only ZIP archive member by member, then writes it to a file.
class StoredZipWriter {
 public:
  // Appends a member called `name` holding `bytes`; throws lumen::Error if the archive would pass
  // the 4 GiB plain ZIP records can describe, or the name is empty or already used.
  void Add(const std::string& name, const std::vector<char>& bytes);
  // Writes the archive (the members, then the central directory) to `path`; throws lumen::Error
  // naming the file if it cannot be written.
  void Write(const std::string& path) const;

 private:
  // What the central directory says of one member.
  struct Entry {
    std::string name;
    uint32_t crc = 0;
    uint32_t size = 0;
    uint32_t offset = 0;
  };
  std::string archive_;  // local headers and data so far
  std::vector<Entry> entries_;
};

}  // namespace lumen

#endif  // LUMEN_PNNX_ZIP_WRITER_HPP_
