// Copyright 2026 The FX for C++ Authors.
#include "tracer/torchscript/alias_tracker.h"

namespace fx {
namespace tracer_internal {

Node* AliasTracker::current(Node* n) const {
  auto it = next_version_.find(n);
  while (it != next_version_.end()) {
    n = it->second;
    it = next_version_.find(n);
  }
  return n;
}

Argument AliasTracker::current(const Argument& a) const {
  if (next_version_.empty()) return a;
  if (a.is_node()) return current(a.to_node());
  bool stale = false;
  for_each_node(a, [&](Node* n) { stale = stale || next_version_.contains(n); });
  if (!stale) return a;
  return map_arg(a, [this](Node* n) -> Argument { return current(n); });
}

bool AliasTracker::may_functionalize(const Node* n) const {
  const bool made_here =
      n->op() == Op::kCallFunction || n->op() == Op::kCallMethod || n->op() == Op::kCallModule;
  return made_here && !external_.contains(n) && !view_base_.contains(n) && !has_views_.contains(n);
}

void AliasTracker::record_update(Node* mutated, Node* updated) {
  next_version_[mutated] = updated;
}

Node* AliasTracker::base_of(const Node* view) const {
  auto it = view_base_.find(view);
  return it == view_base_.end() ? nullptr : it->second;
}

void AliasTracker::record_view(Node* view, Node* base) {
  if (view == base) return;
  if (Node* root = base_of(base)) base = root;
  view_base_[view] = base;
  has_views_.insert(base);
}

void AliasTracker::record_element(Node* element, Node* whole) {
  if (Node* base = base_of(whole)) record_view(element, base);
}

void AliasTracker::mark_external(Node* n) { external_.insert(n); }

}  // namespace tracer_internal
}  // namespace fx
