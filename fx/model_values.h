// Copyright 2026 The FX for C++ Authors.
//
// model_values.h: the values a model is called with and returns, as a
// program that embeds FX for C++ (and fxrun) handles them: a torch.export
// program's own example inputs as call arguments, values moved to a device,
// outputs described a line per tensor.
//
//   auto inputs = fx::program_example_inputs(*file.program, gm.graph(), c10::kCPU);
//   std::cout << fx::describe_outputs(*gm(*inputs));
//   // output 0: float[1, 1000] sum -1.23, mean |x| 0.456
#ifndef FX_FX_MODEL_VALUES_H_
#define FX_FX_MODEL_VALUES_H_

#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/graph.h"
#include "exported_program/archive.h"

namespace fx {

// A torch.export program's own example inputs (torch.export.save keeps the
// ones it was exported with), one per placeholder of `graph`, on `device`:
// the positional ones in order, then keyword ones by the placeholder's name.
// An error when the program has none, its own cannot be read (saying why),
// or they do not fit the placeholders; each ends with `remedy`, what the
// caller can do instead.
FX_API absl::StatusOr<std::vector<c10::IValue>> program_example_inputs(
    const exported::LoadedProgram& program, const Graph& graph, const c10::Device& device,
    absl::string_view remedy = "call the model on inputs of your own");

// `values` with every tensor in them (in tuples, lists, dicts too) on `device`.
FX_API std::vector<c10::IValue> to_device(const std::vector<c10::IValue>& values,
                                          const c10::Device& device);

// The tensor leaves of a value, named by their position ("0", "1.2", dict
// keys by name), appended to `out`.
FX_API void flatten_tensors(const c10::IValue& v, const std::string& name,
                            std::vector<std::pair<std::string, at::Tensor>>& out);

// "float[1, 1000]".
FX_API std::string describe_tensor(const at::Tensor& t);

// One line per tensor of `outputs` (flattened through tuples, lists and
// dicts): its position, dtype, sizes and checksums, as fxrun prints them:
// "output 0: float[1, 1000] sum -1.23, mean |x| 0.456".
FX_API std::string describe_outputs(const c10::IValue& outputs);

}  // namespace fx

#endif  // FX_FX_MODEL_VALUES_H_
