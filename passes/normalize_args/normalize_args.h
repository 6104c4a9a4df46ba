// Copyright 2026 The FX for C++ Authors.
//
// normalize_args.h: every call in one spelling (torch.fx's NormalizeArgs and
// NormalizeOperators, torch/fx/experimental/normalize.py), as a function and
// as pass "normalize_args".
//
// A graph traced from a .pt spells the same operation several ways (a leaf
// `torch.nn.functional.batch_norm(x, mean, var, w, b)`, `torch.batch_norm`,
// method `x.relu()`, `operator.add`), with arguments positional or by
// keyword. After this pass each call that normalized_call.h can read as one
// ATen operator overload is written as a torch.export program writes it:
//
//   %bn = torch.nn.functional.batch_norm(%x, %m, %v, %w, %b)
//     =>  %bn = aten::batch_norm(%x, %w, %b, %m, %v, False, 0.1, 1e-05, True)
//   %r = call_method relu(%bn)          =>  %r = aten::relu(%bn)
//
// positional parameters positional (up to the last one not at the
// operator's default), keyword-only ones as keywords. Nodes keep their
// names, users and meta. The graph computes what it computed.
//
// What stays as written (normalized_call.h says why for each): calls whose
// operator overload depends on values' types the graph does not know (run
// shape_prop first: a method or Python operator is normalised only on a
// tensor with tensor_meta), leaf functions that are not the operator of
// their name (F.adaptive_max_pool2d, F.dropout, F.relu(inplace=True)), calls
// packing trailing arguments into a list (`x.permute(0, 2, 1)`), and call_module.
//
// Contracts: the graph must lint; O(nodes x overloads of their operators).
#ifndef FX_PASSES_NORMALIZE_ARGS_NORMALIZE_ARGS_H_
#define FX_PASSES_NORMALIZE_ARGS_NORMALIZE_ARGS_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"
#include "runtime/graph_module.h"

namespace fx {

// Rewrites every call of `module`'s graph that normalises (see the file
// comment) and is not already in its normal form; returns how many.
FX_API absl::StatusOr<size_t> normalize_args(GraphModule& module);

class FX_API NormalizeArgs : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "normalize_args".
FX_API void register_normalize_args(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_NORMALIZE_ARGS_NORMALIZE_ARGS_H_
