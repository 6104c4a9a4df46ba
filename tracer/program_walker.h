// Copyright 2026 The FX for C++ Authors.
//
// program_walker.h: the ProgramWalker that reads a torch.export program into
// the IR through the tracer's hooks (Tracer::trace of an
// exported::LoadedProgram). Internal to //tracer; not part of the public API
// (include tracer/tracer.h).
//
// Where each part lives:
//   trace_exported.cc     Tracer::trace of a program; the walker's run, and
//                         the graph's metadata (where the program came from,
//                         the shapes its inputs must have)
//   program_walker.cc     the module tree the program's nodes ran in (their
//                         nn_module_stack), the walk entering each module
//                         call through the call_module hook, the nodes
//   program_signature.cc  placeholders from the input specs and in_spec; the
//                         output from the output specs and out_spec
//   program_values.cc     program values in the IR: the node of each, its
//                         tensor_meta and the program's own metadata; the
//                         schema's arguments as the IR's
#ifndef FX_TRACER_PROGRAM_WALKER_H_
#define FX_TRACER_PROGRAM_WALKER_H_

#include <ATen/core/function_schema.h>

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "exported_program/archive.h"
#include "exported_program/schema.h"
#include "exported_program/treespec.h"
#include "runtime/module.h"
#include "tracer/module_info.h"
#include "tracer/module_ref.h"
#include "tracer/tracer.h"

namespace fx {
namespace tracer_internal {

namespace ep = exported;

// One entry of a node's nn_module_stack: the module call it ran in.
struct ModuleCall {
  std::string key;   // distinguishes calls of one module ("L__self___relu", "...@1")
  std::string path;  // "layer1.0.conv1"
  std::string type;  // "torch.nn.modules.conv.Conv2d"
};

// The node's record of what the program said of it (kExportedValueKey),
// made on first use; the writer reads it back.
Meta& exported_meta(Node* node);

// An error naming the node (`where`) and the input when an input's kind is
// not one the schema's parameter of its name takes (an int for relu's
// Tensor: PyTorch's argument parser refuses it, and the runtime would make a
// tensor of it); numbers stand for tensors only where PyTorch lets them.
absl::Status check_argument_kinds(const ep::Node& n, const c10::FunctionSchema& schema, const std::string& where);

class ProgramWalker {
 public:
  ProgramWalker(Tracer& tracer, const ep::LoadedProgram& loaded)
      : tracer_(tracer), loaded_(loaded), program_(loaded.program), graph_(program_.graph_module.graph) {}

  // Builds the module tree and the GraphModule the hooks will see.
  absl::Status prepare();
  GraphModule& graph_module() { return *gm_; }
  // Reads the program through the tracer's hooks (the tracer's current
  // module must be graph_module()).
  absl::StatusOr<GraphModule> run();

 private:
  absl::Status build_root();
  // The module for a path, made on first use (its parents first) with the
  // class the program's module stacks name for it.
  absl::StatusOr<Module*> module_at(const std::string& path);
  absl::StatusOr<const ModuleInfo*> info_for(const std::string& path);
  // The program's own signature (the module call graph's root entry), and
  // its place in the program's JSON; null when it has none.
  const ep::ModuleCallSignature* root_signature(std::string* path) const;
  absl::Status add_placeholders();
  // The placeholder of one flat input (a tensor, or a number the program was
  // specialised for: its value is the default).
  absl::StatusOr<Node*> add_leaf_placeholder(const ep::InputSpec& s, std::string name, size_t index);
  // Processes nodes from `next_` while their module stack starts with the
  // first `depth` entries of `current`: the body of one module call.
  absl::Status walk(size_t depth, const std::vector<ModuleCall>& current);
  absl::Status add_node(const ep::Node& n);
  absl::StatusOr<Argument> convert(const ep::Argument& a, const std::string& where);
  absl::StatusOr<Argument> value(const std::string& name, const std::string& where);
  absl::Status add_output();
  absl::StatusOr<Argument> arrange(const ep::TreeSpec& spec, const std::vector<Argument>& leaves,
                                   size_t& next);
  void record_graph_meta(GraphModule& gm);
  // Records that program value `name` is `node`, and what the program says
  // of it: tensor_meta (shape_prop's form, symbolic sizes as expressions) and,
  // for writing it back, the program's own metadata of the value.
  void bind_value(const std::string& name, Node* node);
  std::string where(const ep::Node& n) const {
    return absl::StrCat("node ", quote_for_message(n.name ? *n.name : n.target), " (", n.target, ")");
  }

  Tracer& tracer_;
  const ep::LoadedProgram& loaded_;
  const ep::Program& program_;
  const ep::Graph& graph_;
  std::unique_ptr<GraphModule> gm_;
  std::string root_type_ = "torch.nn.modules.module.Module";
  // Modules by path (the root's tree, which holds the program's state), and
  // what hooks see of them.
  std::map<std::string, std::shared_ptr<Module>> modules_;
  // Module path -> class, from the nodes' nn_module_stack.
  std::map<std::string, std::string> module_types_;
  std::deque<ModuleInfo> infos_;
  std::map<std::string, const ModuleInfo*> info_by_path_;
  // Program value name -> what it is in the IR.
  absl::flat_hash_map<std::string, Argument> values_;
  // Lifted inputs (parameters, buffers, constants): value name -> fqn, and
  // whether it is a module attribute (else an own attribute of the GraphModule).
  absl::flat_hash_map<std::string, std::string> lifted_;
  std::set<std::string> registered_;
  // Buffers the program does not keep in its state dict, in input order.
  std::vector<std::string> non_persistent_buffers_;
  size_t next_ = 0;  // the next program node to process
};

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_PROGRAM_WALKER_H_
