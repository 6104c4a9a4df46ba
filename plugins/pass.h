// Copyright 2026 The FX for C++ Authors.
//
// pass.h: a transformation or analysis of a GraphModule.
//
// A Pass takes a GraphModule and changes it, or analyses it and leaves what it
// learns in meta. Passes are registered under a name (registry.h), made from
// pipeline text with their options (options.h), and run in order by the pass
// manager (passes/pass_manager.h), which checks the module after each pass
// that changed it.
//
//   class CountNodes : public fx::Pass {
//    public:
//     fx::Option<std::string> key{*this, "key", "the meta key to write", "node_count"};
//     absl::Status run(fx::GraphModule& gm, fx::PassContext& ctx) override {
//       gm.meta().set(*key, static_cast<int64_t>(gm.graph().size()));
//       return absl::OkStatus();
//     }
//   };
//
// Whether a pass changed the module is read from GraphModule::version(), which
// every change to the graph or to the module's state advances: a pass cannot
// forget to say so. Errors a user can cause (an op the pass cannot handle) come
// back as a Status naming the node and the reason; recoverable oddities go to
// ctx.warn().
//
// Passes that run the graph (shape_prop) read example inputs from the context,
// which the host fills (fxrun: --input-shape or --input):
//
//   fx::PassContext ctx(fx::Registry::global());
//   ctx.set_example_inputs({torch::rand({1, 3, 224, 224})});
//   ...
//   const std::vector<c10::IValue>* inputs = ctx.example_inputs();   // in a pass
//   if (inputs == nullptr) return absl::FailedPreconditionError("... needs example inputs ...");
//
// Contracts:
//   * example_inputs() is nullptr until set_example_inputs(); the inputs bind
//     to the graph's placeholders in order. A pass must not change them (run
//     on copies when the graph may write into its inputs).
//   * example_inputs_read() says whether any pass asked for them, so that a
//     host can warn about inputs nothing used.
#ifndef FX_PLUGINS_PASS_H_
#define FX_PLUGINS_PASS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/options.h"
#include "runtime/graph_module.h"

namespace fx {

class Registry;  // plugins/registry.h

// What a running pass may use besides the module.
class FX_API PassContext {
 public:
  explicit PassContext(const Registry& registry) : registry_(registry) {}
  // The registry the pass was found in (extension tables live there).
  const Registry& registry() const { return registry_; }
  // Reports something the user should know that does not stop the pipeline.
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Inputs to run the graph on (one per placeholder), or nullptr when the host
  // gave none.
  const std::vector<c10::IValue>* example_inputs() const {
    example_inputs_read_ = true;
    return example_inputs_ ? &*example_inputs_ : nullptr;
  }
  void set_example_inputs(std::vector<c10::IValue> inputs) {
    example_inputs_ = std::move(inputs);
  }
  bool example_inputs_read() const { return example_inputs_read_; }

 private:
  const Registry& registry_;
  std::vector<std::string> warnings_;
  std::optional<std::vector<c10::IValue>> example_inputs_;
  mutable bool example_inputs_read_ = false;
};

// A pass; its options are Option members (the Pass is their OptionSet).
class FX_API Pass : public OptionSet {
 public:
  virtual absl::Status run(GraphModule& module, PassContext& context) = 0;
};

// Runs `step` until a run leaves `module` unchanged (its version does not
// move), at most `max_iterations` times; returns how many runs changed it.
// Fails with `step`'s error, or with ResourceExhausted when the module still
// changed on the last allowed run. The pass manager's `fixpoint(...)` groups
// and passes that iterate (inline{recurse=true}) use it.
FX_API absl::StatusOr<int> run_to_fixed_point(GraphModule& module, int max_iterations,
                                              absl::FunctionRef<absl::Status()> step);

}  // namespace fx

#endif  // FX_PLUGINS_PASS_H_
