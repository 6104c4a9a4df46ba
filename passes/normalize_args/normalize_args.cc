// Copyright 2026 The FX for C++ Authors.
#include "passes/normalize_args/normalize_args.h"

#include <optional>
#include <vector>

#include "core/graph.h"
#include "passes/support/normalized_call.h"

namespace fx {

absl::StatusOr<size_t> normalize_args(GraphModule& module) {
  size_t rewritten = 0;
  std::vector<Node*> calls;
  for (Node* n : module.graph().nodes()) {
    if (n->op() == Op::kCallFunction || n->op() == Op::kCallMethod) calls.push_back(n);
  }
  for (Node* n : calls) {
    std::optional<NormalizedCall> call = normalize_call(module, *n);
    if (!call) continue;
    const Op op_before = n->op();
    const std::string target_before = n->target();
    const Arguments args_before = n->args();
    const Kwargs kwargs_before = n->kwargs();
    if (absl::Status s = rewrite_as_normalized(*n, *call); !s.ok()) return s;
    if (n->op() != op_before || n->target() != target_before || !(n->args() == args_before) ||
        !(n->kwargs() == kwargs_before)) {
      ++rewritten;
    }
  }
  return rewritten;
}

absl::Status NormalizeArgs::run(GraphModule& module, PassContext&) {
  return normalize_args(module).status();
}

void register_normalize_args(PluginRegistrar& registrar) {
  registrar.add_pass<NormalizeArgs>(
      "normalize_args",
      "writes each call whose ATen operator is known (torch functions, methods, Python "
      "operators, torch.nn.functional leaf functions) as that operator's overload with its "
      "arguments in schema form");
}

}  // namespace fx
