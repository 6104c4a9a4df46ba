// Copyright 2026 The FX for C++ Authors.
//
// fxrun: trace a TorchScript model or read a torch.export program, run a pass
// pipeline over it, print, emit or save the result. The command-line driver
// of FX for C++.
//
//   bazel run //tools:fxrun                       # ResNet-18, module paths, as a table
//   bazel run //tools:fxrun -- --model=m.pt --tracer=module_path,tagging{tag=bar}
//       --passes='inline{modules=relu},dce' --print=code
//   bazel run //tools:fxrun -- --emit=json --output=/tmp/graph.json
//   bazel run //tools:fxrun -- --graph=/tmp/graph.json --passes=dce --save=/tmp/resnet18_fx.pt
//   bazel run //tools:fxrun -- --emit=png --emit-scope=layer1.0 --output=/tmp/block.png
//   bazel run //tools:fxrun -- --plugin=/path/libmy_plugin.so --list-plugins
//   bazel run //tools:fxrun -- --model=resnet18.pt2 --passes=dce --check --save=/tmp/out.pt2
//
// The in-tree plugins (tracer extensions and passes) are loaded from fxrun's
// runfiles exactly as --plugin loads out-of-tree ones. Flags may be spelled
// with dashes or underscores (--time-passes, --time_passes). Every bad input
// is a one-line error on stderr and exit status 1.
//
// The command itself is tools/fxrun_command.h, whose steps return a Status;
// main() only turns the result into that line and the exit status.
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "fx/model_file.h"
#include "plugins/plugin_guard.h"
#include "runtime/operator_binding.h"
#include "tools/fxrun_command.h"

int main(int argc, char** argv) {
  // A crash in a plugin names the plugin and what it was doing.
  fx::install_crash_report("fxrun");
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, which is
  // reported as other write errors are, instead of SIGXFSZ ending the
  // process with no word and the temporary left beside the target.
  std::signal(SIGXFSZ, SIG_IGN);
  fx::FxrunStreams streams{std::cout, std::cerr, isatty(STDOUT_FILENO) != 0};
  streams.err_is_stderr = true;
  absl::Status status;
  // Every error a user can cause is a Status with its own message; an
  // exception that escapes anyway is still one line and exit status 1.
  try {
    status = fx::run_fxrun(std::vector<std::string>(argv, argv + argc), streams);
  } catch (const std::bad_alloc&) {
    status = absl::ResourceExhaustedError(
        "out of memory; give smaller inputs (or a smaller model), or free memory");
  } catch (const std::exception& e) {
    status = absl::InternalError(
        absl::StrCat("unexpected error (a bug; please report it with the command line): ",
                     fx::first_line_of(fx::exception_message(e))));
  } catch (...) {
    status = absl::InternalError("unexpected error that is not a std::exception (a bug; please report it)");
  }
  if (!status.ok()) fx::report_error(streams, status.message());
  return fx::exit_status(status);
}
