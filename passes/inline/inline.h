// Copyright 2026 The FX for C++ Authors.
//
// inline.h: replaces call_module nodes with the traced body of the module.
//
// Seed 000's recipe, as a pass: for each chosen call_module node, trace the
// module's forward with the node's arguments as inputs, appending to the
// graph just before the node, then make the node's users use the body's result
// and erase the node. The body's parameters become get_attr nodes with their
// full qualified names (reusing a get_attr of the same target that comes
// earlier), names stay unique, and metadata the call_module node carried (a
// tag, a module path) is carried onto the new nodes, with meta["module_path"]
// naming the module each new node came from.
//
// Options:
//   modules=a,b.c   inline calls of these submodules (qualified names);
//   types=ReLU,...  inline calls of modules of these classes (class or full
//                   Python type names); with neither, every call is inlined;
//   recurse=true    keep inlining the calls the inlined bodies make, until none
//                   of the chosen ones is left (default false: one level);
//   on_error=warn   a module that cannot be traced through (data-dependent
//                   control flow, ...) is left as it is with a warning naming
//                   it; on_error=fail makes that an error.
#ifndef FX_PASSES_INLINE_INLINE_H_
#define FX_PASSES_INLINE_INLINE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

class Node;

class FX_API Inline : public Pass {
 public:
  ListOption modules{*this, "modules", "inline calls of these submodules (qualified names)"};
  ListOption types{*this, "types", "inline calls of modules of these classes (e.g. ReLU,BatchNorm2d)"};
  Option<bool> recurse{*this, "recurse",
                       "also inline the calls the inlined bodies make, until none is left", false};
  Option<std::string> on_error{
      *this, "on_error", "warn: leave modules that cannot be traced, with a warning; fail: stop",
      "warn", {"warn", "fail"}};

  absl::Status run(GraphModule& module, PassContext& context) override;

 private:
  bool chosen(GraphModule& module, const Node& node) const;
  // modules= and types= names that match nothing: a warning with the closest.
  void warn_about_unmatched_names(GraphModule& module, PassContext& context) const;
  // Inlines every chosen call not in `left` once; calls that cannot be
  // inlined are added to `left` (with a warning) or fail the pass.
  absl::Status inline_round(GraphModule& module, PassContext& context,
                            absl::flat_hash_set<const Node*>& left);
  // Inlines one call; false (with `why`) when the module cannot be traced.
  absl::StatusOr<bool> inline_call(GraphModule& module, Node* call, std::string* why);
};

// Registers pass "inline".
FX_API void register_inline(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_INLINE_INLINE_H_
