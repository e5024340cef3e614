#include "onnx/onnx_reader.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "graph/graph_reader.hpp"
#include "lumen/error.hpp"
#include "onnx_graph_builder.hpp"

namespace lumen {

using lumen_onnx_proto::ModelProto;

Graph ReadOnnxGraphFromBytes(const std::string& bytes, const std::string& source,
                             const std::string& model_folder) {
  ModelProto model;
  // A protobuf message cannot exceed 2 GB; ParseFromArray takes an int size.
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    throw Error(Concat(source,
                       ": larger than 2 GB, the most a protobuf message can hold (save "
                       "the weights as external data beside the model)"));
  }
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(Concat(source,
                       ": not a valid ONNX model (the protobuf is truncated or "
                       "malformed)"));
  }
  return onnx::GraphBuilder(model, source, model_folder).Build();
}

Graph ReadOnnxGraph(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(Concat(path, ": cannot open"));
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw Error(Concat(path, ": cannot read"));
  const std::string folder = std::filesystem::path(path).parent_path().string();
  return ReadOnnxGraphFromBytes(bytes, path, folder.empty() ? "." : folder);
}

bool LooksLikeOnnx(const std::string& head) {
  if (head.empty()) return false;
  // The key of a ModelProto field: (field number << 3) | wire type. torch.onnx.export writes
  // ir_version (field 1, varint) first; other writers may start with any field.
  switch (static_cast<unsigned char>(head[0])) {
    case 0x08:  // 1 ir_version
    case 0x12:  // 2 producer_name
    case 0x1a:  // 3 producer_version
    case 0x22:  // 4 domain
    case 0x28:  // 5 model_version
    case 0x32:  // 6 doc_string
    case 0x3a:  // 7 graph
    case 0x42:  // 8 opset_import
    case 0x72:  // 14 metadata_props
      return true;
    default:
      return false;
  }
}

namespace {

bool RecognisesOnnx(const std::string& /*path*/, const std::string& head) {
  return LooksLikeOnnx(head);
}

Graph ReadOnnx(const std::string& path, const std::string& weights_path) {
  if (!weights_path.empty()) {
    throw Error(Concat(path, ": an ONNX model holds its own weights; no weights file ('",
                       weights_path, "') can be given"));
  }
  return ReadOnnxGraph(path);
}

}  // namespace

LUMEN_REGISTER_GRAPH_FORMAT(Onnx, (GraphFormat{"onnx", RecognisesOnnx, ReadOnnx}));

}  // namespace lumen
