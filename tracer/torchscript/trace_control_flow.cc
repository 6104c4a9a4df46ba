// Copyright 2026 The FX for C++ Authors.
//
// Control flow: prim::If and prim::Loop whose condition and trip count are
// known run like Python runs them while torch.fx traces (the taken branch,
// the loop unrolled). A branch on a traced value that only raises is an input
// check: the other branch is the program, and the check becomes a
// torch._assert node (or is dropped). `a and b` / `a or b` on traced
// conditions, which TorchScript compiles to a value-producing if, become
// operator.and_ / operator.or_, so a compound input check is one assertion. Other control flow on traced values
// cannot be followed, by this tracer or by torch.fx: an error that says how
// to get past it.
#include "absl/strings/str_cat.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "runtime/value_conversion.h"
#include "tracer/torchscript/diagnostics.h"
#include "tracer/torchscript/trace_engine.h"

namespace fx {
namespace tracer_internal {
namespace {

bool raises(const jit::Block* b) {
  for (const jit::Node* x : b->nodes()) {
    if (x->kind() == c10::prim::RaiseException) return true;
  }
  return false;
}

// True for a block that only computes values without side effects and
// makes no tensor: constants, non-mutating operators on sizes and flags,
// and nested conditions of the same kind. What TorchScript makes of the
// right-hand side of `a and b`, `a or b`.
bool computes_a_condition(const jit::Block* b) {
  for (const jit::Node* x : b->nodes()) {
    if (x->kind() == c10::prim::Constant) continue;
    if (x->kind() == c10::prim::If) {
      for (const jit::Block* inner : x->blocks()) {
        if (!computes_a_condition(inner)) return false;
      }
      continue;
    }
    if (x->maybeSchema() == nullptr || x->schema().is_mutable()) return false;
    for (const jit::Value* out : x->outputs()) {
      if (type_contains_tensor(out->type())) return false;
    }
  }
  return true;
}

}  // namespace

std::string TraceEngine::raise_message(const jit::Block* block) const {
  for (const jit::Node* n : block->nodes()) {
    if (n->kind() != c10::prim::RaiseException) continue;
    const jit::Node* producer = n->input(0)->node();
    if (producer->kind() == c10::aten::format) producer = producer->input(0)->node();
    if (producer->kind() == c10::prim::Constant) {
      auto v = jit::toIValue(producer->output());
      if (v && v->isString()) return v->toStringRef();
    }
  }
  return "assertion failed";
}

absl::StatusOr<c10::IValue> TraceEngine::decide_by_value_now(const jit::Node* n,
                                                              const TraceValue& v) {
  const c10::IValue now = *v.traced_now();
  auto a = to_argument(v, nullptr);
  if (!a.ok()) return error(n, a.status().message());
  const std::string where = source_of(n, /*file_name_only=*/true);
  const std::string message = absl::StrCat(
      "the trace took ", where.empty() ? "a condition" : where, " as ",
      python_repr(*ivalue_to_argument(now)),
      ", from the model's state when traced (a parameter's dtype or device, the grad mode); "
      "that state has changed: trace the model again");
  Argument holds;
  if (now.isBool()) {
    holds = now.toBool() ? *a : tracer_.create_proxy(Op::kCallFunction, kNotTarget, {*a}, {});
  } else {
    holds = tracer_.create_proxy(Op::kCallFunction, "operator.eq", {*a, *ivalue_to_argument(now)}, {});
  }
  tracer_.create_proxy(Op::kCallFunction, kAssertTarget, {holds, message}, {});
  return now;
}

absl::Status TraceEngine::run_if(const jit::Node* n, Frame& frame) {
  TraceValue cond = lookup(frame, n->input(0));
  const jit::Block* taken = nullptr;
  if (cond.is_traced() && cond.traced_now() && cond.traced_now()->isBool()) {
    // Computed by the graph, but known now (`self.weight.dtype == torch.float16`):
    // decided by that value, which the graph checks.
    auto now = decide_by_value_now(n, cond);
    if (!now.ok()) return now.status();
    cond = TraceValue::known(*now);
  }
  if (cond.is_known() && cond.known_value().isBool()) {
    taken = n->blocks()[cond.known_value().toBool() ? 0 : 1];
  } else if (n->outputs().size() == 1 && n->output()->type()->kind() == c10::TypeKind::BoolType &&
             computes_a_condition(n->blocks()[0]) && computes_a_condition(n->blocks()[1])) {
    return run_boolean_if(n, cond, frame);
  } else {
    const bool then_raises = raises(n->blocks()[0]);
    const bool else_raises = raises(n->blocks()[1]);
    if (then_raises == else_raises) {
      return untraceable(n, "control flow depends on an input value, which symbolic tracing "
                            "cannot follow (nor can torch.fx)");
    }
    // An input check: the other branch is the program; the check becomes an
    // assertion, as torch.fx's torch._assert.
    auto cond_arg = to_argument(cond, n->input(0)->type());
    if (!cond_arg.ok()) return error(n, cond_arg.status().message());
    if (tracer_.options().assertions == AssertionMode::kKeep) {
      Argument holds = *cond_arg;
      if (then_raises) {
        holds = tracer_.create_proxy(Op::kCallFunction, kNotTarget, {*cond_arg}, {});
      }
      tracer_.create_proxy(Op::kCallFunction, kAssertTarget,
                           {holds, raise_message(n->blocks()[then_raises ? 0 : 1])}, {});
    }
    taken = n->blocks()[then_raises ? 1 : 0];
  }
  if (absl::Status s = run_block(taken, frame); !s.ok()) return s;
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    TraceValue out = lookup(frame, taken->outputs()[i]);  // copied: inserting may move the table
    frame.values[n->outputs()[i]] = std::move(out);
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_boolean_if(const jit::Node* n, const TraceValue& cond,
                                         Frame& frame) {
  // `c ? a : b` on booleans, with both sides computed (they are side-effect
  // free): (c and a) or (not c and b), simplified where a side is known, so
  // `a and b` is one operator.and_ and `a or b` one operator.or_.
  auto c = to_argument(cond, n->input(0)->type());
  if (!c.ok()) return error(n, c.status().message());
  std::vector<TraceValue> sides;
  for (const jit::Block* block : n->blocks()) {
    if (absl::Status s = run_block(block, frame); !s.ok()) return s;
    sides.push_back(lookup(frame, block->outputs()[0]));
  }
  auto known_bool = [](const TraceValue& v) -> c10::optional<bool> {
    if (v.is_known() && v.known_value().isBool()) return v.known_value().toBool();
    return c10::nullopt;
  };
  auto call = [&](absl::string_view target, Arguments args) -> Argument {
    return tracer_.create_proxy(Op::kCallFunction, target, std::move(args), {});
  };
  const c10::optional<bool> then_known = known_bool(sides[0]);
  const c10::optional<bool> else_known = known_bool(sides[1]);
  Argument result;
  if (then_known && else_known) {
    if (*then_known == *else_known) {
      frame.values[n->output()] = TraceValue::known(*then_known);
      return absl::OkStatus();
    }
    result = *then_known ? *c : call(kNotTarget, {*c});
  } else {
    auto then_arg = to_argument(sides[0], n->output()->type());
    auto else_arg = to_argument(sides[1], n->output()->type());
    if (!then_arg.ok()) return error(n, then_arg.status().message());
    if (!else_arg.ok()) return error(n, else_arg.status().message());
    if (else_known && !*else_known) {
      result = call("operator.and_", {*c, *then_arg});
    } else if (then_known && *then_known) {
      result = call("operator.or_", {*c, *else_arg});
    } else if (else_known) {  // else is true
      result = call("operator.or_", {call(kNotTarget, {*c}), *then_arg});
    } else if (then_known) {  // then is false
      result = call("operator.and_", {call(kNotTarget, {*c}), *else_arg});
    } else {
      result = call("operator.or_", {call("operator.and_", {*c, *then_arg}),
                                     call("operator.and_", {call(kNotTarget, {*c}), *else_arg})});
    }
  }
  frame.values[n->output()] = TraceValue::traced(result);
  return absl::OkStatus();
}

absl::Status TraceEngine::run_loop(const jit::Node* n, Frame& frame) {
  TraceValue trip = lookup(frame, n->input(0));
  if (trip.is_traced() && trip.traced_now() && trip.traced_now()->isInt()) {
    // `for i in range(self.weight.size(0))`: unrolled for the size it has now.
    auto now = decide_by_value_now(n, trip);
    if (!now.ok()) return now.status();
    trip = TraceValue::known(*now);
  }
  const TraceValue start = lookup(frame, n->input(1));
  if (!trip.is_known() || !trip.known_value().isInt() || !start.is_known() ||
      !start.known_value().isBool()) {
    return untraceable(n, "a loop's trip count or condition depends on an input value, which "
                          "symbolic tracing cannot follow (nor can torch.fx)");
  }
  const jit::Block* body = n->blocks()[0];
  std::vector<TraceValue> carried;
  for (size_t i = 2; i < n->inputs().size(); ++i) carried.push_back(lookup(frame, n->input(i)));
  bool cond = start.known_value().toBool();
  constexpr int64_t kMaxIterations = 1000000;
  for (int64_t i = 0; cond && i < trip.known_value().toInt(); ++i) {
    if (i == kMaxIterations) {
      return error(n, absl::StrCat("the loop runs more than ", kMaxIterations,
                                   " iterations while tracing"));
    }
    frame.values[body->inputs()[0]] = TraceValue::known(i);
    for (size_t j = 0; j < carried.size(); ++j) frame.values[body->inputs()[j + 1]] = carried[j];
    if (absl::Status s = run_block(body, frame); !s.ok()) return s;
    const TraceValue next = lookup(frame, body->outputs()[0]);
    if (!next.is_known() || !next.known_value().isBool()) {
      return untraceable(n, "a loop's condition depends on an input value, which symbolic "
                            "tracing cannot follow (nor can torch.fx)");
    }
    cond = next.known_value().toBool();
    for (size_t j = 0; j < carried.size(); ++j) carried[j] = lookup(frame, body->outputs()[j + 1]);
  }
  for (size_t j = 0; j < carried.size(); ++j) frame.values[n->outputs()[j]] = carried[j];
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
