// Copyright 2026 The FX for C++ Authors.
//
// torchscript_save.h: a GraphModule written as a TorchScript file
// (torch.jit.save's format), for code that saves one without handling the
// TorchScript module itself: Model::save, fxrun's --save=x.pt. This header
// parses no TorchScript header; torchscript_export.h (which includes it)
// gives the module, for code that wants it.
//
//   absl::Status s = fx::save_torchscript(gm, "/tmp/resnet18_fx.pt");
//   absl::Status s = fx::write_torchscript(gm, stream);  // an OutputFile's
//
// Contracts: what torchscript_export.h's export_to_torchscript says of the
// module. A graph that cannot be exported is its InvalidArgument error,
// naming the node, and nothing is written.
#ifndef FX_RUNTIME_TORCHSCRIPT_TORCHSCRIPT_SAVE_H_
#define FX_RUNTIME_TORCHSCRIPT_TORCHSCRIPT_SAVE_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "core/export.h"
#include "runtime/graph_module.h"

namespace fx {

// export_to_torchscript, then saved to `path`. Errors name the node that
// cannot be exported, or the path and the reason.
FX_API absl::Status save_torchscript(const GraphModule& gm, const std::string& path);

// export_to_torchscript, then written to `out`. A failure to write is an
// Internal error ("cannot save the model as TorchScript: ...").
FX_API absl::Status write_torchscript(const GraphModule& gm, std::ostream& out);

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_TORCHSCRIPT_SAVE_H_
