// Copyright 2026 The FX for C++ Authors.
//
// saved_values.h: values PyTorch saves, read and written with TorchScript's
// serialization, for fxrun's files: the graph file's constants (torch.save's
// pickle of one value), --input's tensors (a file torch.save wrote, or a
// TorchScript module whose buffers are the inputs). This header parses no
// TorchScript header.
//
//   std::string bytes = fx::pickle_value(constant);
//   absl::StatusOr<c10::IValue> again = fx::unpickle_value(bytes);
//
// Contracts: reading never throws: what libtorch throws becomes an
// InvalidArgument error whose message is the first line of libtorch's
// (runtime/operator_binding.h's exception_message), for the caller to put
// in its own words. The bytes are not checked here: callers check an archive
// before libtorch reads it (fx/archive_check.h's check_archive_bytes) and the
// tensors it gave after (check_tensors_in_bounds).
#ifndef FX_TOOLS_TORCHSCRIPT_SAVED_VALUES_H_
#define FX_TOOLS_TORCHSCRIPT_SAVED_VALUES_H_

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fx {

// `value` as torch.save's pickle (torch::jit::pickle_save). Throws what
// libtorch throws for a value it cannot pickle.
std::string pickle_value(const c10::IValue& value);

// The value a pickle_value (or torch.save) wrote (torch::jit::pickle_load).
absl::StatusOr<c10::IValue> unpickle_value(absl::string_view bytes);

// The buffers, in order, of the TorchScript module whose file is `bytes`
// (torch::jit::load).
absl::StatusOr<std::vector<c10::IValue>> torchscript_module_buffers(const std::string& bytes);

}  // namespace fx

#endif  // FX_TOOLS_TORCHSCRIPT_SAVED_VALUES_H_
