#include "graph/node.hpp"

#include "lumen/error.hpp"

namespace lumen {

std::string Node::Describe() const { return Concat(type, " '", name, "'"); }

std::string Node::DescribeWithLine() const {
  return line > 0 ? Concat(Describe(), " (line ", line, ")") : Describe();
}

}  // namespace lumen
