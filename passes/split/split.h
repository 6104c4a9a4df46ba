// Copyright 2026 The FX for C++ Authors.
//
// split.h: a graph cut into pipeline stages (torch.fx's split_module).
//
//   fx::GraphModule gm = *fx::Tracer().trace(torch::jit::load("resnet18.pt"));
//   fx::SplitOptions options;
//   options.points = {"layer2", "layer4"};              // or options.stages = 3
//   fx::SplitReport report = *fx::split_into_stages(gm, options);
//   std::cout << gm.code();   // forward calls self.submod_0 .. self.submod_2
//   gm.graph_submodule("submod_1")->code();              // one stage
//
// As a pass: `split{points=layer2,layer4}` or `split{stages=2}`
// (`fxrun --passes='split{stages=2}' --print=graph` prints the top graph and
// each stage).
//
// What it makes, as torch.fx's split_module does: the module becomes a top
// graph with the original placeholders, one call_module node per stage
// (`submod_0`, `submod_1`, ...; a GraphModule::graph_submodule each) and the
// original output. Each stage is a GraphModule with its own placeholders (the
// values it reads that earlier stages or the inputs define, named as in the
// original graph, in graph order) and its own output (the values it defines
// that later stages or the output read: the value itself when there is one,
// else a tuple, unpacked in the top graph by getitem nodes named as the
// values). A value read by a stage later than the next is passed by the top
// graph straight from the stage that defined it (pytorch issue 166034:
// torch.fx once fed such a stage another value). get_attr nodes are copied
// into every stage that reads them; a stage's root holds only the
// parameters, buffers, submodules and attributes it references, under their
// original names (shared with the original module, not copied).
//
// Where to cut. Stages are consecutive runs of the graph's nodes in graph
// order (placeholders, get_attr and the output belong to none):
//   * points: each names a module path (a stage begins at the first node
//     whose module path, meta "module_path" or for call_module its target, is
//     that path or inside it) or a node name (a stage begins at that node).
//     N points make N+1 stages; they must come in graph order.
//   * stages=N: N stages balancing a cost per node, then carrying as little
//     as possible across each cut:
//       cost=params (default): the bytes of the parameters and buffers the
//         node uses (a call_module's whole submodule; a get_attr's tensor is
//         counted at its first reader). A graph with no parameters counts one
//         per node instead.
//       cost=time: the node's time in a profiling run of the graph on the
//         example inputs (the Interpreter, node by node, the fastest of
//         three runs); needs example inputs (fxrun --input-shape=...).
//     Among the cuts whose most costly stage is within `slack` (a fraction,
//     default 0.1) of the best balance possible, the ones whose crossing
//     values weigh least win: bytes from meta "tensor_meta" (shape_prop) or
//     the profiling run when known for every crossing value, else the number
//     of values. A value crosses every cut between its definition and its
//     last reader (inputs count too: a pipeline must carry them).
//
// Contracts:
//   * The split module computes what the original computes (same outputs for
//     the same inputs); the original's node names, targets, meta and types are
//     kept in the stages.
//   * Errors (InvalidArgument, naming the option and the fix): a point that
//     names no node or module path, points out of graph order or two at the
//     same node, a stage left empty, more stages than nodes, points and
//     stages given together, cost=time without example inputs. The module is
//     unchanged after an error.
//   * Graph meta "split" of the top graph records the cut: {"stages": N,
//     "cost": "params" | "time" | "nodes" | "points", "stage_costs": [...],
//     "crossing": [...]} (crossing: the weight carried across each cut).
#ifndef FX_PASSES_SPLIT_SPLIT_H_
#define FX_PASSES_SPLIT_SPLIT_H_

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"
#include "runtime/graph_module.h"

namespace fx {

enum class SplitCost { kParams, kTime };

struct FX_API SplitOptions {
  // Explicit cut points (module paths or node names), or...
  std::vector<std::string> points;
  // ...the number of stages to cut automatically (0: use `points`).
  int64_t stages = 0;
  SplitCost cost = SplitCost::kParams;
  double slack = 0.1;
  // For cost=time (and crossing weights): inputs to profile the graph on.
  const std::vector<c10::IValue>* example_inputs = nullptr;
};

struct FX_API SplitReport {
  int64_t stages = 0;
  // What the automatic cut balanced: "params", "time", "nodes" (a graph
  // without parameters), or "points" for explicit points.
  std::string cost;
  std::vector<double> stage_costs;
  // The weight carried across each cut (bytes, or values when `crossing_unit`
  // is "values").
  std::vector<double> crossing;
  std::string crossing_unit;
};

// The stage of each node in `gm`'s graph order; -1 for placeholders, get_attr
// nodes and the output. What split_module() takes.
using StageAssignment = std::vector<int>;

// Splits `gm` in place (see above).
FX_API absl::StatusOr<SplitReport> split_into_stages(GraphModule& gm, const SplitOptions& options);

// torch.fx's split_module for a given assignment (stages must be consecutive
// runs in graph order, numbered 0..N-1 with none empty): the top module,
// calling `submod_<i>`.
FX_API absl::StatusOr<GraphModule> split_module(const GraphModule& gm,
                                                const StageAssignment& stage_of);

class FX_API Split : public Pass {
 public:
  ListOption points{*this, "points",
                    "cut before these module paths or node names (in graph order)"};
  Option<int64_t> stages{*this, "stages", "cut into this many stages, balancing `cost`", 0};
  Option<std::string> cost{
      *this, "cost",
      "what stages=N balances: params (parameter bytes) or time (a profiling run on the "
      "example inputs)",
      "params", {"params", "time"}};
  Option<double> slack{*this, "slack",
                       "how far (a fraction) the costliest stage may exceed the best balance "
                       "to carry less across cuts",
                       0.1};

  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "split".
FX_API void register_split(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_SPLIT_SPLIT_H_
