// Copyright 2026 The FX for C++ Authors.
//
// model.h: a model read from a file, as a graph with its state, ready to be
// rewritten by passes, called and written back: what a C++ program that
// embeds FX for C++ starts from (fx/fx.h includes it).
//
//   absl::StatusOr<fx::Model> model = fx::Model::load("resnet18.pt2");
//   absl::Status s = model->run_passes("fold_bn,const_fold,dce");
//   absl::StatusOr<c10::IValue> out = model->run(*model->example_inputs());
//   s = model->save("resnet18_folded.pt2");
//
// Contracts:
//   * load() tells a torch.export program (.pt2, either layout) from a
//     TorchScript module by the file's content, whatever its name ("-" reads
//     standard input), checks what it reads as fxrun does (damaged archives,
//     tensors past their storage, unknown operators are errors naming the
//     cause), and traces it with `tracer` (tracer/tracer.h: leaf modules,
//     concrete_args, extensions such as module_path). load_from_bytes()
//     does the same with a file's bytes already in memory.
//   * run_passes() runs a pipeline (passes/pass_manager.h) with the global
//     registry: the in-tree passes, registered in-process at the first call
//     (fx/builtin_plugins.h), and every plugin loaded (plugins/plugin_loader.h).
//     Passes that run the graph (shape_prop, split's cost=time) get the
//     model's own example inputs when it has them.
//   * example_inputs(): a torch.export program's, one per placeholder; an
//     error saying so for a model that has none (a TorchScript .pt).
//   * warnings(): what reading the model and running passes found that the
//     user should know but that did not stop them (fxrun prints them as
//     "warning: ..."), in the order found.
//   * run() calls the graph through its execution plan (runtime/
//     execution_plan.h), compiled at the first call and again after a pass
//     changed the graph; under InferenceMode unless the run options turn it
//     off. set_run_options() chooses how:
//     the device (the model's state is copied there; the inputs must be
//     there: fx::to_device, model_values.h), CUDA graphs, memory planning
//     (PlanOptions). It compiles the plan at once, so that an option this
//     machine or this graph cannot take (a CUDA device on a CPU-only build or
//     a machine with no GPU, CUDA graphs off a CUDA device) fails there,
//     saying why, and leaves the options as they were. Threads are the
//     process's (at::set_num_threads), not the model's. Thread-safe: any number of
//     threads may call run() at once, on a fresh model too (one plan is
//     compiled, the others wait for it); run_passes(), set_run_options(),
//     save() and changes through graph_module() must not overlap a run().
//     docs/serving.md says
//     what a server needs to know (threads, what is installed in the process,
//     memory, unloading).
//   * save(): a path ending in .pt2 as a torch.export program (in the layout
//     the model was read in, else the PT2 archive; with the program's example
//     inputs), any other as a TorchScript module. The file is written whole
//     to a temporary beside it and renamed: a failed save leaves an existing
//     file as it was.
//   * The types here are libtorch's values (c10::IValue, at::Tensor) and FX's
//     own; no TorchScript type. graph_module() is the level passes work at
//     (plugins/pass.h); of it, root() and get_submodule() expose FX's own
//     module state (fx::Module, runtime/module.h), whatever format the model
//     was read from. The TorchScript functions a graph traced from a .pt
//     calls are TorchScript's, in runtime/torchscript/script_functions.h.
//   * run() refuses, before running, an undefined tensor among the inputs
//     (or inside a tuple, list or dict of them), naming the input's position
//     and its placeholder.
//   * Errors are statuses whose message names the thing and what to do; no
//     call crashes or exits on a user's file.
//   * A moved-from Model: every method that returns a status fails with
//     absl::FailedPreconditionError saying that the Model was moved from;
//     format() is kTorchScript, warnings() empty, graph() and graph_module()
//     an empty graph with no state (one of its own where mutable, which
//     changing does not make the Model usable). Assigning a Model to it makes
//     it that Model.
#ifndef FX_FX_MODEL_H_
#define FX_FX_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/graph.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
#include "runtime/plan/execution_plan.h"
#include "tracer/tracer.h"

namespace fx {

enum class ModelFormat {
  kTorchScript,      // a .pt: torch.jit.save of a scripted module
  kExportedProgram,  // a .pt2: torch.export.save of an exported program
};

struct ModelFile;  // fx/model_file.h

class FX_API Model {
 public:
  static absl::StatusOr<Model> load(const std::string& path);
  // With a tracer of the caller's (its options and extensions); its
  // warnings() gain the trace's.
  static absl::StatusOr<Model> load(const std::string& path, Tracer& tracer);
  // From the bytes of a .pt or .pt2 file already in memory (a download, a
  // resource embedded in the program, a decrypted file), read and checked as
  // load() reads a file; messages name it "from memory".
  static absl::StatusOr<Model> load_from_bytes(std::string bytes);
  static absl::StatusOr<Model> load_from_bytes(std::string bytes, Tracer& tracer);

  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  ModelFormat format() const;
  // The graph (core/graph.h): print it, walk it, rewrite it.
  Graph& graph();
  const Graph& graph() const;
  // The graph with its state (parameters, buffers, submodules), as passes
  // see it.
  GraphModule& graph_module();
  const GraphModule& graph_module() const;

  absl::Status run_passes(absl::string_view pipeline);
  // Runs a PassManager of the caller's (passes made in C++: PassManager::add).
  absl::Status run_passes(PassManager& passes);

  absl::StatusOr<std::vector<c10::IValue>> example_inputs() const;

  absl::StatusOr<c10::IValue> run(std::vector<c10::IValue> inputs);

  // How run() runs the graph from now on (the default: the CPU, memory
  // planned, no CUDA graphs). Fails, changing nothing, when the plan cannot
  // be compiled with them.
  absl::Status set_run_options(const PlanOptions& options);
  // The options run() uses.
  PlanOptions run_options() const;

  absl::Status save(const std::string& path) const;

  const std::vector<std::string>& warnings() const;

 private:
  struct Source;
  explicit Model(std::unique_ptr<Source> source);
  // The Model of a file read (load(), load_from_bytes()), traced with
  // `tracer`; `shown` names the file in errors.
  static absl::StatusOr<Model> traced(ModelFile file, const std::string& shown, Tracer& tracer);
  // Whether this Model was moved from (source_ null, or the empty Source
  // own_graph_module() made for it).
  bool moved_from() const;
  // *source_->module; a moved-from Model's own empty one.
  GraphModule& own_graph_module();

  std::unique_ptr<Source> source_;
};

// For a program's main(): writes "error: <message>" (the status's message)
// to standard error and returns 1, the exit status.
FX_API int report(const absl::Status& status);

}  // namespace fx

#endif  // FX_FX_MODEL_H_
