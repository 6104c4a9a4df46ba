// Copyright 2026 The FX for C++ Authors.
//
// pass_manager.h: runs a textual pipeline of registered passes over a
// GraphModule, with LLVM-style instrumentation.
//
//   fx::PassManagerOptions options;
//   options.time_passes = true;
//   absl::StatusOr<fx::PassManager> pm =
//       fx::PassManager::create("inline{modules=relu},dce", fx::Registry::global(), options);
//   if (!pm.ok()) ...                          // unknown pass, unknown option, malformed text
//   fx::PassContext ctx(fx::Registry::global());
//   absl::Status s = pm->run(gm, ctx);          // names the pass that failed
//   std::cout << pm->timing_report();
//
//   fx::PassManager mine(options);              // passes made in C++, no registry
//   mine.add(std::make_unique<MyPass>(), "my_pass");
//
// Pipelines (plugins/pipeline_text.h) are passes in order; a group
// `fixpoint{max_iterations=N}(p1,p2,...)` runs its passes again and again until
// a whole round changes nothing (torch.fx's `steps`, MLIR's canonicalizer
// iterating to a fixed point); not converging within N rounds (default 10) is
// an error naming the group.
//
// Instrumentation:
//   verify_each      lint the GraphModule after every pass that changed it (on
//                    by default); a broken graph is an error naming the pass;
//                    a pass that changed nothing (GraphModule::version) is not
//                    re-checked;
//   time_passes      wall time per pass, reported by timing_report();
//   print_after      passes after which `printer` is called (print_after_all:
//                    after every pass); each name must be a pass the pipeline
//                    runs.
#ifndef FX_PASSES_PASS_MANAGER_H_
#define FX_PASSES_PASS_MANAGER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/pipeline_text.h"
#include "plugins/registry.h"
#include "runtime/graph_module.h"

namespace fx {

struct FX_API PassManagerOptions {
  bool verify_each = true;
  bool time_passes = false;
  std::vector<std::string> print_after;
  bool print_after_all = false;
  // Called after the passes named in print_after (default: prints the graph
  // to stdout under a "*** IR Dump After <pass> ***" banner).
  std::function<void(const std::string& pass, const GraphModule& module)> printer;
  // How long one pass may run: past it the process ends, naming the pass and
  // its plugin (plugin_guard.h's call_plugin_within: a pass that never
  // returns cannot be stopped otherwise). `time_limit_hint` ends that line,
  // saying how the limit is set.
  absl::Duration pass_time_limit = absl::InfiniteDuration();
  std::string time_limit_hint = "PassManagerOptions::pass_time_limit";
};

class FX_API PassManager {
 public:
  // Parses `pipeline` and makes its passes from `registry`.
  static absl::StatusOr<PassManager> create(absl::string_view pipeline, const Registry& registry,
                                            PassManagerOptions options = {});
  // An empty pipeline, for passes made in C++ (add()).
  explicit PassManager(PassManagerOptions options);

  // Appends a pass object (a C++ program's own pass, or one the registry
  // made), run under `name` in timings, print-after and errors; in the
  // pipeline text it shows as that name. `name` must be a name a pipeline
  // could show (letters, digits, '_', '-' and '.'; not "fixpoint").
  absl::Status add(std::unique_ptr<Pass> pass, std::string name);

  PassManager(PassManager&&) noexcept;
  PassManager& operator=(PassManager&&) noexcept;
  ~PassManager();

  // Runs every pass in order. Stops at the first failure, naming the pass.
  absl::Status run(GraphModule& module, PassContext& context);

  // The pipeline as text, normalised (print_pipeline).
  std::string pipeline_text() const { return print_pipeline(pipeline_); }
  const std::vector<PipelineElement>& pipeline() const { return pipeline_; }
  // The -time-passes table of the last run (empty unless time_passes).
  std::string timing_report() const;

  // The name of the group that repeats a pipeline to a fixed point.
  static constexpr absl::string_view kFixpointGroup = "fixpoint";

 private:
  struct Step;
  PassManager() = default;
  absl::Status run_steps(std::vector<Step>& steps, GraphModule& module, PassContext& context);
  absl::Status run_pass(Step& step, GraphModule& module, PassContext& context);

  std::vector<PipelineElement> pipeline_;
  std::vector<Step> steps_;
  PassManagerOptions options_;
  // Per pass in pipeline order (groups flattened): name and time of the last run.
  std::vector<std::pair<std::string, double>> timings_;
  double verify_seconds_ = 0;
};

}  // namespace fx

#endif  // FX_PASSES_PASS_MANAGER_H_
