// Copyright 2026 The FX for C++ Authors.
//
// value_writes.h: whether a graph may write a value, directly or through a
// view or alias of it, as mkldnn_layout must know before it keeps a value in
// oneDNN's layout (a strided copy would be written instead). Internal to the
// pass.
#ifndef FX_PASSES_MKLDNN_LAYOUT_VALUE_WRITES_H_
#define FX_PASSES_MKLDNN_LAYOUT_VALUE_WRITES_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "core/graph.h"

namespace fx {
namespace mkldnn_layout_internal {

// Whether `user` may write its argument `value`: an impure call, one whose
// schema writes the parameter taking `value`, a leaf function called in
// place, an in-place method, any module.
bool may_write(const Node& user, const Node& value);

// Whether the result of `user` may share its operands' storage.
bool may_alias(const Node& user);

// A node outside `skip` that may write `value`, directly or through a view or
// alias of it; nullptr when none.
const Node* writer_of(const Node& value, const absl::flat_hash_set<Node*>& skip);

// Whether a node outside `skip` may write `value` or a tensor it may view.
bool may_be_written(Node& value, const absl::flat_hash_set<Node*>& skip);

// Whether the graph may write the attribute `target`, through any get_attr of it.
bool attribute_may_be_written(const Graph& graph, const std::string& target);

}  // namespace mkldnn_layout_internal
}  // namespace fx

#endif  // FX_PASSES_MKLDNN_LAYOUT_VALUE_WRITES_H_
