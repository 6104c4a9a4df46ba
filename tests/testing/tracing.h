// Copyright 2026 The FX for C++ Authors.
//
// tracing.h: trace a test fixture, for tests whose subject comes after tracing
// (passes, extensions). The trace must succeed and lint: a failure is reported
// with the tracer's message and ends the test program, since there is no
// graph to go on with.
#ifndef FX_TESTS_TESTING_TRACING_H_
#define FX_TESTS_TESTING_TRACING_H_

#include <string>

#include "runtime/graph_module.h"
#include "tracer/tracer.h"

namespace fx {
namespace testing {

// Traces fixture `name` (tests/fixtures) with `tracer` and its extensions.
GraphModule trace_fixture(const std::string& name, Tracer& tracer);
// The same with a tracer made from `options`.
GraphModule trace_fixture(const std::string& name, TraceOptions options = {});

// What `tracer` (or a tracer made from `options`) returns for fixture `name`,
// failures included: for tests of the tracer's own results and errors.
absl::StatusOr<GraphModule> trace_fixture_result(const std::string& name, Tracer& tracer);
absl::StatusOr<GraphModule> trace_fixture_result(const std::string& name,
                                                 TraceOptions options = {});

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_TRACING_H_
