// Copyright 2026 The FX for C++ Authors.
//
// Fuzzes the .pt2 reader from the file: the input is the whole archive (seeds:
// the committed programs of both layouts). Whatever the bytes, telling a
// program from another zip, reading it (the zip, the program JSON, the
// weights, the sample inputs) and reading what was read into the IR end in a
// program or in one bounded line; nothing crashes, hangs or takes memory out
// of proportion to the input.
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "exported_program/archive.h"
#include "tests/fuzzing/fuzz_check.h"
#include "tests/fuzzing/pt2_fuzzing.h"

using fx::fuzzing::check_error;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)fx::exported::is_exported_program(bytes);
  auto loaded = fx::exported::load_program(bytes, "fuzz.pt2");
  if (!loaded.ok()) {
    check_error(loaded.status(), "reading the archive: error not one bounded line");
    return 0;
  }
  fx::fuzzing::read_into_ir(*loaded);
  return 0;
}
