// Copyright 2026 The FX for C++ Authors.
//
// platform_bugs.h: checks for bugs of a platform's own libraries that no code
// of ours can work around, so that the tests they break say so and skip
// (docs/platforms.md, "Platform bugs") instead of failing for a reason that
// is not this project's.
//
//   if (!fx::testing::onednn_binary_ops_work()) {
//     GTEST_SKIP() << fx::testing::kOneDnnBinaryOpsBroken;
//   }
#ifndef FX_TESTS_TESTING_PLATFORM_BUGS_H_
#define FX_TESTS_TESTING_PLATFORM_BUGS_H_

namespace fx {
namespace testing {

// Whether this libtorch's oneDNN adds two MKLDNN tensors without crashing.
// Debian 13's oneDNN 3.7.2 divides by zero in its binary primitive (and in
// convolutions with a fused add) on a CPU that reports no cache sizes (seen
// on an AMD EPYC virtual machine): PyTorch's own
// `x.to_mkldnn() + x.to_mkldnn()` dies with SIGFPE there. Found once per
// process, in a child process, so call it before the test has started
// threads (a test fixture's SetUp, before the first test's body).
bool onednn_binary_ops_work();

inline constexpr const char kOneDnnBinaryOpsBroken[] =
    "this libtorch's oneDNN crashes (SIGFPE) adding two MKLDNN tensors on this CPU, in "
    "PyTorch's own runs too (docs/platforms.md, \"Platform bugs\")";

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_PLATFORM_BUGS_H_
