// Kahn's topological sort, written once for every graph Lumen puts in order: the ONNX reader's
// nodes (onnx/onnx_graph_builder.cpp) and the runtime's steps (runtime/runtime_graph.cpp). Each
// caller says, for every item, which items it waits for (the producers of what it reads); the sort
// knows nothing else of them.
#ifndef LUMEN_GRAPH_TOPOLOGICAL_ORDER_HPP_
#define LUMEN_GRAPH_TOPOLOGICAL_ORDER_HPP_

#include <cstddef>
#include <vector>

namespace lumen {

// What OrderTopologically finds: the items that can run, in order, and those that never can.
struct TopologicalOrder {
  std::vector<size_t> order;  // every item after the items it waits for
  std::vector<size_t> stuck;  // items on a cycle or waiting behind one, by index; empty if none
};

// Sorts items 0..n-1 (n = waits_for.size()), where waits_for[i] lists the items that item i waits
// for, one entry per use (an item that reads the same producer twice lists it twice). Among the
// items ready together the lowest index comes first, so a list that is already in order keeps its
// order (and a profile or an error message follows the file).
TopologicalOrder OrderTopologically(const std::vector<std::vector<size_t>>& waits_for);

}  // namespace lumen

#endif  // LUMEN_GRAPH_TOPOLOGICAL_ORDER_HPP_
