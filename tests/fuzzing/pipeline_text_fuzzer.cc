// Copyright 2026 The FX for C++ Authors.
//
// Fuzzes the pipeline text parser: any input parses or fails with a bounded
// message; what parses prints back to text that parses to the same pipeline.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "tests/fuzzing/fuzz_check.h"

#include "plugins/pipeline_text.h"

using fx::fuzzing::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = fx::parse_pipeline(text);
  if (!parsed.ok()) {
    check(parsed.status().message().size() < 600, "error message not cut", parsed.status().message());
    return 0;
  }
  const std::string printed = fx::print_pipeline(*parsed);
  auto again = fx::parse_pipeline(printed);
  check(again.ok(), "printed pipeline does not parse");
  check(fx::print_pipeline(*again) == printed, "print(parse(print(p))) != print(p)");
  return 0;
}
