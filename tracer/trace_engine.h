// Copyright 2026 The FX for C++ Authors.
//
// trace_engine.h: the machinery behind fx::Tracer. Internal to //tracer; not
// part of the public API (include tracer/tracer.h).
//
// The engine walks TorchScript method graphs with abstract values: a value is
// either known at trace time (an IValue), symbolic (an fx::Argument holding
// Nodes: a Proxy in torch.fx's terms), a module of the hierarchy, a mutable
// list, or one result of a multi-result node. Known values are computed with
// TorchScript's own operators; everything involving a symbolic value becomes
// nodes through the Tracer's hooks, so extensions see every node.
//
// One engine serves one trace (or one trace_into) of one GraphModule; it caches
// what it resolved per TorchScript node and per module type, so a method graph
// run for many modules of one type (ResNet's blocks) is resolved once.
#ifndef FX_TRACER_TRACE_ENGINE_H_
#define FX_TRACER_TRACE_ENGINE_H_

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <deque>
#include <memory>
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
#include "tracer/module_ref.h"
#include "tracer/tracer.h"

namespace fx {
namespace tracer_internal {

namespace jit = torch::jit;

struct TValue;
using ListStorage = std::vector<TValue>;

struct TValue {
  enum class Kind : uint8_t { kConcrete, kSymbolic, kModule, kList, kElement };
  Kind kind = Kind::kConcrete;
  c10::IValue concrete;                // kConcrete
  Argument symbolic;                   // kSymbolic: holds at least one Node
  const ModuleInfo* module = nullptr;  // kModule
  std::shared_ptr<ListStorage> list;   // kList: a mutable list (aten::append)
  Node* node = nullptr;                // kElement: result `index` of `node`
  int index = 0;
  // kConcrete tensors read from a module attribute: its qualified name
  // (owned by the engine).
  const std::string* origin = nullptr;

  static TValue Concrete(c10::IValue v) {
    TValue t;
    t.concrete = std::move(v);
    return t;
  }
  static TValue Symbolic(Argument a) {
    TValue t;
    t.kind = Kind::kSymbolic;
    t.symbolic = std::move(a);
    return t;
  }
  static TValue Module(const ModuleInfo* m) {
    TValue t;
    t.kind = Kind::kModule;
    t.module = m;
    return t;
  }
  static TValue List(std::vector<TValue> items) {
    TValue t;
    t.kind = Kind::kList;
    t.list = std::make_shared<ListStorage>(std::move(items));
    return t;
  }
  static TValue Element(Node* n, int i) {
    TValue t;
    t.kind = Kind::kElement;
    t.node = n;
    t.index = i;
    return t;
  }
  bool is_concrete() const { return kind == Kind::kConcrete; }
};

struct Frame {
  absl::flat_hash_map<const jit::Value*, TValue> values;
  const ModuleInfo* self = nullptr;
};

// The annotation torch.fx would show for a forward argument of this type: none
// for Tensor (unannotated Python arguments are Tensors in TorchScript).
inline std::string annotation_for(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return "";
  return type->annotation_str();
}

class TraceEngine {
 public:
  TraceEngine(Tracer& tracer, GraphModule& gm) : tracer_(tracer), gm_(gm) {}

  const ModuleInfo* root_info(const torch::jit::Module& module, const std::string& qualname) {
    return module_info(module._ivalue(), qualname);
  }

  // Runs `method` of `self` on `inputs` (not counting self).
  absl::StatusOr<TValue> call_method(const ModuleInfo* self, const std::string& method,
                                     std::vector<TValue> inputs);
  // The same with graph values as inputs and result: how a module's forward
  // is traced through for the call_module hook and for Tracer::trace_into.
  absl::StatusOr<Argument> call_method(const ModuleInfo* self, const std::string& method,
                                       const Arguments& args, const Kwargs& kwargs);

  absl::StatusOr<Argument> to_argument(const TValue& v, const c10::TypePtr& type);
  TValue from_argument(const Argument& a, const c10::TypePtr& type);

 private:
  // A method of a module, or a function (self == nullptr), being traced.
  struct Context {
    const ModuleInfo* self;
    const std::string* method;
    const jit::Function* function;
  };
  std::string describe(const Context& c) const;
  absl::StatusOr<jit::Function*> find_method(const ModuleInfo* self,
                                             const std::string& method) const;

  absl::StatusOr<TValue> call_graph(jit::Graph& graph, const ModuleInfo* self,
                                    std::vector<TValue> inputs, Context context);
  absl::Status run_block(const jit::Block* block, Frame& frame);
  absl::Status run_node(const jit::Node* n, Frame& frame);

  absl::Status run_get_attr(const jit::Node* n, Frame& frame);
  absl::Status run_call_method(const jit::Node* n, Frame& frame);
  absl::Status run_call_function(const jit::Node* n, Frame& frame);
  absl::Status run_if(const jit::Node* n, Frame& frame);
  absl::Status run_loop(const jit::Node* n, Frame& frame);
  absl::Status run_construct(const jit::Node* n, Frame& frame);
  absl::Status run_unpack(const jit::Node* n, Frame& frame);
  absl::Status run_operator(const jit::Node* n, Frame& frame);
  absl::Status run_list_operator(const jit::Node* n, Frame& frame, bool* handled);
  absl::Status record_operator(const jit::Node* n, const c10::FunctionSchema& schema,
                               const std::vector<TValue>& inputs, Frame& frame);
  absl::Status evaluate(const jit::Node* n, const std::vector<c10::IValue>& inputs, Frame& frame);

  // The value of `v` (None when unset). The reference is valid until the
  // frame's table changes.
  const TValue& lookup(const Frame& frame, const jit::Value* v) const;
  std::vector<TValue> inputs_of(const jit::Node* n, const Frame& frame) const;
  // The value as an IValue when it is known at trace time.
  c10::optional<c10::IValue> as_concrete(const TValue& v, const c10::TypePtr& type) const;
  absl::StatusOr<Argument> concrete_to_argument(const c10::IValue& v, const c10::TypePtr& type,
                                                const std::string* origin);
  Node* materialize_element(Node* node, int index);
  Node* parameter_node(const std::string& qualname);
  Node* resolve(Node* n) const;
  Argument resolve(const Argument& a) const;
  const ModuleInfo* module_info(const c10::intrusive_ptr<c10::ivalue::Object>& object,
                                const std::string& qualname);
  absl::Status error(const jit::Node* n, absl::string_view what) const;
  // The message an `if cond: raise ...` block raises, as far as it is known.
  std::string raise_message(const jit::Block* block) const;

  Tracer& tracer_;
  GraphModule& gm_;
  std::deque<ModuleInfo> modules_;
  absl::flat_hash_map<const c10::ivalue::Object*, const ModuleInfo*> module_by_object_;
  absl::flat_hash_map<std::string, Node*> parameters_;
  // In front of the process-wide (locked) cache of module_class_of.
  absl::flat_hash_map<const c10::ClassType*, const ModuleClass*> classes_;
  // get_attr nodes by (owner module, attribute slot): no string work on repeats.
  absl::flat_hash_map<std::pair<const ModuleInfo*, size_t>, Node*> attribute_nodes_;
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
  absl::flat_hash_map<std::pair<Node*, int>, Node*> elements_;
  // In-place operators recorded out of place: the newest version of a value.
  absl::flat_hash_map<Node*, Node*> version_of_;
  // Nodes whose value is a view of another node's, and nodes that have views.
  absl::flat_hash_map<Node*, Node*> view_base_;
  absl::flat_hash_set<Node*> has_views_;
  // What is being traced, outermost first, for error messages.
  std::vector<Context> context_;
  int depth_ = 0;
};

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_TRACE_ENGINE_H_
