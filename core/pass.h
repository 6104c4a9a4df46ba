// Copyright 2026 The FX for C++ Authors.
//
// pass.h: a transformation or analysis of a GraphModule.
//
// A Pass takes a GraphModule and changes it, or analyses it and leaves what it
// learns in meta. Passes are made by factories registered under a name
// (registry.h) and run in order by the pass manager (passes/pass_manager.h),
// which checks the graph after each one.
//
//   class CountNodes : public fx::Pass {
//     absl::Status run(fx::GraphModule& gm, fx::PassContext& ctx) override {
//       gm.meta().set("node_count", static_cast<int64_t>(gm.graph().size()));
//       return absl::OkStatus();
//     }
//   };
//
// Errors a user can cause (an op the pass cannot handle) come back as a Status
// naming the node and the reason; recoverable oddities go to ctx.warn().
#ifndef FX_CORE_PASS_H_
#define FX_CORE_PASS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace fx {

class GraphModule;  // runtime/graph_module.h
class Registry;     // core/registry.h

// What a running pass may use besides the module.
class PassContext {
 public:
  explicit PassContext(const Registry& registry) : registry_(registry) {}
  // The registry the pass was found in (extension tables live there).
  const Registry& registry() const { return registry_; }
  // Reports something the user should know that does not stop the pipeline.
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  const Registry& registry_;
  std::vector<std::string> warnings_;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual absl::Status run(GraphModule& module, PassContext& context) = 0;
};

}  // namespace fx

#endif  // FX_CORE_PASS_H_
