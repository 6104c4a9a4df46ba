// Copyright 2026 The FX for C++ Authors.
//
// fxrun_command.h: the fxrun command as steps that return a Status, so that
// main() (tools/fxrun.cc) only turns the first error into its one line and
// exit status, and tests run the command in-process.
//
//   std::ostringstream out, err;
//   fx::FxrunStreams streams{out, err};
//   absl::Status s = fx::run_fxrun({"fxrun", "--model=m.pt", "--print=code"}, streams);
//   if (!s.ok()) std::cerr << fx::error_line(s.message(), streams) << "\n";
//   return fx::exit_status(s);                 // 0, 1, or kPeerFailedExitStatus
//
// run_fxrun runs the steps below in order; each can be called alone:
//   settings_from_flags (tools/fxrun_settings.h)  flags checked before any work
//   model_path                                    --model, or the bundled example
//   launch or join the pipeline (--stages)        a rank's messages get "rank N: "
//   resolve_files                                 every path the run reads
//   prepare_outputs                               --output, --save checked, not written
//   load_libraries                                --op-library, in-tree plugins, --plugin
//   make_pass_manager                             --passes, --print-after, --pass-timeout
//   read_model                                    the model traced (or --graph read)
//   prepare_run                                   a program's saved run; forward's inputs
//   run_passes, write_results, run_and_check      the pipeline; save/emit/print; --run
//   commit_outputs                                the files written, standard output flushed
//
// Contracts:
//   * Nothing here exits the process: every error a user can cause is a
//     non-OK status whose message is the text after "fxrun: error: " (one
//     line once error_line cuts it; what the user typed quoted where it was
//     put in). Plugin code that crashes or hangs still ends the process, as
//     plugins/plugin_guard.h says.
//   * Warnings ("fxrun: warning: ...") and reports (--time-passes, the run's
//     report with --emit) go to streams.err; results, --help and
//     --print-pipeline to streams.out, or to --output's file.
//   * Nothing is written to a file before the whole run succeeded:
//     commit_outputs writes every output in full before replacing any
//     (fx/output_file.h's commit_all).
//   * In a pipeline rank, streams.message_prefix is "rank N: " once it joined,
//     and every message after that names it; a rank's failure that a peer
//     caused (an Unavailable status, in a rank fxrun's launcher started)
//     carries a payload that makes exit_status kPeerFailedExitStatus.
//   * The flags are Abseil's global ones (tools/fxrun_flags.h): a caller
//     that runs the command twice resets them in between (absl::FlagSaver).
#ifndef FX_TOOLS_FXRUN_COMMAND_H_
#define FX_TOOLS_FXRUN_COMMAND_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fx/model_file.h"
#include "fx/output_file.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
#include "tools/fxrun_pipeline.h"
#include "tools/fxrun_settings.h"
#include "tools/run_model.h"

namespace fx {

// Where fxrun writes, and what it knows of its terminal.
struct FxrunStreams {
  std::ostream& out;  // standard output: results, --help, --print-pipeline
  std::ostream& err;  // standard error: warnings, --time-passes, reports beside --emit
  bool out_is_terminal = false;
  // "rank 1: " in a pipeline's processes once they joined: every message
  // names its process.
  std::string message_prefix = {};
  // `err` is the process's standard error: each message line goes out in one
  // write(2), since a pipeline's launcher stops the other ranks when one
  // fails, and a line written in parts could be cut off mid-way.
  bool err_is_stderr = false;
};

// A message as one line with no control character (a status message may
// span lines; what the user typed was quoted where it was put in).
std::string one_line(absl::string_view message);

// "fxrun: error: " + the prefix + `message` as one line (no newline).
std::string error_line(absl::string_view message, const FxrunStreams& streams);

// Writes "fxrun: warning: ..." (prefixed, one line) to streams.err.
void warn(FxrunStreams& streams, absl::string_view message);

// Writes error_line(message) and a newline to streams.err: how main()
// reports the command's error.
void report_error(FxrunStreams& streams, absl::string_view message);

// The process's exit status for the command's result: 0 when OK,
// kPeerFailedExitStatus for a pipeline rank whose failure a peer caused,
// else 1.
int exit_status(const absl::Status& status);

// A pipeline rank's failure. One a peer caused (an Unavailable status: its
// connection broke), in a rank fxrun's launcher started (kLaunchedVariable
// set), gets the payload that makes its exit status kPeerFailedExitStatus,
// so that the launcher names the peer's own failure instead.
absl::Status rank_failure(absl::Status status);

// The whole command: argv (argv[0] included: Bazel's runfiles are found from
// it, and a pipeline's launcher starts its ranks with it).
absl::Status run_fxrun(const std::vector<std::string>& argv, FxrunStreams& streams);

// ---- The steps --------------------------------------------------------------

// Every file the run reads, found and named as the user gave them (relative
// paths from where `bazel run` started).
struct FxrunFiles {
  std::string model;  // a path, "-" (standard input), or "" (none: an error once needed)
  std::vector<std::string> plugins;
  std::vector<std::string> op_libraries;
  std::string input;      // --input
  std::string saved_run;  // the run --check of a program compares with ("" when none)
  std::string graph;      // --graph
  // All of them, and the flagfiles: no output may name one.
  std::vector<std::string> inputs;
};

// The model the run reads: --model (a path, or "-"), else the example
// ResNet-18 of Bazel's `runfiles` or of the installation, else "" (none: an
// error once a model is needed, not for --list-plugins). Known before a
// pipeline's processes start: the launcher sizes them by the model's file.
std::string model_path(const FxrunSettings& settings, const std::string& runfiles);

// The files `settings` name; `runfiles` is Bazel's runfiles tree ("" when
// none), where the bundled model is. An --expected given empty is an error.
absl::StatusOr<FxrunFiles> resolve_files(const FxrunSettings& settings, const std::string& runfiles);

// --output and --save, checked (a writable place, not one of the inputs, not
// one file twice) and empty: nothing is written until commit_outputs.
// Not movable once a stream of it is used.
struct FxrunOutputs {
  std::optional<OutputFile> output;
  std::optional<OutputFile> saved;
  // Where the result goes: --output's file, else `standard_output`.
  std::ostream& stream(std::ostream& standard_output) {
    return output ? output->stream() : standard_output;
  }
};
absl::StatusOr<FxrunOutputs> prepare_outputs(const FxrunSettings& settings, const FxrunFiles& files);

// Writes every output in full, then replaces the targets; without --output,
// flushes `standard_output` (an error when that fails).
absl::Status commit_outputs(FxrunOutputs& outputs, std::ostream& standard_output);

// --op-library, the in-tree plugins (from fxrun's installation or
// `runfiles`) and --plugin, loaded in that order into the global registry.
absl::Status load_libraries(const FxrunSettings& settings, const FxrunFiles& files,
                            const std::string& runfiles);

// The pass pipeline with fxrun's options: dumps (--print-after) go to `out`,
// the pipeline (--print-pipeline) to `standard_output`. A pipeline rank
// (`stages` > 0) adds split{stages=N} when the pipeline has no split.
absl::StatusOr<PassManager> make_pass_manager(const FxrunSettings& settings, int stages,
                                              std::ostream& out, std::ostream& standard_output);

// The model read, and its graph: traced with --tracer's extensions, or read
// from --graph.
struct FxrunModel {
  std::string shown;  // how messages name it: its path, or "the model" (standard input)
  ModelFile file;     // the TorchScript module or the torch.export program
  GraphModule gm;
  std::optional<SavedRun> saved_run;  // for --check of a program (prepare_run)

  const exported::LoadedProgram* program() const {
    return file.program ? &*file.program : nullptr;
  }
};

// Reads the model (an error when there is none), refuses flags its kind
// cannot take, and traces it (or reads --graph); warnings go to `streams`.
absl::StatusOr<FxrunModel> read_model(const FxrunSettings& settings, const FxrunFiles& files,
                                      FxrunStreams& streams);

// What --run and --check need that only the model tells: a program's saved
// run (read into model.saved_run), and inputs for every placeholder.
absl::Status prepare_run(const FxrunSettings& settings, const FxrunFiles& files, FxrunModel& model);

// The inputs a program brings, when none were given: its saved run's, or the
// example inputs it was exported with.
absl::StatusOr<std::vector<c10::IValue>> program_inputs(const FxrunModel& model,
                                                        const c10::Device& device);

// Runs the pass pipeline on model.gm, with example inputs on the CPU for
// passes that run the graph; warnings and --time-passes' report to
// streams.err.
absl::Status run_passes(const FxrunSettings& settings, PassManager& pm, FxrunModel& model,
                        FxrunStreams& streams);

// --save into outputs.saved; --emit or --print into `out` (a pipeline's
// graph only by its last rank: `print_graph`).
absl::Status write_results(const FxrunSettings& settings, const FxrunModel& model,
                           FxrunOutputs& outputs, bool print_graph, std::ostream& out,
                           FxrunStreams& streams);

// --run (and --check, --repeat): runs the graph, alone or as this process's
// stage of `rank`'s pipeline, and writes the report to `out` (to streams.err
// beside --emit).
absl::Status run_and_check(const FxrunSettings& settings, const FxrunFiles& files,
                           const FxrunModel& model, PipelineRank* rank, std::ostream& out,
                           FxrunStreams& streams);

}  // namespace fx

#endif  // FX_TOOLS_FXRUN_COMMAND_H_
