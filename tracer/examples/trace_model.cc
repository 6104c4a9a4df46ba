// Copyright 2026 The FX for C++ Authors.
//
// trace_model: traces a model saved from PyTorch (a TorchScript module, .pt,
// or a torch.export program, .pt2) and prints its FX graph as a table and as
// Python code. The example of docs/tracer.md.
//
//   bazel run //tracer/examples:trace_model -- /path/to/model.pt
#include <iostream>

#include "core/printer.h"
#include "fx/model_file.h"
#include "tracer/tracer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: trace_model MODEL.pt\n";
    return 2;
  }
  absl::StatusOr<fx::ModelFile> file = fx::load_model_file(argv[1]);
  if (!file.ok()) {
    std::cerr << file.status().message() << "\n";  // it names the file
    return 1;
  }
  fx::Tracer tracer;
  absl::StatusOr<fx::GraphModule> gm =
      file->program ? tracer.trace(*file->program) : tracer.trace(*file->torchscript);
  if (!gm.ok()) {
    std::cerr << "cannot trace " << argv[1] << ": " << gm.status().message() << "\n";
    return 1;
  }
  std::cout << fx::format_tabular(gm->graph()) << "\n\n" << gm->code();
  return 0;
}
