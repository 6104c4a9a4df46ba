// Copyright 2026 The FX for C++ Authors.
#include "core/graph.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/check.h"

namespace fx {

// ---- NodeIterator ----------------------------------------------------------

NodeIterator::NodeIterator(Node* current, const Node* end, bool reversed)
    : current_(current), end_(end), reversed_(reversed) {
  skip_erased();
}

void NodeIterator::skip_erased() {
  while (current_ != end_ && current_->erased()) {
    current_ = reversed_ ? current_->prev_ : current_->next_;
  }
}

NodeIterator& NodeIterator::operator++() {
  current_ = reversed_ ? current_->prev_ : current_->next_;
  skip_erased();
  return *this;
}

// ---- InsertionGuard --------------------------------------------------------

InsertionGuard::InsertionGuard(InsertionGuard&& other) noexcept
    : graph_(other.graph_), previous_(other.previous_) {
  other.graph_ = nullptr;
}

InsertionGuard::~InsertionGuard() {
  if (graph_ == nullptr) return;
  // The saved position may have been erased inside the scope: move on to the
  // first live node after it (erased nodes keep their links).
  Node* position = previous_;
  while (position != graph_->root_ && position->erased_) position = position->next_;
  graph_->insert_before_ = position;
}

// ---- Graph -----------------------------------------------------------------

Graph::Graph() {
  root_ = storage_.make(Node::Key(), this, Op::kOutput, "", intern(""), intern(""));
  root_->next_ = root_->prev_ = root_;
  insert_before_ = root_;
}

Graph::~Graph() = default;

NodeRange Graph::nodes() const {
  return NodeRange(NodeIterator(root_->next_, root_, false), NodeIterator(root_, root_, false));
}

NodeRange Graph::reversed_nodes() const {
  return NodeRange(NodeIterator(root_->prev_, root_, true), NodeIterator(root_, root_, true));
}

Node* Graph::first_node() const { return root_->next_ == root_ ? nullptr : root_->next_; }
Node* Graph::last_node() const { return root_->prev_ == root_ ? nullptr : root_->prev_; }

Node* Graph::output_node() const {
  for (Node* n : reversed_nodes()) {
    if (n->op() == Op::kOutput) return n;
  }
  return nullptr;
}

std::vector<Node*> Graph::placeholders() const {
  std::vector<Node*> out;
  for (Node* n : nodes()) {
    if (n->op() == Op::kPlaceholder) out.push_back(n);
  }
  return out;
}

const std::string* Graph::intern(absl::string_view s) {
  static const std::string* const kEmpty = new std::string();
  if (s.empty()) return kEmpty;
  auto it = strings_.find(s);
  if (it == strings_.end()) it = strings_.insert(std::string(s)).first;
  return &*it;
}

std::string Graph::unique_name(Op op, const std::string* target, absl::string_view name) {
  if (!name.empty()) return names_.create_name(name);
  if (op != Op::kCallFunction && op != Op::kCallMethod && op != Op::kOutput) {
    // Module and attribute paths are rarely repeated: no cache.
    return names_.create_name(candidate_name_for_target(*target, false));
  }
  auto [it, inserted] = candidates_.try_emplace(std::make_pair(op, target));
  if (inserted) {
    it->second = op == Op::kOutput ? std::string("output")
                                   : candidate_name_for_target(*target, op == Op::kCallFunction);
  }
  return names_.create_name(it->second);
}

void Graph::link_before(Node* node, Node* position) {
  Node* prev = position->prev_;
  node->prev_ = prev;
  node->next_ = position;
  prev->next_ = node;
  position->prev_ = node;
  if (position == root_) {
    // Appending keeps the order keys valid.
    node->order_ = prev == root_ ? 0 : prev->order_ + 1;
  } else {
    order_valid_ = false;
  }
}

void Graph::unlink(Node* node) {
  // The node keeps its own links so that an iterator standing on it can move on.
  node->prev_->next_ = node->next_;
  node->next_->prev_ = node->prev_;
}

void Graph::index_target(Node* node) const {
  by_target_[static_cast<size_t>(node->op_)][node->target_].insert(node);
}

void Graph::unindex_target(Node* node) const {
  auto& table = by_target_[static_cast<size_t>(node->op_)];
  auto it = table.find(node->target_);
  if (it == table.end()) return;
  it->second.erase(node);
  if (it->second.empty()) table.erase(it);
}

Node* Graph::create_node(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                         absl::string_view name, absl::string_view type) {
  const std::string* interned_target = intern(target);
  std::string node_name = unique_name(op, interned_target, name);
  Node* node = storage_.make(Node::Key(), this, op, std::move(node_name), interned_target,
                             intern(type));
  node->args_ = std::move(args);
  node->kwargs_ = std::move(kwargs);
  node->attach_inputs();
  link_before(node, insert_before_);
  ++size_;
  ++version_;
  if (target_index_built_) index_target(node);
  return node;
}

Node* Graph::placeholder(absl::string_view name, absl::string_view type,
                         std::optional<Argument> default_value) {
  Arguments args;
  if (default_value.has_value()) args.push_back(std::move(*default_value));
  return create_node(Op::kPlaceholder, name, std::move(args), {}, {},
                     type);
}

Node* Graph::get_attr(absl::string_view qualified_name, absl::string_view type) {
  return create_node(Op::kGetAttr, qualified_name, {}, {}, {}, type);
}

Node* Graph::call_function(absl::string_view target, Arguments args, Kwargs kwargs,
                           absl::string_view type) {
  return create_node(Op::kCallFunction, target, std::move(args), std::move(kwargs),
                     {}, type);
}

Node* Graph::call_method(absl::string_view method, Arguments args, Kwargs kwargs,
                         absl::string_view type) {
  return create_node(Op::kCallMethod, method, std::move(args), std::move(kwargs), {},
                     type);
}

Node* Graph::call_module(absl::string_view module_path, Arguments args, Kwargs kwargs,
                         absl::string_view type) {
  return create_node(Op::kCallModule, module_path, std::move(args),
                     std::move(kwargs), {}, type);
}

Node* Graph::output(Argument result, absl::string_view type) {
  return create_node(Op::kOutput, "output", {std::move(result)}, {}, {}, type);
}

absl::Status Graph::erase_node(Node* node) {
  if (node == nullptr) return absl::InvalidArgumentError("erase_node: node is null");
  if (node->graph_ != this || node == root_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "erase_node: node '", node->name_, "' does not belong to this graph"));
  }
  if (node->erased_) {
    return absl::FailedPreconditionError(
        absl::StrCat("erase_node: node '", node->name_, "' was already erased"));
  }
  if (!node->users_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot erase node '", node->name_, "': it still has ", node->users_.size(),
        node->users_.size() == 1 ? " user (" : " users (",
        absl::StrJoin(node->users_, ", ", NodeNameFormatter()),
        "); make them use another value first (replace_all_uses_with)"));
  }
  if (insert_before_ == node) insert_before_ = node->next_;
  if (target_index_built_) unindex_target(node);
  node->detach_inputs();
  // Like torch.fx, an erased node's args no longer reference other nodes.
  auto to_none = [](Node*) { return Argument(); };
  node->args_ = map_arg(node->args_, to_none);
  node->kwargs_ = map_arg(node->kwargs_, to_none);
  unlink(node);
  node->erased_ = true;
  --size_;
  ++version_;
  return absl::OkStatus();
}

InsertionGuard Graph::inserting_before(Node* node) {
  FX_DCHECK(node == nullptr || (node->graph_ == this && !node->erased_),
            "inserting_before: the node must be a live node of this graph");
  InsertionGuard guard(this, insert_before_);
  insert_before_ = node != nullptr ? node : root_->next_;
  return guard;
}

InsertionGuard Graph::inserting_after(Node* node) {
  FX_DCHECK(node == nullptr || (node->graph_ == this && !node->erased_),
            "inserting_after: the node must be a live node of this graph");
  InsertionGuard guard(this, insert_before_);
  insert_before_ = node != nullptr ? node->next_ : root_;
  return guard;
}

Node* Graph::node_copy(const Node& node, const NodeMapFn& arg_transform) {
  Node* copy = create_node(node.op_, *node.target_, map_arg(node.args_, arg_transform),
                           map_arg(node.kwargs_, arg_transform), node.name_, *node.type_);
  copy->meta_ = node.meta_;
  copy->impure_ = node.impure_;
  return copy;
}

Argument Graph::graph_copy(const Graph& other, NodeMap& value_map) {
  auto lookup = [&value_map](Node* n) -> Argument {
    auto it = value_map.find(n);
    // A reference to a node that was not copied (yet) can only come from a graph
    // that is not topologically ordered; keep the pointer so lint() reports it.
    return it == value_map.end() ? Argument(n) : Argument(it->second);
  };
  Argument result;
  for (Node* n : other.nodes()) {
    if (n->op_ == Op::kOutput) {
      result = map_arg(n->args_.empty() ? Argument() : n->args_[0], lookup);
      continue;
    }
    if (value_map.contains(n)) continue;
    value_map[n] = node_copy(*n, lookup);
  }
  return result;
}

std::unique_ptr<Graph> Graph::copy(NodeMap* value_map) const {
  auto g = std::make_unique<Graph>();
  // Copies indexed by node order: denser and faster than a hash map.
  ensure_order();
  std::vector<Node*> copies(order_bound(), nullptr);
  auto lookup = [this, &copies](Node* n) -> Argument {
    Node* c = n->graph_ == this && !n->erased_ ? copies[n->order_] : nullptr;
    return c != nullptr ? Argument(c) : Argument(n);
  };
  for (Node* n : nodes()) {
    // Names are already unique here: keep them exactly.
    g->names_.reserve(n->name_);
    Node* c = g->storage_.make(Node::Key(), g.get(), n->op_, n->name_, g->intern(*n->target_),
                               g->intern(*n->type_));
    c->args_ = map_arg(n->args_, lookup);
    c->kwargs_ = map_arg(n->kwargs_, lookup);
    c->attach_inputs();
    c->meta_ = n->meta_;
    c->impure_ = n->impure_;
    g->link_before(c, g->root_);
    ++g->size_;
    copies[n->order_] = c;
  }
  g->meta_ = meta_;
  if (value_map != nullptr) {
    value_map->reserve(value_map->size() + size_);
    for (Node* n : nodes()) (*value_map)[n] = copies[n->order_];
  }
  return g;
}

std::vector<Node*> Graph::find_nodes(Op op, std::optional<absl::string_view> target) const {
  std::vector<Node*> out;
  if (!target.has_value()) {
    for (Node* n : nodes()) {
      if (n->op_ == op) out.push_back(n);
    }
    return out;
  }
  if (!target_index_built_) {
    for (Node* n : nodes()) index_target(n);
    target_index_built_ = true;
  }
  auto interned = strings_.find(*target);
  if (interned == strings_.end()) return out;
  const auto& table = by_target_[static_cast<size_t>(op)];
  auto it = table.find(&*interned);
  if (it == table.end()) return out;
  out.assign(it->second.begin(), it->second.end());
  ensure_order();
  std::sort(out.begin(), out.end(), [](const Node* a, const Node* b) { return a->order_ < b->order_; });
  return out;
}

Node* Graph::find_node(absl::string_view name) const {
  for (Node* n : nodes()) {
    if (n->name_ == name) return n;
  }
  return nullptr;
}

size_t Graph::eliminate_dead_code() {
  size_t removed = 0;
  for (Node* n : reversed_nodes()) {
    if (!n->users_.empty() || n->is_impure()) continue;
    // Cannot fail: the node is live, ours, and unused.
    (void)erase_node(n);
    ++removed;
  }
  return removed;
}

void Graph::ensure_order() const {
  if (order_valid_) return;
  uint64_t i = 0;
  for (Node* n = root_->next_; n != root_; n = n->next_) n->order_ = i++;
  order_valid_ = true;
}

uint64_t Graph::order_bound() const {
  ensure_order();
  return root_->prev_ == root_ ? 0 : root_->prev_->order_ + 1;
}

absl::Status Graph::lint() const {
  ensure_order();
  auto where = [](const Node* n) { return absl::StrCat("node '", n->name(), "'"); };
  // Scratch marks indexed by node order (see the users check below).
  const uint64_t bound = order_bound();
  auto user_mark = std::make_unique<uint64_t[]>(bound);  // zeroed

  // The list itself: links agree and the live count matches.
  size_t count = 0;
  for (Node* n = root_->next_; n != root_; n = n->next_) {
    if (n->next_->prev_ != n) {
      return absl::InternalError(absl::StrCat("lint: broken node list after ", where(n)));
    }
    if (n->graph_ != this) {
      return absl::FailedPreconditionError(
          absl::StrCat("lint: ", where(n), " does not belong to this graph"));
    }
    if (n->erased_) {
      return absl::FailedPreconditionError(
          absl::StrCat("lint: ", where(n), " was erased but is still in the graph"));
    }
    ++count;
  }
  if (count != size_) {
    return absl::InternalError(
        absl::StrCat("lint: the graph counts ", size_, " nodes but holds ", count));
  }

  // Unique names, checked by base and number (naming.h): a chain of `add_<n>`
  // costs one lookup of `add` and a bit per node, not a set of strings.
  struct SeenBase {
    bool bare = false;
    std::vector<bool> small_numbers;
    absl::flat_hash_set<int64_t> large_numbers;
  };
  absl::flat_hash_map<absl::string_view, SeenBase> seen_names;
  auto name_seen_before = [&seen_names](absl::string_view name) {
    absl::string_view base = name;
    int64_t number = 0;
    const bool numbered = split_name_suffix(name, &base, &number);
    SeenBase& seen = seen_names[base];
    if (!numbered) return std::exchange(seen.bare, true);
    if (number >= (int64_t{1} << 26)) return !seen.large_numbers.insert(number).second;
    if (static_cast<size_t>(number) >= seen.small_numbers.size()) {
      seen.small_numbers.resize(std::max<size_t>(number + 1, 2 * seen.small_numbers.size()));
    }
    const bool before = seen.small_numbers[number];
    seen.small_numbers[number] = true;
    return before;
  };
  const Node* output = nullptr;
  size_t input_edges = 0;
  size_t user_edges = 0;
  std::vector<Node*> expected_inputs;
  for (Node* n = root_->next_; n != root_; n = n->next_) {
    if (name_seen_before(n->name_)) {
      return absl::FailedPreconditionError(
          absl::StrCat("lint: name '", n->name_, "' is used by more than one node"));
    }
    if (n->op_ == Op::kOutput) {
      if (output != nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            "lint: the graph has more than one output node ('", output->name_, "' and '",
            n->name_, "')"));
      }
      output = n;
    }

    // Every argument is a live node of this graph, defined before its use.
    absl::Status arg_status;
    expected_inputs.clear();
    auto check_arg = [&](Node* arg) {
      if (!arg_status.ok()) return;
      if (arg->graph_ != this) {
        arg_status = absl::FailedPreconditionError(absl::StrCat(
            "lint: argument '", arg->name_, "' of ", where(n),
            " does not belong to this graph; when copying nodes from another graph, "
            "remap their arguments (node_copy's arg_transform)"));
      } else if (arg->erased_) {
        arg_status = absl::FailedPreconditionError(absl::StrCat(
            "lint: argument '", arg->name_, "' of ", where(n), " was erased"));
      } else if (arg->order_ >= n->order_) {
        arg_status = absl::FailedPreconditionError(absl::StrCat(
            "lint: argument '", arg->name_, "' of ", where(n),
            " is used before it is defined; the nodes are not in topological order"));
      }
      if (std::find(expected_inputs.begin(), expected_inputs.end(), arg) ==
          expected_inputs.end()) {
        expected_inputs.push_back(arg);
      }
    };
    for_each_node(n->args_, check_arg);
    for_each_node(n->kwargs_, check_arg);
    if (!arg_status.ok()) return arg_status;

    // input_nodes agree with the args; each user lists this node as an input.
    if (!std::equal(expected_inputs.begin(), expected_inputs.end(), n->inputs_.begin(),
                    n->inputs_.end())) {
      return absl::InternalError(absl::StrCat(
          "lint: the inputs recorded for ", where(n), " do not match its args and kwargs"));
    }
    input_edges += n->inputs_.size();
    user_edges += n->users_.size();
    // A user listed twice carries this node's mark already.
    const uint64_t mark = n->order_ + 1;
    for (const Node* user : n->users_) {
      const bool listed_twice = user_mark[user->order_] == mark;
      user_mark[user->order_] = mark;
      if (listed_twice || user->erased_ || user->graph_ != this ||
          std::count(user->inputs_.begin(), user->inputs_.end(), n) != 1) {
        return absl::InternalError(absl::StrCat("lint: ", where(n), " lists user '",
                                                user->name_, "' which does not use it"));
      }
    }
  }
  // Each user edge matches an input edge (above); equal totals make them the same set.
  if (input_edges != user_edges) {
    return absl::InternalError(absl::StrCat(
        "lint: users are out of date: ", input_edges, " uses in args but ", user_edges,
        " recorded users"));
  }
  if (output == nullptr) {
    return absl::FailedPreconditionError("lint: the graph has no output node; add one with output()");
  }
  if (output != root_->prev_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "lint: the output node '", output->name_, "' is not the last node ('",
        root_->prev_->name_, "' follows it)"));
  }
  return absl::OkStatus();
}

}  // namespace fx
