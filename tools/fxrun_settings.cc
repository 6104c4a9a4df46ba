// Copyright 2026 The FX for C++ Authors.
#include "tools/fxrun_settings.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/message_text.h"
#include "runtime/devices.h"
#include "tools/fxrun_flags.h"
#include "tools/graphviz.h"

namespace fx {
namespace {

std::string dashed(absl::string_view flag) { return absl::StrReplaceAll(flag, {{"_", "-"}}); }

absl::Status invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

// `status`'s message after `prefix`, its code kept.
absl::Status prefixed(absl::string_view prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

// --print, --emit and --emit-scope: what to write, and Graphviz's dot when a
// picture needs it.
absl::Status what_to_write(FxrunSettings& s, bool out_is_terminal) {
  s.print = absl::GetFlag(FLAGS_print);
  s.emit = absl::GetFlag(FLAGS_emit);
  s.emit_scope = absl::GetFlag(FLAGS_emit_scope);
  s.output = absl::GetFlag(FLAGS_output);
  s.save = absl::GetFlag(FLAGS_save);
  if (s.print != "graph" && s.print != "tabular" && s.print != "code" && s.print != "none") {
    return invalid(
        absl::StrCat("--print takes graph, tabular, code or none, not ", quote_for_message(s.print)));
  }
  s.emit_picture = s.emit == "dot" || s.emit == "svg" || s.emit == "png";
  if (!s.emit.empty() && s.emit != "json" && !s.emit_picture) {
    return invalid(absl::StrCat("--emit takes json, dot, svg or png, not ", quote_for_message(s.emit)));
  }
  if (s.given("emit_scope") && !s.emit_picture) {
    return invalid(
        "--emit-scope says which part of the graph a picture draws: add --emit=dot, svg or png");
  }
  if (s.given("emit_scope") && s.emit_scope.empty()) {
    return invalid(
        "--emit-scope is empty (an unset variable?); give a module path such as layer1.0, or "
        "leave it out to draw the whole graph");
  }
  if (s.emit == "png" && !s.given("output") && out_is_terminal) {
    return invalid(
        "--emit=png writes binary data, which a terminal cannot show: give --output=FILE.png or "
        "redirect standard output to a file");
  }
  if (s.emit == "svg" || s.emit == "png") {
    auto found = find_graphviz_dot();
    if (!found.ok()) return prefixed(absl::StrCat("--emit=", s.emit, ": "), found.status());
    s.dot_program = *std::move(found);
  }
  if (!s.emit.empty() && s.given("print")) {
    return invalid("--print and --emit both say what to write; give one of them");
  }
  return absl::OkStatus();
}

// --model or --graph, and how to trace.
absl::Status what_to_read(FxrunSettings& s) {
  s.model = absl::GetFlag(FLAGS_model);
  s.graph = absl::GetFlag(FLAGS_graph);
  s.builtin_plugins = absl::GetFlag(FLAGS_builtin_plugins);
  s.list_plugins = absl::GetFlag(FLAGS_list_plugins);
  s.tracer.training = absl::GetFlag(FLAGS_training);
  s.tracer.assertions = absl::GetFlag(FLAGS_assertions);
  s.tracer.leaf_functions = absl::GetFlag(FLAGS_leaf_functions);
  s.tracer.trace_through = absl::GetFlag(FLAGS_trace_through);
  s.tracer.concrete_args = absl::GetFlag(FLAGS_concrete_args);
  s.tracer.extensions = absl::GetFlag(FLAGS_tracer);
  s.passes = absl::GetFlag(FLAGS_passes);
  s.verify_each = absl::GetFlag(FLAGS_verify_each);
  s.time_passes = absl::GetFlag(FLAGS_time_passes);
  s.pass_timeout = absl::GetFlag(FLAGS_pass_timeout);
  s.print_after = absl::GetFlag(FLAGS_print_after);
  s.print_after_all = absl::GetFlag(FLAGS_print_after_all);
  s.print_pipeline = absl::GetFlag(FLAGS_print_pipeline);
  if (s.given("graph")) {
    for (const char* flag : {"tracer", "leaf_functions", "trace_through", "concrete_args",
                             "assertions"}) {
      if (s.given(flag)) {
        return invalid(absl::StrCat("--", dashed(flag),
                                    " is for tracing, and --graph reads the graph instead: give "
                                    "one of them"));
      }
    }
  }
  if (s.given("model") && s.model.empty()) {
    return invalid(
        "--model is empty (an unset variable?); give a .pt file, or leave --model out for the "
        "bundled ResNet-18");
  }
  return absl::OkStatus();
}

// --run and what it reads. The bundled default (no flags at all) runs
// ResNet-18 once on a random input and checks it against TorchScript.
absl::Status how_to_run(FxrunSettings& s) {
  s.bundled_default = s.command_line.given.empty();
  s.check = absl::GetFlag(FLAGS_check) || s.bundled_default;
  s.run = absl::GetFlag(FLAGS_run) || s.check || s.given("repeat") || s.given("warmup");
  s.input = absl::GetFlag(FLAGS_input);
  s.expected = absl::GetFlag(FLAGS_expected);
  s.threads = absl::GetFlag(FLAGS_threads);
  RunOptions& options = s.run_options;
  options.atol = absl::GetFlag(FLAGS_atol);
  options.rtol = absl::GetFlag(FLAGS_rtol);
  options.repeat = absl::GetFlag(FLAGS_repeat);
  options.warmup = absl::GetFlag(FLAGS_warmup);
  if (s.given("input_shape") && s.given("input")) {
    return invalid("--input-shape and --input both give the inputs; give one of them");
  }
  // Example inputs also serve passes that run the graph (shape_prop).
  s.example_inputs = s.given("input_shape") || s.given("input");
  if (s.given("input_shape")) {
    auto shapes = parse_input_shapes(absl::GetFlag(FLAGS_input_shape));
    if (!shapes.ok()) return shapes.status();
    s.input_shapes = *std::move(shapes);
  }
  for (const char* flag : {"atol", "rtol", "expected"}) {
    if (s.given(flag) && !s.check) {
      return invalid(absl::StrCat("--", flag, " is a tolerance of --check, which compares the "
                                  "graph's outputs with the original module's: add --check"));
    }
  }
  if (!s.run) {
    const bool passes_given = !s.passes.empty();
    for (const char* flag : {"device", "input_shape", "input", "threads", "cuda_graphs", "tf32"}) {
      const bool input_flag = absl::StartsWith(flag, "input");
      if (s.given(flag) && !(input_flag && passes_given)) {
        return invalid(absl::StrCat("--", dashed(flag),
                                    " is for running the graph: add --run (or --check)",
                                    input_flag ? ", or a pass that runs it (--passes=shape_prop)"
                                               : ""));
      }
    }
    return absl::OkStatus();
  }
  auto device = parse_device(absl::GetFlag(FLAGS_device));
  if (!device.ok()) return prefixed("--device: ", device.status());
  options.device = *device;
  options.cuda_graphs = absl::GetFlag(FLAGS_cuda_graphs);
  options.tf32 = absl::GetFlag(FLAGS_tf32);
  for (const char* flag : {"cuda_graphs", "tf32"}) {
    if (s.given(flag) && !options.device.is_cuda()) {
      return invalid(absl::StrCat("--", dashed(flag), " is for runs on a GPU: add --device=cuda"));
    }
  }
  if (options.repeat < 1 || options.warmup < 0 || s.threads < 0) {
    return invalid("--repeat takes a count of at least 1, --warmup and --threads counts of at least 0");
  }
  // Timed runs are counted in an int (and kept, one time each): a bound
  // well past any useful timing.
  if (options.repeat > kMaxRuns || options.warmup > kMaxRuns) {
    return invalid(absl::StrCat("--repeat and --warmup take at most ", kMaxRuns,
                                " runs each (given ", options.repeat, " and ", options.warmup, ")"));
  }
  // More threads than the machine runs at once only slow the run down (and
  // a huge count would take the machine's memory making them).
  const unsigned hardware_threads = std::max(1u, std::thread::hardware_concurrency());
  if (static_cast<unsigned>(s.threads) > hardware_threads) {
    return invalid(absl::StrCat("--threads=", s.threads, " is more than the ", hardware_threads,
                                " threads this machine runs at once; give at most ",
                                hardware_threads, " (or 0 for libtorch's default)"));
  }
  if (!(options.atol >= 0) || !(options.rtol >= 0)) {
    return invalid("--atol and --rtol take non-negative numbers");
  }
  // Without inputs, a model given must be one whose forward takes none:
  // checked once its graph is known.
  if (!s.example_inputs && !s.given("model")) {
    s.input_shapes = {InputShape{c10::ScalarType::Float, {1, 3, 224, 224}}};  // the bundled ResNet-18's
  }
  return absl::OkStatus();
}

// --save=X.pt2 and --pt2-layout.
absl::Status how_to_save(FxrunSettings& s) {
  s.save_program = absl::EndsWith(s.save, ".pt2");
  if (!s.given("pt2_layout")) return absl::OkStatus();
  const std::string layout = absl::GetFlag(FLAGS_pt2_layout);
  if (layout == "legacy") {
    s.write_options.layout = exported::WriteLayout::kLegacy;
  } else if (layout == "pt2") {
    s.write_options.layout = exported::WriteLayout::kPt2Archive;
  } else {
    return invalid(absl::StrCat("--pt2-layout takes pt2 or legacy, not ", quote_for_message(layout)));
  }
  if (!s.save_program) return invalid("--pt2-layout says how --save writes a .pt2 file: add --save=FILE.pt2");
  return absl::OkStatus();
}

// --stages and its flags; what the meta device cannot do.
absl::Status how_to_pipeline(FxrunSettings& s) {
  PipelineFlags flags{absl::GetFlag(FLAGS_stages),      absl::GetFlag(FLAGS_microbatches),
                      absl::GetFlag(FLAGS_timeout),     absl::GetFlag(FLAGS_backend),
                      absl::GetFlag(FLAGS_master_addr), absl::GetFlag(FLAGS_master_port),
                      absl::GetFlag(FLAGS_rank),        absl::GetFlag(FLAGS_world_size),
                      absl::GetFlag(FLAGS_local_rank)};
  auto pipeline = pipeline_settings(
      flags, [&s](absl::string_view flag) { return s.given(flag); }, s.run);
  if (!pipeline.ok()) return pipeline.status();
  s.pipeline = *std::move(pipeline);
  if (s.run_options.cuda_graphs && s.given("stages")) {
    return invalid("--cuda-graphs captures one process's run; a pipeline (--stages) runs its "
                   "stages uncaptured: leave one of them out");
  }
  if (s.run_options.device.is_meta() && s.given("stages")) {
    return invalid("--stages runs values: use cpu or cuda");
  }
  if (s.run_options.device.is_meta() && s.check) {
    return invalid(
        "--check compares values, and the meta device has none: run on cpu or cuda (--device=meta "
        "with --run gives shapes and dtypes)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CommandLine> parse_fxrun_flags(const std::vector<std::string>& argv) {
  std::vector<std::string> args;
  if (!argv.empty()) args.assign(argv.begin() + 1, argv.end());
  return parse_arguments(args, FlagsOfFile{"tools/fxrun_flags.cc"},
                         {"plugin", "op_library", "leaf_functions", "trace_through",
                          "concrete_args", "print_after"});
}

// Everything that can be checked before any work: a bad flag never costs a
// long run, and nothing is written until the run succeeded.
absl::StatusOr<FxrunSettings> settings_from_flags(CommandLine command_line, bool out_is_terminal) {
  FxrunSettings s;
  s.command_line = std::move(command_line);
  if (absl::Status e = what_to_write(s, out_is_terminal); !e.ok()) return e;
  if (absl::Status e = what_to_read(s); !e.ok()) return e;
  if (absl::Status e = how_to_run(s); !e.ok()) return e;
  if (absl::Status e = how_to_save(s); !e.ok()) return e;
  if (absl::Status e = how_to_pipeline(s); !e.ok()) return e;
  return s;
}

}  // namespace fx
