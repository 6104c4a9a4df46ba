// Copyright 2026 The FX for C++ Authors.
//
// torchscript_export.h: a GraphModule as a TorchScript module, to ship to
// anyone who uses PyTorch (seed 003's "fx to script").
//
//   fx::GraphModule gm = *fx::Tracer().trace(torch::jit::load("resnet18.pt"));
//   ... passes ...
//   absl::Status saved = fx::save_torchscript(gm, "/tmp/resnet18_fx.pt");
//   // C++:    torch::jit::load("/tmp/resnet18_fx.pt").forward({x})
//   // Python: torch.jit.load("/tmp/resnet18_fx.pt")(x)
//
// How: the graph is written as TorchScript source (python_code's TorchScript
// dialect, core/printer.h) and compiled as `forward` of a new module,
// `__torch__.fx.<class_name>`, that holds what the graph references under the
// same qualified names: the parameters, buffers and attributes its get_attr
// nodes fetch, the submodules its call_module nodes call (whole, with their
// own TorchScript methods), and the GraphModule's own attributes (tensor
// constants). Names in the source resolve as follows:
//   * `torch.ops.<ns>.<op>.<overload>(...)`: exactly that overload. TorchScript
//     saves an operator call without its overload and picks one again by the
//     argument types when it loads the file, so the exporter compiles the call
//     as loading will and refuses when that picks another overload;
//   * leaf functions (`torch.nn.functional.interpolate`, a library's wrapped
//     function): the TorchScript functions the tracer recorded
//     (script_functions.h); the file carries their code;
//   * `torch.float32`, `torch.channels_last`, `torch.strided`: their values;
//     other `torch.<name>` as TorchScript's builtins (`torch.device`).
//
// Contracts:
//   * The exported module computes what the GraphModule computes; loading it
//     and tracing it again gives the same nodes (names, opcodes, targets) for
//     graphs the tracer made. Node metadata is not kept (the graph file,
//     tools/graph_json.h, keeps it).
//   * The module's `training` flag is the traced root's (eval by default).
//   * A graph TorchScript cannot express (a `*args` input, a Python function
//     with no TorchScript, an operator TorchScript would read back as another
//     overload, types TorchScript rejects) is an InvalidArgument error naming
//     the node and why; nothing is written then.
//   * Tensors and submodules are shared with the GraphModule, not copied.
#ifndef FX_RUNTIME_TORCHSCRIPT_TORCHSCRIPT_EXPORT_H_
#define FX_RUNTIME_TORCHSCRIPT_TORCHSCRIPT_EXPORT_H_

#include <string>

#include <torch/csrc/jit/api/module.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/export.h"
#include "runtime/graph_module.h"
#include "runtime/torchscript/torchscript_save.h"  // IWYU pragma: export

namespace fx {

// The TorchScript source of `gm`'s forward, as the exporter compiles it.
FX_API std::string torchscript_source(const GraphModule& gm);

// `gm` as a new TorchScript module (see above).
FX_API absl::StatusOr<torch::jit::Module> export_to_torchscript(const GraphModule& gm);

// save_torchscript(gm, path) and write_torchscript(gm, stream): this module,
// saved (torchscript_save.h).

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_TORCHSCRIPT_EXPORT_H_
