// Copyright 2026 The FX for C++ Authors.
//
// exported_programs.h: the torch.export programs of tests/exported_programs
// (made by torch 2.6 and 2.14, read on every platform) as tests use them.
#ifndef FX_TESTS_TESTING_EXPORTED_PROGRAMS_H_
#define FX_TESTS_TESTING_EXPORTED_PROGRAMS_H_

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "exported_program/archive.h"

namespace fx {
namespace testing {

// The torch versions that wrote the committed programs ("2.6", "2.14"), and
// the programs' names.
const std::vector<std::string>& exported_program_versions();
const std::vector<std::string>& exported_program_names();

// The path of a committed program.
std::string exported_program_path(const std::string& version, const std::string& name);
// The program, read (a test failure when it cannot be).
exported::LoadedProgram load_exported_program(const std::string& version, const std::string& name);

// What the eager model computed when the program was made: its inputs, and
// its outputs as the flat list of pytree leaves.
struct ExpectedRun {
  std::vector<c10::IValue> inputs;
  std::vector<c10::IValue> outputs;
};
ExpectedRun load_expected_run(const std::string& version, const std::string& name);

// The leaves of an output (tuples, lists and dicts flattened in order), as
// torch's pytree flattens them.
std::vector<c10::IValue> flatten_outputs(const c10::IValue& value);

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_EXPORTED_PROGRAMS_H_
