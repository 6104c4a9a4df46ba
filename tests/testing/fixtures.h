// Copyright 2026 The FX for C++ Authors.
//
// fixtures.h: finding the TorchScript fixtures (//tests/fixtures) from a test.
//
// This header names torch::jit::Module without including TorchScript's
// headers, which cost a test file more to compile than the rest of what it
// includes (about 3 s of 12 on a 2-core machine): a test that holds or calls
// a loaded module includes <torch/csrc/jit/api/module.h> itself; one that only
// traces a fixture or compares with it uses tracing.h's trace_fixture_result
// and values.h's expect_runs_like_the_fixture, which take the fixture's name.
#ifndef FX_TESTS_TESTING_FIXTURES_H_
#define FX_TESTS_TESTING_FIXTURES_H_

#include <string>

namespace torch {
namespace jit {
struct Module;
}  // namespace jit
}  // namespace torch

namespace fx {
namespace testing {

// The path of fixture `name` ("m1.pt") in the test's runfiles.
std::string fixture_path(const std::string& name);

// Loads fixture `name` with torch::jit::load; aborts the test binary when the
// file is missing (a BUILD dependency is missing, not a test failure).
torch::jit::Module load_fixture(const std::string& name);

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_FIXTURES_H_
