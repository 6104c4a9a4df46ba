// Copyright 2026 The FX for C++ Authors.
//
// graph_file_code.h: the TorchScript side of the graph file
// (tools/graph_file.h): the model's code, in which the file's leaf functions
// and the classes its types name are found, and the check that a node's type
// is one TorchScript knows. tools/graph_file.cc keeps the file's structure;
// it holds the code (TorchScript's compilation unit) through the declaration
// below, and this header parses no TorchScript header.
//
//   std::shared_ptr<torch::jit::CompilationUnit> unit = fx::model_code_unit(*model);
//   absl::Status s = fx::check_node_type(node, unit.get(), &where);
//   absl::Status added = fx::add_leaf_function(gm, unit, "torch.nn.functional.relu",
//                                              "__torch__.torch.nn.functional.relu");
//
// Contracts: nothing throws. Errors are InvalidArgument, and say what is
// wrong without naming the file or the place in it (the caller does).
#ifndef FX_TOOLS_TORCHSCRIPT_GRAPH_FILE_CODE_H_
#define FX_TOOLS_TORCHSCRIPT_GRAPH_FILE_CODE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/node.h"
#include "runtime/graph_module.h"
#include "runtime/module.h"

namespace torch {
namespace jit {
struct CompilationUnit;  // torch/csrc/jit/api/compilation_unit.h
}  // namespace jit
}  // namespace torch

namespace fx {

// The compilation unit of `model`'s root class (runtime/torchscript/
// script_module.h's TorchScriptClass), which holds the model's functions and
// classes; null for a model not read from TorchScript.
std::shared_ptr<torch::jit::CompilationUnit> model_code_unit(const Module& model);

// Gives `gm` the model's code (not null), where the runtime finds functions
// called by name and NamedTuple classes (script_functions.h's set_script_unit).
void set_model_code_unit(GraphModule& gm, std::shared_ptr<torch::jit::CompilationUnit> unit);

// `gm`'s leaf functions: for each call_function target, in the targets'
// order, the qualified names of its TorchScript functions in the model's code
// (`__torch__.torch.nn.functional.relu`), in the order recorded.
std::map<std::string, std::vector<std::string>> leaf_function_names(const GraphModule& gm);

// Records the function of `unit` named `name` (qualified, as
// leaf_function_names gives it) as a leaf function of `gm` for
// `target`. Fails when `unit` (null: a model not read from TorchScript) has
// no such function, or when it is not what a leaf call of `target` runs: the
// same function, or in the same module one TorchScript picks for it
// (boolean dispatch: max_pool2d runs _max_pool2d).
absl::Status add_leaf_function(GraphModule& gm,
                               const std::shared_ptr<torch::jit::CompilationUnit>& unit,
                               const std::string& target, const std::string& name);

// A number given to torch.nn.functional's BroadcastingListN parameter, as
// the list TorchScript's compiler makes of it (`F.adaptive_avg_pool2d(x, 1)`
// takes [1, 1]): a call of the model's code for a call_function node passes
// through a schema that says `int[]` without N, since the saved code keeps no
// annotation. N is the function's dimensionality (`max_pool2d`, `conv3d`;
// fold and unfold take 2). Only where the model's code has the function
// (or, for those Python dispatches on `return_indices`, `_max_pool2d`).
void broadcast_list_arguments(GraphModule& gm);

// A node's type is pasted into printed code and exported source as it is
// written, so it must be a type annotation (dotted names, with brackets and
// commas, nested at most 32 deep) of types TorchScript knows, or the
// qualified name of a class in `unit` (a NamedTuple of the model; `unit` may
// be null); a placeholder's must be its argument's TorchScript type (meta
// _torchscript_type, itself an annotation that libtorch parses when the
// interpreter checks inputs against it). On failure `*where` names what is
// at fault: "type", or "meta _torchscript_type".
absl::Status check_node_type(const Node& n, const torch::jit::CompilationUnit* unit,
                             std::string* where);

}  // namespace fx

#endif  // FX_TOOLS_TORCHSCRIPT_GRAPH_FILE_CODE_H_
