// Copyright 2026 The FX for C++ Authors.
//
// graph_module.h: a Graph together with the module that owns its state.
//
// torch.fx's GraphModule is an nn.Module whose forward is generated from a Graph.
// Here it is a Graph plus a root Module (module.h) that owns the parameters,
// buffers and submodules the graph refers to by qualified name (`get_attr`
// and `call_module` targets), plus attributes of its own (tensor constants the
// tracer lifted out of the code, as torch.fx's `_tensor_constant0`). The state
// is FX for C++'s own: a .pt2's weights fill it directly, and a TorchScript
// module is converted at the format's boundary (runtime/torchscript/).
//
//   absl::StatusOr<fx::Model> model = fx::Model::load("resnet18.pt2");   // fx/model.h
//   fx::GraphModule& gm = model->graph_module();
//   std::cout << gm.code();                       // the Python source of forward
//   absl::StatusOr<c10::IValue> out = gm({torch::rand({1, 3, 224, 224})});   // runs it
//
// A GraphModule can also be built from a module and a new Graph (seed 003's
// "fx.Graph -> Module"): `GraphModule(model, std::move(graph), "revisedModel")`
// uses `model` as the root as it is; `GraphModule::from_referenced` builds a
// fresh root holding only what the graph references, as torch.fx does.
//
// A GraphModule may hold GraphModules as submodules (torch.fx's split_module
// makes a top graph calling `submod_0`, `submod_1`, ...): a call_module node
// whose target names one runs that GraphModule's graph, in the Interpreter and
// in the plan; printers, the graph file and the TorchScript exporter recurse.
//
// Calling a GraphModule runs its ExecutionPlan (execution_plan.h), compiled
// at the first call and again after the module changes (version()); the
// Interpreter (interpreter.h) runs it node by node, overridably. GraphModules are
// movable, not copyable; submodules and tensors are shared, not copied.
#ifndef FX_RUNTIME_GRAPH_MODULE_H_
#define FX_RUNTIME_GRAPH_MODULE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/graph.h"
#include "runtime/module.h"

namespace fx {

class ExecutionPlan;
// The TorchScript functions a graph traced from a .pt calls as leaf functions
// (runtime/torchscript/script_functions.h): opaque here.
class ScriptFunctions;

// A new module with no slots, of class `fx.<class_name>`: the root of a
// GraphModule built from scratch.
FX_API std::shared_ptr<Module> empty_module(const std::string& class_name);

class FX_API GraphModule {
 public:
  // `root` owns the state `graph` refers to. `class_name` names the module in
  // printouts (torch.fx's `class_name` argument).
  GraphModule(std::shared_ptr<Module> root, std::unique_ptr<Graph> graph,
              std::string class_name = "GraphModule");
  // A GraphModule over `graph` whose root is a new module holding, under the
  // same qualified names, exactly the submodules, parameters, buffers and
  // attributes that `graph`'s get_attr and call_module nodes reference, taken
  // from `source` (shared, not copied). Fails naming a target `source` lacks.
  // `graph_submodules` are added first: call_module targets they name are not
  // looked up in `source`.
  static absl::StatusOr<GraphModule> from_referenced(
      const GraphModule& source, std::unique_ptr<Graph> graph,
      std::string class_name = "GraphModule",
      std::vector<std::pair<std::string, std::shared_ptr<GraphModule>>> graph_submodules = {});

  GraphModule(GraphModule&&) noexcept;
  GraphModule& operator=(GraphModule&&) noexcept;
  GraphModule(const GraphModule&) = delete;
  GraphModule& operator=(const GraphModule&) = delete;
  ~GraphModule();

  // Replaces the root by a new module holding only what the graph references
  // (torch.fx's delete_all_unused_submodules, and unused parameters and
  // attributes too). Tensors and submodules are shared with the old root.
  absl::Status delete_unused_attributes();

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }
  // Replaces the graph (as assigning `gm.graph` in torch.fx).
  void set_graph(std::unique_ptr<Graph> graph);
  // Advances with every change to the graph (Graph::version) or to the
  // module's state (set_graph, attributes added or dropped, any change to the
  // root's tree: Module::tree_generation): equal versions mean nothing that
  // lint or execution depends on changed.
  // O(1) while no Module changes (Module::changes_anywhere).
  uint64_t version() const;
  Module& root() { return *root_; }
  const Module& root() const { return *root_; }
  const std::shared_ptr<Module>& shared_root() const { return root_; }
  const std::string& class_name() const { return class_name_; }
  // Graph-level metadata (the graph's meta).
  Meta& meta() { return graph_->meta(); }
  const Meta& meta() const { return graph_->meta(); }

  // The attribute `qualified_name` ("layer1.0.conv1.weight", "_tensor_constant0"):
  // the module's own attributes first, then the root's hierarchy.
  absl::StatusOr<c10::IValue> get_attr(absl::string_view qualified_name) const;
  // The submodule `qualified_name` ("" is the root). Changing a submodule's
  // slots through it is a change of state: call touch() after.
  absl::StatusOr<std::shared_ptr<Module>> get_submodule(absl::string_view qualified_name) const;
  // True when `qualified_name` names a submodule (module, not attribute).
  bool has_submodule(absl::string_view qualified_name) const;

  // Adds `module` as the submodule `name` (an identifier, no dots): call_module
  // nodes targeting `name` run its graph. Fails when the name is not an
  // identifier or is taken by an attribute, submodule or graph submodule.
  // The module is shared: a copy of this GraphModule (a plan's) calls it too.
  absl::Status add_graph_submodule(const std::string& name, std::shared_ptr<GraphModule> module);
  // The graph submodule `name`, or nullptr.
  const GraphModule* graph_submodule(absl::string_view name) const;
  GraphModule* graph_submodule(absl::string_view name);
  // All graph submodules, in the order added.
  const std::vector<std::pair<std::string, std::shared_ptr<GraphModule>>>& graph_submodules()
      const {
    return graph_submodules_;
  }

  // Replaces every tensor of the module's state by `replace(tensor)`, as
  // torch's Module._apply does: the module's own attributes, the root's and
  // its submodules' parameters, buffers and tensor attributes (TorchScript
  // leaf modules included), and the graph submodules'. `replace` is called
  // once per place a tensor is held: a tensor held in several (tied weights,
  // a graph submodule sharing the root's) comes once for each, so memoise it
  // to keep the sharing. Advances version(). Exceptions from `replace`
  // propagate, with the places already replaced left replaced.
  void replace_state_tensors(const std::function<at::Tensor(const at::Tensor&)>& replace);

  // Records a change to the state that its modules cannot see (a tensor
  // changed in place that a plan copied to its device): advances version(),
  // so that the next call compiles a new plan. Changes made through Module's
  // own methods advance it already.
  void touch();

  // Adds an attribute of this GraphModule (not of the root). Fails when the
  // name is taken by an attribute of the module or of the root.
  absl::Status add_attribute(const std::string& name, c10::IValue value);
  // Stores `value` as a new attribute `_tensor_constant<n>` and returns its name.
  std::string add_tensor_constant(at::Tensor value);
  const absl::flat_hash_map<std::string, c10::IValue>& own_attributes() const {
    return own_attributes_;
  }

  // The TorchScript functions the graph calls as leaf functions, by
  // call_function target (runtime/torchscript/script_functions.h reads and
  // adds them); null when there are none. Shared by the GraphModules made
  // from this one.
  const std::shared_ptr<const ScriptFunctions>& script_functions() const {
    return script_functions_;
  }
  void set_script_functions(std::shared_ptr<const ScriptFunctions> functions) {
    script_functions_ = std::move(functions);
  }

  // Graph::lint, then: every get_attr target is an attribute and every
  // call_module target a submodule or a graph submodule (linted in turn).
  // Errors name the node and the missing atom.
  absl::Status lint() const;

  // The Python source of forward (torch.fx's `GraphModule.code`).
  std::string code() const;

  // Fails, naming the attribute and `format` ("TorchScript", "a graph file"),
  // when the graph reads a tensor no file format stores: an MKLDNN tensor
  // (the mkldnn_layout pass's reordered weights); and, for a format PyTorch
  // loads (`for_pytorch`), naming the node, when the graph calls an operator
  // of FX for C++'s runtime (fx::elementwise, made by fuse_elementwise),
  // which PyTorch does not have.
  absl::Status check_storable(absl::string_view format, bool for_pytorch = true) const;

  // Runs the graph on `inputs` (torch.fx: `gm(*inputs)`) with its execution
  // plan (execution_plan.h), compiled for the CPU at the first call and again
  // after the module changes. Errors name the placeholder or the node that
  // failed. Thread-safe: any number of threads may call it at once, on a
  // GraphModule nothing changes meanwhile (passes, set_graph, state changes
  // are not concurrent with calls); one plan is compiled per version of the
  // module, by the first call that needs it while the others wait, and each
  // call holds the plan it runs until it returns.
  absl::StatusOr<c10::IValue> forward(std::vector<c10::IValue> inputs);
  absl::StatusOr<c10::IValue> operator()(std::vector<c10::IValue> inputs) {
    return forward(std::move(inputs));
  }

 private:
  // True when an attribute or a submodule of the root is named `name`.
  bool name_taken_by_state(absl::string_view name) const;
  // Fills this module's (fresh) root with what its graph references, from `source`.
  absl::Status adopt_referenced(const GraphModule& source);
  // root_->tree_generation(), walked again only when a Module changed since
  // the last walk (Module::changes_anywhere) or the root was replaced, so
  // that version(), read at every call, does not walk the tree each time.
  uint64_t root_tree_generation() const;

  std::shared_ptr<Module> root_;
  std::unique_ptr<Graph> graph_;
  std::string class_name_;
  absl::flat_hash_map<std::string, c10::IValue> own_attributes_;
  std::shared_ptr<const ScriptFunctions> script_functions_;
  std::vector<std::pair<std::string, std::shared_ptr<GraphModule>>> graph_submodules_;
  int next_tensor_constant_ = 0;
  // version() is this plus the graph's version and the root's tree
  // generation; replacing either moves this so that the sum only grows.
  uint64_t state_version_ = 0;
  // root_tree_generation()'s last walk; behind a pointer (it holds a mutex)
  // so that GraphModule stays movable.
  struct TreeGenerationCache;
  std::unique_ptr<TreeGenerationCache> tree_generation_cache_;
  // The plan of the last call and the version it was compiled for, behind a
  // pointer (it holds a mutex) so that GraphModule stays movable.
  struct PlanSlot;
  std::unique_ptr<PlanSlot> plan_slot_;
  // Drops the plan: the next call compiles one.
  void drop_plan();
};

}  // namespace fx

#endif  // FX_RUNTIME_GRAPH_MODULE_H_
