// Copyright 2026 The FX for C++ Authors.
#include "tracer/torchscript/rebound_attributes.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"

namespace fx {
namespace tracer_internal {
namespace {

namespace jit = torch::jit;

// The attribute path from `self` to `v` ("" for self, "sub.inner" for
// self.sub.inner); nothing when `v` is not reached from self by attribute
// reads.
std::optional<std::string> path_from_self(const jit::Value* v, const jit::Value* self) {
  std::vector<std::string> parts;
  while (v != self) {
    const jit::Node* n = v->node();
    if (n->kind() != c10::prim::GetAttr) return std::nullopt;
    parts.push_back(n->s(c10::attr::name));
    v = n->input(0);
  }
  std::reverse(parts.begin(), parts.end());
  return absl::StrJoin(parts, ".");
}

// Where an assignment was found: the module's path and method.
struct Assignment {
  std::string module;
  std::string method;
};

void collect_block(const jit::Block* block, const jit::Value* self, const std::string& prefix,
                   const Assignment& where, absl::flat_hash_map<std::string, Assignment>& out) {
  for (const jit::Node* n : block->nodes()) {
    for (const jit::Block* b : n->blocks()) collect_block(b, self, prefix, where, out);
    if (n->kind() != c10::prim::SetAttr) continue;
    std::optional<std::string> object = path_from_self(n->input(0), self);
    if (!object) continue;  // an object the code made (a context manager's state)
    const std::string name = n->s(c10::attr::name);
    out.emplace(absl::StrCat(prefix, object->empty() ? "" : *object + ".", name), where);
  }
}

// Every attribute (by path from the root) that the methods of `module`, at
// `path`, and of its submodules assign.
void collect_assigned(const jit::Module& module, const std::string& path,
                      absl::flat_hash_map<std::string, Assignment>& out) {
  const std::string prefix = path.empty() ? "" : path + ".";
  for (const jit::Method& method : module.get_methods()) {
    std::shared_ptr<jit::Graph> graph = method.graph();
    if (graph->inputs().empty()) continue;
    collect_block(graph->block(), graph->inputs()[0], prefix, Assignment{path, method.name()}, out);
  }
  for (const jit::NameModule& child : module.named_children()) {
    collect_assigned(child.value, prefix + child.name, out);
  }
}

std::optional<jit::Module> submodule_at(const jit::Module& root, const std::string& path) {
  jit::Module m = root;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    const std::string name(part);
    if (!m.hasattr(name)) return std::nullopt;
    const c10::IValue v = m.attr(name);
    if (!v.isModule()) return std::nullopt;
    m = v.toModule();
  }
  return m;
}

}  // namespace

absl::Status refuse_reads_of_rebound_attributes(const Graph& graph, const jit::Module& root) {
  absl::flat_hash_map<std::string, Assignment> assigned;
  absl::flat_hash_map<std::string, bool> walked;
  for (const Node* n : graph.nodes()) {
    if (n->op() != Op::kCallModule || !walked.emplace(n->target(), true).second) continue;
    if (std::optional<jit::Module> m = submodule_at(root, n->target())) {
      collect_assigned(*m, n->target(), assigned);
    }
  }
  if (assigned.empty()) return absl::OkStatus();
  for (const Node* n : graph.nodes()) {
    if (n->op() != Op::kGetAttr) continue;
    for (const auto& [attribute, where] : assigned) {
      if (n->target() != attribute && !absl::StartsWith(n->target(), attribute + ".")) continue;
      return absl::FailedPreconditionError(absl::StrCat(
          "module '", where.module, "' is called as a leaf, and its ", where.method,
          " assigns attribute ", quote_for_message(attribute), " anew (not in place), which the graph "
          "reads (get_attr ", quote_for_message(n->target()), ", node '", n->name(),
          "'): the graph would read the tensor bound before the call, not the module's new one. "
          "Return the new value from the module's forward instead of assigning it, or update "
          "the tensor in place (copy_)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
