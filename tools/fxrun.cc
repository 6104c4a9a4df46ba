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
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>


#include <ATen/Parallel.h>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "passes/pass_manager.h"
#include "plugins/plugin_guard.h"
#include "plugins/plugin_loader.h"
#include "plugins/registry.h"
#include "fx/installation.h"
#include "tools/bazel_runfiles.h"
#include "tools/command_line.h"
#include "tools/fxrun_text.h"
#include "tools/graph_dot.h"
#include "tools/graphviz.h"
#include "tools/graph_file.h"
#include "fx/input_file.h"
#include "fx/model_file.h"
#include "exported_program/writer.h"
#include "fx/output_file.h"
#include "tools/fxrun_flags.h"
#include "distributed/local_launcher.h"
#include "tools/fxrun_pipeline.h"
#include "tools/run_model.h"
#include "tools/tracer_setup.h"
#include "runtime/devices.h"
#include "runtime/operator_binding.h"
#include "runtime/torchscript_export.h"
#include "tracer/tracer.h"

namespace fx {
namespace {


// A message as one line with no control character (a status message may
// span lines; what the user typed was quoted where it was put in).
std::string one_line(absl::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (char c : message) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (u < 0x20 || u == 0x7f) {
      out += absl::StrFormat("\\x%02x", u);
    } else {
      out += c;
    }
  }
  return out;
}

// How the inputs checked against outputs name standard input (its file,
// when it is one: same_file follows the link).
constexpr char kStandardInput[] = "/proc/self/fd/0";

// The most runs --repeat or --warmup take.
constexpr int kMaxRuns = 1000000;

// "rank 1: " in a pipeline's processes, so every message names its process.
std::string rank_prefix;

// One write(2) per line: a pipeline's launcher stops the other ranks when one
// fails, and a line written in parts could be cut off mid-way.
void write_line(const std::string& line) {
  std::cerr.flush();
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void fail(absl::string_view message, int exit_status = 1) {
  write_line(absl::StrCat("fxrun: error: ", rank_prefix, one_line(message), "\n"));
  std::exit(exit_status);
}

// A pipeline rank's failure: one a peer caused (its connection broke) exits
// so that the launcher names the peer's own failure instead.
[[noreturn]] void fail_rank(const absl::Status& status) {
  const bool launched = std::getenv(kLaunchedVariable) != nullptr;
  fail(status.message(), launched && absl::IsUnavailable(status) ? kPeerFailedExitStatus : 1);
}

void warn(absl::string_view message) {
  write_line(absl::StrCat("fxrun: warning: ", rank_prefix, one_line(message), "\n"));
}

// A path the user typed: under `bazel run` the working directory is the
// runfiles tree, so relative paths are taken from where bazel was run.
std::string user_path(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr) return path;
  return absl::StrCat(cwd, "/", path);
}

// The in-tree plugins: beside fxrun in a release or a CMake build
// (../lib/fx/plugins), else in Bazel's runfiles; then FX_PLUGIN_PATH's.
void load_builtin_plugins(const std::string& runfiles) {
  if (!installed_plugin_directory()) {
    const std::string manifest = bazel_runfile(runfiles, "tools/fxrun_plugins.txt");
    std::ifstream in(manifest);
    if (manifest.empty() || !in) {
      fail(absl::StrCat("fxrun finds its in-tree plugins in ", path_for_message(program_directory()),
                        "/../lib/fx/plugins (a release, a CMake build) or in Bazel's runfiles (bazel run "
                        "//tools:fxrun), and found neither; give --builtin-plugins=false and --plugin=..."));
    }
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      auto loaded = load_plugin(bazel_runfile(runfiles, line));
      if (!loaded.ok()) fail(loaded.status().message());
    }
  }
  if (absl::Status s = load_installed_plugins(Registry::global()); !s.ok()) fail(s.message());
}

void configure_tracer_from_flags(Tracer& tracer) {
  TracerSettings settings;
  settings.training = absl::GetFlag(FLAGS_training);
  settings.assertions = absl::GetFlag(FLAGS_assertions);
  settings.leaf_functions = absl::GetFlag(FLAGS_leaf_functions);
  settings.trace_through = absl::GetFlag(FLAGS_trace_through);
  settings.concrete_args = absl::GetFlag(FLAGS_concrete_args);
  settings.extensions = absl::GetFlag(FLAGS_tracer);
  if (absl::Status s = configure_tracer(tracer, settings); !s.ok()) fail(s.message());
}

// --emit=dot|svg|png: the graph (or the part --emit-scope names) as a
// picture; `dot_program` is Graphviz's dot, found before the run.
std::string picture(const Graph& graph, const std::string& format, const std::string& dot_program) {
  DotOptions options;
  options.scope = absl::GetFlag(FLAGS_emit_scope);
  auto dot = graph_to_dot(graph, options);
  if (!dot.ok()) fail(absl::StrCat("--emit-scope: ", dot.status().message()));
  if (format == "dot") return *std::move(dot);
  auto rendered = render_with_graphviz(dot_program, *dot, format);
  if (!rendered.ok()) fail(absl::StrCat("--emit=", format, ": ", rendered.status().message()));
  for (const std::string& w : rendered->warnings) warn(absl::StrCat("Graphviz's dot: ", w));
  return std::move(rendered->output);
}

int run(int argc, char** argv) {
  auto command_line = parse_command_line(argc, argv, FlagsOfFile{"tools/fxrun_flags.cc"},
                                         {"plugin", "op_library", "leaf_functions",
                                          "trace_through", "concrete_args", "print_after"});
  if (!command_line.ok()) fail(command_line.status().message());
  if (command_line->help) {
    print_help(std::cout);
    return 0;
  }
  auto given = [&](absl::string_view flag) { return command_line->given.contains(flag); };

  // Everything that can be checked before any work: a bad flag never costs a
  // long run, and nothing is written until the run succeeded.
  const std::string print = absl::GetFlag(FLAGS_print);
  const std::string emit = absl::GetFlag(FLAGS_emit);
  if (print != "graph" && print != "tabular" && print != "code" && print != "none") {
    fail(absl::StrCat("--print takes graph, tabular, code or none, not ", quote_for_message(print)));
  }
  const bool emit_picture = emit == "dot" || emit == "svg" || emit == "png";
  if (!emit.empty() && emit != "json" && !emit_picture) {
    fail(absl::StrCat("--emit takes json, dot, svg or png, not ", quote_for_message(emit)));
  }
  if (given("emit_scope") && !emit_picture) {
    fail("--emit-scope says which part of the graph a picture draws: add --emit=dot, svg or png");
  }
  if (given("emit_scope") && absl::GetFlag(FLAGS_emit_scope).empty()) {
    fail("--emit-scope is empty (an unset variable?); give a module path such as layer1.0, or "
         "leave it out to draw the whole graph");
  }
  if (emit == "png" && !given("output") && isatty(STDOUT_FILENO)) {
    fail("--emit=png writes binary data, which a terminal cannot show: give --output=FILE.png or "
         "redirect standard output to a file");
  }
  std::string dot_program;
  if (emit == "svg" || emit == "png") {
    auto found = find_graphviz_dot();
    if (!found.ok()) fail(absl::StrCat("--emit=", emit, ": ", found.status().message()));
    dot_program = *std::move(found);
  }
  if (!emit.empty() && given("print")) {
    fail("--print and --emit both say what to write; give one of them");
  }
  if (given("graph")) {
    for (const char* flag : {"tracer", "leaf_functions", "trace_through", "concrete_args",
                             "assertions"}) {
      if (given(flag)) {
        fail(absl::StrCat("--", absl::StrReplaceAll(flag, {{"_", "-"}}),
                          " is for tracing, and --graph reads the graph instead: give one of them"));
      }
    }
  }
  if (given("model") && absl::GetFlag(FLAGS_model).empty()) {
    fail("--model is empty (an unset variable?); give a .pt file, or leave --model out for the "
         "bundled ResNet-18");
  }
  // --run and what it reads. The bundled default (no flags at all) runs
  // ResNet-18 once on a random input and checks it against TorchScript.
  const bool bundled_default = command_line->given.empty();
  const bool check = absl::GetFlag(FLAGS_check) || bundled_default;
  const bool run_graph_too =
      absl::GetFlag(FLAGS_run) || check || given("repeat") || given("warmup");
  RunOptions run_options;
  run_options.atol = absl::GetFlag(FLAGS_atol);
  run_options.rtol = absl::GetFlag(FLAGS_rtol);
  run_options.repeat = absl::GetFlag(FLAGS_repeat);
  run_options.warmup = absl::GetFlag(FLAGS_warmup);
  std::vector<InputShape> input_shapes;
  if (given("input_shape") && given("input")) {
    fail("--input-shape and --input both give the inputs; give one of them");
  }
  // Example inputs also serve passes that run the graph (shape_prop).
  const bool example_inputs = given("input_shape") || given("input");
  if (given("input_shape")) {
    auto shapes = parse_input_shapes(absl::GetFlag(FLAGS_input_shape));
    if (!shapes.ok()) fail(shapes.status().message());
    input_shapes = *std::move(shapes);
  }
  for (const char* flag : {"atol", "rtol", "expected"}) {
    if (given(flag) && !check) {
      fail(absl::StrCat("--", flag, " is a tolerance of --check, which compares the graph's "
                        "outputs with the original module's: add --check"));
    }
  }
  if (!run_graph_too) {
    const bool passes_given = !absl::GetFlag(FLAGS_passes).empty();
    for (const char* flag : {"device", "input_shape", "input", "threads"}) {
      const bool input_flag = absl::StartsWith(flag, "input");
      if (given(flag) && !(input_flag && passes_given)) {
        fail(absl::StrCat("--", absl::StrReplaceAll(flag, {{"_", "-"}}),
                          " is for running the graph: add --run (or --check)",
                          input_flag ? ", or a pass that runs it (--passes=shape_prop)" : ""));
      }
    }
  } else {
    auto device = parse_device(absl::GetFlag(FLAGS_device));
    if (!device.ok()) fail(absl::StrCat("--device: ", device.status().message()));
    run_options.device = *device;
    if (run_options.repeat < 1 || run_options.warmup < 0 || absl::GetFlag(FLAGS_threads) < 0) {
      fail("--repeat takes a count of at least 1, --warmup and --threads counts of at least 0");
    }
    // Timed runs are counted in an int (and kept, one time each): a bound
    // well past any useful timing.
    if (run_options.repeat > kMaxRuns || run_options.warmup > kMaxRuns) {
      fail(absl::StrCat("--repeat and --warmup take at most ", kMaxRuns, " runs each (given ",
                        run_options.repeat, " and ", run_options.warmup, ")"));
    }
    // More threads than the machine runs at once only slow the run down (and
    // a huge count would take the machine's memory making them).
    const unsigned hardware_threads = std::max(1u, std::thread::hardware_concurrency());
    if (static_cast<unsigned>(absl::GetFlag(FLAGS_threads)) > hardware_threads) {
      fail(absl::StrCat("--threads=", absl::GetFlag(FLAGS_threads), " is more than the ",
                        hardware_threads, " threads this machine runs at once; give at most ",
                        hardware_threads, " (or 0 for libtorch's default)"));
    }
    if (!(run_options.atol >= 0) || !(run_options.rtol >= 0)) {
      fail("--atol and --rtol take non-negative numbers");
    }
    // Without inputs, a model given must be one whose forward takes none:
    // checked once its graph is known.
    if (!example_inputs && !given("model")) {
      input_shapes = {InputShape{c10::ScalarType::Float, {1, 3, 224, 224}}};  // the bundled ResNet-18's
    }
  }
  const std::string save_path = absl::GetFlag(FLAGS_save);
  const bool save_program = absl::EndsWith(save_path, ".pt2");
  exported::WriteOptions write_options;
  if (given("pt2_layout")) {
    const std::string layout = absl::GetFlag(FLAGS_pt2_layout);
    if (layout == "legacy") {
      write_options.layout = exported::WriteLayout::kLegacy;
    } else if (layout == "pt2") {
      write_options.layout = exported::WriteLayout::kPt2Archive;
    } else {
      fail(absl::StrCat("--pt2-layout takes pt2 or legacy, not ", quote_for_message(layout)));
    }
    if (!save_program) fail("--pt2-layout says how --save writes a .pt2 file: add --save=FILE.pt2");
  }
  const std::string runfiles = bazel_runfiles_directory(argv[0]);
  std::string model_path = user_path(absl::GetFlag(FLAGS_model));
  if (!given("model")) {
    // The example of a source checkout (bazel run //tools:fxrun).
    // (Or a CMake build's; else none: an error once a model is needed, not for
    // --list-plugins.)
    model_path = bazel_runfile(runfiles, "tools/models/resnet18.pt");
    if (model_path.empty()) model_path = installed_example_model().value_or("");
  }
  // --stages: start the pipeline's processes here, or be one of them.
  PipelineFlags pipeline_flags{absl::GetFlag(FLAGS_stages), absl::GetFlag(FLAGS_microbatches),
                               absl::GetFlag(FLAGS_timeout), absl::GetFlag(FLAGS_backend),
                               absl::GetFlag(FLAGS_master_addr), absl::GetFlag(FLAGS_master_port),
                               absl::GetFlag(FLAGS_rank), absl::GetFlag(FLAGS_world_size),
                               absl::GetFlag(FLAGS_local_rank)};
  auto pipeline = pipeline_settings(pipeline_flags, given, run_graph_too);
  if (!pipeline.ok()) fail(pipeline.status().message());
  if (run_options.device.is_meta() && given("stages")) fail("--stages runs values: use cpu or cuda");
  if (run_options.device.is_meta() && check) {
    fail("--check compares values, and the meta device has none: run on cpu or cuda (--device=meta "
         "with --run gives shapes and dtypes)");
  }
  std::unique_ptr<PipelineRank> rank;
  if (given("stages") && !started_as_rank(pipeline->world, process_environment())) {
    absl::Status ran = launch_local_pipeline(
        *pipeline, std::vector<std::string>(argv, argv + argc),
        runfiles.empty() ? std::vector<std::pair<std::string, std::string>>{}
                         : std::vector<std::pair<std::string, std::string>>{{"RUNFILES_DIR", runfiles}},
        model_path);
    if (!ran.ok()) fail(ran.message());
    return 0;
  } else if (given("stages")) {
    auto joined = PipelineRank::join(*pipeline);
    if (!joined.ok()) fail_rank(joined.status());
    rank = *std::move(joined);
    rank_prefix = absl::StrCat("rank ", rank->world().rank, ": ");
  }
  std::vector<std::string> inputs;
  if (!model_path.empty()) inputs.push_back(model_path);
  inputs.insert(inputs.end(), command_line->flagfiles.begin(), command_line->flagfiles.end());
  std::vector<std::string> plugin_paths;
  std::vector<std::string> op_libraries;
  for (const auto& [flag, value] : command_line->occurrences) {
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      if (flag == "plugin") plugin_paths.push_back(user_path(std::string(item)));
      if (flag == "op_library") op_libraries.push_back(user_path(std::string(item)));
    }
  }
  inputs.insert(inputs.end(), plugin_paths.begin(), plugin_paths.end());
  inputs.insert(inputs.end(), op_libraries.begin(), op_libraries.end());
  if (given("input")) inputs.push_back(user_path(absl::GetFlag(FLAGS_input)));
  // The model read from standard input is a file too (`--model=- < m.pt`):
  // an output naming it (/dev/stdin, a link to it, its own name) would
  // replace it.
  if (model_path == "-") inputs.push_back(kStandardInput);
  // The run --check of a program compares with (a .pt2 program's; known
  // once the model is read).
  std::string saved_run_path;
  if (given("expected")) {
    if (absl::GetFlag(FLAGS_expected).empty()) {
      fail("--expected is empty (an unset variable?); give the file of a run PyTorch saved");
    }
    saved_run_path = user_path(absl::GetFlag(FLAGS_expected));
  } else if (check && model_path != "-") {
    saved_run_path = saved_run_beside(model_path);
  }
  if (!saved_run_path.empty()) inputs.push_back(saved_run_path);
  const std::string graph_path = user_path(absl::GetFlag(FLAGS_graph));
  if (given("graph")) inputs.push_back(graph_path);
  // An output file checked before the run: not one of the inputs.
  auto prepare_output = [&](const char* flag, const std::string& path) {
    auto prepared = OutputFile::prepare(user_path(path), absl::StrCat("--", flag));
    if (!prepared.ok()) fail(prepared.status().message());
    for (const std::string& input : inputs) {
      if (same_file(prepared->path(), input)) {
        fail(absl::StrCat("--", flag, " ", path_for_message(prepared->path()),
                          " is one of the inputs (",
                          input == kStandardInput ? "standard input, the model" : path_for_message(input),
                          "); writing it would destroy it: give another --", flag));
      }
    }
    return *std::move(prepared);
  };
  std::optional<OutputFile> output;
  if (given("output")) output.emplace(prepare_output("output", absl::GetFlag(FLAGS_output)));
  std::optional<OutputFile> saved;
  if (given("save")) {
    saved.emplace(prepare_output("save", absl::GetFlag(FLAGS_save)));
    if (output && (output->path() == saved->path() || same_file(output->path(), saved->path()))) {
      fail("--output and --save name the same file; give two files");
    }
  }
  std::ostream& out = output ? output->stream() : std::cout;
  // Writes the output files, if any, now that the run succeeded.
  // Every file is written in full before any replaces its target: a run
  // whose second output fails (a full disk) leaves the first target as it was.
  auto finish = [&]() -> int {
    std::vector<OutputFile*> files;
    if (saved) files.push_back(&*saved);
    if (output) files.push_back(&*output);
    if (absl::Status s = commit_all(files); !s.ok()) fail(s.message());
    if (!output) {
      std::cout.flush();
      if (!std::cout) fail("writing to standard output failed");
    }
    return 0;
  };

  for (const std::string& library : op_libraries) {
    if (absl::Status s = check_shared_library_size(library, "--op-library"); !s.ok()) fail(s.message());
    if (absl::Status s = load_operator_library(library, "--op-library"); !s.ok()) fail(s.message());
  }
  if (absl::GetFlag(FLAGS_builtin_plugins)) load_builtin_plugins(runfiles);
  for (const std::string& path : plugin_paths) {
    auto loaded = load_plugin(path);
    if (!loaded.ok()) fail(loaded.status().message());
  }
  if (absl::GetFlag(FLAGS_list_plugins)) {
    list_plugins(out);
    return finish();
  }

  PassManagerOptions pm_options;
  pm_options.verify_each = absl::GetFlag(FLAGS_verify_each);
  pm_options.time_passes = absl::GetFlag(FLAGS_time_passes);
  {
    const double limit = absl::GetFlag(FLAGS_pass_timeout);
    if (!(limit >= 0) || limit > 7 * 24 * 3600) {
      fail("--pass-timeout takes the seconds one pass may run, 0 for no limit (a week at most)");
    }
    if (limit > 0) pm_options.pass_time_limit = absl::Seconds(limit);
    pm_options.time_limit_hint = "--pass-timeout sets the limit";
  }
  pm_options.print_after = absl::GetFlag(FLAGS_print_after);
  pm_options.print_after_all = absl::GetFlag(FLAGS_print_after_all);
  const std::string dump_format = print == "none" || print == "tabular" ? "graph" : print;
  pm_options.printer = [&out, dump_format](const std::string& pass, const GraphModule& gm) {
    out << "*** IR Dump After " << pass << " ***\n" << render(gm, dump_format);
  };
  const std::string passes = rank ? passes_with_split(absl::GetFlag(FLAGS_passes), pipeline->stages)
                                  : absl::GetFlag(FLAGS_passes);
  auto pm = PassManager::create(passes, Registry::global(), pm_options);
  if (!pm.ok()) fail(pm.status().message());
  if (absl::GetFlag(FLAGS_print_pipeline)) std::cout << pm->pipeline_text() << "\n";

  if (model_path.empty()) {
    fail("no --model given: give a TorchScript .pt or a torch.export .pt2 file (the example ResNet-18 is "
         "traced without one only in a source checkout: bazel run //tools:fxrun, or a CMake build)");
  }
  const std::string shown_model =
      model_path == "-" ? std::string("the model") : path_for_message(model_path);
  auto model_file = load_model_file(model_path, ModelFileNames{"--model", "--op-library=PATH"});
  if (!model_file.ok()) fail(model_file.status().message());
  const exported::LoadedProgram* program =
      model_file->program ? &*model_file->program : nullptr;
  if (program != nullptr) {
    for (const std::string& w : program->warnings) warn(w);
    // A program is a graph already: nothing of TorchScript's tracing applies.
    for (const char* flag : {"leaf_functions", "trace_through", "concrete_args", "assertions",
                             "training"}) {
      if (given(flag)) {
        fail(absl::StrCat("--", absl::StrReplaceAll(flag, {{"_", "-"}}), " is for tracing ",
                          "TorchScript, and ", shown_model,
                          " is a torch.export program, a graph already: leave it out"));
      }
    }
  } else if (given("expected")) {
    fail(absl::StrCat("--expected is for --check of a torch.export program; ", shown_model,
                      " is TorchScript, which --check runs itself: leave it out"));
  }
  Tracer tracer;
  configure_tracer_from_flags(tracer);
  auto trace_model = [&]() -> absl::StatusOr<GraphModule> {
    try {
      return program != nullptr ? tracer.trace(*program) : tracer.trace(*model_file->torchscript);
    } catch (const std::exception& e) {  // a tracer extension's, described (plugins/plugin_guard.h)
      return absl::InvalidArgumentError(e.what());
    }
  };
  absl::StatusOr<GraphModule> gm = absl::UnknownError("no graph");
  if (given("graph")) {
    auto text = read_regular_file(graph_path, "--graph");
    if (!text.ok()) fail(text.status().message());
    if (text->empty()) {
      fail(absl::StrCat("--graph ", path_for_message(graph_path),
                        " is empty; give a graph file written by fxrun --emit=json"));
    }
    torch::jit::Module root;
    if (program != nullptr) {  // the module tree the program's graph refers to
      auto read = trace_model();
      if (!read.ok()) fail(absl::StrCat("cannot read ", shown_model, ": ", read.status().message()));
      root = read->root();
    } else {
      root = *model_file->torchscript;
      if (absl::GetFlag(FLAGS_training) != root.is_training()) root.train(absl::GetFlag(FLAGS_training));
    }
    gm = read_graph_file(*text, root, graph_path);
    if (!gm.ok()) fail(gm.status().message());
  } else {
    gm = trace_model();
    for (const std::string& w : tracer.warnings()) warn(w);
    if (!gm.ok()) {
      fail(absl::StrCat(program != nullptr ? "cannot read " : "cannot trace ", shown_model, ": ",
                        gm.status().message()));
    }
  }

  // A program's --check compares with a run PyTorch saved, on its inputs.
  std::optional<SavedRun> saved_run;
  if (program != nullptr && check) {
    if (!given("expected") && (model_path == "-" || !std::ifstream(saved_run_path))) {
      fail(absl::StrCat(
          "--check of a torch.export program compares with a run PyTorch saved (this libtorch "
          "cannot run the program itself): give --expected=FILE, written in Python by "
          "torch.save({'inputs': args, 'outputs': torch.utils._pytree.tree_leaves(ep.module()(*args))}, "
          "FILE)",
          model_path == "-" ? "" : absl::StrCat(", or put it at ", path_for_message(saved_run_path))));
    }
    if (example_inputs) {
      fail("--check of a torch.export program runs the inputs saved with the outputs it compares "
           "with (--expected): leave out --input and --input-shape");
    }
    auto read = read_saved_run(saved_run_path, "--expected");
    if (!read.ok()) fail(read.status().message());
    saved_run = *std::move(read);
  }
  // The inputs a program brings, when none were given: its saved run's, or
  // the example inputs it was exported with.
  auto program_inputs = [&](const c10::Device& device) -> absl::StatusOr<std::vector<c10::IValue>> {
    if (!saved_run) return program_example_inputs(*program, gm->graph(), device,
                                    "give --input=FILE (saved with torch.save) or --input-shape=SHAPES");
    return to_device(saved_run->inputs, device);
  };
  const bool inputs_from_program = program != nullptr && !example_inputs;

  if (run_graph_too && !example_inputs && !inputs_from_program && given("model")) {
    std::vector<std::string> placeholders;
    for (const Node* n : gm->graph().nodes()) {
      if (n->op() == Op::kPlaceholder) placeholders.push_back(n->name());
    }
    if (!placeholders.empty()) {
      fail(absl::StrCat("--run needs inputs for forward's ", absl::StrJoin(placeholders, ", "),
                        ": --input-shape=1,3,224,224 (one shape per placeholder, ';' between) or "
                        "--input=FILE (saved with torch.save)"));
    }
  }

  PassContext context(Registry::global());
  if (example_inputs) {  // on the CPU, where passes run graphs
    absl::StatusOr<std::vector<c10::IValue>> inputs =
        given("input") ? read_inputs(user_path(absl::GetFlag(FLAGS_input)), c10::Device(c10::kCPU))
                       : random_inputs(input_shapes, c10::Device(c10::kCPU));
    if (!inputs.ok()) fail(inputs.status().message());
    context.set_example_inputs(*std::move(inputs));
  } else if (inputs_from_program) {  // when it has them
    auto inputs = program_inputs(c10::Device(c10::kCPU));
    if (inputs.ok()) context.set_example_inputs(*std::move(inputs));
  }
  absl::Status ran = pm->run(*gm, context);
  for (const std::string& w : context.warnings()) warn(w);
  if (!ran.ok()) fail(ran.message());
  if (example_inputs && !run_graph_too && !context.example_inputs_read()) {
    warn(absl::StrCat(given("input") ? "--input" : "--input-shape",
                      " was not used: no pass in --passes runs the graph (shape_prop does), and "
                      "--run was not given"));
  }
  if (pm_options.time_passes) std::cerr << pm->timing_report();

  if (saved && save_program) {
    // torch.export.save names the archive's top folder after the file.
    absl::string_view file_name = saved->path();
    file_name = file_name.substr(file_name.rfind('/') + 1);
    write_options.archive_name = std::string(absl::StripSuffix(file_name, ".pt2"));
    if (program != nullptr) write_options.example_inputs = program->example_inputs;
    auto bytes = exported::write_program(*gm, write_options);
    if (!bytes.ok()) fail(absl::StrCat("--save: ", bytes.status().message()));
    saved->stream() << *bytes;
    std::cerr << "fxrun: --save writes " << saved->path() << " as "
              << exported::describe_layout(exported::chosen_layout(*gm, write_options)) << "\n";
  } else if (saved) {
    auto exported = export_to_torchscript(*gm);
    if (!exported.ok()) fail(exported.status().message());
    try {
      exported->save(saved->stream());
    } catch (const std::exception& e) {
      fail(absl::StrCat("cannot save the exported module: ", e.what()));
    }
  }
  if (emit == "json") {
    auto text = graph_file_text(*gm);
    if (!text.ok()) fail(absl::StrCat("--emit=json: ", text.status().message()));
    out << *text;
  } else if (emit_picture) {
    out << picture(gm->graph(), emit, dot_program);
  } else {
    if (!rank || rank->world().is_last()) out << render(*gm, print);
  }
  if (run_graph_too) {
    if (absl::GetFlag(FLAGS_threads) > 0) at::set_num_threads(absl::GetFlag(FLAGS_threads));
    absl::StatusOr<std::vector<c10::IValue>> run_inputs =
        given("input")        ? read_inputs(user_path(absl::GetFlag(FLAGS_input)), run_options.device)
        : inputs_from_program ? program_inputs(run_options.device)
                              : random_inputs(input_shapes, run_options.device);
    if (!run_inputs.ok()) fail(run_inputs.status().message());
    std::optional<CheckReference> reference;
    if (saved_run) {
      reference = saved_run_reference(
          *saved_run, absl::StrCat("PyTorch's run saved in ", path_for_message(saved_run_path)));
    } else if (check && (!rank || rank->world().is_last())) {
      auto module = module_reference(*model_file->torchscript, run_options.device);
      if (!module.ok()) fail(module.status().message());
      reference = *std::move(module);
    }
    auto report = rank ? rank->run(*gm, *run_inputs, run_options, reference ? &*reference : nullptr)
                       : run_graph(*gm, *run_inputs, run_options, reference ? &*reference : nullptr);
    if (!report.ok()) rank ? fail_rank(report.status()) : fail(report.status().message());
    // The run's report goes under what was printed; with --emit it would break
    // the machine format, so it goes to stderr then.
    (emit.empty() ? out : std::cerr) << *report;
  }
  return finish();
}

}  // namespace
}  // namespace fx

int main(int argc, char** argv) {
  // A crash in a plugin names the plugin and what it was doing.
  fx::install_crash_report("fxrun");
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, which is
  // reported as other write errors are, instead of SIGXFSZ ending the
  // process with no word and the temporary left beside the target.
  std::signal(SIGXFSZ, SIG_IGN);
  // Every error a user can cause is a Status with its own message; an
  // exception that escapes anyway is still one line and exit status 1.
  try {
    return fx::run(argc, argv);
  } catch (const std::bad_alloc&) {
    fx::fail("out of memory; give smaller inputs (or a smaller model), or free memory");
  } catch (const std::exception& e) {
    fx::fail(absl::StrCat("unexpected error (a bug; please report it with the command line): ",
                          fx::first_line_of(fx::exception_message(e))));
  } catch (...) {
    fx::fail("unexpected error that is not a std::exception (a bug; please report it)");
  }
}
