#include "pnnx/zip_writer.hpp"

#include <fstream>
#include <limits>

#include "lumen/error.hpp"
#include "pnnx/storage_zip.hpp"

namespace lumen {
namespace {

// Appends `value` to `out` as `bytes` little-endian bytes, as every ZIP field is stored.
void PutLittleEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// The largest size or offset a plain (not ZIP64) record holds; 0xFFFFFFFF itself means "see the
// ZIP64 block" to readers.
constexpr uint64_t kLargestPlainField = 0xFFFFFFFEu;

}  // namespace

void StoredZipWriter::Add(const std::string& name, const std::vector<char>& bytes) {
  if (name.empty() || name.size() > 0xFFFF) {
    throw Error(Concat("zip member name of ", name.size(), " bytes: must be 1..65535"));
  }
  for (const Entry& entry : entries_) {
    if (entry.name == name) throw Error(Concat("zip member '", name, "' added twice"));
  }
  const uint64_t offset = archive_.size();
  if (offset + 30 + name.size() + bytes.size() > kLargestPlainField || entries_.size() >= 0xFFFF) {
    throw Error(Concat("zip member '", name, "': the archive would pass 4 GiB or 65535 members, ",
                       "which needs ZIP64 records this writer does not write"));
  }
  Entry entry{name, Crc32(bytes.data(), bytes.size()), static_cast<uint32_t>(bytes.size()),
              static_cast<uint32_t>(offset)};
  PutLittleEndian(&archive_, 0x04034b50, 4);  // local file header
  PutLittleEndian(&archive_, 20, 2);          // version needed: 2.0
  PutLittleEndian(&archive_, 0, 2);           // flags
  PutLittleEndian(&archive_, 0, 2);           // method: stored
  PutLittleEndian(&archive_, 0, 4);           // time and date
  PutLittleEndian(&archive_, entry.crc, 4);
  PutLittleEndian(&archive_, entry.size, 4);  // compressed size
  PutLittleEndian(&archive_, entry.size, 4);  // uncompressed size
  PutLittleEndian(&archive_, name.size(), 2);
  PutLittleEndian(&archive_, 0, 2);  // extra field length
  archive_ += name;
  archive_.append(bytes.data(), bytes.size());
  entries_.push_back(entry);
}

void StoredZipWriter::Write(const std::string& path) const {
  std::string directory;
  for (const Entry& entry : entries_) {
    PutLittleEndian(&directory, 0x02014b50, 4);  // central directory header
    PutLittleEndian(&directory, 20, 2);          // version made by
    PutLittleEndian(&directory, 20, 2);          // version needed
    PutLittleEndian(&directory, 0, 2);           // flags
    PutLittleEndian(&directory, 0, 2);           // method: stored
    PutLittleEndian(&directory, 0, 4);           // time and date
    PutLittleEndian(&directory, entry.crc, 4);
    PutLittleEndian(&directory, entry.size, 4);
    PutLittleEndian(&directory, entry.size, 4);
    PutLittleEndian(&directory, entry.name.size(), 2);
    PutLittleEndian(&directory, 0, 2);  // extra field length
    PutLittleEndian(&directory, 0, 2);  // comment length
    PutLittleEndian(&directory, 0, 2);  // disk number
    PutLittleEndian(&directory, 0, 2);  // internal attributes
    PutLittleEndian(&directory, 0, 4);  // external attributes
    PutLittleEndian(&directory, entry.offset, 4);
    directory += entry.name;
  }
  if (archive_.size() + directory.size() > kLargestPlainField) {
    throw Error(Concat(path, ": the archive would pass 4 GiB, which needs ZIP64 records"));
  }
  std::string end;
  PutLittleEndian(&end, 0x06054b50, 4);  // end of central directory
  PutLittleEndian(&end, 0, 4);           // this disk, the directory's disk
  PutLittleEndian(&end, entries_.size(), 2);
  PutLittleEndian(&end, entries_.size(), 2);
  PutLittleEndian(&end, directory.size(), 4);
  PutLittleEndian(&end, archive_.size(), 4);
  PutLittleEndian(&end, 0, 2);  // comment length
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << archive_ << directory << end;
  file.close();
  if (!file) throw Error(Concat(path, ": cannot write the file"));
}

}  // namespace lumen
