// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_layout/mkldnn_layout.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/Context.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph.h"
#include "core/well_known.h"
#include "passes/attribute_names.h"
#include "runtime/torchscript/function_lowering.h"
#include "passes/mkldnn_layout/layout_operators.h"
#include "passes/mkldnn_layout/rank_checks.h"
#include "runtime/graph_module.h"
#include "runtime/operator_aliasing.h"

namespace fx {
namespace {

using namespace mkldnn_layout_internal;  // NOLINT: the pass's own parts

// ---- Regions ------------------------------------------------------------------

struct Region {
  std::vector<Candidate*> members;
  int convolutions = 0;
  int conversions = 0;
  std::string unsafe;  // why it cannot be converted, when it cannot
};

// The operand an out-of-place add in the layout can write instead of making
// its result, as the frozen module's add_ does (oneDNN then allocates
// nothing): a fresh value in the layout, not an alias of another, that
// nothing but the add reads except for its sizes. a + b and b + a are the
// same numbers (alpha is 1), so either operand will do. nullptr when neither.
// Both operands are candidates (an add is one only then) in the add's region.
Node* operand_to_add_into(const Candidate& add, const absl::flat_hash_map<Node*, Node*>& alias_root) {
  if (add.kind != Kind::kAdd || add.in_place || add.operands[0] == add.operands[1]) return nullptr;
  for (Node* operand : add.operands) {
    if (alias_root.at(operand) != operand) continue;
    const bool read_elsewhere = std::any_of(
        operand->users().begin(), operand->users().end(),
        [&](const Node* user) { return user != add.node && !reads_sizes_only(*user); });
    if (!read_elsewhere) return operand;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<MkldnnLayoutReport> plan_mkldnn_layout(GraphModule& gm,
                                                      const MkldnnLayoutOptions& options) {
  MkldnnLayoutReport report;
  Graph& graph = gm.graph();
  if (!has_any_tensor_meta(graph)) {
    return absl::FailedPreconditionError(
        "mkldnn_layout: the graph has no tensor_meta (shapes, dtypes, devices); put shape_prop "
        "(or shape_prop{device=meta}) before it in the pipeline, with --input-shape or --input");
  }
  lower_leaf_functions(gm);
  // Who may write what the layout reads (module state included). The pass
  // adds nodes and erases none, so the snapshot holds while it rewrites.
  const StorageWrites writes(gm);

  // Candidates, in graph order; a value is in the layout when its node is one.
  std::vector<Candidate> candidates;
  candidates.reserve(graph.size());
  absl::flat_hash_set<Node*> in_layout;
  absl::flat_hash_map<Node*, size_t> candidate_of;
  const auto add = [&](Candidate c) {
    candidate_of[c.node] = candidates.size();
    in_layout.insert(c.node);
    candidates.push_back(std::move(c));
  };
  for (Node* n : graph.nodes()) {
    if (n->op() != Op::kCallFunction) continue;
    const bool convolution = is_convolution_call(*n);
    if (!convolution && in_layout.empty()) continue;
    if (auto c = adaptive_avg_pool_function(*n, in_layout)) {
      add(std::move(*c));
      continue;
    }
    auto call = bind_call(*n);
    if (!call) continue;
    if (convolution) {
      Candidate c;
      std::string problem = convolution_problem(gm, *n, *call, c);
      Node* weight = call->node_arg("weight");
      if (problem.empty() && (attribute_may_be_written(graph, c.weight_name) ||
                              (weight != nullptr && writes.writer(*weight, {}) != nullptr))) {
        problem = "its weight may be written by the graph, which a copy reordered once would miss";
      }
      if (!problem.empty()) {
        report.left_strided.push_back(absl::StrCat(n->name(), ": ", problem));
        continue;
      }
      add(std::move(c));
      continue;
    }
    if (auto c = layout_operator(*n, *call, in_layout)) add(std::move(*c));
  }
  if (candidates.empty()) return report;

  // Regions: candidates joined through their operands.
  AliasClasses joined(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (Node* operand : candidates[i].operands) {
      auto it = candidate_of.find(operand);
      if (it != candidate_of.end()) joined.unite(i, it->second);
    }
  }
  std::map<size_t, Region> regions;
  for (size_t i = 0; i < candidates.size(); ++i) {
    regions[joined.find(i)].members.push_back(&candidates[i]);
  }
  // The value each in-layout value's storage belongs to (relu_ returns its
  // operand), and the last in-place candidate writing it, if any.
  absl::flat_hash_map<Node*, Node*> alias_root;
  absl::flat_hash_map<const Node*, size_t> position;
  for (Node* n : graph.nodes()) position.emplace(n, position.size());
  absl::flat_hash_map<Node*, Node*> last_writer;
  for (Candidate& c : candidates) {
    Node* root = c.node;
    if (c.returns_operand) {
      auto it = alias_root.find(c.operands[0]);
      root = it != alias_root.end() ? it->second : c.operands[0];
    }
    alias_root[c.node] = root;
    if (c.in_place) last_writer[root] = c.node;
  }
  // A strided user that may view a value written in the layout after it
  // would view its to_dense copy, blind to the write.
  const auto viewed_before_write = [&](Node& value) -> std::string {
    auto w = last_writer.find(alias_root[&value]);
    if (w == last_writer.end()) return "";
    for (Node* user : value.users()) {
      if (candidate_of.count(user) > 0 || !may_alias(*user) ||
          position[user] > position[w->second]) {
        continue;
      }
      return absl::StrCat("'", user->name(), "' may view '", value.name(), "' before '",
                          w->second->name(),
                          "' writes it in oneDNN's layout: it would view a strided copy");
    }
    return "";
  };
  for (auto& [id, region] : regions) {
    absl::flat_hash_set<Node*> entries;
    for (Candidate* c : region.members) {
      if (c->kind == Kind::kConvolution) {
        ++region.convolutions;
        if (candidate_of.count(c->operands[0]) == 0) entries.insert(c->operands[0]);
      }
      int exits = 0;
      for (Node* user : c->node->users()) {
        if (candidate_of.count(user) == 0 && !reads_sizes_only(*user)) ++exits;
      }
      if (exits > 0 && region.unsafe.empty()) {
        const Node* writer = writer_of(*c->node, in_layout);
        // A fresh value whose one user writes it (a convolution feeding a
        // strided hardswish_) may be written as its strided copy: nothing
        // else reads it.
        const bool only_user_writes =
            writer != nullptr && alias_root[c->node] == c->node &&
            c->node->users().size() == 1 && *c->node->users().begin() == writer;
        if (writer != nullptr && !only_user_writes) {
          region.unsafe = absl::StrCat("'", writer->name(), "' may write '", c->node->name(),
                                       "', which would be a strided copy of it");
        } else {
          region.unsafe = viewed_before_write(*c->node);
        }
      }
      region.conversions += last_writer.count(alias_root[c->node]) > 0 ? exits : std::min(exits, 1);
    }
    region.conversions += static_cast<int>(entries.size());
  }

  // Rewriting the regions kept.
  absl::flat_hash_map<Node*, Node*> shared_to_mkldnn, shared_to_dense;
  absl::flat_hash_set<Node*> kept;
  for (auto& [id, region] : regions) {
    const bool keep = region.unsafe.empty() &&
                      (options.every_region || region.convolutions > region.conversions);
    for (Candidate* c : region.members) {
      if (keep) {
        kept.insert(c->node);
      } else if (c->kind == Kind::kConvolution) {
        report.left_strided.push_back(absl::StrCat(
            c->node->name(), ": ",
            !region.unsafe.empty()
                ? region.unsafe
                : absl::StrCat("its region has ", region.convolutions,
                               " convolution(s) for ", region.conversions,
                               " layout conversion(s), which would cost more than they save")));
      }
    }
    if (keep) ++report.regions;
  }
  for (Candidate& c : candidates) {
    if (kept.count(c.node) == 0) continue;
    Node& n = *c.node;
    // Strided operands of a convolution come in through to_mkldnn.
    if (c.kind == Kind::kConvolution && kept.count(c.operands[0]) == 0) {
      Node* input = c.operands[0];
      Node*& shared = shared_to_mkldnn[input];
      const bool mutable_input = writes.writer(*input, kept) != nullptr;
      Node* converted = mutable_input ? nullptr : shared;
      if (converted == nullptr) {
        InsertionGuard guard = graph.inserting_before(&n);
        converted = graph.call_function("aten::to_mkldnn", {Argument(input)});
        ++report.to_mkldnn;
        if (!mutable_input) shared = converted;
      }
      c.args[0] = Argument(converted);
    }
    if (c.kind == Kind::kConvolution) {
      const std::string name = unique_attribute_name(gm, c.weight_name + "_mkldnn");
      if (absl::Status s = gm.add_attribute(name, c.weight); !s.ok()) return s;
      InsertionGuard guard = graph.inserting_before(&n);
      Node* w = graph.get_attr(name);
      if (const MetaValue* path = n.meta().find(kModulePathKey)) w->meta().set(kModulePathKey, *path);
      c.args[1] = Argument(w);
      report.convolutions.push_back(n.name());
    }
    if (Node* into = operand_to_add_into(c, alias_root)) {
      Node* other = into == c.operands[0] ? c.operands[1] : c.operands[0];
      c.target = "aten::add_.Tensor";
      c.args = {Argument(into), Argument(other)};
      ++report.adds_in_place;
    }
    if (!c.target.empty()) {
      n.set_target(c.target);
      n.set_args_kwargs(c.args, {});
    }
    // An MKLDNN tensor has no strides.
    if (MetaValue* meta = n.meta().find(kTensorMetaKey); meta != nullptr && meta->is_map()) {
      Meta m = meta->to_map();
      m.set("stride", MetaValue());
      m.set("memory_format", MetaValue());
      *meta = MetaValue(std::move(m));
    }
  }
  // Strided users of values in the layout read them through to_dense, made
  // before the first of them in graph order (a node's users are in the
  // order they were added, which passes such as cse change).
  position.clear();
  for (Node* n : graph.nodes()) position.emplace(n, position.size());
  for (Candidate& c : candidates) {
    if (kept.count(c.node) == 0) continue;
    Node* value = c.node;
    const bool per_user = last_writer.count(alias_root[value]) > 0;
    std::vector<Node*> users(value->users().begin(), value->users().end());
    std::sort(users.begin(), users.end(),
              [&position](const Node* a, const Node* b) { return position[a] < position[b]; });
    for (Node* user : users) {
      if (kept.count(user) > 0 || reads_sizes_only(*user)) continue;
      Node* dense = per_user ? nullptr : shared_to_dense[value];
      if (dense == nullptr) {
        InsertionGuard guard = graph.inserting_before(user);
        dense = graph.call_function("aten::to_dense", {Argument(value)});
        if (const MetaValue* meta = value->meta().find(kTensorMetaKey)) {
          Meta m = meta->is_map() ? meta->to_map() : Meta();
          m.set("stride", MetaValue());
          m.set("memory_format", MetaValue("torch.contiguous_format"));
          dense->meta().set(kTensorMetaKey, MetaValue(std::move(m)));
        }
        ++report.to_dense;
        if (!per_user) shared_to_dense[value] = dense;
      }
      user->replace_input_with(value, dense);
    }
  }
  auto checks = remove_settled_rank_checks(gm);
  if (!checks.ok()) return checks.status();
  report.rank_checks_removed = *checks;
  if (absl::Status s = graph.lint(); !s.ok()) {
    return absl::InternalError(absl::StrCat("mkldnn_layout left the graph malformed: ", s.message()));
  }
  return report;
}

absl::Status MkldnnLayout::run(GraphModule& module, PassContext& context) {
  if (!at::hasMKLDNN()) {
    context.warn("mkldnn_layout: this libtorch has no MKLDNN (oneDNN); the graph is unchanged");
    return absl::OkStatus();
  }
  MkldnnLayoutOptions options;
  options.every_region = every_region;
  auto report = plan_mkldnn_layout(module, options);
  if (!report.ok()) return report.status();
  if (!report->left_strided.empty()) {
    context.warn(absl::StrCat("mkldnn_layout: ", report->left_strided.size(),
                              " convolution(s) left strided: ",
                              absl::StrJoin(report->left_strided, "; ")));
  }
  return absl::OkStatus();
}

void register_mkldnn_layout(PluginRegistrar& registrar) {
  registrar.add_pass<MkldnnLayout>(
      "mkldnn_layout",
      "keeps convolutional networks in oneDNN's blocked layout with reordered weights "
      "(TorchScript's optimize_for_inference); needs shape_prop first");
}

}  // namespace fx

