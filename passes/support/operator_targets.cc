// Copyright 2026 The FX for C++ Authors.
#include "passes/support/operator_targets.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/python_operators.h"

namespace fx {
namespace {

// `ns::name.overload` -> (`ns::name`, `overload`).
std::pair<absl::string_view, absl::string_view> split_overload(absl::string_view target) {
  size_t ns = target.find("::");
  if (ns == absl::string_view::npos) return {target, {}};
  size_t dot = target.find('.', ns + 2);
  if (dot == absl::string_view::npos) return {target, {}};
  return {target.substr(0, dot), target.substr(dot + 1)};
}

// `torch.relu`, `torch.Tensor.relu` -> `relu`; "" for anything else. Not
// `torch.nn.functional.*`: those are Python functions (leaf functions in a
// traced graph) whose parameters need not be the operator's
// (F.batch_norm(input, running_mean, ...) vs aten::batch_norm(input, weight,
// ...)), so matching them to the operator would bind arguments wrongly.
absl::string_view torch_function_name(absl::string_view target) {
  absl::string_view name = target;
  if (!absl::ConsumePrefix(&name, "torch.")) return {};
  absl::ConsumePrefix(&name, "Tensor.");
  if (name.empty() || name.find('.') != absl::string_view::npos) return {};
  return name;
}

}  // namespace

std::string operator_base_name(Op op, absl::string_view target) {
  if (op == Op::kCallMethod) return absl::StrCat("aten::", target);
  if (op != Op::kCallFunction) return std::string(target);
  if (target.find("::") != absl::string_view::npos) {
    return std::string(split_overload(target).first);
  }
  if (const PythonOperator* py = find_python_operator(target)) {
    if (py->aten.empty()) return std::string(target);
    return std::string(py->aten.substr(0, py->aten.find('|')));
  }
  absl::string_view name = torch_function_name(target);
  // torch._assert and its kin are not aten operators.
  if (!name.empty() && name[0] != '_') return absl::StrCat("aten::", name);
  return std::string(target);
}

absl::string_view operator_overload(Op op, absl::string_view target) {
  if (op != Op::kCallFunction) return {};
  return split_overload(target).second;
}

bool names_aten_operator(Op op, absl::string_view target) {
  if (op == Op::kCallMethod) return true;
  if (op != Op::kCallFunction) return false;
  if (target.find("::") != absl::string_view::npos) return true;
  const PythonOperator* py = find_python_operator(target);
  if (py != nullptr) return !py->aten.empty();
  absl::string_view name = torch_function_name(target);
  return !name.empty() && name[0] != '_';
}

}  // namespace fx
