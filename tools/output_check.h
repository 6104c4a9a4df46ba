// Copyright 2026 The FX for C++ Authors.
//
// output_check.h: fxrun's --check: a graph's outputs against a reference's
// (the original TorchScript module, or the outputs PyTorch saved), telling a
// changed computation from float rounding.
//
//   CheckReference reference = *fx::module_reference(original, device);
//   std::string line = *fx::check_outputs(graph_result, inputs, reference, {1e-5, 1e-4});
//
// Contracts:
//   * Outputs are compared leaf by leaf (tensors in tuples, lists and dicts,
//     in order); a different count or shape is an error naming the output.
//   * An output passes when every element is within atol + rtol * |expected|
//     (NaN equals NaN).
//   * When it is not, and the reference can run in float64 (`run_exact`), the
//     difference is judged against exact arithmetic: it passes when the
//     graph's largest error against the float64 run is at most
//     kRoundingFactor times the reference's own (plus atol + rtol * |exact|
//     per element). Passes that fold weights (fold_bn) round differently from
//     the model; on ResNet-50 that moves outputs by more than 1e-5, as
//     torch.jit.freeze does, while both stay as close to the exact result. A
//     changed computation is off by far more than the model's own rounding.
//   * The error says the difference, the tolerances, and what was learnt from
//     the float64 run (or why there was none).
#ifndef FX_TOOLS_OUTPUT_CHECK_H_
#define FX_TOOLS_OUTPUT_CHECK_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"

namespace fx {

// What --check compares the graph's outputs with.
struct CheckReference {
  // How reports and errors name it: "the original TorchScript module".
  std::string name;
  // Computed by another libtorch (a saved run), whose kernels may round
  // differently: error messages say so.
  bool other_kernels = false;
  // What a difference beyond rounding means, for the error.
  std::string culprit = "a pass changed what the model computes";
  // Its outputs on `inputs` (a copy of its own, laid out as given), which it
  // leaves as its run left them: written in place where the model writes
  // its inputs.
  std::function<absl::StatusOr<c10::IValue>(std::vector<c10::IValue>& inputs)> run;
  // Whether `run` writes its inputs as the model does (a saved run only has
  // the outputs): --check then compares the inputs the graph wrote too.
  bool writes_inputs = false;
  // The same computation in float64 (floating inputs converted), when it can
  // be had: to tell rounding from a changed computation. May be empty.
  std::function<absl::StatusOr<c10::IValue>(std::vector<c10::IValue> inputs)> run_exact;
};

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-4;
};

// How much further from exact arithmetic than the reference itself the graph
// may be before its difference counts as a change rather than rounding.
inline constexpr double kRoundingFactor = 4.0;

// Compares `got` (the graph's result on `inputs`) with `reference`'s run on a
// copy of `inputs`; and, given `written` (the graph's copy of `inputs` as its
// run left them) and a reference that `writes_inputs`, every input tensor
// with the reference's after its run: a model that writes its input in place
// must have the graph write the same. On success, the report line ("check:
// max abs difference ... : ok"); else FailedPrecondition saying which output
// or input and by how much.
absl::StatusOr<std::string> check_outputs(const c10::IValue& got,
                                          const std::vector<c10::IValue>& inputs,
                                          const CheckReference& reference,
                                          const Tolerance& tolerance,
                                          const std::vector<c10::IValue>* written = nullptr);

}  // namespace fx

#endif  // FX_TOOLS_OUTPUT_CHECK_H_
