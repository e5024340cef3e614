// Reader for the text half of a PNNX model: the .pnnx.param graph description.
//
// Format: a magic line `7767517`, a line with the
// operator and operand counts, then one operator per line:
//
//   type name n_in n_out in_1 .. in_n out_1 .. out_m key=value .. @attr=(shape)dtype .. $role=in ..
//   #operand=(shape)dtype ..
#ifndef LUMEN_PNNX_PARAM_READER_HPP_
#define LUMEN_PNNX_PARAM_READER_HPP_

#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace lumen {

// Reads and validates a .pnnx.param file: every line becomes a node (pnnx.Input and pnnx.Output
// included; pnnx_reader.hpp resolves them). Attributes are declared (shape, dtype) but hold no
// bytes.
Graph ReadPnnxParam(const std::string& path);

// A shape as the file spells it, "(1,3,?,8)": -1 (an extent the file leaves free) as "?". The
// reader's messages and the writer (pnnx_writer.hpp) use it.
std::string ShapeText(const std::vector<int>& shape);

// Parses the text of a .pnnx.param file; `file_name` is used in error messages ("file:line: ...").
Graph ParsePnnxParam(const std::string& text, const std::string& file_name);

}  // namespace lumen

#endif  // LUMEN_PNNX_PARAM_READER_HPP_
