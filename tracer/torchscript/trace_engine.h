// Copyright 2026 The FX for C++ Authors.
//
// trace_engine.h: the walk of TorchScript graphs behind fx::Tracer's trace of
// a TorchScript module (trace_module.cc: Tracer::trace, Tracer::trace_into).
// Internal to //tracer; not part of the public API (include tracer/tracer.h).
//
// The engine runs TorchScript method graphs on TraceValues (trace_value.h):
// known values are computed with TorchScript's own operators, everything
// involving a traced value becomes nodes through the Tracer's hooks, so
// extensions see every node. One engine serves one trace (or one trace_into)
// of one GraphModule; it caches what it resolved per TorchScript node and per
// module type, so a method graph run for many modules of one type (ResNet's
// blocks) is resolved once.
//
// Where each part lives (all in tracer/torchscript/):
//   trace_engine.cc        running graphs and blocks, dispatching nodes, frames
//   trace_attributes.cc    modules and their attributes (prim::GetAttr), get_attr
//                          and tensor-constant nodes
//   trace_calls.cc         method and function calls: submodules through the
//                          call_module hook, leaf functions, traced-through calls
//   trace_control_flow.cc  prim::If and prim::Loop on known values; input checks
//                          as torch._assert
//   trace_containers.cc    lists, tuples and dicts built and changed in the code
//   trace_operators.cc     operators: evaluated when known (constant folding),
//                          else recorded (schema normalisation, in-place
//                          operators through the AliasTracker)
//   trace_values.cc        between trace values and graph arguments
//   alias_tracker.h        in-place and alias semantics
//   call_effects.h         what a leaf call does to its arguments
//   diagnostics.h          source locations and messages
//   module_object.cc       ModuleRef's TorchScript object, the class facts of
//                          TorchScript module types
#ifndef FX_TRACER_TORCHSCRIPT_TRACE_ENGINE_H_
#define FX_TRACER_TORCHSCRIPT_TRACE_ENGINE_H_

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/argument.h"
#include "core/node.h"
#include "runtime/graph_module.h"
#include "tracer/module_info.h"
#include "tracer/module_ref.h"
#include "tracer/torchscript/alias_tracker.h"
#include "tracer/torchscript/trace_value.h"
#include "tracer/tracer.h"

namespace fx {
namespace tracer_internal {

namespace jit = torch::jit;
struct CallEffects;

// The values of one running method or function graph.
struct Frame {
  absl::flat_hash_map<const jit::Value*, TraceValue> values;
  const ModuleInfo* self = nullptr;
};

// The annotation torch.fx would show for a forward argument of this type: none
// for Tensor (unannotated Python arguments are Tensors in TorchScript).
std::string annotation_for(const c10::TypePtr& type);

// `values` for the parameters params[first...] as a call records them, the
// way Python code would most likely have written the call (TorchScript fills
// every default in): positional arguments without the trailing ones equal to
// their default, keyword-only ones (unless equal to their default) as kwargs.
void split_call_arguments(const std::vector<c10::Argument>& params, size_t first, bool vararg,
                          const std::vector<Argument>& values, Arguments* args, Kwargs* kwargs);

class TraceEngine {
 public:
  TraceEngine(Tracer& tracer, GraphModule& gm) : tracer_(tracer), gm_(gm) {}

  // The module the trace starts in (its code's compilation unit holds the
  // functions it calls), and `state`, that module in gm's module tree.
  const ModuleInfo* root_info(const torch::jit::Module& module, const std::string& qualname,
                              const Module& state) {
    unit_ = module._ivalue()->compilation_unit();
    return module_info(module._ivalue(), qualname, state);
  }
  AliasTracker& aliases() { return aliases_; }
  // Warns (Tracer::warn) about leaf and traced-through functions that matched
  // no function the trace met.
  void warn_about_unmatched_functions();

  // Runs `method` of `self` on `inputs` (not counting self).
  absl::StatusOr<TraceValue> call_method(const ModuleInfo* self, const std::string& method,
                                         std::vector<TraceValue> inputs);
  // The same with graph values as inputs and result: how a module's forward
  // is traced through for the call_module hook and for Tracer::trace_into.
  absl::StatusOr<Argument> call_method(const ModuleInfo* self, const std::string& method,
                                       const Arguments& args, const Kwargs& kwargs);

  // A trace value as a graph argument (nodes made for what needs them:
  // get_attr for parameters, getitem for results); `type` is what TorchScript
  // says it is, when known.
  absl::StatusOr<Argument> to_argument(const TraceValue& v, const c10::TypePtr& type);
  // A graph argument as a trace value: known when it holds no node.
  TraceValue from_argument(const Argument& a, const c10::TypePtr& type);

  // Refuses a trace that fixed as a known value (an int, a None) an attribute
  // that the code of a module the graph calls as a leaf rebinds, naming both.
  absl::Status check_fixed_reads_of_rebound_attributes(const Graph& graph) const;

 private:
  // A method of a module, or a function (self == nullptr), being traced.
  struct Context {
    const ModuleInfo* self;
    const std::string* method;
    const jit::Function* function;
  };

  // ---- trace_engine.cc: graphs, blocks, nodes --------------------------------
  absl::StatusOr<TraceValue> call_graph(jit::Graph& graph, const ModuleInfo* self,
                                        std::vector<TraceValue> inputs, Context context);
  absl::Status run_block(const jit::Block* block, Frame& frame);
  absl::Status run_node(const jit::Node* n, Frame& frame);
  // The value of `v` (None when unset). The reference is valid until the
  // frame's table changes.
  const TraceValue& lookup(const Frame& frame, const jit::Value* v) const;
  std::vector<TraceValue> inputs_of(const jit::Node* n, const Frame& frame) const;
  // "BasicBlock.forward (module 'layer1.0')", "function torch.nn.functional.relu".
  std::string describe(const Context& c) const;
  // An error at `n`, naming its source line and what is being traced, then
  // how to fix it (when given).
  absl::Status error(const jit::Node* n, absl::string_view what, absl::string_view fix = {}) const;
  // An error for what symbolic tracing cannot follow, with how to get past it.
  absl::Status untraceable(const jit::Node* n, absl::string_view what) const;

  // Runs `method` of an object made in the code (TraceValue::object).
  absl::StatusOr<TraceValue> call_object_method(const jit::Node* n, const TraceValue& object,
                                                const std::string& method,
                                                std::vector<TraceValue> inputs);

  // ---- trace_attributes.cc: modules and attributes ---------------------------
  absl::Status run_get_attr(const jit::Node* n, Frame& frame);
  // prim::SetAttr: on an object made in the code; a module's is refused.
  absl::Status run_set_attr(const jit::Node* n, Frame& frame);
  // `object` (a module object), first reached at `qualname`; `state` is the
  // module that holds its state in gm's module tree.
  const ModuleInfo* module_info(const c10::intrusive_ptr<c10::ivalue::Object>& object,
                                const std::string& qualname, const Module& state);
  Node* parameter_node(const std::string& qualname);
  Node* tensor_constant_node(const at::Tensor& t);
  // Whether the code of a module may assign attribute `slot` of `owner` anew
  // (runtime's code_may_assign): a tensor is then read by a get_attr node,
  // which the graph reads at each run, never as a value known when traced.
  bool may_be_rebound(const ModuleInfo* owner, size_t slot);
  // After a leaf call of `method` of `module`: reads of the attributes its
  // code may change are made anew after the call (their get_attr nodes are
  // forgotten). Whether there are any (the call is then a side effect).
  bool forget_rebound_attributes(const ModuleInfo* module, const std::string& method);

  // ---- trace_calls.cc: calls ------------------------------------------------
  absl::StatusOr<jit::Function*> find_method(const ModuleInfo* self,
                                             const std::string& method) const;
  absl::Status run_call_method(const jit::Node* n, Frame& frame);
  absl::Status run_call_function(const jit::Node* n, Frame& frame);
  // The target a call of function `python_name` is recorded under when it is
  // a leaf function (TraceOptions::leaf_functions, or torch's own API as
  // torch.fx records it), or "" to trace through.
  std::string leaf_function_target(const std::string& python_name) const;
  // Marks what a leaf call (`call`) does to its arguments (call_effects.h).
  void apply_call_effects(Node* call, const std::vector<Argument>& arguments,
                          const CallEffects& effects);

  // ---- trace_control_flow.cc ---------------------------------------------------
  absl::Status run_if(const jit::Node* n, Frame& frame);
  // An if on a traced condition that computes a bool without side effects.
  absl::Status run_boolean_if(const jit::Node* n, const TraceValue& cond, Frame& frame);
  absl::Status run_loop(const jit::Node* n, Frame& frame);
  // The value now of traced `v` (TraceValue's `now`), on which the trace
  // decides at `n`; the graph asserts that `v` has it when it runs.
  absl::StatusOr<c10::IValue> decide_by_value_now(const jit::Node* n, const TraceValue& v);
  // The message an `if cond: raise ...` block raises, as far as it is known.
  std::string raise_message(const jit::Block* block) const;

  // ---- trace_containers.cc -----------------------------------------------------
  absl::Status run_construct(const jit::Node* n, Frame& frame);
  absl::Status run_unpack(const jit::Node* n, Frame& frame);
  // Operations on containers of the trace (and reads of tuples the graph
  // holds); sets `handled` when it ran the operation.
  absl::Status run_container_operator(const jit::Node* n, Frame& frame, bool* handled);
  absl::Status run_list_operation(const jit::Node* n, Frame& frame, const TraceValue& list,
                                  bool* handled);
  absl::Status run_dict_operation(const jit::Node* n, Frame& frame, const TraceValue& dict,
                                  bool* handled);
  // The elements of a sequence value; `expected` elements of a node that
  // holds a sequence.
  absl::StatusOr<std::vector<TraceValue>> elements_of(const TraceValue& v, const c10::TypePtr& type,
                                                      size_t expected);
  absl::StatusOr<Argument> tuple_to_argument(const std::vector<TraceValue>& items,
                                             const c10::TypePtr& type);

  // ---- trace_operators.cc ------------------------------------------------------
  absl::Status run_operator(const jit::Node* n, Frame& frame);
  absl::Status record_operator(const jit::Node* n, const c10::FunctionSchema& schema,
                               const std::vector<TraceValue>& inputs, Frame& frame);
  // Runs `n` on known inputs now (what Python computes while torch.fx traces).
  absl::Status evaluate(const jit::Node* n, const std::vector<c10::IValue>& inputs, Frame& frame);
  // What `n` computes from `inputs` while tracing, when every input is known
  // or has a value now (TraceValue's `now`) and `n` reads no tensor's data:
  // a parameter's dtype, a comparison of it, the grad mode.
  c10::optional<c10::IValue> value_now(const jit::Node* n,
                                       const std::vector<TraceValue>& inputs) const;
  // Notes that `node` may be None at run time when its TorchScript type is
  // Optional (a leaf's result, an element of a tuple of Optionals).
  void note_optional(Node* node, const c10::TypePtr& type);
  // `x is None` at `n` was decided as "not None" for traced `v`: when v may be
  // None at run time (an Optional argument of forward, a value note_optional
  // marked), the graph checks it once (kAssertIsNotNoneTarget).
  absl::Status check_not_none(const jit::Node* n, const TraceValue& v);

  // ---- trace_values.cc ---------------------------------------------------------
  // The value as an IValue when it is known at trace time.
  c10::optional<c10::IValue> as_known(const TraceValue& v, const c10::TypePtr& type) const;
  absl::StatusOr<Argument> known_to_argument(const c10::IValue& v, const c10::TypePtr& type,
                                             const std::string* attribute);
  // A tensor constant the way PyTorch runs it, as a number: a 0-dim CPU
  // tensor constant (read from no attribute) given as `other` to
  // aten::add/sub/mul/div.Tensor, which TorchScript runs as the Scalar
  // overload does (torch.jit.trace bakes `t * 0.01` into such a constant,
  // and PyTorch's run of the saved module gives an int64 `t` times it as
  // float32, Python's promotion of a number, where a 0-dim float64 tensor
  // would make it float64). Other operators and positions keep the tensor,
  // as PyTorch does. `param` is the argument's position in `schema`.
  c10::optional<Argument> python_number_constant(const TraceValue& v, const c10::FunctionSchema& schema,
                                                 size_t param) const;
  // The getitem node for result `index` of `node`, made once.
  Node* result_node(Node* node, int index);

  Tracer& tracer_;
  GraphModule& gm_;
  std::shared_ptr<torch::jit::CompilationUnit> unit_;
  AliasTracker aliases_;
  std::deque<ModuleInfo> modules_;
  absl::flat_hash_map<const c10::ivalue::Object*, const ModuleInfo*> module_by_object_;
  absl::flat_hash_map<std::string, Node*> parameters_;
  // In front of the process-wide (locked) cache of module_class_of.
  absl::flat_hash_map<const c10::ClassType*, const ModuleClass*> classes_;
  // get_attr nodes by (owner module, attribute slot): no string work on repeats.
  absl::flat_hash_map<std::pair<const ModuleInfo*, size_t>, Node*> attribute_nodes_;
  // may_be_rebound's answers, and the rebindable attributes read as known
  // values (by qualified name: the TorchScript node that read each first).
  absl::flat_hash_map<std::pair<const ModuleInfo*, size_t>, bool> rebindable_;
  absl::flat_hash_map<std::string, const jit::Node*> fixed_rebindable_reads_;
  // Qualified names of tensor attributes read as known values (Known::attribute).
  std::deque<std::string> names_;
  absl::flat_hash_map<const jit::Graph*, size_t> graph_sizes_;
  // What prim::GetAttr nodes resolve to for the type they last met (and the
  // names of prim::CallMethod nodes): a method graph runs for many modules of
  // one type (ResNet's blocks).
  struct Resolved {
    const std::string* name = nullptr;
    const c10::ClassType* type = nullptr;
    c10::optional<size_t> slot;
  };
  absl::flat_hash_map<const jit::Node*, Resolved> resolved_;
  absl::flat_hash_map<const c10::TensorImpl*, Node*> tensor_constants_;
  // Values that may be None at run time (note_optional), and those the graph
  // already checks are not.
  absl::flat_hash_set<const Node*> may_be_none_;
  absl::flat_hash_set<const Node*> checked_not_none_;
  absl::flat_hash_map<std::pair<Node*, int>, Node*> results_;
  // What is being traced, outermost first, for error messages.
  std::vector<Context> context_;
  // Python names of the functions met, for messages about leaf functions.
  absl::flat_hash_set<std::string> seen_functions_;
};

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_TORCHSCRIPT_TRACE_ENGINE_H_
