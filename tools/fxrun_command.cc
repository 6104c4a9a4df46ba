// Copyright 2026 The FX for C++ Authors.
#include "tools/fxrun_command.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <utility>

#include <ATen/Parallel.h>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "distributed/local_launcher.h"
#include "distributed/world.h"
#include "exported_program/writer.h"
#include "fx/input_file.h"
#include "fx/installation.h"
#include "plugins/plugin_loader.h"
#include "plugins/registry.h"
#include "runtime/torchscript/torchscript_save.h"
#include "tools/bazel_runfiles.h"
#include "tools/fxrun_text.h"
#include "tools/graph_dot.h"
#include "tools/graph_file.h"
#include "tools/graphviz.h"
#include "tools/torchscript/module_state.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

// How the inputs checked against outputs name standard input (its file,
// when it is one: same_file follows the link).
constexpr char kStandardInput[] = "/proc/self/fd/0";

// The payload of a pipeline rank's status whose failure a peer caused.
constexpr char kPeerFailedPayload[] = "fx.fxrun/peer_failed";

std::string dashed(absl::string_view flag) { return absl::StrReplaceAll(flag, {{"_", "-"}}); }

absl::Status invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

// `status`'s message after `prefix`, its code kept.
absl::Status prefixed(absl::string_view prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
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
absl::Status load_builtin_plugins(const std::string& runfiles) {
  if (!installed_plugin_directory()) {
    const std::string manifest = bazel_runfile(runfiles, "tools/fxrun_plugins.txt");
    std::ifstream in(manifest);
    if (manifest.empty() || !in) {
      return absl::NotFoundError(absl::StrCat(
          "fxrun finds its in-tree plugins in ", path_for_message(program_directory()),
          "/../lib/fx/plugins (a release, a CMake build) or in Bazel's runfiles (bazel run "
          "//tools:fxrun), and found neither; give --builtin-plugins=false and --plugin=..."));
    }
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      auto loaded = load_plugin(bazel_runfile(runfiles, line));
      if (!loaded.ok()) return loaded.status();
    }
  }
  return load_installed_plugins(Registry::global());
}

// --emit=dot|svg|png: the graph (or the part --emit-scope names) as a
// picture, drawn by settings.dot_program for svg and png.
absl::StatusOr<std::string> picture(const Graph& graph, const FxrunSettings& settings,
                                    FxrunStreams& streams) {
  DotOptions options;
  options.scope = settings.emit_scope;
  auto dot = graph_to_dot(graph, options);
  if (!dot.ok()) return prefixed("--emit-scope: ", dot.status());
  if (settings.emit == "dot") return dot;
  auto rendered = render_with_graphviz(settings.dot_program, *dot, settings.emit);
  if (!rendered.ok()) return prefixed(absl::StrCat("--emit=", settings.emit, ": "), rendered.status());
  for (const std::string& w : rendered->warnings) warn(streams, absl::StrCat("Graphviz's dot: ", w));
  return std::move(rendered->output);
}

// --save: the graph as a torch.export program or a TorchScript module.
absl::Status save(const FxrunSettings& settings, const FxrunModel& model, OutputFile& saved,
                  FxrunStreams& streams) {
  if (settings.save_program) {
    exported::WriteOptions write_options = settings.write_options;
    // torch.export.save names the archive's top folder after the file.
    absl::string_view file_name = saved.path();
    file_name = file_name.substr(file_name.rfind('/') + 1);
    write_options.archive_name = std::string(absl::StripSuffix(file_name, ".pt2"));
    if (model.program() != nullptr) write_options.example_inputs = model.program()->example_inputs;
    auto bytes = exported::write_program(model.gm, write_options);
    if (!bytes.ok()) return prefixed("--save: ", bytes.status());
    saved.stream() << *bytes;
    streams.err << "fxrun: --save writes " << saved.path() << " as "
                << exported::describe_layout(exported::chosen_layout(model.gm, write_options))
                << "\n";
    return absl::OkStatus();
  }
  return write_torchscript(model.gm, saved.stream());
}

// The graph traced from the model, or read from --graph.
absl::StatusOr<GraphModule> trace_or_read_graph(const FxrunSettings& settings,
                                                const FxrunFiles& files, const ModelFile& file,
                                                const std::string& shown, FxrunStreams& streams) {
  const exported::LoadedProgram* program = file.program ? &*file.program : nullptr;
  Tracer tracer;
  if (absl::Status s = configure_tracer(tracer, settings.tracer); !s.ok()) return s;
  auto trace_model = [&]() -> absl::StatusOr<GraphModule> {
    try {
      return program != nullptr ? tracer.trace(*program) : tracer.trace(*file.torchscript);
    } catch (const std::exception& e) {  // a tracer extension's, described (plugins/plugin_guard.h)
      return absl::InvalidArgumentError(e.what());
    }
  };
  if (!settings.given("graph")) {
    absl::StatusOr<GraphModule> gm = trace_model();
    for (const std::string& w : tracer.warnings()) warn(streams, w);
    if (!gm.ok()) {
      return prefixed(absl::StrCat(program != nullptr ? "cannot read " : "cannot trace ", shown, ": "),
                      gm.status());
    }
    return gm;
  }
  auto text = read_regular_file(files.graph, "--graph");
  if (!text.ok()) return text.status();
  if (text->empty()) {
    return invalid(absl::StrCat("--graph ", path_for_message(files.graph),
                                " is empty; give a graph file written by fxrun --emit=json"));
  }
  std::shared_ptr<Module> root;
  if (program != nullptr) {  // the module tree the program's graph refers to
    auto read = trace_model();
    if (!read.ok()) return prefixed(absl::StrCat("cannot read ", shown, ": "), read.status());
    root = read->shared_root();
  } else {
    // In the tracer's mode.
    auto state = torchscript_module_state(*file.torchscript, settings.tracer.training);
    if (!state.ok()) return prefixed(absl::StrCat("cannot read ", shown, ": "), state.status());
    root = *std::move(state);
  }
  return read_graph_file(*text, std::move(root), files.graph);
}

// A message line (newline included) to streams.err; on the process's
// standard error, in one write(2) (FxrunStreams::err_is_stderr).
void write_message_line(FxrunStreams& streams, const std::string& line) {
  if (!streams.err_is_stderr) {
    streams.err << line;
    return;
  }
  streams.err.flush();
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

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

std::string error_line(absl::string_view message, const FxrunStreams& streams) {
  return absl::StrCat("fxrun: error: ", streams.message_prefix, one_line(message));
}

void warn(FxrunStreams& streams, absl::string_view message) {
  write_message_line(streams,
                     absl::StrCat("fxrun: warning: ", streams.message_prefix, one_line(message), "\n"));
}

void report_error(FxrunStreams& streams, absl::string_view message) {
  write_message_line(streams, absl::StrCat(error_line(message, streams), "\n"));
}

absl::Status rank_failure(absl::Status status) {
  const bool launched = std::getenv(kLaunchedVariable) != nullptr;
  if (launched && absl::IsUnavailable(status)) {
    status.SetPayload(kPeerFailedPayload, absl::Cord("a peer failed"));
  }
  return status;
}

int exit_status(const absl::Status& status) {
  if (status.ok()) return 0;
  return status.GetPayload(kPeerFailedPayload) ? kPeerFailedExitStatus : 1;
}

std::string model_path(const FxrunSettings& settings, const std::string& runfiles) {
  if (settings.given("model")) return user_path(settings.model);
  // The example of a source checkout (bazel run //tools:fxrun).
  // (Or a CMake build's; else none: an error once a model is needed, not for
  // --list-plugins.)
  std::string example = bazel_runfile(runfiles, "tools/models/resnet18.pt");
  if (example.empty()) example = installed_example_model().value_or("");
  return example;
}

absl::StatusOr<FxrunFiles> resolve_files(const FxrunSettings& settings, const std::string& runfiles) {
  FxrunFiles files;
  files.model = model_path(settings, runfiles);
  std::vector<std::string>& inputs = files.inputs;
  if (!files.model.empty()) inputs.push_back(files.model);
  const std::vector<std::string>& flagfiles = settings.command_line.flagfiles;
  inputs.insert(inputs.end(), flagfiles.begin(), flagfiles.end());
  for (const auto& [flag, value] : settings.command_line.occurrences) {
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      if (flag == "plugin") files.plugins.push_back(user_path(std::string(item)));
      if (flag == "op_library") files.op_libraries.push_back(user_path(std::string(item)));
    }
  }
  inputs.insert(inputs.end(), files.plugins.begin(), files.plugins.end());
  inputs.insert(inputs.end(), files.op_libraries.begin(), files.op_libraries.end());
  files.input = user_path(settings.input);
  if (settings.given("input")) inputs.push_back(files.input);
  // The model read from standard input is a file too (`--model=- < m.pt`):
  // an output naming it (/dev/stdin, a link to it, its own name) would
  // replace it.
  if (files.model == "-") inputs.push_back(kStandardInput);
  // The run --check of a program compares with (a .pt2 program's; known
  // once the model is read).
  if (settings.given("expected")) {
    if (settings.expected.empty()) {
      return invalid("--expected is empty (an unset variable?); give the file of a run PyTorch saved");
    }
    files.saved_run = user_path(settings.expected);
  } else if (settings.check && files.model != "-") {
    files.saved_run = saved_run_beside(files.model);
  }
  if (!files.saved_run.empty()) inputs.push_back(files.saved_run);
  files.graph = user_path(settings.graph);
  if (settings.given("graph")) inputs.push_back(files.graph);
  return files;
}

absl::StatusOr<FxrunOutputs> prepare_outputs(const FxrunSettings& settings, const FxrunFiles& files) {
  // An output file checked before the run: not one of the inputs.
  auto prepare = [&](const char* flag, const std::string& path) -> absl::StatusOr<OutputFile> {
    auto prepared = OutputFile::prepare(user_path(path), absl::StrCat("--", flag));
    if (!prepared.ok()) return prepared.status();
    for (const std::string& input : files.inputs) {
      if (same_file(prepared->path(), input)) {
        return invalid(absl::StrCat(
            "--", flag, " ", path_for_message(prepared->path()), " is one of the inputs (",
            input == kStandardInput ? "standard input, the model" : path_for_message(input),
            "); writing it would destroy it: give another --", flag));
      }
    }
    return prepared;
  };
  FxrunOutputs outputs;
  if (settings.given("output")) {
    auto output = prepare("output", settings.output);
    if (!output.ok()) return output.status();
    outputs.output.emplace(*std::move(output));
  }
  if (settings.given("save")) {
    auto saved = prepare("save", settings.save);
    if (!saved.ok()) return saved.status();
    outputs.saved.emplace(*std::move(saved));
    const OutputFile* output = outputs.output ? &*outputs.output : nullptr;
    if (output && (output->path() == outputs.saved->path() ||
                   same_file(output->path(), outputs.saved->path()))) {
      return invalid("--output and --save name the same file; give two files");
    }
  }
  return outputs;
}

absl::Status commit_outputs(FxrunOutputs& outputs, std::ostream& standard_output) {
  // Every file is written in full before any replaces its target: a run
  // whose second output fails (a full disk) leaves the first target as it was.
  std::vector<OutputFile*> files;
  if (outputs.saved) files.push_back(&*outputs.saved);
  if (outputs.output) files.push_back(&*outputs.output);
  if (absl::Status s = commit_all(files); !s.ok()) return s;
  if (!outputs.output) {
    standard_output.flush();
    if (!standard_output) return absl::DataLossError("writing to standard output failed");
  }
  return absl::OkStatus();
}

absl::Status load_libraries(const FxrunSettings& settings, const FxrunFiles& files,
                            const std::string& runfiles) {
  for (const std::string& library : files.op_libraries) {
    if (absl::Status s = check_shared_library_size(library, "--op-library"); !s.ok()) return s;
    if (absl::Status s = load_operator_library(library, "--op-library"); !s.ok()) return s;
  }
  if (settings.builtin_plugins) {
    if (absl::Status s = load_builtin_plugins(runfiles); !s.ok()) return s;
  }
  for (const std::string& path : files.plugins) {
    auto loaded = load_plugin(path);
    if (!loaded.ok()) return loaded.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<PassManager> make_pass_manager(const FxrunSettings& settings, int stages,
                                              std::ostream& out, std::ostream& standard_output) {
  PassManagerOptions options;
  options.verify_each = settings.verify_each;
  options.time_passes = settings.time_passes;
  const double limit = settings.pass_timeout;
  if (!(limit >= 0) || limit > 7 * 24 * 3600) {
    return invalid("--pass-timeout takes the seconds one pass may run, 0 for no limit (a week at most)");
  }
  if (limit > 0) options.pass_time_limit = absl::Seconds(limit);
  options.time_limit_hint = "--pass-timeout sets the limit";
  options.print_after = settings.print_after;
  options.print_after_all = settings.print_after_all;
  const std::string dump_format =
      settings.print == "none" || settings.print == "tabular" ? "graph" : settings.print;
  options.printer = [&out, dump_format](const std::string& pass, const GraphModule& gm) {
    out << "*** IR Dump After " << pass << " ***\n" << render(gm, dump_format);
  };
  const std::string passes = stages > 0 ? passes_with_split(settings.passes, stages) : settings.passes;
  auto pm = PassManager::create(passes, Registry::global(), options);
  if (!pm.ok()) return pm.status();
  if (settings.print_pipeline) standard_output << pm->pipeline_text() << "\n";
  return pm;
}

absl::StatusOr<FxrunModel> read_model(const FxrunSettings& settings, const FxrunFiles& files,
                                      FxrunStreams& streams) {
  if (files.model.empty()) {
    return absl::NotFoundError(
        "no --model given: give a TorchScript .pt or a torch.export .pt2 file (the example ResNet-18 "
        "is traced without one only in a source checkout: bazel run //tools:fxrun, or a CMake build)");
  }
  const std::string shown =
      files.model == "-" ? std::string("the model") : path_for_message(files.model);
  auto file = load_model_file(files.model, ModelFileNames{"--model", "--op-library=PATH"});
  if (!file.ok()) return file.status();
  if (file->program) {
    for (const std::string& w : file->program->warnings) warn(streams, w);
    // A program is a graph already: nothing of TorchScript's tracing applies.
    for (const char* flag : {"leaf_functions", "trace_through", "concrete_args", "assertions",
                             "training"}) {
      if (settings.given(flag)) {
        return invalid(absl::StrCat("--", dashed(flag), " is for tracing TorchScript, and ", shown,
                                    " is a torch.export program, a graph already: leave it out"));
      }
    }
  } else if (settings.given("expected")) {
    return invalid(absl::StrCat("--expected is for --check of a torch.export program; ", shown,
                                " is TorchScript, which --check runs itself: leave it out"));
  }
  auto gm = trace_or_read_graph(settings, files, *file, shown, streams);
  if (!gm.ok()) return gm.status();
  return FxrunModel{shown, *std::move(file), *std::move(gm), std::nullopt};
}

absl::Status prepare_run(const FxrunSettings& settings, const FxrunFiles& files, FxrunModel& model) {
  // A program's --check compares with a run PyTorch saved, on its inputs.
  if (model.program() != nullptr && settings.check) {
    if (!settings.given("expected") && (files.model == "-" || !std::ifstream(files.saved_run))) {
      return absl::NotFoundError(absl::StrCat(
          "--check of a torch.export program compares with a run PyTorch saved (this libtorch "
          "cannot run the program itself): give --expected=FILE, written in Python by "
          "torch.save({'inputs': args, 'outputs': torch.utils._pytree.tree_leaves(ep.module()(*args))}, "
          "FILE)",
          files.model == "-" ? "" : absl::StrCat(", or put it at ", path_for_message(files.saved_run))));
    }
    if (settings.example_inputs) {
      return invalid(
          "--check of a torch.export program runs the inputs saved with the outputs it compares "
          "with (--expected): leave out --input and --input-shape");
    }
    auto read = read_saved_run(files.saved_run, "--expected");
    if (!read.ok()) return read.status();
    model.saved_run = *std::move(read);
  }
  const bool inputs_from_program = model.program() != nullptr && !settings.example_inputs;
  if (settings.run && !settings.example_inputs && !inputs_from_program && settings.given("model")) {
    std::vector<std::string> placeholders;
    for (const Node* n : model.gm.graph().nodes()) {
      if (n->op() == Op::kPlaceholder) placeholders.push_back(n->name());
    }
    if (!placeholders.empty()) {
      return invalid(absl::StrCat("--run needs inputs for forward's ", absl::StrJoin(placeholders, ", "),
                                  ": --input-shape=1,3,224,224 (one shape per placeholder, ';' "
                                  "between) or --input=FILE (saved with torch.save)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<c10::IValue>> program_inputs(const FxrunModel& model,
                                                        const c10::Device& device) {
  if (!model.saved_run) {
    return program_example_inputs(*model.program(), model.gm.graph(), device,
                                  "give --input=FILE (saved with torch.save) or --input-shape=SHAPES");
  }
  return to_device(model.saved_run->inputs, device);
}

absl::Status run_passes(const FxrunSettings& settings, PassManager& pm, FxrunModel& model,
                        FxrunStreams& streams) {
  // Before the passes: mkldnn_fusion packs weights for the kernels oneDNN
  // picks at this thread count (packed at two threads and run at one,
  // ResNet-50 reordered six weights at every run: 2.5x slower).
  if (settings.threads > 0) at::set_num_threads(settings.threads);
  PassContext context(Registry::global());
  if (settings.example_inputs) {  // on the CPU, where passes run graphs
    const c10::Device cpu(c10::kCPU);
    absl::StatusOr<std::vector<c10::IValue>> inputs =
        settings.given("input") ? read_inputs(user_path(settings.input), cpu)
                                : random_inputs(settings.input_shapes, cpu);
    if (!inputs.ok()) return inputs.status();
    context.set_example_inputs(*std::move(inputs));
  } else if (model.program() != nullptr) {  // when it has them
    auto inputs = program_inputs(model, c10::Device(c10::kCPU));
    if (inputs.ok()) context.set_example_inputs(*std::move(inputs));
  }
  absl::Status ran = pm.run(model.gm, context);
  for (const std::string& w : context.warnings()) warn(streams, w);
  if (!ran.ok()) return ran;
  if (settings.example_inputs && !settings.run && !context.example_inputs_read()) {
    warn(streams, absl::StrCat(settings.given("input") ? "--input" : "--input-shape",
                               " was not used: no pass in --passes runs the graph (shape_prop "
                               "does), and --run was not given"));
  }
  if (settings.time_passes) streams.err << pm.timing_report();
  return absl::OkStatus();
}

absl::Status write_results(const FxrunSettings& settings, const FxrunModel& model,
                           FxrunOutputs& outputs, bool print_graph, std::ostream& out,
                           FxrunStreams& streams) {
  if (outputs.saved) {
    if (absl::Status s = save(settings, model, *outputs.saved, streams); !s.ok()) return s;
  }
  if (settings.emit == "json") {
    auto text = graph_file_text(model.gm);
    if (!text.ok()) return prefixed("--emit=json: ", text.status());
    out << *text;
  } else if (settings.emit_picture) {
    auto drawn = picture(model.gm.graph(), settings, streams);
    if (!drawn.ok()) return drawn.status();
    out << *drawn;
  } else if (print_graph) {
    out << render(model.gm, settings.print);
  }
  return absl::OkStatus();
}

absl::Status run_and_check(const FxrunSettings& settings, const FxrunFiles& files,
                           const FxrunModel& model, PipelineRank* rank, std::ostream& out,
                           FxrunStreams& streams) {
  const RunOptions& options = settings.run_options;
  if (settings.threads > 0) at::set_num_threads(settings.threads);
  const bool inputs_from_program = model.program() != nullptr && !settings.example_inputs;
  absl::StatusOr<std::vector<c10::IValue>> inputs =
      settings.given("input") ? read_inputs(files.input, options.device)
      : inputs_from_program   ? program_inputs(model, options.device)
                              : random_inputs(settings.input_shapes, options.device);
  if (!inputs.ok()) return inputs.status();
  std::optional<CheckReference> reference;
  if (model.saved_run) {
    reference = saved_run_reference(
        *model.saved_run, absl::StrCat("PyTorch's run saved in ", path_for_message(files.saved_run)));
  } else if (settings.check && (rank == nullptr || rank->world().is_last())) {
    auto module = module_reference(*model.file.torchscript, options.device);
    if (!module.ok()) return module.status();
    reference = *std::move(module);
    // Say what was compared: with no pass, the difference is the trace's.
    reference->culprit =
        settings.passes.empty()
            ? "no pass ran, so the graph as traced computes other values than the model (please "
              "report it with the model)"
            : absl::StrCat("a pass of --passes=", quote_for_message(settings.passes),
                           " changed what the model computes (--check with fewer passes finds which)");
  }
  const CheckReference* checked = reference ? &*reference : nullptr;
  auto report = rank != nullptr ? rank->run(model.gm, *inputs, options, checked)
                                : run_graph(model.gm, *inputs, options, checked);
  if (!report.ok()) return rank != nullptr ? rank_failure(report.status()) : report.status();
  // The run's report goes under what was printed; with --emit it would break
  // the machine format, so it goes to stderr then.
  (settings.emit.empty() ? out : streams.err) << *report;
  return absl::OkStatus();
}

absl::Status run_fxrun(const std::vector<std::string>& argv, FxrunStreams& streams) {
  auto command_line = parse_fxrun_flags(argv);
  if (!command_line.ok()) return command_line.status();
  if (command_line->help) {
    print_help(streams.out);
    return absl::OkStatus();
  }
  auto settings = settings_from_flags(*std::move(command_line), streams.out_is_terminal);
  if (!settings.ok()) return settings.status();
  const std::string runfiles = bazel_runfiles_directory();

  // --stages: start the pipeline's processes here, or be one of them.
  std::unique_ptr<PipelineRank> rank;
  if (settings->given("stages") && !started_as_rank(settings->pipeline.world, process_environment())) {
    return launch_local_pipeline(
        settings->pipeline, argv,
        runfiles.empty() ? std::vector<std::pair<std::string, std::string>>{}
                         : std::vector<std::pair<std::string, std::string>>{{"RUNFILES_DIR", runfiles}},
        model_path(*settings, runfiles));
  } else if (settings->given("stages")) {
    auto joined = PipelineRank::join(settings->pipeline);
    if (!joined.ok()) return rank_failure(joined.status());
    rank = *std::move(joined);
    streams.message_prefix = absl::StrCat("rank ", rank->world().rank, ": ");
  }

  auto files = resolve_files(*settings, runfiles);
  if (!files.ok()) return files.status();
  // Kept in place: `out` may be its --output's stream.
  absl::StatusOr<FxrunOutputs> outputs = prepare_outputs(*settings, *files);
  if (!outputs.ok()) return outputs.status();
  std::ostream& out = outputs->stream(streams.out);

  if (absl::Status s = load_libraries(*settings, *files, runfiles); !s.ok()) return s;
  if (settings->list_plugins) {
    list_plugins(out);
    return commit_outputs(*outputs, streams.out);
  }
  auto pm = make_pass_manager(*settings, rank ? settings->pipeline.stages : 0, out, streams.out);
  if (!pm.ok()) return pm.status();
  auto model = read_model(*settings, *files, streams);
  if (!model.ok()) return model.status();
  if (absl::Status s = prepare_run(*settings, *files, *model); !s.ok()) return s;
  if (absl::Status s = run_passes(*settings, *pm, *model, streams); !s.ok()) return s;
  const bool print_graph = rank == nullptr || rank->world().is_last();
  if (absl::Status s = write_results(*settings, *model, *outputs, print_graph, out, streams); !s.ok()) {
    return s;
  }
  if (settings->run) {
    if (absl::Status s = run_and_check(*settings, *files, *model, rank.get(), out, streams); !s.ok()) {
      return s;
    }
  }
  return commit_outputs(*outputs, streams.out);
}

}  // namespace fx
