#include "pnnx/param_reader.hpp"

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/parse_number.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

constexpr int64_t kMagic = 7767517;

// Where a problem is: every message starts with "file:line: ".
struct Location {
  const std::string& file_name;
  int line;
};

[[noreturn]] void Fail(const Location& where, const std::string& message) {
  throw Error(Concat(where.file_name, ":", where.line, ": ", message));
}

std::vector<std::string> SplitWhitespace(const std::string& line) {
  std::vector<std::string> tokens;
  std::istringstream stream(line);
  std::string token;
  while (stream >> token) tokens.push_back(token);
  return tokens;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) {
    // pnnx writes '\n'; a file saved with CRLF would otherwise corrupt the last token of each line.
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

bool IsBlank(const std::string& line) { return line.find_first_not_of(" \t") == std::string::npos; }

int64_t ParseCount(const std::string& token, const Location& where, const std::string& what) {
  int64_t value = 0;
  if (!ParseInteger(token, &value) || value < 0 || value > 1000000000) {
    Fail(where, Concat(what, " '", token, "' is not a non-negative integer"));
  }
  return value;
}

// A parsed `(d0,d1,...)dtype` value of an `@` or `#` item.
struct ShapeAndType {
  std::vector<int> shape;
  DataType type = DataType::kUnknown;
};

// Parses `(d0,...)dtype`. `allow_unknown` accepts `?` and `%name` extents (as -1) for `#` notes.
ShapeAndType ParseShapeAndType(const std::string& value, const std::string& token,
                               bool allow_unknown, const Location& where) {
  const size_t close = value.find(')');
  if (value.empty() || value[0] != '(' || close == std::string::npos) {
    Fail(where, Concat("expected (shape)dtype in '", token, "'"));
  }
  ShapeAndType result;
  const std::string dtype = value.substr(close + 1);
  if (!ParseDataType(dtype, &result.type)) {
    Fail(where, Concat("unknown dtype '", dtype, "' in '", token, "'"));
  }
  const std::string body = value.substr(1, close - 1);
  if (body.empty()) return result;
  std::istringstream stream(body);
  std::string extent;
  while (std::getline(stream, extent, ',')) {
    int64_t number = 0;
    if (allow_unknown && (extent == "?" || (!extent.empty() && extent[0] == '%'))) {
      result.shape.push_back(-1);
    } else if (ParseInteger(extent, &number) && number >= 0 && number <= 0x7FFFFFFF) {
      result.shape.push_back(static_cast<int>(number));
    } else {
      Fail(where, Concat("bad extent '", extent, "' in '", token, "'"));
    }
  }
  if (body.back() == ',') Fail(where, Concat("bad extent '' in '", token, "'"));
  return result;
}

// A `#operand=(shape)dtype` note, applied once every operand exists.
struct ShapeNote {
  std::string operand;
  ShapeAndType value;
  std::string token;
  int line;
};

// Parses one item (`key=value`, `@attr=...`, `$role=...`, `#operand=...`) into `op`.
void ParseItem(const std::string& token, const Location& where, Node* op,
               std::vector<ShapeNote>* notes) {
  // LESSON 03 BEGIN: one key=value, @weight, $input or #shape item into the operator
  const size_t equals = token.find('=');
  if (equals == std::string::npos) {
    Fail(where, Concat("operator '", op->name, "': item '", token,
                       "' has no '=' (do the input/output counts match the operand list?)"));
  }
  const char prefix = token[0];
  const bool has_prefix = prefix == '@' || prefix == '$' || prefix == '#';
  const std::string key = token.substr(has_prefix ? 1 : 0, equals - (has_prefix ? 1 : 0));
  const std::string value = token.substr(equals + 1);
  if (key.empty()) Fail(where, Concat("item '", token, "' has an empty key"));

  if (prefix == '@') {
    const ShapeAndType declared = ParseShapeAndType(value, token, false, where);
    // An empty shape "()" is a rank-0 weight (one value, such as a registered torch.tensor(2.0)).
    if (declared.type == DataType::kUnknown) {
      Fail(where, Concat("weight '", token, "' needs a known dtype"));
    }
    for (int extent : declared.shape) {
      if (extent <= 0) Fail(where, Concat("weight '", token, "' has a zero extent"));
    }
    // A byte count that wraps around (to 0, say) would match an empty member of the bin.
    try {
      Attribute{declared.type, declared.shape, {}}.DeclaredByteCount();
    } catch (const Error& error) {
      Fail(where, Concat("weight '", token, "': ", error.what()));
    }
    if (op->attributes.count(key)) Fail(where, Concat("weight '@", key, "' is declared twice"));
    Attribute& attribute = op->attributes[key];
    attribute.shape = declared.shape;
    attribute.type = declared.type;
  } else if (prefix == '$') {
    bool is_input = false;
    for (const std::string& input : op->input_names) is_input = is_input || input == value;
    if (!is_input) {
      Fail(where, Concat("'", token, "' names operand '", value,
                         "', which is not an input of operator '", op->name, "'"));
    }
    op->input_keys[key] = value;
  } else if (prefix == '#') {
    notes->push_back({key, ParseShapeAndType(value, token, true, where), token, where.line});
  } else {
    if (op->params.count(key)) Fail(where, Concat("parameter '", key, "' is given twice"));
    try {
      op->params[key] = Parameter::Parse(value);
    } catch (const Error& error) {
      Fail(where, Concat("parameter '", token, "': ", error.what()));
    }
  }
  // LESSON 03 END
}

// Parses one operator line. The operands it names are linked later, once all lines are read.
Node ParseOperatorLine(const std::string& line, const Location& where,
                       std::vector<ShapeNote>* notes) {
  // LESSON 03 BEGIN: type, name, counts, operand names, then the items
  const std::vector<std::string> tokens = SplitWhitespace(line);
  if (tokens.size() < 4) {
    Fail(where, Concat("an operator line needs at least 4 tokens (type name inputs outputs), got ",
                       tokens.size()));
  }
  Node node;
  Node* op = &node;
  op->type = tokens[0];
  op->name = tokens[1];
  op->line = where.line;
  for (const std::string* token : {&op->type, &op->name}) {
    if (token->find('=') != std::string::npos) {
      Fail(where, Concat("operator type and name cannot contain '=': '", *token, "'"));
    }
  }
  const int64_t input_count = ParseCount(tokens[2], where, "input count");
  const int64_t output_count = ParseCount(tokens[3], where, "output count");
  if (4 + input_count + output_count > static_cast<int64_t>(tokens.size())) {
    Fail(where,
         Concat("operator '", op->name, "' declares ", input_count, " inputs and ", output_count,
                " outputs but the line has only ", tokens.size() - 4, " tokens after the counts"));
  }
  size_t index = 4;
  for (int64_t i = 0; i < input_count + output_count; ++i, ++index) {
    const std::string& operand = tokens[index];
    if (operand.find('=') != std::string::npos) {
      Fail(where, Concat("operator '", op->name, "': expected an operand name, got '", operand,
                         "' (do the input/output counts match the operand list?)"));
    }
    (i < input_count ? op->input_names : op->output_names).push_back(operand);
  }
  for (; index < tokens.size(); ++index) ParseItem(tokens[index], where, op, notes);
  return node;
  // LESSON 03 END
}

}  // namespace

std::string ShapeText(const std::vector<int>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? "," : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  }
  return text + ")";
}

Graph ParsePnnxParam(const std::string& text, const std::string& file_name) {
  const std::vector<std::string> lines = SplitLines(text);
  if (lines.empty()) Fail({file_name, 1}, "empty file: expected the magic number 7767517");

  int64_t magic = 0;
  const std::vector<std::string> magic_tokens = SplitWhitespace(lines[0]);
  if (magic_tokens.size() != 1 || !ParseInteger(magic_tokens[0], &magic) || magic != kMagic) {
    Fail({file_name, 1}, Concat("expected the magic number 7767517, got '", lines[0], "'"));
  }
  if (lines.size() < 2) Fail({file_name, 2}, "missing the operator/operand count line");
  const std::vector<std::string> counts = SplitWhitespace(lines[1]);
  if (counts.size() != 2) {
    Fail({file_name, 2},
         Concat("expected '<operator count> <operand count>', got '", lines[1], "'"));
  }
  const int64_t operator_count = ParseCount(counts[0], {file_name, 2}, "operator count");
  const int64_t operand_count = ParseCount(counts[1], {file_name, 2}, "operand count");

  Graph model;
  model.source = file_name;
  std::vector<ShapeNote> notes;
  std::map<std::string, int> operator_lines;  // name -> line, to reject duplicates
  for (size_t i = 2; i < lines.size(); ++i) {
    const int line_number = static_cast<int>(i) + 1;
    if (IsBlank(lines[i])) continue;
    if (static_cast<int64_t>(model.nodes.size()) == operator_count) {
      Fail({file_name, line_number}, Concat("the count line declares ", operator_count,
                                            " operators but there are more operator lines"));
    }
    Node node = ParseOperatorLine(lines[i], {file_name, line_number}, &notes);
    const auto [previous, inserted] = operator_lines.emplace(node.name, line_number);
    if (!inserted) {
      Fail({file_name, line_number},
           Concat("operator name '", node.name, "' is already used on line ", previous->second));
    }
    model.nodes.push_back(std::move(node));
  }
  if (static_cast<int64_t>(model.nodes.size()) != operator_count) {
    Fail({file_name, static_cast<int>(lines.size())},
         Concat("the count line declares ", operator_count, " operators but the file has ",
                model.nodes.size()));
  }

  // Every operand is produced by exactly one operator.
  std::map<std::string, size_t> operands;  // name -> index in model.operands
  std::map<std::string, int> producer_lines;
  for (const Node& op : model.nodes) {
    for (const std::string& name : op.output_names) {
      const auto [previous, inserted] = producer_lines.emplace(name, op.line);
      if (!inserted) {
        Fail({file_name, op.line},
             Concat("operand '", name, "' is already produced on line ", previous->second));
      }
      operands[name] = model.operands.size();
      model.operands.push_back(Operand{name, {}, DataType::kUnknown});
    }
  }
  if (static_cast<int64_t>(model.operands.size()) != operand_count) {
    Fail({file_name, 2}, Concat("the count line declares ", operand_count,
                                " operands but the operators produce ", model.operands.size()));
  }
  for (const Node& op : model.nodes) {
    for (const std::string& name : op.input_names) {
      if (!operands.count(name)) {
        Fail({file_name, op.line}, Concat("operator '", op.name, "' reads operand '", name,
                                          "', which no operator produces"));
      }
    }
  }

  // Shape notes: an operand is usually annotated on its producer's line and on each consumer's.
  std::map<std::string, int> note_lines;
  for (const ShapeNote& note : notes) {
    const auto found = operands.find(note.operand);
    if (found == operands.end()) {
      Fail({file_name, note.line}, Concat("shape note '", note.token, "' names operand '",
                                          note.operand, "', which no operator produces"));
    }
    Operand& operand = model.operands[found->second];
    if (note_lines.count(note.operand)) {
      const std::vector<int>& known = operand.shape;
      bool agree = known.size() == note.value.shape.size() && operand.type == note.value.type;
      for (size_t i = 0; agree && i < known.size(); ++i) {
        agree = known[i] < 0 || note.value.shape[i] < 0 || known[i] == note.value.shape[i];
      }
      if (!agree) {
        Fail({file_name, note.line},
             Concat("shape note '", note.token, "' disagrees with line ", note_lines[note.operand],
                    ", which gave ", ShapeText(known), DataTypeName(operand.type)));
      }
      for (size_t i = 0; i < known.size(); ++i) {
        if (operand.shape[i] < 0) operand.shape[i] = note.value.shape[i];
      }
    } else {
      operand.shape = note.value.shape;
      operand.type = note.value.type;
      note_lines[note.operand] = note.line;
    }
  }
  return model;
}

Graph ReadPnnxParam(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw Error(Concat(path, ": is a directory, not a param file"));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(Concat(path, ": cannot open the param file"));
  std::ostringstream text;
  text << file.rdbuf();
  return ParsePnnxParam(text.str(), path);
}

}  // namespace lumen
