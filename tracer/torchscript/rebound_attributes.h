// Copyright 2026 The FX for C++ Authors.
//
// rebound_attributes.h (internal to the tracer): reads of attributes that a
// leaf module's code assigns.
//
// A leaf module runs its own TorchScript code on its own object. When that
// code rebinds an attribute (`self.prev = x * 1.0`, a streaming state), the
// object holds the new tensor; a get_attr of that attribute in the traced
// graph (`self.mem.prev` read by the caller) reads the module tree the trace
// made, which keeps the tensor bound before: a read after the call sees the
// old value, and every later call the first. (A write in place, `add_`,
// reaches both: they share the tensor.) Such a trace is refused, naming the
// module, its method and the attribute.
#ifndef FX_TRACER_TORCHSCRIPT_REBOUND_ATTRIBUTES_H_
#define FX_TRACER_TORCHSCRIPT_REBOUND_ATTRIBUTES_H_

#include <torch/csrc/jit/api/module.h>

#include "absl/status/status.h"
#include "core/graph.h"

namespace fx {
namespace tracer_internal {

// An error when `graph`, traced from `root`, reads with get_attr an
// attribute that the code of a module it calls (call_module), or of one of
// that module's submodules, assigns; OK otherwise.
absl::Status refuse_reads_of_rebound_attributes(const Graph& graph, const torch::jit::Module& root);

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_TORCHSCRIPT_REBOUND_ATTRIBUTES_H_
