// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_layout/rank_checks.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <optional>
#include <vector>

#include "core/graph.h"
#include "core/well_known.h"

namespace fx {
namespace {

// The rank the result of `n` has whenever it has one: an
// aten::mkldnn_convolution's is its weight's.
std::optional<int64_t> settled_rank(const GraphModule& gm, const Node& n) {
  if (n.op() != Op::kCallFunction || n.target() != "aten::mkldnn_convolution" || n.args().size() < 2 ||
      !n.args()[1].is_node() || n.args()[1].to_node()->op() != Op::kGetAttr) {
    return std::nullopt;
  }
  auto weight = gm.get_attr(n.args()[1].to_node()->target());
  if (!weight.ok() || !weight->isTensor()) return std::nullopt;
  return weight->toTensor().dim();
}

bool is_call(const Node& n, absl::string_view target, size_t args) {
  return n.op() == Op::kCallFunction && n.target() == target && n.args().size() == args &&
         n.kwargs().empty();
}

// The value of `compare` (`dim != k` or `dim == k`, either way round) for
// `rank`; nothing when it is not such a comparison.
std::optional<bool> compared(const Node& compare, const Node& dim, int64_t rank) {
  const bool ne = is_call(compare, "operator.ne", 2) || is_call(compare, "aten::ne.int", 2);
  const bool eq = is_call(compare, "operator.eq", 2) || is_call(compare, "aten::eq.int", 2);
  if (!ne && !eq) return std::nullopt;
  const Argument& a = compare.args()[0];
  const Argument& b = compare.args()[1];
  const Argument* other = a.is_node() && a.to_node() == &dim ? &b : &a;
  const Argument* self = other == &b ? &a : &b;
  if (!self->is_node() || self->to_node() != &dim || !other->is_int()) return std::nullopt;
  return (rank == other->to_int()) == eq;
}

// Whether `n` is `torch._assert(condition, message)`.
bool asserts(const Node& n, const Node& condition) {
  return is_call(n, kAssertTarget, 2) && n.args()[0].is_node() &&
         n.args()[0].to_node() == &condition;
}

// The nodes of one settled check on `dim`, users first, or nothing.
std::optional<std::vector<Node*>> settled_check(Node& dim, int64_t rank) {
  std::vector<Node*> erase;
  for (Node* compare : dim.users()) {
    const std::optional<bool> value = compared(*compare, dim, rank);
    if (!value) return std::nullopt;
    for (Node* user : compare->users()) {
      if (asserts(*user, *compare)) {
        if (!*value) return std::nullopt;  // it fails
        erase.push_back(user);
        continue;
      }
      if (!is_call(*user, kNotTarget, 1)) return std::nullopt;
      for (Node* assertion : user->users()) {
        if (!asserts(*assertion, *user) || *value) return std::nullopt;
        erase.push_back(assertion);
      }
      erase.push_back(user);
    }
    erase.push_back(compare);
  }
  erase.push_back(&dim);
  return erase;
}

}  // namespace

absl::StatusOr<int> remove_settled_rank_checks(GraphModule& gm) {
  Graph& graph = gm.graph();
  std::vector<std::pair<Node*, int64_t>> dims;
  for (Node* n : graph.nodes()) {
    if (!is_call(*n, "aten::dim", 1) || !n->args()[0].is_node()) continue;
    if (auto rank = settled_rank(gm, *n->args()[0].to_node())) dims.emplace_back(n, *rank);
  }
  int removed = 0;
  for (auto& [dim, rank] : dims) {
    auto erase = settled_check(*dim, rank);
    if (!erase || erase->size() == 1) continue;  // a dim read for something else stays
    for (Node* n : *erase) {
      if (absl::Status s = graph.erase_node(n); !s.ok()) return s;
    }
    ++removed;
  }
  return removed;
}

}  // namespace fx
