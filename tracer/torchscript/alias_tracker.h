// Copyright 2026 The FX for C++ Authors.
//
// alias_tracker.h: which values of a graph being traced share a tensor, and
// when an in-place operation may be recorded out of place. Internal to
// //tracer; the tracer and every pass that traces bodies (inline) go through
// it, so in-place and alias semantics are decided in one place.
//
// torch.fx runs Python on Proxies: `out += identity` rebinds `out` to a new
// value (`operator.add`); TorchScript keeps `aten::add_`. Recording the
// in-place operation out of place (torch.fx's graph, and what optimising
// passes prefer) is only correct when no other value can observe the change:
//
//   may_functionalize(v)  v is the result of an operation of this trace
//                         (call_function, call_method, call_module), not
//                         external (an input of a traced-into body, which the
//                         caller may read again), not a view of another value,
//                         has no views, and is no alias of a leaf's input.
//
// When it may, the tracer records the out-of-place operator and calls
// record_update(v, new_node): every later read of v reads current(v). When
// it may not, the operation stays in place (an impure node) and later reads
// of v, or of any value sharing its storage, see the change at run time
// because nodes run in order.
//
//   AliasTracker aliases;
//   aliases.mark_external(x);            // a caller's value
//   aliases.record_view(v, x);           // v = x.view(-1)
//   aliases.may_functionalize(v);        // false: v is a view
//
// Contracts: nodes are compared by identity; the tracker never dereferences a
// node it was not given; not thread-safe (one per trace).
#ifndef FX_TRACER_TORCHSCRIPT_ALIAS_TRACKER_H_
#define FX_TRACER_TORCHSCRIPT_ALIAS_TRACKER_H_

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "core/argument.h"
#include "core/node.h"
#include "runtime/operator_aliasing.h"

namespace fx {
namespace tracer_internal {


class AliasTracker {
 public:
  // The newest version of `n`: `n` itself unless in-place operations on it
  // were recorded out of place.
  Node* current(Node* n) const;
  // `a` with every node replaced by its newest version.
  Argument current(const Argument& a) const;

  // See the file comment.
  bool may_functionalize(const Node* n) const;

  // `updated` is the value of `mutated` after an in-place operation recorded
  // out of place.
  void record_update(Node* mutated, Node* updated);
  // `view` shares storage with `base` (a view operator's result, or a leaf
  // call's result that may alias its input).
  void record_view(Node* view, Node* base);
  // `element` is one result of `whole`: a view of the same base when `whole`
  // is a view (aten::chunk's pieces).
  void record_element(Node* element, Node* whole);
  // `n` may be read outside what is being traced (an inlined body's inputs).
  void mark_external(Node* n);

  bool is_view(const Node* n) const { return view_base_.contains(n); }
  bool has_views(const Node* n) const { return has_views_.contains(n); }
  bool is_external(const Node* n) const { return external_.contains(n); }
  // The value `view` is a view of, or nullptr.
  Node* base_of(const Node* view) const;

 private:
  // In-place operators recorded out of place: the next version of a value.
  absl::flat_hash_map<const Node*, Node*> next_version_;
  // Nodes whose value is a view of another node's (its root base), and the
  // bases that have views.
  absl::flat_hash_map<const Node*, Node*> view_base_;
  absl::flat_hash_set<const Node*> has_views_;
  absl::flat_hash_set<const Node*> external_;
};

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_TORCHSCRIPT_ALIAS_TRACKER_H_
