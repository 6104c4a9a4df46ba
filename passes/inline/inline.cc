// Copyright 2026 The FX for C++ Authors.
#include "passes/inline/inline.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/graph.h"
#include "runtime/graph_module.h"
#include "runtime/torchscript/script_calls.h"
#include "tracer/module_ref.h"
#include "tracer/tracer.h"
#include "core/well_known.h"

namespace fx {
namespace {

// Carries the inlined call's metadata onto the nodes of its body, with
// meta["module_path"] naming the module each node came from.
class CarryMeta : public TracerExtension {
 public:
  CarryMeta(Meta meta, std::string module_path)
      : meta_(std::move(meta)), current_(std::move(module_path)) {}

  absl::StatusOr<Argument> call_module(Tracer& tracer, const ModuleRef& m,
                                       const ModuleForward& forward, const Arguments& args,
                                       const Kwargs& kwargs, CallModuleNext next) override {
    std::string outer = std::exchange(current_, tracer.path_of_module(m));
    auto result = next(m, forward, args, kwargs);
    current_ = std::move(outer);
    return result;
  }

  Node* create_node(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                    Kwargs kwargs, absl::string_view name, CreateNodeNext next) override {
    Node* n = next(op, target, std::move(args), std::move(kwargs), name);
    for (const auto& [key, value] : meta_) {
      if (key == kModulePathKey) {
        n->meta().set(key, current_);
      } else if (!n->meta().contains(key)) {
        n->meta().set(key, value);
      }
    }
    return n;
  }

 private:
  Meta meta_;
  std::string current_;
};

// The nodes strictly between `first` (exclusive; nullptr: the start) and `end`.
std::vector<Node*> nodes_between(Graph& g, Node* first, Node* end) {
  std::vector<Node*> out;
  for (Node* n = first != nullptr ? first->next() : g.first_node(); n != nullptr && n != end;
       n = n->next()) {
    out.push_back(n);
  }
  return out;
}

// Erases a failed body: its nodes are only used by each other, so erasing in
// reverse order always succeeds.
void erase_all(Graph& g, const std::vector<Node*>& nodes) {
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) (void)g.erase_node(*it);
}

}  // namespace

bool Inline::chosen(GraphModule& module, const Node& node) const {
  if (node.op() != Op::kCallModule) return false;
  if (modules->empty() && types->empty()) return true;
  if (std::find(modules->begin(), modules->end(), node.target()) != modules->end()) return true;
  if (types->empty()) return false;
  auto sub = module.get_submodule(node.target());
  if (!sub.ok()) return false;
  const std::string class_name = (*sub)->class_name();
  return std::any_of(types->begin(), types->end(), [&](const std::string& t) {
    return t == class_name || t == (*sub)->type_name();
  });
}

absl::StatusOr<bool> Inline::inline_call(GraphModule& module, Node* call, std::string* why) {
  Graph& g = module.graph();
  Node* before = call->prev();
  // Bodies are traced as the module was (leaf functions, assertions).
  Tracer tracer(recorded_trace_options(module));
  tracer.add_extension(std::make_shared<CarryMeta>(call->meta(), call->target()));
  absl::StatusOr<Argument> body;
  {
    auto guard = g.inserting_before(call);
    body = tracer.trace_into(module, call->target(), call->args(), call->kwargs());
  }
  std::vector<Node*> created = nodes_between(g, before, call);
  auto give_up = [&](std::string reason) {
    erase_all(g, created);
    *why = std::move(reason);
    return false;
  };
  if (!body.ok()) return give_up(std::string(body.status().message()));

  if (body->is_node()) {
    call->replace_all_uses_with(body->to_node());
  } else if (body->is_sequence()) {
    // A tuple result: each `call[i]` becomes element i.
    std::vector<Node*> users(call->users().begin(), call->users().end());
    for (Node* user : users) {
      const bool indexing = user->op() == Op::kCallFunction && user->target() == kGetItemTarget &&
                            user->args().size() == 2 && user->args()[0] == Argument(call) &&
                            user->args()[1].is_int();
      const int64_t i = indexing ? user->args()[1].to_int() : -1;
      if (!indexing || i < 0 || i >= static_cast<int64_t>(body->elements().size()) ||
          !body->elements()[i].is_node()) {
        return give_up(absl::StrCat("its tuple result is used as a whole by node '",
                                    user->name(), "'"));
      }
    }
    for (Node* user : users) {
      user->replace_all_uses_with(body->elements()[user->args()[1].to_int()].to_node());
      if (absl::Status s = g.erase_node(user); !s.ok()) return s;
    }
  } else if (!call->users().empty()) {
    return give_up("it returns a constant, not a value of the graph");
  }
  if (absl::Status s = g.erase_node(call); !s.ok()) return s;

  // Parameters already fetched earlier in the graph are reused; not reads of
  // an attribute a module's code may rebind, which stand where they are
  // (one before a call of that module and one after it read two values).
  for (Node* n : created) {
    if (n->op() != Op::kGetAttr || code_may_assign(module.root(), n->target())) continue;
    std::vector<Node*> same = g.find_nodes(Op::kGetAttr, n->target());
    if (!same.empty() && same.front() != n && same.front()->comes_before(*n)) {
      n->replace_all_uses_with(same.front());
      if (absl::Status s = g.erase_node(n); !s.ok()) return s;
    }
  }
  return true;
}

absl::Status Inline::inline_round(GraphModule& module, PassContext& context,
                                  absl::flat_hash_set<const Node*>& left) {
  std::vector<Node*> calls;
  for (Node* n : module.graph().find_nodes(Op::kCallModule)) {
    if (!left.contains(n) && chosen(module, *n)) calls.push_back(n);
  }
  for (Node* call : calls) {
    const std::string name = call->name();
    const std::string target = call->target();
    std::string why;
    auto done = inline_call(module, call, &why);
    if (!done.ok()) return done.status();
    if (*done) continue;
    const std::string message =
        absl::StrCat("cannot inline call_module '", name, "' (module '", target, "'): ", why);
    if (*on_error == "fail") {
      return absl::FailedPreconditionError(
          absl::StrCat(message, "; use on_error=warn to leave it as it is"));
    }
    context.warn(absl::StrCat("inline: ", message, "; left as it is"));
    left.insert(call);
  }
  return absl::OkStatus();
}

void Inline::warn_about_unmatched_names(GraphModule& module, PassContext& context) const {
  std::vector<std::string> targets;
  std::vector<std::string> classes;
  for (const Node* n : module.graph().find_nodes(Op::kCallModule)) {
    targets.push_back(n->target());
    if (auto sub = module.get_submodule(n->target()); sub.ok()) {
      classes.push_back((*sub)->class_name());
      classes.push_back((*sub)->type_name());
    }
  }
  auto contains = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (const std::string& m : *modules) {
    if (contains(targets, m)) continue;
    context.warn(absl::StrCat("inline: modules=", quote_for_message(m),
                              " matches no call_module node", did_you_mean(m, targets),
                              targets.empty() ? "; the graph calls no module" : ""));
  }
  for (const std::string& t : *types) {
    if (contains(classes, t)) continue;
    context.warn(absl::StrCat("inline: types=", quote_for_message(t),
                              " matches no module the graph calls", did_you_mean(t, classes),
                              classes.empty() ? "; the graph calls no module" : ""));
  }
}

absl::Status Inline::run(GraphModule& module, PassContext& context) {
  warn_about_unmatched_names(module, context);
  absl::flat_hash_set<const Node*> left;  // calls that could not be inlined
  if (!recurse) return inline_round(module, context, left);
  constexpr int kMaxRounds = 64;
  auto rounds =
      run_to_fixed_point(module, kMaxRounds, [&] { return inline_round(module, context, left); });
  if (rounds.status().code() == absl::StatusCode::kResourceExhausted) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "inline: modules still call modules after ", kMaxRounds, " rounds of inlining"));
  }
  return rounds.status();
}

void register_inline(PluginRegistrar& registrar) {
  registrar.add_pass<Inline>("inline",
                             "replaces call_module nodes with the traced body of the module");
}

}  // namespace fx
