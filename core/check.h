// Copyright 2026 The FX for C++ Authors.
//
// check.h: FX_DCHECK, for the preconditions the headers state.
//
//   FX_DCHECK(input->graph() == this, "node '", input->name(), "' is from another graph");
//
// In debug builds (no NDEBUG: Bazel's default fastbuild, and the test suite)
// a failed check prints the condition, the file and line and the message to
// stderr and aborts: a broken contract is a bug in the caller, found where it
// happens rather than as a corrupt graph later. In optimised builds
// (--config=opt, which defines NDEBUG) the check and its message cost nothing.
// Errors a user can cause are never checks: they are Statuses.
#ifndef FX_CORE_CHECK_H_
#define FX_CORE_CHECK_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "core/export.h"

namespace fx {
namespace check_internal {

// Exported: FX_DCHECK expands in the code of whoever includes this header.
[[noreturn]] FX_API void fail(const char* condition, const char* file, int line,
                              const std::string& message);

}  // namespace check_internal
}  // namespace fx

#ifdef NDEBUG
#define FX_DCHECK(condition, ...) \
  do {                            \
  } while (false && (condition))
#else
#define FX_DCHECK(condition, ...)                                                       \
  do {                                                                                  \
    if (!(condition)) {                                                                 \
      ::fx::check_internal::fail(#condition, __FILE__, __LINE__, absl::StrCat(__VA_ARGS__)); \
    }                                                                                   \
  } while (false)
#endif

#endif  // FX_CORE_CHECK_H_
