// Copyright 2026 The FX for C++ Authors.
//
// check_module_tensors (fx/archive_check.h): the tensors of a TorchScript
// module, its slots and its code's constants, checked against their storage.
#include <memory>

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/graph_iterator.h>

#include "absl/strings/str_cat.h"
#include "fx/archive_check.h"

namespace fx {

absl::Status check_module_tensors(const torch::jit::Module& module) {
  // The parameters, buffers and attributes of every submodule are slots of
  // the module objects.
  if (absl::Status s = check_tensors_in_bounds(module._ivalue()); !s.ok()) return s;
  for (torch::jit::Function* fn : module._ivalue()->compilation_unit()->get_functions()) {
    torch::jit::GraphFunction* graph_fn = torch::jit::tryToGraphFunction(*fn);
    if (graph_fn == nullptr) continue;
    std::shared_ptr<torch::jit::Graph> graph = graph_fn->graph();
    torch::jit::DepthFirstGraphNodeIterator it(graph);
    for (torch::jit::Node* n = it.next(); n != nullptr; n = it.next()) {
      if (n->kind() != c10::prim::Constant || n->outputs().size() != 1 ||
          !n->output()->type()->cast<c10::TensorType>()) {
        continue;
      }
      if (absl::Status s = check_tensors_in_bounds(n->t(c10::attr::value)); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("a constant of ", fn->qualname().qualifiedName(), ": ", s.message()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace fx
