// Copyright 2026 The FX for C++ Authors.
//
// fxrun: trace a TorchScript model, run a pass pipeline over it, print or
// emit the result. The command-line driver of FX for C++.
//
//   bazel run //tools:fxrun                       # ResNet-18, module paths, as a table
//   bazel run //tools:fxrun -- --model=m.pt --tracer=module_path,tagging{tag=bar}
//       --passes='inline{modules=relu},dce' --print=code
//   bazel run //tools:fxrun -- --emit=json --output=/tmp/graph.json
//   bazel run //tools:fxrun -- --graph=/tmp/graph.json --passes=dce --save=/tmp/resnet18_fx.pt
//   bazel run //tools:fxrun -- --emit=png --emit-scope=layer1.0 --output=/tmp/block.png
//   bazel run //tools:fxrun -- --plugin=/path/libmy_plugin.so --list-plugins
//
// The in-tree plugins (tracer extensions and passes) are loaded from fxrun's
// runfiles exactly as --plugin loads out-of-tree ones. Flags may be spelled
// with dashes or underscores (--time-passes, --time_passes). Every bad input
// is a one-line error on stderr and exit status 1.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
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
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "passes/pass_manager.h"
#include "plugins/pipeline_text.h"
#include "plugins/plugin_guard.h"
#include "plugins/plugin_loader.h"
#include "plugins/registry.h"
#include "tools/cpp/runfiles/runfiles.h"
#include "tools/command_line.h"
#include "tools/graph_dot.h"
#include "tools/graphviz.h"
#include "tools/graph_file.h"
#include "tools/input_file.h"
#include "tools/model_file.h"
#include "tools/output_file.h"
#include "tools/run_model.h"
#include "runtime/devices.h"
#include "runtime/operator_binding.h"
#include "runtime/torchscript_export.h"
#include "tracer/tracer.h"

ABSL_FLAG(std::string, model, "",
          "TorchScript model (.pt) to trace, or - to read it from standard input; default: the "
          "bundled ResNet-18");
ABSL_FLAG(std::string, tracer, "module_path",
          "tracer extensions, in order, with options: module_path,tagging{tag=bar}");
ABSL_FLAG(std::string, passes, "", "pass pipeline: inline{modules=relu},dce,invert");
ABSL_FLAG(std::vector<std::string>, plugin, {},
          "plugin shared library to load (repeatable, or comma-separated)");
ABSL_FLAG(std::vector<std::string>, op_library, {},
          "library of custom operators to load before the model (repeatable), e.g. "
          "torchvision's _C extension for torchvision::nms");
ABSL_FLAG(bool, builtin_plugins, true, "load the in-tree plugins from fxrun's runfiles");
ABSL_FLAG(bool, list_plugins, false,
          "list every plugin, tracer extension and pass, with options, and exit");
ABSL_FLAG(std::string, print, "tabular", "what to print: graph, tabular, code or none");
ABSL_FLAG(std::string, emit, "",
          "emit the graph in another format instead: json, or a picture: dot (Graphviz's text), "
          "svg or png (rendered by Graphviz's dot program)");
ABSL_FLAG(std::string, emit_scope, "",
          "with --emit=dot|svg|png: draw only the nodes at or under this module path (layer1.0), "
          "with their neighbours outside it as small boundary nodes");
ABSL_FLAG(std::string, output, "", "write the printed or emitted result to this file");
ABSL_FLAG(std::string, save, "",
          "export the final graph as a TorchScript module to this .pt file (torch.jit.load and "
          "torch::jit::load read it)");
ABSL_FLAG(std::string, graph, "",
          "read the graph from this file (written by --emit=json) instead of tracing; its "
          "parameters and submodules come from --model");
ABSL_FLAG(bool, verify_each, true, "lint the graph after every pass");
ABSL_FLAG(bool, time_passes, false, "report the wall time of every pass (on stderr)");
ABSL_FLAG(std::vector<std::string>, print_after, {}, "print the graph after these passes");
ABSL_FLAG(bool, print_after_all, false, "print the graph after every pass");
ABSL_FLAG(bool, print_pipeline, false, "print the parsed pass pipeline (on stdout) first");
ABSL_FLAG(bool, training, false, "trace in training mode (default: eval mode)");
ABSL_FLAG(std::string, assertions, "keep",
          "input checks that only raise: keep (torch._assert nodes) or drop");
ABSL_FLAG(std::vector<std::string>, leaf_functions, {},
          "TorchScript functions to keep as call_function nodes (torch.fx's wrap)");
ABSL_FLAG(std::vector<std::string>, trace_through, {},
          "functions of torch's API to trace through instead of recording whole, by name or "
          "module: torch.nn.functional.interpolate,torch.functional");
ABSL_FLAG(bool, run, false, "run the final graph with its execution plan and print its outputs");
ABSL_FLAG(std::string, device, "cpu", "device to run on: cpu, cuda, cuda:N (or meta: shapes only)");
ABSL_FLAG(std::string, input_shape, "",
          "random inputs of these shapes, one per placeholder, ';' between: 1,3,224,224 or "
          "long:4,8; for --run and for passes that run the graph (shape_prop)");
ABSL_FLAG(std::string, input, "",
          "inputs from a file saved with torch.save, or a TorchScript module of buffers; for "
          "--run and for passes that run the graph (shape_prop)");
ABSL_FLAG(bool, check, false,
          "also run the original TorchScript module on the same inputs and fail beyond "
          "--atol/--rtol (implies --run)");
ABSL_FLAG(double, atol, 1e-5, "absolute tolerance of --check");
ABSL_FLAG(double, rtol, 1e-4, "relative tolerance of --check");
ABSL_FLAG(int32_t, repeat, 1, "timed runs (implies --run); latency median/min/max");
ABSL_FLAG(int32_t, warmup, 0, "untimed runs before the timed ones");
ABSL_FLAG(int32_t, threads, 0, "intra-op threads for --run (0: libtorch's default)");
ABSL_FLAG(std::vector<std::string>, concrete_args, {},
          "fix forward's arguments while tracing (torch.fx's concrete_args): "
          "name=value,... with True, False, None, numbers or strings");

namespace fx {
namespace {

using Runfiles = bazel::tools::cpp::runfiles::Runfiles;

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

[[noreturn]] void fail(absl::string_view message) {
  std::cerr << "fxrun: error: " << one_line(message) << "\n";
  std::exit(1);
}

void warn(absl::string_view message) { std::cerr << "fxrun: warning: " << one_line(message) << "\n"; }

// A path the user typed: under `bazel run` the working directory is the
// runfiles tree, so relative paths are taken from where bazel was run.
std::string user_path(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr) return path;
  return absl::StrCat(cwd, "/", path);
}

std::string find_runfile(const Runfiles* runfiles, const std::string& path) {
  if (runfiles == nullptr) return "";
  return runfiles->Rlocation(absl::StrCat("fx_cpp/", path));
}

void load_builtin_plugins(const Runfiles* runfiles) {
  const std::string manifest = find_runfile(runfiles, "tools/fxrun_plugins.txt");
  std::ifstream in(manifest);
  if (manifest.empty() || !in) {
    fail("the in-tree plugin list is missing from fxrun's runfiles; run fxrun with `bazel run "
         "//tools:fxrun`, or pass --builtin_plugins=false and --plugin=...");
  }
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto loaded = load_plugin(find_runfile(runfiles, line));
    if (!loaded.ok()) fail(loaded.status().message());
  }
}

void list_plugins(std::ostream& out) {
  const Registry& registry = Registry::global();
  // One entry: name, description, plugin, then its options one per line.
  auto describe = [&out](const ComponentInfo& c) {
    out << "  " << c.name << "  " << c.description << "  [plugin " << c.plugin.name << "]";
    for (const OptionSpec& o : c.options) {
      out << "\n      " << o.name << "=" << (o.default_value.empty() ? "..." : o.default_value)
          << "  " << o.description << " (" << o.type << ")";
    }
    out << "\n";
  };
  out << "Plugins:\n";
  for (const PluginRecord& p : registry.plugins()) {
    out << "  " << p.name << " " << p.version << "  " << p.path << "\n";
  }
  out << "\nTracer extensions (--tracer=NAME{option=value ...},...):\n";
  for (const TracerExtensionInfo& e : registry.tracer_extensions()) describe(e);
  out << "\nPasses (--passes=NAME{option=value ...},...):\n";
  for (const PassInfo& p : registry.passes()) describe(p);
}

// A value as Python would read it: True, False, None, an int, a float, a
// quoted string; anything else is a string as written.
Argument python_literal(const std::string& text) {
  if (text == "True" || text == "true") return true;
  if (text == "False" || text == "false") return false;
  if (text == "None") return Argument();
  int64_t i = 0;
  if (absl::SimpleAtoi(text, &i)) return i;
  double d = 0;
  if (absl::SimpleAtod(text, &d)) return d;
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

void configure_tracer(Tracer& tracer) {
  TraceOptions& options = tracer.mutable_options();
  options.training = absl::GetFlag(FLAGS_training);
  const std::string assertions = absl::GetFlag(FLAGS_assertions);
  if (assertions == "drop") {
    options.assertions = AssertionMode::kDrop;
  } else if (assertions != "keep") {
    fail(absl::StrCat("--assertions takes keep or drop, not '", assertions, "'"));
  }
  options.leaf_functions = absl::GetFlag(FLAGS_leaf_functions);
  options.trace_through_functions = absl::GetFlag(FLAGS_trace_through);
  for (const std::string& item : absl::GetFlag(FLAGS_concrete_args)) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      fail(absl::StrCat("--concrete-args takes name=value pairs, not ", quote_for_message(item)));
    }
    options.concrete_args.emplace_back(item.substr(0, eq), python_literal(item.substr(eq + 1)));
  }
  auto elements = parse_pipeline(absl::GetFlag(FLAGS_tracer));
  if (!elements.ok()) fail(absl::StrCat("--tracer: ", elements.status().message()));
  for (const PipelineElement& e : *elements) {
    auto extension = Registry::global().make_tracer_extension(e);
    if (!extension.ok()) fail(extension.status().message());
    tracer.add_extension(*extension);
  }
}

// The keys a tracer or pass left in node meta, in first-seen order, for the
// table's extra columns (bookkeeping keys, starting with '_', left out);
// shape_prop's tensor_meta, last, as its shape and dtype.
std::vector<std::string> meta_columns(const Graph& graph) {
  std::vector<std::string> keys;
  bool tensor_meta = false;
  for (const Node* n : graph.nodes()) {
    for (const auto& [key, value] : n->meta()) {
      if (key == kTensorMetaKey) {
        tensor_meta = true;
      } else if (!absl::StartsWith(key, "_") &&
                 std::find(keys.begin(), keys.end(), key) == keys.end()) {
        keys.push_back(key);
      }
    }
  }
  if (tensor_meta) {
    for (const char* field : {"shape", "dtype"}) {
      keys.push_back(absl::StrCat(kTensorMetaKey, ".", field));
    }
  }
  return keys;
}

std::string render(const GraphModule& gm, const std::string& format) {
  if (format == "graph") return format_graph(gm.graph()) + "\n";
  if (format == "tabular") return format_tabular(gm.graph(), meta_columns(gm.graph())) + "\n";
  if (format == "code") return gm.code();
  return "";
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

// --help: every fxrun flag with its default, spelled as documented; exit 0.
void print_help() {
  std::cout << "fxrun: trace a TorchScript model, run passes over it, print or emit the graph.\n\n"
               "  fxrun [--model=M.pt] [--tracer=LIST] [--passes=PIPELINE] [--plugin=LIB.so]...\n\n"
               "Flags (dashes and underscores are interchangeable):\n";
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::EndsWith(flag->Filename(), "fxrun.cc")) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  for (const absl::CommandLineFlag* flag : flags) {
    std::cout << "  --" << absl::StrReplaceAll(flag->Name(), {{"_", "-"}}) << "  " << flag->Help();
    if (!flag->DefaultValue().empty()) std::cout << " (default: " << flag->DefaultValue() << ")";
    std::cout << "\n";
  }
}

int run(int argc, char** argv) {
  auto command_line = parse_command_line(argc, argv, FlagsOfFile{"tools/fxrun.cc"},
                                         {"plugin", "op_library", "leaf_functions",
                                          "trace_through", "concrete_args", "print_after"});
  if (!command_line.ok()) fail(command_line.status().message());
  if (command_line->help) {
    print_help();
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
  run_options.check = check;
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
  for (const char* flag : {"atol", "rtol"}) {
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
  std::string runfiles_error;
  std::unique_ptr<Runfiles> runfiles(Runfiles::Create(argv[0], &runfiles_error));
  std::string model_path = user_path(absl::GetFlag(FLAGS_model));
  if (!given("model")) {
    model_path = find_runfile(runfiles.get(), "tools/models/resnet18.pt");
    if (model_path.empty()) fail("no --model given and the bundled ResNet-18 is not in the runfiles");
  }
  std::vector<std::string> inputs = {model_path};
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
  const std::string graph_path = user_path(absl::GetFlag(FLAGS_graph));
  if (given("graph")) inputs.push_back(graph_path);
  // An output file checked before the run: not one of the inputs.
  auto prepare_output = [&](const char* flag, const std::string& path) {
    auto prepared = OutputFile::prepare(user_path(path), absl::StrCat("--", flag));
    if (!prepared.ok()) fail(prepared.status().message());
    for (const std::string& input : inputs) {
      if (same_file(prepared->path(), input)) {
        fail(absl::StrCat("--", flag, " ", path_for_message(prepared->path()),
                          " is one of the inputs (", path_for_message(input),
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
  auto finish = [&]() -> int {
    if (saved) {
      if (absl::Status s = saved->commit(); !s.ok()) fail(s.message());
    }
    if (output) {
      if (absl::Status s = output->commit(); !s.ok()) fail(s.message());
    } else {
      std::cout.flush();
      if (!std::cout) fail("writing to standard output failed");
    }
    return 0;
  };

  for (const std::string& library : op_libraries) {
    if (absl::Status s = check_shared_library_size(library, "--op-library"); !s.ok()) fail(s.message());
    if (absl::Status s = load_operator_library(library); !s.ok()) fail(s.message());
  }
  if (absl::GetFlag(FLAGS_builtin_plugins)) load_builtin_plugins(runfiles.get());
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
  pm_options.print_after = absl::GetFlag(FLAGS_print_after);
  pm_options.print_after_all = absl::GetFlag(FLAGS_print_after_all);
  const std::string dump_format = print == "none" || print == "tabular" ? "graph" : print;
  pm_options.printer = [&out, dump_format](const std::string& pass, const GraphModule& gm) {
    out << "*** IR Dump After " << pass << " ***\n" << render(gm, dump_format);
  };
  auto pm = PassManager::create(absl::GetFlag(FLAGS_passes), Registry::global(), pm_options);
  if (!pm.ok()) fail(pm.status().message());
  if (absl::GetFlag(FLAGS_print_pipeline)) std::cout << pm->pipeline_text() << "\n";

  auto model = load_model(model_path);
  if (!model.ok()) fail(model.status().message());
  absl::StatusOr<GraphModule> gm = absl::UnknownError("no graph");
  if (given("graph")) {
    auto text = read_regular_file(graph_path, "--graph");
    if (!text.ok()) fail(text.status().message());
    if (text->empty()) {
      fail(absl::StrCat("--graph ", path_for_message(graph_path),
                        " is empty; give a graph file written by fxrun --emit=json"));
    }
    if (absl::GetFlag(FLAGS_training) != model->is_training()) {
      model->train(absl::GetFlag(FLAGS_training));
    }
    gm = read_graph_file(*text, *model, graph_path);
    if (!gm.ok()) fail(gm.status().message());
  } else {
    Tracer tracer;
    configure_tracer(tracer);
    try {
      gm = tracer.trace(*model);
    } catch (const std::exception& e) {  // a tracer extension's, described (plugins/plugin_guard.h)
      fail(absl::StrCat("cannot trace ", model_path == "-" ? "the model" : path_for_message(model_path),
                        ": ", e.what()));
    }
    for (const std::string& w : tracer.warnings()) warn(w);
    if (!gm.ok()) {
      fail(absl::StrCat("cannot trace ",
                        model_path == "-" ? "the model" : path_for_message(model_path), ": ",
                        gm.status().message()));
    }
  }

  if (run_graph_too && !example_inputs && given("model")) {
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

  if (saved) {
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
    out << render(*gm, print);
  }
  if (run_graph_too) {
    if (absl::GetFlag(FLAGS_threads) > 0) at::set_num_threads(absl::GetFlag(FLAGS_threads));
    absl::StatusOr<std::vector<c10::IValue>> run_inputs =
        given("input") ? read_inputs(user_path(absl::GetFlag(FLAGS_input)), run_options.device)
                       : random_inputs(input_shapes, run_options.device);
    if (!run_inputs.ok()) fail(run_inputs.status().message());
    auto report = run_graph(*gm, *model, *run_inputs, run_options);
    if (!report.ok()) fail(report.status().message());
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
