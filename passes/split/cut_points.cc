// Copyright 2026 The FX for C++ Authors.
//
// Where split cuts: explicit points, or stages balancing a cost per node with
// as little as possible carried across each cut.
#include "passes/split/cut_points.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/message_text.h"
#include "core/well_known.h"
#include "passes/support/state_shadow.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/module.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

std::string module_path_of(const Node& n) {
  if (const MetaValue* m = n.meta().find(kModulePathKey); m != nullptr && m->is_string()) {
    return m->to_string();
  }
  if (n.op() == Op::kCallModule) return n.target();
  return "";
}

bool is_inside(absl::string_view path, absl::string_view point) {
  return path == point || (absl::StartsWith(path, point) && path.size() > point.size() &&
                           path[point.size()] == '.');
}

// The nodes stages are made of, in graph order, with their positions among
// all nodes.
struct StagedNodes {
  std::vector<const Node*> all;     // every node, graph order
  std::vector<size_t> staged;       // indices into `all` of the staged ones
  absl::flat_hash_map<const Node*, int64_t> position;  // staged node -> index in `staged`
};

StagedNodes staged_nodes(const Graph& graph) {
  StagedNodes s;
  for (const Node* n : graph.nodes()) {
    if (is_staged_node(*n)) {
      s.position[n] = static_cast<int64_t>(s.staged.size());
      s.staged.push_back(s.all.size());
    }
    s.all.push_back(n);
  }
  return s;
}

// Per-node values of a profiling run: time and the bytes of the value.
struct Profile {
  absl::flat_hash_map<const Node*, double> seconds;
  absl::flat_hash_map<const Node*, double> bytes;
};

size_t tensor_bytes(const c10::IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    return t.defined() ? t.numel() * t.element_size() : 0;
  }
  size_t sum = 0;
  if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements()) sum += tensor_bytes(e);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) sum += tensor_bytes(e);
  }
  return sum;
}

class ProfilingInterpreter : public Interpreter {
 public:
  ProfilingInterpreter(GraphModule& module, Profile& profile) : Interpreter(module), profile_(profile) {}

 protected:
  absl::StatusOr<c10::IValue> run_node(const Node& node) override {
    const auto start = std::chrono::steady_clock::now();
    auto value = Interpreter::run_node(node);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto [it, fresh] = profile_.seconds.emplace(&node, seconds);
    if (!fresh) it->second = std::min(it->second, seconds);
    if (value.ok()) profile_.bytes[&node] = static_cast<double>(tensor_bytes(*value));
    return value;
  }

 private:
  Profile& profile_;
};

// Runs on copies of the inputs and of the module's state: the cut is chosen
// by running the model, which must not advance what it keeps (a step
// counter, a batch norm's statistics) for the runs and the file that follow.
absl::StatusOr<Profile> profile(GraphModule& gm, const std::vector<c10::IValue>& inputs,
                                int runs) {
  auto state = StateShadow::enter(gm);
  if (!state.ok()) return state.status();
  Profile p;
  ProfilingInterpreter interpreter(gm, p);
  for (int i = 0; i < runs; ++i) {
    auto out = interpreter.run(deep_copy(inputs));
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat("split: the profiling run failed: ", out.status().message()));
    }
  }
  return p;
}

// The bytes of the tensors `m` holds at any depth, each tensor once.
double module_bytes(const Module& m) {
  double sum = 0;
  for (const auto& [name, t] : m.named_tensors()) {
    sum += static_cast<double>(t.numel() * t.element_size());
  }
  return sum;
}

// The parameter bytes each staged node uses.
std::vector<double> parameter_costs(const GraphModule& gm, const StagedNodes& nodes) {
  std::vector<double> cost(nodes.staged.size(), 0.0);
  for (size_t k = 0; k < nodes.staged.size(); ++k) {
    const Node& n = *nodes.all[nodes.staged[k]];
    if (n.op() != Op::kCallModule) continue;
    if (const GraphModule* sub = gm.graph_submodule(n.target())) {
      cost[k] = module_bytes(sub->root());
    } else if (auto m = gm.get_submodule(n.target()); m.ok()) {
      cost[k] = module_bytes(**m);
    }
  }
  // A get_attr's tensor counts at its first staged reader.
  for (const Node* n : nodes.all) {
    if (n->op() != Op::kGetAttr) continue;
    auto v = gm.get_attr(n->target());
    if (!v.ok()) continue;
    int64_t first = std::numeric_limits<int64_t>::max();
    for (const Node* u : n->users()) {
      if (auto it = nodes.position.find(u); it != nodes.position.end()) first = std::min(first, it->second);
    }
    if (first != std::numeric_limits<int64_t>::max()) {
      cost[first] += static_cast<double>(tensor_bytes(*v));
    }
  }
  return cost;
}

// crossing[i]: the weight of the values alive across a cut after staged node
// i (defined at or before it, read after it, the output included).
std::vector<double> crossing_weights(const StagedNodes& nodes, const Profile* profile,
                                     std::string* unit) {
  const int64_t n = static_cast<int64_t>(nodes.staged.size());
  bool bytes_known = profile != nullptr;
  std::vector<std::pair<const Node*, std::pair<int64_t, int64_t>>> lives;
  for (const Node* v : nodes.all) {
    int64_t def;
    if (v->op() == Op::kPlaceholder) {
      def = -1;
    } else if (auto it = nodes.position.find(v); it != nodes.position.end()) {
      def = it->second;
    } else {
      continue;  // get_attr nodes are copied into stages; the output defines nothing
    }
    int64_t last = def;
    for (const Node* u : v->users()) {
      if (u->op() == Op::kOutput) {
        last = n;
      } else if (auto it = nodes.position.find(u); it != nodes.position.end()) {
        last = std::max(last, it->second);
      }
    }
    if (last <= def) continue;
    if (bytes_known && !profile->bytes.contains(v)) bytes_known = false;
    lives.push_back({v, {def, last}});
  }
  *unit = bytes_known ? "bytes" : "values";
  std::vector<double> diff(n + 1, 0.0);
  for (const auto& [v, range] : lives) {
    const double w = bytes_known ? profile->bytes.at(v) : 1.0;
    // Alive across cuts after positions max(def, 0) .. last - 1.
    diff[std::max<int64_t>(range.first, 0)] += w;
    diff[range.second] -= w;
  }
  std::vector<double> crossing(n > 0 ? n - 1 : 0, 0.0);
  double running = 0;
  for (int64_t i = 0; i + 1 < n; ++i) {
    running += diff[i];
    crossing[i] = running;
  }
  return crossing;
}

// Cuts (positions where a stage begins, among staged nodes) for `stages`
// stages: the least crossing weight among cuts whose costliest stage is
// within `slack` of the best balance.
std::vector<int64_t> balanced_cuts(const std::vector<double>& cost,
                                   const std::vector<double>& crossing, int64_t stages,
                                   double slack) {
  const int64_t n = static_cast<int64_t>(cost.size());
  std::vector<double> prefix(n + 1, 0.0);
  for (int64_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + cost[i];
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // best[k][j]: the least possible costliest stage for the first j nodes in k stages.
  std::vector<std::vector<double>> best(stages + 1, std::vector<double>(n + 1, kInf));
  best[0][0] = 0;
  for (int64_t k = 1; k <= stages; ++k) {
    for (int64_t j = k; j <= n; ++j) {
      for (int64_t i = k - 1; i < j; ++i) {
        if (best[k - 1][i] == kInf) continue;
        best[k][j] = std::min(best[k][j], std::max(best[k - 1][i], prefix[j] - prefix[i]));
      }
    }
  }
  const double bound = best[stages][n] * (1.0 + std::max(slack, 0.0)) + 1e-9;
  // least[k][j]: (crossing weight, costliest stage) of the best such cut.
  using Score = std::pair<double, double>;
  std::vector<std::vector<Score>> least(stages + 1, std::vector<Score>(n + 1, {kInf, kInf}));
  std::vector<std::vector<int64_t>> from(stages + 1, std::vector<int64_t>(n + 1, -1));
  least[0][0] = {0, 0};
  for (int64_t k = 1; k <= stages; ++k) {
    for (int64_t j = k; j <= n; ++j) {
      for (int64_t i = k - 1; i < j; ++i) {
        if (least[k - 1][i].first == kInf) continue;
        const double stage_cost = prefix[j] - prefix[i];
        if (stage_cost > bound) continue;
        const Score score{least[k - 1][i].first + (i > 0 ? crossing[i - 1] : 0.0),
                          std::max(least[k - 1][i].second, stage_cost)};
        if (score < least[k][j]) {
          least[k][j] = score;
          from[k][j] = i;
        }
      }
    }
  }
  std::vector<int64_t> cuts;
  for (int64_t k = stages, j = n; k > 1; --k) {
    j = from[k][j];
    cuts.push_back(j);
  }
  std::reverse(cuts.begin(), cuts.end());
  return cuts;
}

// The staged position at which each point begins a stage.
absl::StatusOr<std::vector<int64_t>> cuts_at_points(const StagedNodes& nodes,
                                                    const std::vector<std::string>& points) {
  std::vector<int64_t> cuts;
  for (const std::string& point : points) {
    int64_t at = -1;
    for (size_t k = 0; k < nodes.staged.size() && at < 0; ++k) {
      const Node& n = *nodes.all[nodes.staged[k]];
      if (n.name() == point || is_inside(module_path_of(n), point)) at = static_cast<int64_t>(k);
    }
    if (at < 0) {
      std::vector<std::string> paths;
      for (size_t k : nodes.staged) {
        const std::string path = module_path_of(*nodes.all[k]);
        const std::string top = path.substr(0, path.find('.'));
        if (!top.empty() && std::find(paths.begin(), paths.end(), top) == paths.end()) {
          paths.push_back(top);
        }
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "split: point ", quote_for_message(point),
          " names no node and no module path of the graph; give a node name or a module path",
          paths.empty() ? std::string()
                        : absl::StrCat(" (top-level modules: ", absl::StrJoin(paths, ", "), ")")));
    }
    if (at == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "split: point ", quote_for_message(point),
          " is the first node of the graph and would leave stage 0 empty; drop it"));
    }
    if (!cuts.empty() && at <= cuts.back()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "split: point ", quote_for_message(point), " begins at node '",
          nodes.all[nodes.staged[at]]->name(),
          "', not after the point before it; list points in graph order, each once"));
    }
    cuts.push_back(at);
  }
  return cuts;
}

}  // namespace

absl::StatusOr<StageChoice> choose_stages(GraphModule& gm, const SplitOptions& options) {
  if (!options.points.empty() && options.stages > 0) {
    return absl::InvalidArgumentError(
        "split: give either points=... or stages=N, not both");
  }
  if (options.points.empty() && options.stages <= 0) {
    return absl::InvalidArgumentError(
        "split: say where to cut: points=<module path or node name>,... or stages=N (N >= 1)");
  }
  const StagedNodes nodes = staged_nodes(gm.graph());
  const int64_t n = static_cast<int64_t>(nodes.staged.size());
  const int64_t stages = options.stages > 0 ? options.stages
                                            : static_cast<int64_t>(options.points.size()) + 1;
  if (stages > n) {
    return absl::InvalidArgumentError(absl::StrCat("split: ", stages,
                                                   " stages asked for, but the graph has ", n,
                                                   " nodes to put in them (a stage needs at least "
                                                   "one); ask for fewer"));
  }
  if (options.cost == SplitCost::kTime && options.stages > 0 && options.example_inputs == nullptr) {
    return absl::InvalidArgumentError(
        "split{cost=time} profiles the graph and needs example inputs (fxrun: --input-shape=...)");
  }
  std::optional<Profile> measured;
  if (options.example_inputs != nullptr) {
    auto p = profile(gm, *options.example_inputs, options.cost == SplitCost::kTime ? 3 : 1);
    if (!p.ok()) return p.status();
    measured = *std::move(p);
  }

  StageChoice choice;
  SplitReport& report = choice.report;
  report.stages = stages;
  std::vector<double> cost;
  if (options.cost == SplitCost::kTime && measured) {
    report.cost = "time";
    for (size_t k : nodes.staged) cost.push_back(measured->seconds[nodes.all[k]]);
  } else {
    report.cost = "params";
    cost = parameter_costs(gm, nodes);
    double total = 0;
    for (double c : cost) total += c;
    if (total == 0) {
      report.cost = "nodes";
      std::fill(cost.begin(), cost.end(), 1.0);
    }
  }
  const std::vector<double> crossing =
      crossing_weights(nodes, measured ? &*measured : nullptr, &report.crossing_unit);

  std::vector<int64_t> cuts;
  if (!options.points.empty()) {
    auto at = cuts_at_points(nodes, options.points);
    if (!at.ok()) return at.status();
    cuts = *std::move(at);
    report.cost = "points";
  } else {
    cuts = balanced_cuts(cost, crossing, stages, options.slack);
  }

  choice.stage_of.assign(nodes.all.size(), -1);
  report.stage_costs.assign(stages, 0.0);
  int stage = 0;
  for (int64_t k = 0; k < n; ++k) {
    while (stage < static_cast<int>(cuts.size()) && cuts[stage] == k) ++stage;
    choice.stage_of[nodes.staged[k]] = stage;
    report.stage_costs[stage] += cost[k];
  }
  for (int64_t c : cuts) report.crossing.push_back(crossing[c - 1]);
  return choice;
}

}  // namespace fx
