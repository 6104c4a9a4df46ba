// Copyright 2026 The FX for C++ Authors.
//
// trace_model: traces a TorchScript model saved from PyTorch and prints its FX
// graph as a table and as Python code. The example of docs/tracer.md.
//
//   bazel run //tracer/examples:trace_model -- /path/to/model.pt
#include <iostream>

#include <torch/csrc/jit/serialization/import.h>

#include "core/printer.h"
#include "tracer/tracer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: trace_model MODEL.pt\n";
    return 2;
  }
  torch::jit::Module model;
  try {
    model = torch::jit::load(argv[1]);
  } catch (const c10::Error& e) {
    std::cerr << "cannot load " << argv[1] << ": " << e.what_without_backtrace() << "\n";
    return 1;
  }
  absl::StatusOr<fx::GraphModule> gm = fx::Tracer().trace(model);
  if (!gm.ok()) {
    std::cerr << "cannot trace " << argv[1] << ": " << gm.status().message() << "\n";
    return 1;
  }
  std::cout << fx::format_tabular(gm->graph()) << "\n\n" << gm->code();
  return 0;
}
