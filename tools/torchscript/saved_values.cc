// Copyright 2026 The FX for C++ Authors.
#include "tools/torchscript/saved_values.h"

#include <exception>
#include <sstream>

#include <ATen/core/Tensor.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include "absl/status/status.h"
#include "core/message_text.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

absl::Status refused(const std::exception& e) {
  return absl::InvalidArgumentError(first_line_of(exception_message(e)));
}

}  // namespace

std::string pickle_value(const c10::IValue& value) {
  const std::vector<char> bytes = torch::jit::pickle_save(value);
  return std::string(bytes.data(), bytes.size());
}

absl::StatusOr<c10::IValue> unpickle_value(absl::string_view bytes) {
  try {
    return torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  } catch (const std::exception& e) {
    return refused(e);
  }
}

absl::StatusOr<std::vector<c10::IValue>> torchscript_module_buffers(const std::string& bytes) {
  std::vector<c10::IValue> buffers;
  try {
    std::istringstream in(bytes);
    torch::jit::Module module = torch::jit::load(in);
    for (const at::Tensor& b : module.buffers()) buffers.emplace_back(b);
  } catch (const std::exception& e) {
    return refused(e);
  }
  return buffers;
}

}  // namespace fx
