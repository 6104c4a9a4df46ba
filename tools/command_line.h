// Copyright 2026 The FX for C++ Authors.
//
// command_line.h: fxrun's command line, parsed against the flags a program
// defines with ABSL_FLAG, with every error in fxrun's own words.
//
//   auto parsed = fx::parse_command_line(argc, argv, fx::FlagsOfFile("fxrun.cc"));
//   if (!parsed.ok()) fail(parsed.status().message());   // one line, names the flag
//   if (parsed->help) print_help();
//
// What it accepts (as Abseil's parser does, with dashes or underscores):
//   --name=value, --name value (not for bools), --bool, --nobool, --bool=false;
//   --flagfile=FILE (one flag per line, `#` comments, nested flagfiles);
//   --help, -h, --help=true|false; `--` ends the flags.
// What it refuses, each with a message naming the flag: an unknown flag (with
// the closest known one), a value the flag's type rejects (Abseil's reason),
// a missing value, a flag given twice with different values, a positional
// argument, a flagfile that cannot be read (with strerror) or is not a
// regular file (a directory, FIFO or device: fx/input_file.h). Flags a program
// did not define in `FlagsOfFile` (Abseil's own --helpfull, --fromenv, ...)
// are unknown.
//
// Contracts: values are set in Abseil's registry only when the whole command
// line is valid; echoed input is quoted and cut (core/message_text.h); the
// parser never exits the process.
#ifndef FX_TOOLS_COMMAND_LINE_H_
#define FX_TOOLS_COMMAND_LINE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fx {

// Which of the process's flags the program takes: those defined in files
// whose path ends with `filename`.
struct FlagsOfFile {
  std::string filename;
};

struct CommandLine {
  bool help = false;
  // The flags the command line set (underscore spelling), for "given but
  // empty" checks.
  absl::flat_hash_set<std::string> given;
  // Values of repeatable list flags given several times, each occurrence
  // kept (`--plugin=a --plugin=b`), by flag name.
  std::vector<std::pair<std::string, std::string>> occurrences;
  // The flagfiles read, as named (inputs an output must not overwrite).
  std::vector<std::string> flagfiles;
};

// Parses argv[1..] and sets the flags. `repeatable` names list flags that may
// be given several times, their values joined with ','.
absl::StatusOr<CommandLine> parse_command_line(int argc, const char* const* argv,
                                               const FlagsOfFile& flags,
                                               const std::vector<std::string>& repeatable = {});

// The same for arguments already split (argv without argv[0]).
absl::StatusOr<CommandLine> parse_arguments(const std::vector<std::string>& args,
                                            const FlagsOfFile& flags,
                                            const std::vector<std::string>& repeatable = {});

}  // namespace fx

#endif  // FX_TOOLS_COMMAND_LINE_H_
