// Copyright 2026 The FX for C++ Authors.
//
// fxrun_settings.h: fxrun's flags, parsed and checked before any work, as a
// plain struct the rest of the command reads (tools/fxrun_command.h).
//
//   auto command_line = fx::parse_fxrun_flags({"fxrun", "--print=code", "--run"});
//   if (!command_line.ok()) return command_line.status();   // an unknown flag, ...
//   auto settings = fx::settings_from_flags(*std::move(command_line), /*out_is_terminal=*/false);
//   if (!settings.ok()) return settings.status();           // --atol without --check, ...
//   settings->run_options.device;                           // checked: cpu, cuda:N or meta
//
// Contracts:
//   * parse_fxrun_flags sets the flags of tools/fxrun_flags.cc in Abseil's
//     registry (all of them or, on an error, none: tools/command_line.h);
//     flags not given keep their current values (their defaults, in a
//     process that parses once; tests reset them with absl::FlagSaver).
//   * settings_from_flags reads those flags and makes every check that needs
//     no file but the Graphviz program (docs/fxrun.md, "Nothing silent"):
//     --print and --emit, --emit-scope, --input against --input-shape,
//     tolerances without --check, run-only flags without --run, --device,
//     --repeat/--warmup/--threads bounds, --pt2-layout, --stages and its
//     flags, --check on meta. The first failing check is the error, in the
//     order fxrun always made them; each error is InvalidArgument (or the
//     code of the parser it quotes, such as --device's) with the message
//     fxrun prints after "fxrun: error: ".
//   * Checks that need more than the flags stay with the step that knows
//     it: --expected empty (after a pipeline's processes started, in each of
//     them), --pass-timeout (after --list-plugins), anything about the model.
#ifndef FX_TOOLS_FXRUN_SETTINGS_H_
#define FX_TOOLS_FXRUN_SETTINGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "exported_program/writer.h"
#include "tools/command_line.h"
#include "tools/fxrun_pipeline.h"
#include "tools/run_model.h"
#include "tools/tracer_setup.h"

namespace fx {

// The most runs --repeat or --warmup take.
inline constexpr int kMaxRuns = 1000000;

struct FxrunSettings {
  // What the command line set (flag names with underscores), each
  // occurrence of a repeatable list flag, and the flagfiles read.
  CommandLine command_line;
  bool given(absl::string_view flag) const { return command_line.given.contains(flag); }

  // What to read.
  std::string model;  // --model as given; "" when not given (the bundled model)
  std::string graph;  // --graph as given
  bool builtin_plugins = true;
  bool list_plugins = false;
  TracerSettings tracer;  // --tracer, --training, --assertions, --leaf-functions, ...

  // The passes.
  std::string passes;
  bool verify_each = true;
  bool time_passes = false;
  double pass_timeout = 0;  // as given: checked when the pass manager is made
  std::vector<std::string> print_after;
  bool print_after_all = false;
  bool print_pipeline = false;

  // What to write.
  std::string print = "tabular";  // graph, tabular, code or none
  std::string emit;               // "", json, dot, svg or png
  bool emit_picture = false;      // dot, svg or png
  std::string emit_scope;
  std::string dot_program;        // Graphviz's dot, found for svg and png
  std::string output;             // --output as given
  std::string save;               // --save as given
  bool save_program = false;      // --save=X.pt2: a torch.export program
  exported::WriteOptions write_options;  // --pt2-layout's

  // Running.
  bool bundled_default = false;  // no flag at all: ResNet-18 traced, run once and checked
  bool check = false;            // --check, or the bundled default
  bool run = false;              // --run, or what implies it (--check, --repeat, --warmup)
  bool example_inputs = false;   // --input or --input-shape given
  std::string input;             // --input as given
  std::string expected;          // --expected as given
  std::vector<InputShape> input_shapes;  // --input-shape's, or the bundled model's
  RunOptions run_options;        // device, tolerances, repeat, warmup
  int threads = 0;               // 0: libtorch's default
  PipelineSettings pipeline;     // --stages and its flags
};

// argv (argv[0] included) parsed into fxrun's flags, with --flagfile and
// --help; list flags may be repeated.
absl::StatusOr<CommandLine> parse_fxrun_flags(const std::vector<std::string>& argv);

// The settings the flags make, checked. `out_is_terminal`: standard output is
// a terminal (--emit=png without --output is refused there).
absl::StatusOr<FxrunSettings> settings_from_flags(CommandLine command_line, bool out_is_terminal);

}  // namespace fx

#endif  // FX_TOOLS_FXRUN_SETTINGS_H_
