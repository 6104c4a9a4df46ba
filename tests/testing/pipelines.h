// Copyright 2026 The FX for C++ Authors.
//
// pipelines.h: running a pass pipeline of the in-tree inline, dce and
// shape_prop passes on a GraphModule, as fxrun --passes would, for tests.
//
//   ASSERT_TRUE(fx::testing::run_pipeline(gm, "inline,dce").ok());
#ifndef FX_TESTS_TESTING_PIPELINES_H_
#define FX_TESTS_TESTING_PIPELINES_H_

#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/graph_module.h"

namespace fx {
namespace testing {

// Runs `pipeline` ("" runs nothing) with verify-each; the error of parsing or
// of the pass that failed, prefixed by the pipeline. `example_inputs` feed
// passes that run the graph (shape_prop), as --input does.
absl::Status run_pipeline(GraphModule& gm, absl::string_view pipeline,
                          std::vector<c10::IValue> example_inputs = {});

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_PIPELINES_H_
