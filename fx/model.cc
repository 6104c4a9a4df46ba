// Copyright 2026 The FX for C++ Authors.
#include "fx/model.h"

#include <ATen/core/grad_mode.h>
#include <c10/core/InferenceMode.h>

#include <exception>
#include <iostream>
#include <optional>
#include <utility>

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
  ModelFormat format = ModelFormat::kTorchScript;
  std::optional<GraphModule> module;
  // A torch.export program's reading: its example inputs, how they failed.
  std::optional<exported::LoadedProgram> program;
  std::vector<std::string> warnings;
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
  auto source = std::make_unique<Source>();
  const size_t warnings_before = tracer.warnings().size();
  absl::StatusOr<GraphModule> traced = absl::UnknownError("not traced");
  try {
    if (file->program) {
      source->format = ModelFormat::kExportedProgram;
      source->warnings = file->program->warnings;
      traced = tracer.trace(*file->program);
    } else {
      traced = tracer.trace(*file->torchscript);
    }
  } catch (const std::exception& e) {  // a tracer extension's (plugins/plugin_guard.h)
    traced = absl::InvalidArgumentError(first_line_of(e.what()));
  }
  for (size_t i = warnings_before; i < tracer.warnings().size(); ++i) {
    source->warnings.push_back(tracer.warnings()[i]);
  }
  const std::string shown = path == "-" ? std::string("the model") : path_for_message(path);
  if (!traced.ok()) {
    return absl::Status(traced.status().code(),
                        absl::StrCat(file->program ? "cannot read " : "cannot trace ", shown, ": ",
                                     traced.status().message()));
  }
  source->module.emplace(*std::move(traced));
  if (file->program) source->program = *std::move(file->program);
  return Model(std::move(source));
}

ModelFormat Model::format() const { return source_->format; }
Graph& Model::graph() { return source_->module->graph(); }
const Graph& Model::graph() const { return source_->module->graph(); }
GraphModule& Model::graph_module() { return *source_->module; }
const GraphModule& Model::graph_module() const { return *source_->module; }
const std::vector<std::string>& Model::warnings() const { return source_->warnings; }

absl::Status Model::run_passes(absl::string_view pipeline) {
  if (absl::Status s = register_builtin_plugins(Registry::global()); !s.ok()) return s;
  auto passes = PassManager::create(pipeline, Registry::global());
  if (!passes.ok()) return passes.status();
  return run_passes(*passes);
}

absl::Status Model::run_passes(PassManager& passes) {
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
  if (!source_->program) {
    return absl::FailedPreconditionError(
        "a TorchScript module keeps no example inputs (a torch.export program does): call "
        "run() on inputs of your own");
  }
  return program_example_inputs(*source_->program, source_->module->graph(), c10::Device(c10::kCPU));
}

absl::StatusOr<c10::IValue> Model::run(std::vector<c10::IValue> inputs) {
  c10::InferenceMode inference;
  try {
    return source_->module->forward(std::move(inputs));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of memory running the model; give smaller inputs");
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("running the model: ", first_line_of(e.what())));
  }
}

absl::Status Model::save(const std::string& path) const {
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
