// Copyright 2026 The FX for C++ Authors.
//
// crash.h: test code that fails the ways plugin code can other than by
// returning a Status, for the tests of fxrun's guards around plugin code
// (plugins/plugin_guard.h).
//
//   fx::testing::fail_by("segv");   // SIGSEGV
//
// `how`: "throw_std" (a std::runtime_error), "throw_c10" (a c10::Error),
// "throw_int" (an int), "segv" (a write through a null pointer), "stack" (a
// stack overflow), "fpe" (an integer division by zero: SIGFPE), "abort",
// "sigterm" (raise(SIGTERM)), "loop" (never returns). Anything else returns.
#ifndef FX_TESTS_TESTING_CRASH_H_
#define FX_TESTS_TESTING_CRASH_H_

#include <c10/util/Exception.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace fx {
namespace testing {

inline const std::vector<std::string>& ways_to_fail() {
  static const std::vector<std::string> ways = {"throw_std", "throw_c10", "throw_int", "segv", "fpe",
                                                "stack",     "abort",     "sigterm",   "loop", "null"};
  return ways;
}

// Deep enough to overflow any stack, and no tail call the compiler could
// turn into a loop.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"  // it is meant to overflow the stack
__attribute__((noinline)) inline int recurse_forever(volatile int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return recurse_forever(depth + 1) + frame[0];
}
#pragma GCC diagnostic pop

__attribute__((noinline)) inline int divide(int a, int b) { return a / b; }

inline void fail_by(const std::string& how) {
  if (how == "throw_std") throw std::runtime_error("the plugin's own std::runtime_error");
  if (how == "throw_c10") TORCH_CHECK(false, "the plugin's own c10::Error");
  if (how == "throw_int") throw 42;
  if (how == "segv") {
    volatile int* volatile nowhere = nullptr;
    *nowhere = 1;
  }
  if (how == "fpe") {
    volatile int zero = 0;
    std::printf("%d\n", divide(1, zero));
  }
  if (how == "stack") recurse_forever(0);
  if (how == "abort") std::abort();
  if (how == "sigterm") std::raise(SIGTERM);
  if (how == "loop") {
    for (volatile bool forever = true; forever;) {
    }
  }
}

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_CRASH_H_
