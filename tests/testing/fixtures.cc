// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/fixtures.h"

#include <cstdlib>
#include <fstream>
#include <iostream>

#include <torch/csrc/jit/serialization/import.h>

namespace fx {
namespace testing {

std::string fixture_path(const std::string& name) {
  // Tests get TEST_SRCDIR; `bazel run` starts binaries in their runfiles tree.
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string ws = workspace != nullptr ? workspace : "fx_cpp";
  std::string root = ".";
  if (const char* srcdir = std::getenv("TEST_SRCDIR")) {
    root = std::string(srcdir) + "/" + ws;
  } else if (const char* runfiles = std::getenv("RUNFILES_DIR")) {
    root = std::string(runfiles) + "/" + ws;
  }
  return root + "/tests/fixtures/" + name;
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
