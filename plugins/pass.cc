// Copyright 2026 The FX for C++ Authors.
#include "plugins/pass.h"

#include "absl/strings/str_cat.h"

namespace fx {

absl::StatusOr<int> run_to_fixed_point(GraphModule& module, int max_iterations,
                                       absl::FunctionRef<absl::Status()> step) {
  int changed = 0;
  for (int i = 0; i < max_iterations; ++i) {
    const uint64_t before = module.version();
    if (absl::Status s = step(); !s.ok()) return s;
    if (module.version() == before) return changed;
    ++changed;
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("no fixed point after ", max_iterations, " iterations"));
}

}  // namespace fx
