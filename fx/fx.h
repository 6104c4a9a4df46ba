// Copyright 2026 The FX for C++ Authors.
//
// fx.h: FX for C++ for a program that embeds it: the header to include first.
// A complete program, built against an installed release with CMake
// (find_package(fx CONFIG REQUIRED); target_link_libraries(app PRIVATE fx::fx)):
//
//   #include <iostream>
//
//   #include "fx/fx.h"
//
//   int main(int argc, char** argv) {
//     if (argc != 3) {
//       std::cerr << "usage: " << argv[0] << " MODEL.pt2|MODEL.pt OUT.pt2|OUT.pt\n";
//       return 2;
//     }
//     // A TorchScript .pt or a torch.export .pt2, told apart by content.
//     absl::StatusOr<fx::Model> model = fx::Model::load(argv[1]);
//     if (!model.ok()) return fx::report(model.status());
//     // The built-in passes run in-process; fx::load_plugin(path) adds others.
//     if (absl::Status s = model->run_passes("fold_bn,const_fold,dce"); !s.ok()) return fx::report(s);
//     // A .pt2 keeps the inputs it was exported with; a .pt needs yours.
//     absl::StatusOr<std::vector<c10::IValue>> inputs = model->example_inputs();
//     if (!inputs.ok()) return fx::report(inputs.status());
//     absl::StatusOr<c10::IValue> outputs = model->run(*inputs);
//     if (!outputs.ok()) return fx::report(outputs.status());
//     std::cout << fx::describe_outputs(*outputs);
//     if (absl::Status s = model->save(argv[2]); !s.ok()) return fx::report(s);  // format by extension
//     return 0;
//   }
//
// (examples/embed_model is that program; examples/custom_pass writes a pass
// in C++ and runs it.) Beneath Model, the layers are C++ APIs too: the graph
// (core/graph.h), the tracer (tracer/tracer.h), the pass manager
// (passes/pass_manager.h) and the pass interface (plugins/pass.h), the
// execution plan (runtime/plan/execution_plan.h), torch.export programs
// (exported_program/), and plugins (plugins/fx_plugin.h to write one,
// plugins/plugin_loader.h to load one).
//
// What stays compatible, in two tiers:
//   * stable: the headers of fx/ (the embedding API; FX_VERSION's major
//     version, the minor before 1.0, changes when they break), and
//     plugins/fx_plugin.h with every header of this repository it includes
//     (FX_PLUGIN_API_VERSION changes when they change: plugins/plugin_abi.txt
//     records them and //plugins:plugin_abi_test holds the version to it);
//   * everything else (the passes' headers, runtime/plan/, exported_program/,
//     the tracer's torchscript/ folder) may change in any release.
#ifndef FX_FX_FX_H_
#define FX_FX_FX_H_

#include "fx/builtin_plugins.h"
#include "fx/installation.h"
#include "fx/model.h"
#include "fx/model_values.h"
#include "fx/version.h"
#include "passes/pass_manager.h"
#include "plugins/pass.h"
#include "plugins/plugin_loader.h"
#include "runtime/devices.h"
#include "runtime/graph_module.h"

#endif  // FX_FX_FX_H_
