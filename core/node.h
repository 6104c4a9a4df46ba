// Copyright 2026 The FX for C++ Authors.
//
// node.h: one operation in a Graph, with torch.fx's semantics.
//
// A Node is a call site (or an input or the output) of the function a Graph
// represents. Like torch.fx's `Node` it has:
//
//   op      one of six opcodes, saying what kind of operation it is;
//   name    the unique identifier of the value it produces (see naming.h);
//   target  what is called:
//             placeholder    the input's name (`x`);
//             get_attr       the qualified name of a parameter, buffer or attribute
//                            of the root module (`layer1.0.conv1.weight`);
//             call_function  a qualified function name: an operator with its
//                            overload (`aten::add.Tensor`) or a Python-level name
//                            (`operator.add`, `torch.sum`);
//             call_method    a method name called on args[0] (`relu`, `view`);
//             call_module    the qualified name of a submodule (`layer1.0.conv1`);
//             output         "output";
//   args, kwargs  the arguments (see argument.h); a placeholder's args hold its
//           default value, if any; the output's args[0] is the returned value;
//   users   the Nodes whose args or kwargs reference this one, each once, in the
//           order they started using it;
//   meta    metadata left by tracers and passes (see meta.h).
//
// Nodes are created and owned by a Graph (graph.h). Every setter that changes
// args or kwargs keeps `users` and `input_nodes` of all Nodes involved up to
// date. Nodes are not thread-safe; neither is the Graph that owns them.
#ifndef FX_CORE_NODE_H_
#define FX_CORE_NODE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/argument.h"
#include "core/export.h"
#include "core/meta.h"

namespace fx {

class Graph;

// torch.fx's six opcodes.
enum class Op : uint8_t {
  kPlaceholder,
  kGetAttr,
  kCallFunction,
  kCallMethod,
  kCallModule,
  kOutput,
};

// "placeholder", "get_attr", "call_function", "call_method", "call_module", "output".
FX_API absl::string_view op_name(Op op);
// Parses an opcode name; the error lists the six valid names.
FX_API absl::StatusOr<Op> parse_op(absl::string_view name);

class FX_API Node {
 public:
  // Nodes are made by Graph::create_node; only a Graph can make a Key.
  class Key {
    friend class Graph;
    explicit Key() {}
  };
  Node(Key, Graph* graph, Op op, std::string name, const std::string* target,
       const std::string* type);

  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  Graph& graph() const { return *graph_; }
  Op op() const { return op_; }
  const std::string& name() const { return name_; }
  const std::string& target() const { return *target_; }
  // An optional type annotation (torch.fx's `node.type`), e.g. "torch.Tensor";
  // empty when unknown. Printed by the graph and code printers.
  const std::string& type() const { return *type_; }
  const Arguments& args() const { return args_; }
  const Kwargs& kwargs() const { return kwargs_; }
  // The value of keyword argument `key`, or nullptr.
  const Argument* kwarg(absl::string_view key) const { return find_kwarg(kwargs_, key); }

  // Nodes that use this one, each once, in the order they started using it.
  absl::Span<Node* const> users() const { return users_; }
  // The distinct Nodes referenced by args then kwargs, in order of first
  // appearance (torch.fx's `all_input_nodes`).
  absl::Span<Node* const> input_nodes() const { return inputs_; }

  // Neighbours in the graph's order; nullptr at either end.
  Node* next() const;
  Node* prev() const;
  // True once the node has been erased from its graph.
  bool erased() const { return erased_; }

  // Argument updates. All keep users/input_nodes consistent.
  void set_args(Arguments args);
  void set_kwargs(Kwargs kwargs);
  void set_args_kwargs(Arguments args, Kwargs kwargs);
  // Replaces args[index]; requires index < args().size().
  void update_arg(size_t index, Argument value);
  // Sets kwargs[key] (appending the key when it is new).
  void update_kwarg(absl::string_view key, Argument value);

  // Changes what the node calls. The node keeps its name, as in torch.fx.
  void set_target(absl::string_view target);
  // Makes a call node another kind of call (call_function, call_method or
  // call_module) of `target`, as torch.fx's passes assign node.op and
  // node.target; InvalidArgument when the node or `op` is not a call.
  absl::Status set_call(Op op, absl::string_view target);
  void set_type(absl::string_view type);

  // Renames the node: `candidate` goes through the graph's naming rules, so the
  // result is unique (the candidate itself when it is free). Every printer
  // shows the new name, including in the args of the node's users. Returns the
  // name given.
  const std::string& rename(absl::string_view candidate);

  // Makes every user of this node use `replacement` instead, except users for
  // which `filter` returns false (torch.fx's `delete_user_cb`). With
  // `propagate_meta`, copies this node's meta onto `replacement` (which must
  // have none). Returns the users that were changed, in order.
  std::vector<Node*> replace_all_uses_with(Node* replacement,
                                           const std::function<bool(Node*)>& filter = nullptr,
                                           bool propagate_meta = false);
  // Replaces every reference to `old_input` in this node's args and kwargs.
  void replace_input_with(Node* old_input, Node* new_input);

  // Moves `other` (a node of the same graph) to just before / just after this
  // node. torch.fx: `Node.prepend` / `Node.append`.
  void prepend(Node* other);
  void append(Node* other);

  // True when dead-code elimination must keep this node although nothing uses
  // its value: placeholders, the output, nodes marked impure, and calls with
  // side effects (in-place operators such as `aten::add_` or method `add_`,
  // `torch._assert`, and targets registered with register_side_effect_target).
  bool is_impure() const;
  // Marks the node as having side effects (a tracer does this for operators
  // whose schema mutates an argument).
  void set_impure(bool impure);

  Meta& meta() { return meta_; }
  const Meta& meta() const { return meta_; }

  // True when this node comes strictly before `other` in their graph.
  bool comes_before(const Node& other) const;

  // The node as torch.fx's `Node.format_node()` prints it, e.g.
  // `%add : [num_users=1] = call_function[target=operator.add](args = (%x, %y), kwargs = {})`.
  std::string format() const;

 private:
  friend class Graph;
  friend class NodeIterator;
  friend class InsertionGuard;

  void attach_inputs();   // registers this node as a user of its inputs
  void detach_inputs();   // the reverse
  void remove_user(Node* user);

  Graph* graph_;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  Op op_;
  bool erased_ = false;
  bool impure_ = false;
  // Position in the graph; valid while the graph's order is (see Graph).
  mutable uint64_t order_ = 0;
  std::string name_;
  // Interned in the graph: nodes share their target and type strings.
  const std::string* target_;
  const std::string* type_;
  Arguments args_;
  Kwargs kwargs_;
  // Most nodes have one or two inputs and users: keep those inline.
  absl::InlinedVector<Node*, 2> inputs_;
  absl::InlinedVector<Node*, 2> users_;
  Meta meta_;
};

// Formats a node as its name, for absl::StrJoin in messages:
//   absl::StrJoin(node->users(), ", ", fx::NodeNameFormatter())   // "relu, add_1"
struct FX_API NodeNameFormatter {
  void operator()(std::string* out, const Node* node) const { out->append(node->name()); }
};

// Registers a call_function target (e.g. "mylib::log_event") as having side
// effects, so dead-code elimination keeps calls to it. Thread-safe; typically
// called while loading a plugin.
FX_API void register_side_effect_target(absl::string_view target);
// True for registered side-effect targets and in-place operator names.
FX_API bool is_side_effect_target(Op op, absl::string_view target);

}  // namespace fx

#endif  // FX_CORE_NODE_H_
