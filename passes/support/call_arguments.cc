// Copyright 2026 The FX for C++ Authors.
#include "passes/support/call_arguments.h"

#include <string>

#include "runtime/operator_binding.h"

namespace fx {

std::optional<BoundCall> bind_call(const Node& n) {
  if (n.op() != Op::kCallFunction) return std::nullopt;
  auto op = find_operator(n.target());
  if (!op.ok()) return std::nullopt;
  std::vector<std::string> kwarg_names;
  for (const auto& kw : n.kwargs()) kwarg_names.push_back(kw.first);
  auto positions = bind_positions(*op->schema, n.args().size(), kwarg_names);
  if (!positions.ok()) return std::nullopt;
  BoundCall call;
  call.schema = op->schema;
  const auto& params = op->schema->arguments();
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamBinding& p = (*positions)[i];
    switch (p.kind) {
      case ParamBinding::kPositional:
        call.given.push_back(&n.args()[p.index]);
        break;
      case ParamBinding::kKeyword:
        call.given.push_back(&n.kwargs()[p.index].second);
        break;
      case ParamBinding::kDefault:
        call.given.push_back(nullptr);
        break;
      case ParamBinding::kPacked:
        return std::nullopt;
    }
    call.defaults.push_back(params[i].default_value().value_or(c10::IValue()));
  }
  return call;
}

}  // namespace fx
