#include "lumen/pnnx/pnnx_model.hpp"

#include <glog/logging.h>

#include <set>

#include "lumen/base/error.hpp"
#include "lumen/pnnx/param_reader.hpp"
#include "lumen/pnnx/storage_zip.hpp"

namespace lumen {

void ReadPnnxWeights(const std::string& bin_path, const std::string& param_path, PnnxModel* model) {
  StorageZip zip(bin_path);
  std::set<std::string> used_members;
  for (const auto& op : model->operators) {
    for (auto& [key, attribute] : op->attributes) {
      // Member names are "<operator name>.<key>"; both halves may contain dots.
      const std::string member = op->name + "." + key;
      const std::string declared_at =
          Concat(" (declared by ", op->Describe(), " at ", param_path, ":", op->line, ")");
      if (!zip.Contains(member)) {
        throw Error(Concat(bin_path, ": missing weight '", member, "' for attribute '@", key, "'",
                           declared_at));
      }
      const uint64_t stored = zip.MemberSize(member);
      if (stored != attribute.DeclaredByteCount()) {
        throw Error(Concat(bin_path, ": weight '", member, "' holds ", stored, " bytes but '@", key,
                           "' declares ", attribute.ElementCount(), " x ",
                           DataTypeName(attribute.type), " = ", attribute.DeclaredByteCount(),
                           " bytes", declared_at));
      }
      zip.Read(member, &attribute.data);
      used_members.insert(member);
    }
  }
  for (const std::string& member : zip.MemberNames()) {
    if (!used_members.count(member)) {
      LOG(WARNING) << bin_path << ": member '" << member << "' is not used by any operator";
    }
  }
}

PnnxModel ReadPnnxModel(const std::string& param_path, const std::string& bin_path) {
  PnnxModel model = ReadPnnxParam(param_path);
  ReadPnnxWeights(bin_path, param_path, &model);
  return model;
}

}  // namespace lumen
