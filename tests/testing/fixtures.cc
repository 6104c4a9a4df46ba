// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/fixtures.h"

#include <cstdlib>
#include <fstream>
#include <iostream>

#include <torch/csrc/jit/serialization/import.h>

#include "tests/testing/runfiles.h"

namespace fx {
namespace testing {

std::string fixture_path(const std::string& name) {
  return runfile("tests/fixtures/" + name);
}

torch::jit::Module load_fixture(const std::string& name) {
  const std::string path = fixture_path(name);
  if (!std::ifstream(path).good()) {
    std::cerr << "fixture " << path << " is missing: add its target to the test's data\n";
    std::abort();
  }
  return torch::jit::load(path);
}

}  // namespace testing
}  // namespace fx
