// Copyright 2026 The FX for C++ Authors.
//
// run_model.h: fxrun's --run: inputs made from shapes or read from a file, the
// final GraphModule run by its execution plan, checked against the original
// TorchScript module and timed.
//
//   auto inputs = fx::random_inputs(*fx::parse_input_shapes("1,3,224,224"), device);
//   fx::RunReport report = *fx::run_graph(gm, original, *inputs, options);
//   std::cout << report.text;
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
//   * `run_graph` fails when the plan fails, and with `check` when an output
//     differs from the module's beyond atol + rtol * |expected|, naming the
//     output and the difference.
#ifndef FX_TOOLS_RUN_MODEL_H_
#define FX_TOOLS_RUN_MODEL_H_

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <torch/csrc/jit/api/module.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/graph_module.h"

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
  bool check = false;
  double atol = 1e-5;
  double rtol = 1e-4;
  int warmup = 0;
  int repeat = 1;
};

// Runs `gm` on `inputs` (and, with `check`, `original`); the report says
// what ran and how it went, a few lines for a terminal. Every run, and the
// module, gets its own copy of the inputs laid out as given (deep_copy). The
// outputs reported and checked are the first run's, which starts from the
// model's state as it is when called; the module checked against is a copy
// of `original` taken then, so a model that updates its buffers is compared
// from the same state.
absl::StatusOr<std::string> run_graph(const GraphModule& gm, const torch::jit::Module& original,
                                      const std::vector<c10::IValue>& inputs,
                                      const RunOptions& options);

}  // namespace fx

#endif  // FX_TOOLS_RUN_MODEL_H_
