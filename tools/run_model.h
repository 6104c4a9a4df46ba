// Copyright 2026 The FX for C++ Authors.
//
// run_model.h: fxrun's --run: inputs made from shapes or read from a file, the
// final GraphModule run by its execution plan, checked against a reference
// (the original TorchScript module, or the outputs PyTorch saved for a
// torch.export program) and timed.
//
//   auto inputs = fx::random_inputs(*fx::parse_input_shapes("1,3,224,224"), device);
//   auto reference = fx::module_reference(original, device);
//   std::string report = *fx::run_graph(gm, *inputs, options, &*reference);
//
// Contracts:
//   * `parse_input_shapes`: one shape per placeholder, `;` between them, dims
//     separated by `,`, an optional dtype first (`long:4,8`; float by
//     default); a scalar is an empty shape. Errors quote the part at fault.
//   * `parse_input_shapes` refuses an empty size (`2,4,`, `4,,4`).
//   * `random_inputs` is seeded (seed 0): the same shapes give the same values.
//     Shapes whose bytes overflow, or (but on the meta device) exceed the
//     machine's memory, are errors before anything is allocated; so is an
//     allocation that fails.
//   * `read_inputs` reads a file saved with torch.save (a tensor, or a tuple
//     or list of them) or a TorchScript module whose buffers, in order, are the
//     inputs.
//   * `read_saved_run` reads what `torch.save({"inputs": args, "outputs":
//     leaves})` wrote (the convention of `NAME.expected.pt` beside a
//     `NAME.pt2`): forward's arguments as a tuple, and the outputs as the
//     flat list of pytree leaves. It runs no code (exported_program's
//     torch_load); anything else is an error saying what the file must hold.
//   * `run_graph` fails when the plan fails, and with a reference when an
//     output differs from the reference's beyond atol + rtol * |expected|,
//     naming the output and the difference.
#ifndef FX_TOOLS_RUN_MODEL_H_
#define FX_TOOLS_RUN_MODEL_H_

#include <functional>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "exported_program/archive.h"
#include "runtime/graph_module.h"
#include "fx/model_values.h"
#include "tools/output_check.h"

namespace torch {
namespace jit {
struct Module;  // torch/csrc/jit/api/module.h
}  // namespace jit
}  // namespace torch

namespace fx {

struct InputShape {
  c10::ScalarType dtype = c10::ScalarType::Float;
  std::vector<int64_t> sizes;
};

absl::StatusOr<std::vector<InputShape>> parse_input_shapes(absl::string_view text);
absl::StatusOr<std::vector<c10::IValue>> random_inputs(const std::vector<InputShape>& shapes,
                                                       const c10::Device& device);
absl::StatusOr<std::vector<c10::IValue>> read_inputs(const std::string& path,
                                                     const c10::Device& device);

struct RunOptions {
  c10::Device device = c10::Device(c10::kCPU);
  double atol = 1e-5;
  double rtol = 1e-4;
  int warmup = 0;
  int repeat = 1;
  // On a CUDA device: replay CUDA graphs (PlanOptions::cuda_graphs), and
  // let float32 matrix products and convolutions use TF32.
  bool cuda_graphs = false;
  bool tf32 = false;
};

// The original module as the reference: a copy of `original` taken now, on
// `device`, so that a model that updates its buffers is compared from the
// state it had before any run; and a float64 copy of it for telling rounding
// from a change (output_check.h). TorchScript's side of fxrun: defined in
// tools/torchscript/module_reference.cc.
absl::StatusOr<CheckReference> module_reference(const torch::jit::Module& original,
                                                const c10::Device& device);

// A run of the model that PyTorch saved: its inputs and its outputs.
struct SavedRun {
  std::vector<c10::IValue> inputs;   // forward's arguments, in order
  std::vector<c10::IValue> outputs;  // the output's pytree leaves, in order
};
absl::StatusOr<SavedRun> read_saved_run(const std::string& path, absl::string_view flag);
// The same from the file's bytes; `what` names it in errors ("--expected r.pt").
absl::StatusOr<SavedRun> parse_saved_run(absl::string_view bytes, const std::string& what);

// NAME.expected.pt beside NAME.pt2 (for another name, the name plus
// ".expected.pt"): where --check looks for a program's saved run.
std::string saved_run_beside(const std::string& model_path);

// The saved outputs as the reference, for exactly the saved inputs;
// `description` names where they came from.
CheckReference saved_run_reference(const SavedRun& run, const std::string& description);

// Runs `gm` on `inputs` (and, given a reference, compares with it); the
// report says what ran and how it went, a few lines for a terminal. Every
// run, and the reference, gets its own copy of the inputs laid out as given
// (deep_copy). The outputs reported and checked are the first run's.
absl::StatusOr<std::string> run_graph(const GraphModule& gm, const std::vector<c10::IValue>& inputs,
                                      const RunOptions& options,
                                      const CheckReference* reference = nullptr);

}  // namespace fx

#endif  // FX_TOOLS_RUN_MODEL_H_
