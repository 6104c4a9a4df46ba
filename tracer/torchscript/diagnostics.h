// Copyright 2026 The FX for C++ Authors.
//
// diagnostics.h: where in the model's Python source a TorchScript node came
// from, and the messages the tracer gives. Internal to //tracer.
//
// Every error the tracer returns names the source line (`resnet.py:102:8
// (`out += identity`)`), what is being traced (`BasicBlock.forward (module
// 'layer1.0')`) and, for what symbolic tracing cannot follow, how to get past
// it: make the module a leaf or the function a leaf function, spelled for
// fxrun users and for C++ users (leaf_hint).
#ifndef FX_TRACER_TORCHSCRIPT_DIAGNOSTICS_H_
#define FX_TRACER_TORCHSCRIPT_DIAGNOSTICS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace torch {
namespace jit {
struct Node;
}  // namespace jit
}  // namespace torch

namespace fx {
namespace tracer_internal {

// "resnet.py:102:8 (`out += identity`)", or "" when TorchScript kept no source.
// The file's path as the model recorded it, or only its name (for messages
// the graph carries, which should not depend on where the model was scripted).
std::string source_of(const torch::jit::Node* n, bool file_name_only = false);
// " at resnet.py:102:8 (...)", or "" when neither the node nor the values it
// consumes carry a source.
std::string at_source(const torch::jit::Node* n);

// How to get past what symbolic tracing cannot follow, for the module class
// `module_class` ("" when not in a submodule) and the function `function` (""
// when not in a function): "make BasicBlock a leaf module (fxrun:
// --tracer=...,leaf_policy{leaves=BasicBlock}; C++: a TracerExtension whose
// is_leaf_module returns true for it) ..."; "" when neither is given.
std::string leaf_hint(absl::string_view module_class, absl::string_view function);

// Python's str.format for the `{}` placeholders TorchScript compiles f-strings
// to: pieces[0] is the format, the rest fill the placeholders in order.
std::string format_message(const std::vector<std::string>& pieces);

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_TORCHSCRIPT_DIAGNOSTICS_H_
