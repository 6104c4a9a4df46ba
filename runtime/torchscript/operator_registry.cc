// Copyright 2026 The FX for C++ Authors.
//
// operator_registry.cc: the part of operator_binding.h that reads
// TorchScript's operator registry (torch::jit::Operator): finding operators
// by name and calling them. The rest of operator_binding.h (binding
// arguments, coercions, error messages) is operator_binding.cc's and
// includes no TorchScript header.
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/enum_tag.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>
#include <ATen/core/symbol.h>
#include <torch/csrc/jit/runtime/operator.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "runtime/operator_binding.h"
#include "runtime/torchscript/schema_parsing.h"

namespace fx {

void BoundOperator::run(torch::jit::Stack& stack) const { op->getOperation()(stack); }

torch::jit::Operation BoundOperator::operation() const { return op->getOperation(); }

bool BoundOperator::is_random() const {
  for (const at::Tag& tag : op->getTags()) {
    if (tag == at::Tag::nondeterministic_seeded) return true;
  }
  return false;
}

absl::StatusOr<BoundOperator> find_operator(absl::string_view qualified_name) {
  std::string name(qualified_name);
  std::string overload;
  const size_t ns = name.find("::");
  const size_t dot = ns == std::string::npos ? std::string::npos : name.find('.', ns + 2);
  if (dot != std::string::npos) {
    overload = name.substr(dot + 1);
    name.resize(dot);
  }
  std::shared_ptr<torch::jit::Operator> op;
  try {
    op = torch::jit::findOperatorFor(c10::OperatorName(name, overload));
  } catch (const std::exception& e) {
    return absl::NotFoundError(absl::StrCat("operator ", qualified_name, ": ", exception_message(e)));
  }
  if (!op) {
    return absl::NotFoundError(absl::StrCat(
        "no operator named ", qualified_name,
        " in this libtorch (check the name and overload, e.g. aten::add.Tensor)"));
  }
  return BoundOperator{op, &op->schema()};
}

std::vector<BoundOperator> find_overloads(absl::string_view qualified_name_without_overload) {
  std::vector<BoundOperator> out;
  c10::Symbol symbol = c10::Symbol::fromQualString(std::string(qualified_name_without_overload));
  for (const auto& op : torch::jit::getAllOperatorsFor(symbol)) {
    out.push_back(BoundOperator{op, &op->schema()});
  }
  return out;
}

const c10::FunctionSchema* find_schema(absl::string_view qualified_name) {
  if (auto op = find_operator(qualified_name); op.ok()) return op->schema;
  // Operators torch.export writes (torch 2.1 and later) that older
  // libtorch lacks, with the schema newer libtorch has.
  static const auto* exported_only = new std::vector<c10::FunctionSchema>{
      parse_schema("aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, "
                   "Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, "
                   "float eps) -> (Tensor, Tensor, Tensor)"),
  };
  absl::string_view name = qualified_name;
  absl::ConsumeSuffix(&name, ".default");
  for (const c10::FunctionSchema& schema : *exported_only) {
    if (name == operator_name(schema)) return &schema;
  }
  return nullptr;
}

}  // namespace fx
