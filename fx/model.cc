// Copyright 2026 The FX for C++ Authors.
#include "fx/model.h"

#include <ATen/core/grad_mode.h>
#include <c10/core/InferenceMode.h>

#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "exported_program/writer.h"
#include "fx/builtin_plugins.h"
#include "fx/model_file.h"
#include "fx/model_values.h"
#include "fx/output_file.h"
#include "plugins/registry.h"
#include "runtime/torchscript/torchscript_save.h"

namespace fx {

struct Model::Source {
  // An empty Source that graph() or graph_module() gave a moved-from Model:
  // every method that returns a status still refuses.
  bool moved_from = false;
  ModelFormat format = ModelFormat::kTorchScript;
  std::optional<GraphModule> module;
  // A torch.export program's reading: its example inputs, how they failed.
  std::optional<exported::LoadedProgram> program;
  std::vector<std::string> warnings;
  // set_run_options(): the options, and the plan compiled with them for the
  // module's version `plan_version` (recompiled by run() after a change).
  // Unset, run() calls the module (GraphModule::forward, its CPU plan).
  struct CustomPlan {
    PlanOptions options;
    std::shared_ptr<const ExecutionPlan> plan;
    // The module's version and graph the plan was compiled from (a pass may
    // replace the GraphModule, whose counters then start again).
    uint64_t plan_version = 0;
    const Graph* graph = nullptr;
  };
  mutable std::mutex plan_mutex;
  std::optional<CustomPlan> custom_plan;
};

Model::Model(std::unique_ptr<Source> source) : source_(std::move(source)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

absl::StatusOr<Model> Model::load(const std::string& path) {
  Tracer tracer;
  return load(path, tracer);
}

absl::StatusOr<Model> Model::load(const std::string& path, Tracer& tracer) {
  auto file = load_model_file(path);
  if (!file.ok()) return file.status();
  return traced(*std::move(file), path == "-" ? std::string("the model") : path_for_message(path),
                tracer);
}

absl::StatusOr<Model> Model::load_from_bytes(std::string bytes) {
  Tracer tracer;
  return load_from_bytes(std::move(bytes), tracer);
}

absl::StatusOr<Model> Model::load_from_bytes(std::string bytes, Tracer& tracer) {
  auto file = model_file_from_bytes(std::move(bytes), "from memory");
  if (!file.ok()) return file.status();
  return traced(*std::move(file), "the model read from memory", tracer);
}

absl::StatusOr<Model> Model::traced(ModelFile file, const std::string& shown, Tracer& tracer) {
  auto source = std::make_unique<Source>();
  const size_t warnings_before = tracer.warnings().size();
  absl::StatusOr<GraphModule> traced = absl::UnknownError("not traced");
  try {
    if (file.program) {
      source->format = ModelFormat::kExportedProgram;
      source->warnings = file.program->warnings;
      traced = tracer.trace(*file.program);
    } else {
      traced = tracer.trace(*file.torchscript);
    }
  } catch (const std::exception& e) {  // a tracer extension's (plugins/plugin_guard.h)
    traced = absl::InvalidArgumentError(first_line_of(e.what()));
  }
  for (size_t i = warnings_before; i < tracer.warnings().size(); ++i) {
    source->warnings.push_back(tracer.warnings()[i]);
  }
  if (!traced.ok()) {
    return absl::Status(traced.status().code(),
                        absl::StrCat(file.program ? "cannot read " : "cannot trace ", shown, ": ",
                                     traced.status().message()));
  }
  source->module.emplace(*std::move(traced));
  if (file.program) source->program = *std::move(file.program);
  return Model(std::move(source));
}

namespace {

absl::Status moved_from_error(absl::string_view method) {
  return absl::FailedPreconditionError(absl::StrCat(
      "fx::Model::", method, ": this Model was moved from (its graph and state went with the "
      "move); call the Model it was moved to, or assign a loaded one to this"));
}

// What the const accessors of a moved-from Model show: no nodes, no state.
const GraphModule& empty_graph_module() {
  static const GraphModule* const empty =
      new GraphModule(empty_module("MovedFromModel"), std::make_unique<Graph>());
  return *empty;
}

}  // namespace

bool Model::moved_from() const { return source_ == nullptr || source_->moved_from; }

GraphModule& Model::own_graph_module() {
  if (source_ == nullptr) {  // moved from: an empty graph of its own, not a shared one
    auto source = std::make_unique<Source>();
    source->moved_from = true;
    source->module.emplace(empty_module("MovedFromModel"), std::make_unique<Graph>());
    source_ = std::move(source);
  }
  return *source_->module;
}

ModelFormat Model::format() const {
  return source_ != nullptr ? source_->format : ModelFormat::kTorchScript;
}
Graph& Model::graph() { return own_graph_module().graph(); }
const Graph& Model::graph() const { return graph_module().graph(); }
GraphModule& Model::graph_module() { return own_graph_module(); }
const GraphModule& Model::graph_module() const {
  return source_ != nullptr ? *source_->module : empty_graph_module();
}
const std::vector<std::string>& Model::warnings() const {
  static const std::vector<std::string>* const none = new std::vector<std::string>();
  return source_ != nullptr ? source_->warnings : *none;
}

absl::Status Model::run_passes(absl::string_view pipeline) {
  if (moved_from()) return moved_from_error("run_passes");
  if (absl::Status s = register_builtin_plugins(Registry::global()); !s.ok()) return s;
  auto passes = PassManager::create(pipeline, Registry::global());
  if (!passes.ok()) return passes.status();
  return run_passes(*passes);
}

absl::Status Model::run_passes(PassManager& passes) {
  if (moved_from()) return moved_from_error("run_passes");
  PassContext context(Registry::global());
  // Passes that run the graph (shape_prop) get the program's own inputs.
  if (source_->program) {
    auto inputs = example_inputs();
    if (inputs.ok()) context.set_example_inputs(*std::move(inputs));
  }
  absl::Status ran = passes.run(*source_->module, context);
  for (const std::string& w : context.warnings()) source_->warnings.push_back(w);
  return ran;
}

absl::StatusOr<std::vector<c10::IValue>> Model::example_inputs() const {
  if (moved_from()) return moved_from_error("example_inputs");
  if (!source_->program) {
    return absl::FailedPreconditionError(
        "a TorchScript module keeps no example inputs (a torch.export program does): call "
        "run() on inputs of your own");
  }
  return program_example_inputs(*source_->program, source_->module->graph(), c10::Device(c10::kCPU));
}

namespace {

// Where an undefined tensor is in `value`: "" for `value` itself, "[1][0]"
// inside tuples, lists and dicts; nullopt when there is none.
std::optional<std::string> undefined_tensor_in(const c10::IValue& value) {
  if (value.isTensor()) {
    return value.toTensor().defined() ? std::nullopt : std::optional<std::string>("");
  }
  const auto inside = [](const std::string& index, const c10::IValue& element) {
    std::optional<std::string> at = undefined_tensor_in(element);
    return at ? std::optional<std::string>(absl::StrCat("[", index, "]", *at)) : std::nullopt;
  };
  if (value.isTuple() || value.isList()) {
    const std::vector<c10::IValue> elements =
        value.isTuple() ? value.toTupleRef().elements().vec() : value.toListRef().vec();
    for (size_t i = 0; i < elements.size(); ++i) {
      if (auto at = inside(std::to_string(i), elements[i])) return at;
    }
  }
  if (value.isGenericDict()) {
    for (const auto& item : value.toGenericDict()) {
      const c10::IValue& key = item.key();
      const std::string index = key.isString() ? absl::StrCat("'", key.toStringRef(), "'")
                                : key.isInt()  ? std::to_string(key.toInt())
                                               : std::string("...");
      if (auto at = inside(index, item.value())) return at;
    }
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<c10::IValue> Model::run(std::vector<c10::IValue> inputs) {
  if (moved_from()) return moved_from_error("run");
  // Refused here, naming the input: libtorch's own error would name no
  // placeholder ("strides() called on an undefined Tensor").
  const std::vector<Node*> placeholders = source_->module->graph().placeholders();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::optional<std::string> at = undefined_tensor_in(inputs[i]);
    if (!at) continue;
    const std::string input = absl::StrCat(
        "input ", i,
        i < placeholders.size() ? absl::StrCat(" (placeholder '", placeholders[i]->name(), "')")
                                : "");
    return absl::InvalidArgumentError(
        at->empty() ? absl::StrCat(input, " is an undefined tensor: give a defined one")
                    : absl::StrCat(input, " holds an undefined tensor at ", *at,
                                   ": give a defined one"));
  }
  try {
    std::shared_ptr<const ExecutionPlan> plan;
    {
      // One plan per version of the module; a run holds the plan it took.
      std::lock_guard<std::mutex> lock(source_->plan_mutex);
      if (source_->custom_plan) {
        Source::CustomPlan& custom = *source_->custom_plan;
        if (custom.plan == nullptr || custom.plan_version != source_->module->version() ||
            custom.graph != &source_->module->graph()) {
          // The stale plan (its copy of the state on the device) goes first:
          // a model that fits on the device once must not need room for two.
          // Runs in flight hold their own reference to it.
          custom.plan = nullptr;
          auto compiled = ExecutionPlan::compile(*source_->module, custom.options);
          if (!compiled.ok()) return compiled.status();
          custom.plan = *std::move(compiled);
          custom.plan_version = source_->module->version();
          custom.graph = &source_->module->graph();
        }
        plan = custom.plan;
      }
    }
    // (The plan enters InferenceMode itself unless its options say not to.)
    if (plan != nullptr) return plan->run(std::move(inputs));
    c10::InferenceMode inference;
    return source_->module->forward(std::move(inputs));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of memory running the model; give smaller inputs");
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("running the model: ", first_line_of(e.what())));
  }
}

absl::Status Model::set_run_options(const PlanOptions& options) {
  if (moved_from()) return moved_from_error("set_run_options");
  std::lock_guard<std::mutex> lock(source_->plan_mutex);
  try {
    auto plan = ExecutionPlan::compile(*source_->module, options);
    if (!plan.ok()) return plan.status();
    source_->custom_plan = Source::CustomPlan{options, *std::move(plan), source_->module->version(),
                                              &source_->module->graph()};
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        "out of memory placing the model's state on the device; free memory or run on the CPU");
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat("compiling the model's plan: ", first_line_of(e.what())));
  }
  return absl::OkStatus();
}

PlanOptions Model::run_options() const {
  if (source_ == nullptr) return PlanOptions();
  std::lock_guard<std::mutex> lock(source_->plan_mutex);
  return source_->custom_plan ? source_->custom_plan->options : PlanOptions();
}

absl::Status Model::save(const std::string& path) const {
  if (moved_from()) return moved_from_error("save");
  auto file = OutputFile::prepare(path, "the saved model");
  if (!file.ok()) return file.status();
  const GraphModule& gm = *source_->module;
  if (absl::EndsWith(path, ".pt2")) {
    exported::WriteOptions options;
    // torch.export.save names the archive's top folder after the file.
    absl::string_view name = path;
    name = absl::StripSuffix(name.substr(name.rfind('/') + 1), ".pt2");
    if (!name.empty()) options.archive_name = std::string(name);
    if (source_->program) options.example_inputs = source_->program->example_inputs;
    auto bytes = exported::write_program(gm, options);
    if (!bytes.ok()) return bytes.status();
    file->stream() << *bytes;
  } else {
    if (absl::Status s = write_torchscript(gm, file->stream()); !s.ok()) return s;
  }
  return file->commit();
}

int report(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return 1;
}

}  // namespace fx
