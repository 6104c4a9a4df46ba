// Copyright 2026 The FX for C++ Authors.
//
// Control flow: prim::If and prim::Loop whose condition and trip count are
// known run like Python runs them while torch.fx traces (the taken branch,
// the loop unrolled). A branch on a traced value that only raises is an input
// check: the other branch is the program, and the check becomes a
// torch._assert node (or is dropped). Other control flow on traced values
// cannot be followed, by this tracer or by torch.fx: an error that says how
// to get past it.
#include "absl/strings/str_cat.h"
#include "tracer/trace_engine.h"
#include "core/well_known.h"

namespace fx {
namespace tracer_internal {
namespace {

bool raises(const jit::Block* b) {
  for (const jit::Node* x : b->nodes()) {
    if (x->kind() == c10::prim::RaiseException) return true;
  }
  return false;
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

absl::Status TraceEngine::run_if(const jit::Node* n, Frame& frame) {
  const TraceValue cond = lookup(frame, n->input(0));
  const jit::Block* taken = nullptr;
  if (cond.is_known() && cond.known_value().isBool()) {
    taken = n->blocks()[cond.known_value().toBool() ? 0 : 1];
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

absl::Status TraceEngine::run_loop(const jit::Node* n, Frame& frame) {
  const TraceValue trip = lookup(frame, n->input(0));
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
