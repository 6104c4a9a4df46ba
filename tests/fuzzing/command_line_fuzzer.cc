// Copyright 2026 The FX for C++ Authors.
//
// Fuzzes fxrun's command-line handling: the input is an argument list
// (NUL-separated) for flags shaped like fxrun's, parsed with fxrun's parser;
// then the model and output paths it names go through fxrun's checks (a
// regular file? the output's directory writable? one of the inputs?). Every
// input is accepted or refused with one bounded message; nothing blocks
// (standard input is never read: `-` is left out) and nothing is written.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "tests/fuzzing/fuzz_check.h"
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_split.h"
#include "tools/command_line.h"
#include "fx/model_file.h"
#include "fx/torchscript/torchscript_file.h"
#include "fx/output_file.h"

ABSL_FLAG(std::string, model, "", "model");
ABSL_FLAG(std::string, output, "", "output");
ABSL_FLAG(std::string, passes, "", "passes");
ABSL_FLAG(bool, verify_each, true, "verify");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "plugins");
ABSL_FLAG(int32_t, threads, 1, "threads");

using fx::fuzzing::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args = absl::StrSplit(text, '\0');
  auto parsed = fx::parse_arguments(args, fx::FlagsOfFile{"command_line_fuzzer.cc"}, {"plugin"});
  if (!parsed.ok()) {
    // Values are cut to about 100 characters; paths (a --flagfile) are shown
    // whole up to PATH_MAX.
    const absl::string_view message = parsed.status().message();
    const size_t bound = absl::StartsWith(message, "cannot read --flagfile") ? 9000 : 600;
    check(message.size() < bound, "flag error not cut", message);
    check(parsed.status().message().find('\x1b') == std::string::npos, "escape not escaped");
    return 0;
  }
  const std::string model = absl::GetFlag(FLAGS_model);
  const std::string output = absl::GetFlag(FLAGS_output);
  if (!output.empty()) {
    auto prepared = fx::OutputFile::prepare(output);  // checks only; writes nothing
    if (!prepared.ok()) check(prepared.status().message().size() < 9000, "output error too long", prepared.status().message());
    (void)fx::same_file(output, model);
  }
  if (!model.empty() && model != "-" && model.size() < 256) {
    auto loaded = fx::load_model(model);
    if (!loaded.ok()) check(loaded.status().message().size() < 9000, "model error too long", loaded.status().message());
  }
  return 0;
}
