// Copyright 2026 The FX for C++ Authors.
//
// graph.h: torch.fx's Graph in C++, the IR every tracer produces and every pass
// rewrites.
//
// A Graph is an ordered list of Nodes (node.h) that represents one function:
// placeholders are its inputs, the output node returns its result, and the nodes
// in between are calls, in execution order. This is the graph of seed 004's
// `MyModule`, built by hand:
//
//   fx::Graph g;
//   fx::Node* x = g.placeholder("x");
//   fx::Node* w = g.get_attr("linear.weight");               // named linear_weight
//   fx::Node* add = g.call_function("operator.add", {x, w});  // add
//   fx::Node* lin = g.call_module("linear", {add});           // linear
//   fx::Node* relu = g.call_method("relu", {lin});            // relu
//   fx::Node* sum = g.call_function("torch.sum", {relu}, {{"dim", -1}});  // sum_1
//   fx::Node* topk = g.call_function("torch.topk", {sum, 3});  // topk
//   g.output(topk);
//   std::cout << fx::format_graph(g);                          // printer.h
//
// Contracts:
//   * Names are unique and follow torch.fx (naming.h). Erased nodes' names are
//     not reused.
//   * New nodes go at the insertion point: the end of the graph unless moved
//     for a scope with `inserting_before`/`inserting_after` (RAII guards).
//     Unlike torch.fx, several nodes created under `inserting_after(n)` keep
//     their creation order after `n` (torch.fx stacks them in reverse).
//   * Iterating `nodes()` stays valid while the current node is erased or nodes
//     are inserted; erased nodes are skipped (as in torch.fx). An erased node's
//     memory lives as long as the graph.
//   * `erase_node` refuses a node that still has users.
//   * Building, erasing, lint, dead-code elimination and copying are linear in
//     the graph's size; `find_nodes(op, target)` is proportional to the result.
//   * Not thread-safe: use one graph from one thread at a time.
//   * Debug builds check the preconditions stated here and in node.h (a node
//     argument from another graph or already erased, an insertion point or a
//     moved node of another graph) with FX_DCHECK (check.h) and abort there.
#ifndef FX_CORE_GRAPH_H_
#define FX_CORE_GRAPH_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/argument.h"
#include "core/export.h"
#include "core/meta.h"
#include "core/naming.h"
#include "core/node_arena.h"
#include "core/node.h"

namespace fx {

// Maps nodes of one graph to nodes of another (torch.fx's `val_map`).
using NodeMap = absl::flat_hash_map<const Node*, Node*>;

class Graph;

// Forward or backward iteration over a graph's live nodes.
class FX_API NodeIterator {
 public:
  using value_type = Node*;
  using difference_type = std::ptrdiff_t;
  using iterator_category = std::forward_iterator_tag;
  using pointer = Node* const*;
  using reference = Node*;

  NodeIterator(Node* current, const Node* end, bool reversed);
  Node* operator*() const { return current_; }
  NodeIterator& operator++();
  bool operator==(const NodeIterator& o) const { return current_ == o.current_; }
  bool operator!=(const NodeIterator& o) const { return current_ != o.current_; }

 private:
  void skip_erased();
  Node* current_;
  const Node* end_;
  bool reversed_;
};

class FX_API NodeRange {
 public:
  NodeRange(NodeIterator begin, NodeIterator end) : begin_(begin), end_(end) {}
  NodeIterator begin() const { return begin_; }
  NodeIterator end() const { return end_; }

 private:
  NodeIterator begin_, end_;
};

// Restores a graph's insertion point when it goes out of scope. (FX_API on a
// declaration of its own: GCC takes no __attribute__ after [[nodiscard]].)
class FX_API InsertionGuard;
class [[nodiscard]] InsertionGuard {
 public:
  InsertionGuard(Graph* graph, Node* previous) : graph_(graph), previous_(previous) {}
  InsertionGuard(InsertionGuard&& other) noexcept;
  InsertionGuard(const InsertionGuard&) = delete;
  InsertionGuard& operator=(const InsertionGuard&) = delete;
  InsertionGuard& operator=(InsertionGuard&&) = delete;
  ~InsertionGuard();

 private:
  Graph* graph_;
  Node* previous_;
};

class FX_API Graph {
 public:
  Graph();
  ~Graph();
  // A graph is not copyable implicitly (its nodes point at it): use copy().
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // ---- Iteration -------------------------------------------------------------
  // The live nodes in order. Valid while nodes are erased or inserted.
  NodeRange nodes() const;
  NodeRange reversed_nodes() const;
  // Number of live nodes.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Node* first_node() const;
  Node* last_node() const;
  // The output node (the last node when the graph is well formed), or nullptr.
  Node* output_node() const;
  // The placeholders, in order.
  std::vector<Node*> placeholders() const;

  // ---- Building --------------------------------------------------------------
  // Creates a node at the insertion point. Its name comes from `name` when given,
  // else from the target (naming.h); either way it is made unique.
  Node* create_node(Op op, absl::string_view target, Arguments args = {}, Kwargs kwargs = {},
                    absl::string_view name = {}, absl::string_view type = {});
  // An input named `name` (its target); with a default value when given.
  Node* placeholder(absl::string_view name, absl::string_view type = {},
                    std::optional<Argument> default_value = std::nullopt);
  // Fetches the parameter, buffer or attribute `qualified_name` of the root module.
  Node* get_attr(absl::string_view qualified_name, absl::string_view type = {});
  Node* call_function(absl::string_view target, Arguments args = {}, Kwargs kwargs = {},
                      absl::string_view type = {});
  // Calls method `method` on args[0].
  Node* call_method(absl::string_view method, Arguments args = {}, Kwargs kwargs = {},
                    absl::string_view type = {});
  Node* call_module(absl::string_view module_path, Arguments args = {}, Kwargs kwargs = {},
                    absl::string_view type = {});
  // The graph's result (a value, or a tuple/list of values).
  Node* output(Argument result, absl::string_view type = {});

  // Removes `node`. Fails, naming the node and its users, while anything uses it.
  absl::Status erase_node(Node* node);

  // ---- Insertion point -------------------------------------------------------
  // Until the returned guard is destroyed, new nodes go just before `node`
  // (nullptr: at the beginning of the graph).
  InsertionGuard inserting_before(Node* node);
  // Until the returned guard is destroyed, new nodes go after `node`, in
  // creation order (nullptr: at the end of the graph).
  InsertionGuard inserting_after(Node* node);

  // ---- Copying ---------------------------------------------------------------
  // Copies `node` (of any graph) to the insertion point, with its name as the
  // candidate, its meta and type; node references in its args and kwargs go
  // through `arg_transform`.
  Node* node_copy(const Node& node, const NodeMapFn& arg_transform);
  // Copies every node of `other` except its output into this graph, extending
  // `value_map` (which may pre-map some nodes of `other`, e.g. its placeholders,
  // to values here; those are not copied). Returns the mapped value of other's
  // output (None when it has none).
  Argument graph_copy(const Graph& other, NodeMap& value_map);
  // A deep copy with the same names, args, meta and graph meta. `value_map`, when
  // given, receives the mapping from this graph's nodes to the copy's.
  std::unique_ptr<Graph> copy(NodeMap* value_map = nullptr) const;

  // ---- Queries ---------------------------------------------------------------
  // The nodes with opcode `op` and, when `target` is given, that target, in
  // graph order.
  std::vector<Node*> find_nodes(Op op, std::optional<absl::string_view> target = {}) const;
  // The live node named `name`, or nullptr. Linear in the graph's size.
  Node* find_node(absl::string_view name) const;

  // ---- Passes ----------------------------------------------------------------
  // Removes every node whose value is unused and that is not impure
  // (Node::is_impure). Requires a topologically ordered graph (lint() passes).
  // Returns the number of nodes removed.
  size_t eliminate_dead_code();

  // Checks that the graph is well formed and says what is wrong, naming the node:
  //   * every node belongs to this graph and is not erased;
  //   * every argument is a live node of this graph, defined before its use;
  //   * users and input_nodes agree with the args and kwargs;
  //   * names are unique and registered;
  //   * there is exactly one output node and it is the last node.
  absl::Status lint() const;

  // Graph-level metadata (tracers record e.g. execution order here).
  Meta& meta() { return meta_; }
  const Meta& meta() const { return meta_; }

  // Counts changes to the graph: nodes added, erased, moved or renamed; args,
  // kwargs, targets, types or impurity changed (not meta). Executors cache
  // plans keyed on it; the pass manager reads it to tell whether a pass
  // changed anything.
  uint64_t version() const { return version_; }

  // The namespace of node names (for passes that reserve names of their own).
  Namespace& names() { return names_; }

  // Brings node order keys up to date; Node::comes_before and the printers call
  // it. Linear when nodes were inserted in the middle since the last call.
  void ensure_order() const;
  // One past the largest order key (after ensure_order()), for dense side tables
  // indexed by Node order.
  uint64_t order_bound() const;
  // The order key of `node` (after ensure_order()).
  static uint64_t order_of(const Node& node) { return node.order_; }

 private:
  friend class Node;
  friend class InsertionGuard;

  void link_before(Node* node, Node* position);
  void unlink(Node* node);
  void index_target(Node* node) const;
  void unindex_target(Node* node) const;
  std::string unique_name(Op op, const std::string* target, absl::string_view name);
  // The graph's copy of `s`; the empty string for an empty `s`.
  const std::string* intern(absl::string_view s);

  // Sentinel of the circular doubly-linked node list (torch.fx's `_root`).
  Node* root_;
  Arena<Node> storage_;
  size_t size_ = 0;
  // New nodes are linked before this node (root_ means at the end).
  Node* insert_before_;
  Namespace names_;
  // Interned target and type strings (stable addresses).
  absl::node_hash_set<std::string> strings_;
  // The candidate name of each (op, interned target) seen so far.
  absl::flat_hash_map<std::pair<Op, const std::string*>, std::string> candidates_;
  // (op, interned target) -> nodes, for find_nodes. Built on the first query,
  // then kept up to date, so graphs that are never queried do not pay for it.
  mutable std::array<absl::flat_hash_map<const std::string*, absl::flat_hash_set<Node*>>, 6>
      by_target_;
  mutable bool target_index_built_ = false;
  mutable bool order_valid_ = true;
  uint64_t version_ = 0;
  Meta meta_;
};

}  // namespace fx

#endif  // FX_CORE_GRAPH_H_
