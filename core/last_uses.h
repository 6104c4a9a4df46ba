// Copyright 2026 The FX for C++ Authors.
//
// last_uses.h: where each value of a graph is used for the last time.
//
// torch.fx's code generator frees every value right after its last use
// (`x = None`), and an executor releases a tensor at the same point. Both read
// it from here (torch.fx's `user_to_last_uses`):
//
//   fx::LastUses last_uses(graph);
//   for (const fx::Node* n : graph.nodes()) {
//     run(n);
//     for (const fx::Node* dead : last_uses.freed_after(*n)) release(dead);
//   }
//
// A value's last use is the user that comes last in the graph; a value nobody
// uses is never freed (it is not in any list). Within one node's list, values
// come in the order the node first uses them (its input_nodes order), which
// is the order torch.fx writes `a = b = None`.
//
// Contracts: linear in the graph's size; the result describes the graph as it
// was when built (rebuild after changing it); not thread-safe to build, safe
// to read from several threads.
#ifndef FX_CORE_LAST_USES_H_
#define FX_CORE_LAST_USES_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/export.h"
#include "core/graph.h"

namespace fx {

class FX_API LastUses {
 public:
  explicit LastUses(const Graph& graph);

  // The values whose last use is `node`.
  absl::Span<const Node* const> freed_after(const Node& node) const;

 private:
  // freed_[begin_[k] .. begin_[k + 1]) for the node of order key k.
  std::vector<const Node*> freed_;
  std::vector<uint32_t> begin_;
};

}  // namespace fx

#endif  // FX_CORE_LAST_USES_H_
