// Copyright 2026 The FX for C++ Authors.
#include "tracer/alias_tracker.h"

#include <algorithm>
#include <iterator>

namespace fx {
namespace tracer_internal {

bool may_share_an_input(absl::string_view name) {
  // Sorted, for binary search. Returning an input itself: atleast_*d (input
  // already of that rank), sum_to_size (same size), type_as and the _cast_*
  // operators (same dtype), conj_physical (real input), dequantize (input not
  // quantized), dropout and its variants (eval mode or p == 0), lift, to_dense
  // and _to_dense (input already dense), broadcast_tensors (same shapes),
  // copy (the functional form of copy_), cumprod_backward and
  // to_mkldnn_backward. Returning a view of an input: einsum (one operand,
  // or a permutation), meshgrid and cartesian_prod (expand and view),
  // _unsafe_view, unsafe_chunk, unsafe_split, unsafe_split_with_sizes and
  // _reshape_from_tensor (views by design, without alias information),
  // align_as, data, and the functional set (storage of its source).
  static constexpr absl::string_view kNames[] = {
      "aten::_cast_Byte",
      "aten::_cast_Char",
      "aten::_cast_Double",
      "aten::_cast_Float",
      "aten::_cast_Half",
      "aten::_cast_Int",
      "aten::_cast_Long",
      "aten::_cast_Short",
      "aten::_reshape_from_tensor",
      "aten::_to_dense",
      "aten::_unsafe_view",
      "aten::align_as",
      "aten::alpha_dropout",
      "aten::atleast_1d",
      "aten::atleast_2d",
      "aten::atleast_3d",
      "aten::broadcast_tensors",
      "aten::cartesian_prod",
      "aten::conj_physical",
      "aten::copy",
      "aten::cumprod_backward",
      "aten::data",
      "aten::dequantize",
      "aten::dropout",
      "aten::einsum",
      "aten::feature_alpha_dropout",
      "aten::feature_dropout",
      "aten::lift",
      "aten::meshgrid",
      "aten::set",
      "aten::sum_to_size",
      "aten::to_dense",
      "aten::to_mkldnn_backward",
      "aten::type_as",
      "aten::unsafe_chunk",
      "aten::unsafe_split",
      "aten::unsafe_split_with_sizes",
  };
  return std::binary_search(std::begin(kNames), std::end(kNames), name);
}

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
