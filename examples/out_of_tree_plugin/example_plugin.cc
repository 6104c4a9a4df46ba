// Copyright 2026 The FX for C++ Authors.
//
// An FX plugin built outside the monorepo, against an installed release only
// (CMakeLists.txt: find_package(fx), fx_add_plugin; or Makefile: pkg-config):
//   * pass "remove_assertions": erases torch._assert nodes (the input checks
//     the tracer keeps), for deployment builds that validate inputs elsewhere;
//   * tracer extension "count_ops": records how many call_function nodes of
//     each target a trace made, in the graph's meta["op_counts"].
#include <map>
#include <string>

#include "fx/plugins/fx_plugin.h"

namespace {

class RemoveAssertions : public fx::Pass {
 public:
  absl::Status run(fx::GraphModule& gm, fx::PassContext& ctx) override {
    int removed = 0;
    for (fx::Node* n : gm.graph().find_nodes(fx::Op::kCallFunction, "torch._assert")) {
      if (absl::Status s = gm.graph().erase_node(n); !s.ok()) return s;
      ++removed;
    }
    // The conditions the assertions checked are now dead: remove them too.
    gm.graph().eliminate_dead_code();
    gm.meta().set("assertions_removed", removed);
    return absl::OkStatus();
  }
};

class CountOps : public fx::TracerExtension {
 public:
  fx::Node* create_node(fx::Tracer& tracer, fx::Op op, absl::string_view target,
                        fx::Arguments args, fx::Kwargs kwargs, absl::string_view name,
                        fx::CreateNodeNext next) override {
    if (op == fx::Op::kCallFunction) ++counts_[std::string(target)];
    return next(op, target, std::move(args), std::move(kwargs), name);
  }
  absl::Status end_trace(fx::Tracer& tracer, fx::GraphModule& gm) override {
    fx::Meta counts;
    for (const auto& [target, count] : counts_) counts.set(target, count);
    gm.meta().set("op_counts", std::move(counts));
    return absl::OkStatus();
  }

 private:
  std::map<std::string, int64_t> counts_;
};

}  // namespace

FX_PLUGIN("out_of_tree_example", "1.0") {
  registrar.add_pass<RemoveAssertions>("remove_assertions",
                                       "erases torch._assert nodes and what only they used");
  registrar.add_tracer_extension<CountOps>("count_ops",
                                           "counts call_function nodes by target into "
                                           "meta['op_counts']");
}
