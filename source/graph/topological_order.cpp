#include "graph/topological_order.hpp"

#include <functional>
#include <queue>

namespace lumen {

TopologicalOrder OrderTopologically(const std::vector<std::vector<size_t>>& waits_for) {
  // LESSON 05 BEGIN: Kahn's algorithm; the lowest index first among the ready
  // pending[i]: how many of item i's uses still wait for their producer. readers[p]: the items
  // that read p, one entry per use like waits_for, so that every use is counted down.
  const size_t count = waits_for.size();
  std::vector<size_t> pending(count, 0);
  std::vector<std::vector<size_t>> readers(count);
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t item = 0; item < count; ++item) {
    for (size_t producer : waits_for[item]) readers[producer].push_back(item);
    pending[item] = waits_for[item].size();
    if (pending[item] == 0) ready.push(item);
  }
  TopologicalOrder result;
  while (!ready.empty()) {
    const size_t item = ready.top();
    ready.pop();
    result.order.push_back(item);
    for (size_t reader : readers[item]) {
      if (--pending[reader] == 0) ready.push(reader);
    }
  }
  for (size_t item = 0; item < count; ++item) {
    if (pending[item] > 0) result.stuck.push_back(item);
  }
  return result;
  // LESSON 05 END
}

}  // namespace lumen
