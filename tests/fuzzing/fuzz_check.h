// Copyright 2026 The FX for C++ Authors.
//
// fuzz_check.h: the property checks of the fuzz targets. A failed check prints
// what was violated and the message at fault, then aborts, which libFuzzer
// (and standalone_main.cc) report with the input that did it.
#ifndef FX_TESTS_FUZZING_FUZZ_CHECK_H_
#define FX_TESTS_FUZZING_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#include "absl/strings/string_view.h"

namespace fx {
namespace fuzzing {

inline void check(bool condition, const char* what, absl::string_view message = "") {
  if (condition) return;
  std::fprintf(stderr, "fuzz check failed: %s\n%.*s\n", what, static_cast<int>(message.size()),
               message.data());
  std::abort();
}

}  // namespace fuzzing
}  // namespace fx

#endif  // FX_TESTS_FUZZING_FUZZ_CHECK_H_
