// Copyright 2026 The FX for C++ Authors.
#include "runtime/operator_binding.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/value_conversion.h"

namespace fx {

std::string BoundOperator::name() const { return operator_name(*schema); }

std::string operator_name(const c10::FunctionSchema& schema) {
  const std::string& overload = schema.overload_name();
  return overload.empty() ? schema.name() : absl::StrCat(schema.name(), ".", overload);
}

absl::StatusOr<c10::IValue> coerce_to_type(c10::IValue value, const c10::TypePtr& type,
                                           c10::optional<int32_t> list_size) {
  if (type->kind() == c10::TypeKind::OptionalType && value.isNone()) return value;
  const c10::TypePtr t = without_optional(type);
  // Generic parameters (`t[]` of aten::len.t) accept any value of their shape:
  // TorchScript resolved the type variable when it compiled the call.
  if (t->kind() == c10::TypeKind::AnyType || value.type()->isSubtypeOf(*t)) return value;
  if (t->hasFreeVariables()) {
    // Generic parameters (`t[]` of aten::len.t, `Dict(str, t)`) accept any
    // value of their shape: TorchScript resolved the type variable when it
    // compiled the call. A value of another shape (an int for `t[]`) does not
    // fit, so that overload resolution moves on.
    const bool fits = (t->kind() == c10::TypeKind::ListType && value.isList()) ||
                      (t->kind() == c10::TypeKind::DictType && value.isGenericDict()) ||
                      (t->kind() == c10::TypeKind::TupleType && value.isTuple()) ||
                      t->kind() == c10::TypeKind::VarType;
    if (fits) return value;
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", type->repr_str(), " but got ", value.type()->repr_str()));
  }
  switch (t->kind()) {
    case c10::TypeKind::FloatType:
      if (value.isInt()) return c10::IValue(static_cast<double>(value.toInt()));
      break;
    case c10::TypeKind::SymIntType:
      // An int is a SymInt (x.new_zeros(4, 6) packs its ints into SymInt[]).
      if (value.isInt()) return value;
      break;
    case c10::TypeKind::DeviceObjType:
      if (value.isString()) return c10::IValue(c10::Device(value.toStringRef()));
      break;
    case c10::TypeKind::ListType: {
      const c10::TypePtr element = t->expectRef<c10::ListType>().getElementType();
      const bool int_list = element->kind() == c10::TypeKind::IntType ||
                            element->kind() == c10::TypeKind::SymIntType;
      if (int_list && value.isInt()) {
        // `int[2]` accepts one int, repeated; `int[]` one int, as Python's
        // `x.view(-1)` passes its sizes.
        return make_typed_list(element, std::vector<c10::IValue>(list_size.value_or(1), value));
      }
      if (list_size && !value.isList() && !value.isTuple()) {
        auto e = coerce_to_type(value, element);
        if (!e.ok()) break;
        return make_typed_list(element, std::vector<c10::IValue>(*list_size, *e));
      }
      if (value.isList() || value.isTuple()) {
        std::vector<c10::IValue> items;
        bool ok = true;
        for (c10::IValue& item : sequence_elements(value)) {
          auto e = coerce_to_type(std::move(item), element);
          if (!e.ok()) {
            ok = false;
            break;
          }
          items.push_back(std::move(*e));
        }
        if (ok) return make_typed_list(element, std::move(items));
      }
      break;
    }
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("expected ", type->repr_str(), " but got ", value.type()->repr_str()));
}

absl::StatusOr<std::vector<ParamBinding>> bind_positions(
    const c10::FunctionSchema& schema, size_t num_args, const std::vector<std::string>& kwarg_names) {
  const auto& params = schema.arguments();
  size_t positional_params = 0;
  while (positional_params < params.size() && !params[positional_params].kwarg_only()) {
    ++positional_params;
  }
  // Python packs trailing positional values into a trailing list parameter:
  // x.permute(0, 2, 1) is x.permute([0, 2, 1]).
  const bool packs = num_args > positional_params && positional_params > 0 &&
                     params[positional_params - 1].type()->kind() == c10::TypeKind::ListType;
  if (num_args > positional_params && !packs) {
    return absl::InvalidArgumentError(absl::StrCat(schema.name(), " takes ", positional_params,
                                                   " positional arguments but ", num_args,
                                                   " were given"));
  }
  std::vector<char> kwarg_used(kwarg_names.size(), 0);
  std::vector<ParamBinding> out(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    ParamBinding& b = out[i];
    if (packs && i == positional_params - 1) {
      b = {ParamBinding::kPacked, i, num_args};
      continue;
    }
    // Keyword-only parameters after a packed list bind by keyword only:
    // torch.einsum(eq, a, b) leaves `path` to its default.
    if (i < num_args && i < positional_params) {
      b = {ParamBinding::kPositional, i, 0};
      continue;
    }
    bool found = false;
    for (size_t k = 0; k < kwarg_names.size() && !found; ++k) {
      if (kwarg_names[k] == params[i].name()) {
        b = {ParamBinding::kKeyword, k, 0};
        kwarg_used[k] = 1;
        found = true;
      }
    }
    if (found) continue;
    if (!params[i].default_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(schema.name(), " is missing argument '", params[i].name(), "'"));
    }
    b = {ParamBinding::kDefault, 0, 0};
  }
  for (size_t k = 0; k < kwarg_names.size(); ++k) {
    if (!kwarg_used[k]) {
      return absl::InvalidArgumentError(absl::StrCat(
          schema.name(), " got an unexpected keyword argument '", kwarg_names[k], "'"));
    }
  }
  return out;
}

absl::StatusOr<torch::jit::Stack> bind_arguments(const c10::FunctionSchema& schema,
                                                 std::vector<c10::IValue> args,
                                                 const IValueKwargs& kwargs) {
  std::vector<std::string> names;
  names.reserve(kwargs.size());
  for (const auto& kv : kwargs) names.push_back(kv.first);
  auto bindings = bind_positions(schema, args.size(), names);
  if (!bindings.ok()) return bindings.status();
  const auto& params = schema.arguments();
  torch::jit::Stack stack;
  stack.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const c10::Argument& p = params[i];
    const ParamBinding& b = (*bindings)[i];
    c10::IValue value;
    bool packed_from_a_list = false;  // kPacked, its first value a list or tuple
    switch (b.kind) {
      case ParamBinding::kDefault:
        stack.push_back(*p.default_value());
        continue;
      case ParamBinding::kPositional:
        value = std::move(args[b.index]);
        break;
      case ParamBinding::kKeyword:
        value = kwargs[b.index].second;
        break;
      case ParamBinding::kPacked: {
        packed_from_a_list = args[b.index].isList() || args[b.index].isTuple();
        c10::impl::GenericList packed(c10::AnyType::get());
        for (size_t j = b.index; j < b.end; ++j) packed.push_back(std::move(args[j]));
        value = std::move(packed);
        break;
      }
    }
    auto coerced = coerce_to_type(std::move(value), p.type(), p.N());
    if (!coerced.ok()) {
      // Values packed into a trailing list whose first is a list itself were
      // meant as the list and more arguments after it: say that too. (A bad
      // element of an intended packing, x.permute(0, 2.5, 1), is the
      // element's error alone.)
      const std::string packed =
          packed_from_a_list
              ? absl::StrCat(" (", schema.name(), " takes ", i + 1, " positional argument",
                             i == 0 ? "" : "s", " but ", args.size(), " were given; the last ",
                             b.end - b.index, " were taken as the elements of '", p.name(),
                             "', as Python takes x.permute(0, 2, 1))")
              : "";
      return absl::InvalidArgumentError(absl::StrCat("argument '", p.name(), "' of ", schema.name(),
                                                     ": ", coerced.status().message(), packed));
    }
    stack.push_back(std::move(*coerced));
  }
  return stack;
}

std::string exception_message(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  std::string message = c10_error != nullptr ? c10_error->what_without_backtrace() : e.what();
  // "Could not run 'aten::roll' with arguments from the 'Meta' backend. This
  // could be because ... 'aten::roll' is only available for these backends:"
  static const std::string kNoKernel = "Could not run '";
  static const std::string kFrom = "' with arguments from the '";
  // libtorch 2.x runs a fallback for operators with no Meta kernel instead:
  // "aten::roll: attempted to run this operator with Meta tensors, but there
  // was no fake impl or Meta kernel registered. You may have run into this
  // ..." (advice on torch.compile and custom operators).
  static const std::string kMetaFallback = ": attempted to run this operator with Meta tensors";
  const size_t fallback = message.find(kMetaFallback);
  if (fallback != std::string::npos) {
    const size_t space = message.find_last_of(" \n'", fallback);
    const size_t op_start = space == std::string::npos ? 0 : space + 1;
    if (op_start < fallback) {
      return absl::StrCat("libtorch has no kernel of ", message.substr(op_start, fallback - op_start),
                          " for the Meta backend");
    }
  }
  const size_t start = message.find(kNoKernel);
  if (start == std::string::npos) return message;
  const size_t op_start = start + kNoKernel.size();
  const size_t from = message.find(kFrom, op_start);
  const size_t backend_end = from == std::string::npos ? from : message.find("' backend", from);
  if (backend_end == std::string::npos) return message;
  const size_t backend_start = from + kFrom.size();
  return absl::StrCat("libtorch has no kernel of ", message.substr(op_start, from - op_start),
                      " for the ", message.substr(backend_start, backend_end - backend_start),
                      " backend");
}

std::string script_error_message(const std::exception& e) {
  const std::string message = exception_message(e);
  if (message.find("failed in the TorchScript interpreter") == std::string::npos) return message;
  std::vector<absl::string_view> lines = absl::StrSplit(message, '\n', absl::SkipWhitespace());
  return lines.empty() ? message : std::string(absl::StripAsciiWhitespace(lines.back()));
}

}  // namespace fx
