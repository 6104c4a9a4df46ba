// Copyright 2026 The FX for C++ Authors.
//
// Fuzzes the program JSON (seeds: the JSON of each committed program): read
// as the archive reader reads it, written back and read again (schema.h's
// contract: to_json(parse_program(to_json(p))) == to_json(p)), then read into
// the IR with zeros for its weights, where its signature's tree specs,
// symbolic sizes and operator arguments are read. Every input ends in a
// program or one bounded line.
#include <cstdint>
#include <string>
#include <vector>

#include "exported_program/archive.h"
#include "exported_program/schema.h"
#include "tests/fuzzing/fuzz_check.h"
#include "tests/fuzzing/pt2_fuzzing.h"

using fx::fuzzing::check;
using fx::fuzzing::check_error;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto json = fx::exported::parse_python_json(text);
  if (!json.ok()) {
    check_error(json.status(), "JSON: error not one bounded line");
    return 0;
  }
  fx::exported::LoadedProgram loaded;
  auto program = fx::exported::parse_program(*json, &loaded.warnings);
  if (!program.ok()) {
    check_error(program.status(), "program: error not one bounded line");
    return 0;
  }
  const std::string written = fx::exported::to_json(*program).dump();
  auto again = fx::exported::parse_python_json(written);
  check(again.ok(), "the program written back is not JSON", written.substr(0, 2000));
  auto reread = fx::exported::parse_program(*again);
  check(reread.ok(), "the program written back does not read", reread.status().message());
  check(fx::exported::to_json(*reread).dump() == written, "to_json(parse(to_json(p))) != to_json(p)",
        written.substr(0, 2000));
  loaded.program = *std::move(program);
  fx::fuzzing::add_state_from_meta(loaded);
  fx::fuzzing::read_into_ir(loaded);
  return 0;
}
