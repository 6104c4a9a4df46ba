// Copyright 2026 The FX for C++ Authors.
//
// Fuzzes the reader of torch.save files inside programs and beside them (a
// .pt2's sample inputs, a legacy program's state dict, constants and example
// inputs, a saved run): the input is the pickle (seeds: the committed
// programs' own), in an archive with storages "0" to "15" of 4 KiB each.
// Whatever it says, reading it ends in a value or one bounded line, and
// what fxrun then does with a value (saved runs, example inputs, the walks
// over tensors in it) neither crashes nor recurses without bound.
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "exported_program/archive.h"
#include "exported_program/torch_load.h"
#include "exported_program/zip_file.h"
#include "fx/archive_check.h"
#include "runtime/value_conversion.h"
#include "tests/fuzzing/fuzz_check.h"
#include "tests/fuzzing/pt2_fuzzing.h"
#include "tools/run_model.h"

using fx::fuzzing::check_error;

namespace {

std::string archive(const std::string& pickle) {
  fx::ZipWriter zip;
  zip.add("archive/data.pkl", pickle);
  for (int i = 0; i < 16; ++i) zip.add("archive/data/" + std::to_string(i), std::string(4096, '\x01'));
  zip.add("archive/version", "3\n");
  return *zip.finish();
}

// forward(x, y): the placeholders example inputs are matched to.
const fx::Graph& two_inputs() {
  static const fx::Graph* graph = [] {
    auto* g = new fx::Graph();
    g->placeholder("x");
    g->placeholder("y");
    return g;
  }();
  return *graph;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = archive(std::string(reinterpret_cast<const char*>(data), size));
  auto value = fx::exported::torch_load(bytes, "fuzz.pt");
  if (!value.ok()) {
    check_error(value.status(), "torch.save file: error not one bounded line");
    return 0;
  }
  check_error(fx::check_tensors_in_bounds(*value), "tensors in bounds: error not one bounded line");
  (void)fx::describe_outputs(*value);
  (void)fx::deep_copy(*value);
  (void)fx::to_device({*value}, c10::Device(c10::kCPU));
  // As a saved run (--expected).
  auto run = fx::parse_saved_run(bytes, "--expected fuzz.pt");
  if (run.ok()) {
    (void)fx::saved_run_reference(*run, "fuzz.pt").run;
  } else {
    check_error(run.status(), "saved run: error not one bounded line");
  }
  // As a program's example inputs.
  fx::exported::LoadedProgram program;
  program.example_inputs = *value;
  auto inputs = fx::program_example_inputs(program, two_inputs(), c10::Device(c10::kCPU));
  if (!inputs.ok()) check_error(inputs.status(), "example inputs: error not one bounded line");
  return 0;
}
