// Copyright 2026 The FX for C++ Authors.
//
// module_reference (tools/run_model.h): --check of a TorchScript model runs
// the original module, on copies of its state, as the reference.
#include "tools/run_model.h"

#include <exception>
#include <utility>
#include <vector>

#include <ATen/core/grad_mode.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/api/module.h>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "runtime/operator_binding.h"
#include "runtime/torchscript/script_callables.h"

namespace fx {

absl::StatusOr<CheckReference> module_reference(const torch::jit::Module& original,
                                                const c10::Device& device) {
  // Both sides start from the model's state as it is now: the plan shares
  // the model's parameters and buffers (on the CPU), and a model that
  // updates a buffer (`self.count.add_(1)`) changes them in every run. The
  // module checked against is a copy of the model taken before any run.
  torch::jit::Module module;
  try {
    module = original.clone();
    module.to(device);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("--check: cannot copy the original module: ",
                                                   first_line_of(exception_message(e))));
  }
  CheckReference reference;
  reference.name = "the original TorchScript module";
  reference.writes_inputs = true;
  // Without autograd: nothing is differentiated, and a model that writes a
  // parameter in forward (weight clipping, Embedding's max_norm) runs in
  // PyTorch only so.
  reference.run = [module](std::vector<c10::IValue>& inputs) mutable -> absl::StatusOr<c10::IValue> {
    try {
      at::NoGradGuard no_grad;
      coerce_to_schema(module.get_method("forward").function().getSchema(), 1, inputs);
      return module.forward(inputs);
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(
          absl::StrCat("--check: the original module failed on these inputs: ", script_error_message(e)));
    }
  };
  // Its float64 twin, from the same state; made now, used only when outputs
  // differ beyond the tolerance. A model that cannot be converted (a float32
  // constant in its code, say) just has none.
  try {
    torch::jit::Module exact = original.clone();
    exact.to(device, at::kDouble);
    reference.run_exact = [exact](std::vector<c10::IValue> inputs) mutable
        -> absl::StatusOr<c10::IValue> {
      try {
        at::NoGradGuard no_grad;
        coerce_to_schema(exact.get_method("forward").function().getSchema(), 1, inputs);
        return exact.forward(std::move(inputs));
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(script_error_message(e));
      }
    };
  } catch (const std::exception&) {
  }
  return reference;
}

}  // namespace fx
