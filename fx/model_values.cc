// Copyright 2026 The FX for C++ Authors.
#include "fx/model_values.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

// " sum S, mean |x| M" (nothing for a tensor without values).
std::string checksum(const at::Tensor& t) {
  if (t.is_meta() || t.numel() == 0) return "";
  const at::Tensor d = (t.is_mkldnn() ? t.to_dense() : t.detach()).to(at::kCPU).to(at::kDouble);
  return absl::StrFormat(" sum %.6g, mean |x| %.6g", d.sum().item<double>(),
                         d.abs().mean().item<double>());
}

}  // namespace

void flatten_tensors(const c10::IValue& v, const std::string& name,
                     std::vector<std::pair<std::string, at::Tensor>>& out) {
  if (v.isTensor()) {
    out.emplace_back(name, v.toTensor());
  } else if (v.isTuple() || v.isList()) {
    const std::vector<c10::IValue> items =
        v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    for (size_t i = 0; i < items.size(); ++i) {
      flatten_tensors(items[i], name.empty() ? std::to_string(i) : absl::StrCat(name, ".", i), out);
    }
  } else if (v.isGenericDict()) {
    for (const auto& item : v.toGenericDict()) {
      const std::string key = item.key().isString() ? item.key().toStringRef()
                                                    : item.key().tagKind();
      flatten_tensors(item.value(), name.empty() ? key : absl::StrCat(name, ".", key), out);
    }
  }
}

std::string describe_tensor(const at::Tensor& t) {
  return absl::StrCat(absl::AsciiStrToLower(c10::toString(t.scalar_type())), "[",
                      absl::StrJoin(t.sizes(), ", "), "]");
}

std::string describe_outputs(const c10::IValue& outputs) {
  std::vector<std::pair<std::string, at::Tensor>> flat;
  flatten_tensors(outputs, "", flat);
  std::string text;
  for (const auto& [name, t] : flat) {
    absl::StrAppend(&text, "output ", name.empty() ? "0" : name, ": ", describe_tensor(t),
                    checksum(t), "\n");
  }
  return text;
}

std::vector<c10::IValue> to_device(const std::vector<c10::IValue>& values, const c10::Device& device) {
  std::vector<c10::IValue> out;
  for (const c10::IValue& v : values) {
    out.push_back(map_tensors(v, [&](const at::Tensor& t) { return t.to(device); }));
  }
  return out;
}

absl::StatusOr<std::vector<c10::IValue>> program_example_inputs(
    const exported::LoadedProgram& program, const Graph& graph, const c10::Device& device,
    absl::string_view remedy) {
  std::vector<const Node*> placeholders;
  for (const Node* n : graph.nodes()) {
    if (n->op() == Op::kPlaceholder) placeholders.push_back(n);
  }
  const c10::IValue& saved = program.example_inputs ? *program.example_inputs : c10::IValue();
  if (!program.example_inputs && !program.example_inputs_error.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program's example inputs cannot be read (", program.example_inputs_error,
        "): ", remedy));
  }
  if (!saved.isTuple() || saved.toTupleRef().elements().size() != 2 ||
      !saved.toTupleRef().elements()[0].isTuple() ||
      !saved.toTupleRef().elements()[1].isGenericDict()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the program was saved without example inputs: ", remedy));
  }
  const auto& args = saved.toTupleRef().elements()[0].toTupleRef().elements();
  const auto kwargs = saved.toTupleRef().elements()[1].toGenericDict();
  std::vector<c10::IValue> inputs;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    if (i < args.size()) {
      inputs.push_back(to_device({args[i]}, device)[0]);
      continue;
    }
    const std::string& name = placeholders[i]->name();
    auto it = kwargs.find(c10::IValue(name));
    if (it == kwargs.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the program's example inputs give no value for forward's ", name,
          ": ", remedy));
    }
    inputs.push_back(to_device({it->value()}, device)[0]);
  }
  if (args.size() > placeholders.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program's example inputs give ", args.size(), " positional values for forward's ",
        placeholders.size(), " inputs: ", remedy));
  }
  return inputs;
}

}  // namespace fx
