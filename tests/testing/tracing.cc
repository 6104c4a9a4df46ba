// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/tracing.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <torch/csrc/jit/api/module.h>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace fx {
namespace testing {

GraphModule trace_fixture(const std::string& name, Tracer& tracer) {
  auto gm = tracer.trace(load_fixture(name));
  if (!gm.ok()) {
    std::fflush(stdout);  // what the test printed so far
    std::cerr << "tracing fixture " << name << " failed: " << gm.status() << "\n";
    std::abort();
  }
  EXPECT_TRUE(gm->lint().ok()) << gm->lint();
  return *std::move(gm);
}

GraphModule trace_fixture(const std::string& name, TraceOptions options) {
  Tracer tracer(std::move(options));
  return trace_fixture(name, tracer);
}

absl::StatusOr<GraphModule> trace_fixture_result(const std::string& name, Tracer& tracer) {
  return tracer.trace(load_fixture(name));
}

absl::StatusOr<GraphModule> trace_fixture_result(const std::string& name, TraceOptions options) {
  Tracer tracer(std::move(options));
  return tracer.trace(load_fixture(name));
}

}  // namespace testing
}  // namespace fx
