// Copyright 2026 The FX for C++ Authors.
//
// call_effects.h: what a call the tracer does not trace through does to the
// values it is given. Internal to //tracer.
//
// A leaf module or a leaf function is one node in the graph; the tracer does
// not see its body, but the graph is only correct if it knows whether the
// callee
//   * writes to an argument (nn.ReLU(inplace=True), F.relu(x, inplace=True)):
//     the call is impure (dead-code elimination keeps it) and later reads of
//     the argument see the change at run time, in node order;
//   * returns a value that may share storage with an argument (the same
//     in-place ReLU, nn.Identity, nn.Flatten's view, dropout in eval mode,
//     which returns its input): in-place operations on either are then kept in
//     place (AliasTracker::record_view).
// These come from TorchScript's alias analysis of the callee's graph, inlined,
// with what is known at trace time substituted (the module's flags such as
// `self.inplace`, known arguments such as inplace=True) and branches that
// cannot run removed, so `nn.ReLU()` is found pure and `nn.ReLU(inplace=True)`
// is not. Results are cached for the process by callee and known values.
#ifndef FX_TRACER_TORCHSCRIPT_CALL_EFFECTS_H_
#define FX_TRACER_TORCHSCRIPT_CALL_EFFECTS_H_

#include <torch/csrc/jit/api/module.h>

#include <vector>

namespace fx {
namespace tracer_internal {

struct CallEffects {
  // Per argument (self not counted): the callee may write to it / its result
  // may share storage with it.
  std::vector<bool> writes;
  std::vector<bool> aliased;
  // Per argument: what an int argument stands for when the body passes it to
  // an operator parameter that is a ScalarType, Layout or MemoryFormat
  // (F.softmax's `dtype: Optional[int]`, which TorchScript types as an int),
  // so that a leaf function's call records `dtype = torch.float64`, as the
  // Python function takes it; nullptr otherwise.
  std::vector<c10::TypePtr> literal_types;
};

// Calling `method` (forward, or a TorchScript overload such as forward__0)
// of `module`, its primitive attributes taken as they are now.
const CallEffects& module_call_effects(const torch::jit::Module& module, const std::string& method);

// Calling `function` (of compilation unit `unit`, which the cache keeps
// alive) with `known` arguments (nullopt for traced ones).
const CallEffects& function_call_effects(const std::shared_ptr<torch::jit::CompilationUnit>& unit,
                                         torch::jit::Function& function,
                                         const std::vector<c10::optional<c10::IValue>>& known);

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_TORCHSCRIPT_CALL_EFFECTS_H_
