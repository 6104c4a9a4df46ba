// Copyright 2026 The FX for C++ Authors.
//
// Fuzzes the tree specs (in_spec, out_spec: JSON strings inside a program,
// parsed again; seeds: the committed programs' specs). Every input is a spec
// or one bounded line; a spec writes back to text that reads as the same
// spec.
#include <cstdint>
#include <string>

#include "exported_program/treespec.h"
#include "tests/fuzzing/fuzz_check.h"
#include "tests/fuzzing/pt2_fuzzing.h"

using fx::fuzzing::check;
using fx::fuzzing::check_error;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = fx::exported::parse_treespec(text);
  if (!spec.ok()) {
    check_error(spec.status(), "tree spec: error not one bounded line");
    return 0;
  }
  (void)spec->num_leaves();
  const std::string written = fx::exported::to_string(*spec);
  auto again = fx::exported::parse_treespec(written);
  check(again.ok(), "the spec written back does not read", again.status().message());
  check(fx::exported::to_string(*again) == written, "to_string(parse(to_string(s))) != to_string(s)", written);
  check(again->num_leaves() == spec->num_leaves(), "the spec written back has other leaves");
  return 0;
}
