// Copyright 2026 The FX for C++ Authors.
#include "core/check.h"

#include <cstdio>
#include <cstdlib>

namespace fx {
namespace check_internal {

void fail(const char* condition, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "%s:%d: FX_DCHECK failed: %s: %s\n", file, line, condition,
               message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace check_internal
}  // namespace fx
