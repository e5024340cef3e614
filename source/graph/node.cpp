#include "lumen/graph/node.hpp"

#include "lumen/base/error.hpp"

namespace lumen {

std::string Node::Describe() const { return Concat(type, " '", name, "'"); }

std::string Node::DescribeWithLine() const {
  return line > 0 ? Concat(Describe(), " (line ", line, ")") : Describe();
}

}  // namespace lumen
