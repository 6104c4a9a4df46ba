// Copyright 2026 The FX for C++ Authors.
#include "fx/builtin_plugins.h"

#include "absl/strings/str_cat.h"
#include "fx/version.h"
#include "passes/compile/compile.h"
#include "passes/const_fold/const_fold.h"
#include "passes/cse/cse.h"
#include "passes/dce/dce.h"
#include "passes/fold_bn/fold_bn.h"
#include "passes/fuse_elementwise/fuse_elementwise.h"
#include "passes/inline/inline.h"
#include "passes/invert/invert.h"
#include "passes/mkldnn_fusion/mkldnn_fusion.h"
#include "passes/mkldnn_layout/mkldnn_layout.h"
#include "passes/normalize_args/normalize_args.h"
#include "passes/rewrite/rewrite_rules.h"
#include "passes/shape_prop/shape_prop.h"
#include "passes/split/split.h"
#include "passes/transpose_linear/transpose_linear.h"
#include "tracer/exec_order/exec_order.h"
#include "tracer/leaf_policy/leaf_policy.h"
#include "tracer/module_path/module_path.h"
#include "tracer/tagging/tagging.h"

namespace fx {
namespace {

struct Builtin {
  const char* name;
  void (*register_plugin)(PluginRegistrar&);
};

// The same list as plugins/in_tree.bzl's, and the same names as each
// plugin.cc's FX_PLUGIN.
constexpr Builtin kBuiltins[] = {
    {"compile", register_compile},
    {"const_fold", register_const_fold},
    {"cse", register_cse},
    {"dce", register_dce},
    {"fold_bn", register_fold_bn},
    {"fuse_elementwise", register_fuse_elementwise},
    {"inline", register_inline},
    {"invert", register_invert},
    {"mkldnn_fusion", register_mkldnn_fusion},
    {"mkldnn_layout", register_mkldnn_layout},
    {"normalize_args", register_normalize_args},
    {"rewrite", register_rewrite},
    {"shape_prop", register_shape_prop},
    {"split", register_split},
    {"transpose_linear", register_transpose_linear},
    {"exec_order", register_exec_order},
    {"leaf_policy", register_leaf_policy},
    {"module_path", register_module_path},
    {"tagging", register_tagging},
};

}  // namespace

absl::Status register_builtin_plugins(Registry& registry) {
  for (const Builtin& b : kBuiltins) {
    bool held = false;
    for (const PluginRecord& p : registry.plugins()) held = held || p.name == b.name;
    if (held) continue;
    PluginRegistrar registrar({b.name, kFxVersion, ""});
    b.register_plugin(registrar);
    if (absl::Status s = registry.commit(registrar); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("the built-in plugin '", b.name, "': ", s.message()));
    }
  }
  return absl::OkStatus();
}

const std::vector<std::string>& builtin_plugin_names() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>();
    for (const Builtin& b : kBuiltins) v->push_back(b.name);
    return v;
  }();
  return *names;
}

}  // namespace fx
