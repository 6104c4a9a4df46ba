// Copyright 2026 The FX for C++ Authors.
//
// runfiles.h: paths and contents of files a test lists in its `data`.
//
// Bazel runs a test inside its runfiles tree and tells it where with
// TEST_SRCDIR and TEST_WORKSPACE; `bazel run` of a testonly binary sets
// RUNFILES_DIR instead. These helpers hide the difference. They do not
// depend on libtorch, so light tests (fxrun, plugin loading) stay light.
#ifndef FX_TESTS_TESTING_RUNFILES_H_
#define FX_TESTS_TESTING_RUNFILES_H_

#include <string>
#include <vector>

namespace fx {
namespace testing {

// The path of `workspace_relative` ("tests/plugins/libhello.so") in the
// runfiles tree, or relative to the working directory outside Bazel.
std::string runfile(const std::string& workspace_relative);

// The whole contents of the file at `path`; empty when it cannot be read.
std::string read_file(const std::string& path);

// The non-empty lines of the file at `path`, without their newlines.
std::vector<std::string> read_lines(const std::string& path);

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_RUNFILES_H_
