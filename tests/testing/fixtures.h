// Copyright 2026 The FX for C++ Authors.
//
// fixtures.h: finding the TorchScript fixtures (//tests/fixtures) from a test.
#ifndef FX_TESTS_TESTING_FIXTURES_H_
#define FX_TESTS_TESTING_FIXTURES_H_

#include <string>

#include <torch/csrc/jit/api/module.h>

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
