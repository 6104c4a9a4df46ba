// Copyright 2026 The FX for C++ Authors.
#include "passes/support/normalized_call.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "passes/support/operator_targets.h"
#include "runtime/operator_binding.h"
#include "runtime/torchscript/script_calls.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

// A value a call passes for a parameter: the node's Argument, or a value the
// call supplies itself (a leaf function's default).
struct Supplied {
  const Argument* arg = nullptr;
  c10::IValue value;
};

// A call's arguments before they meet a schema.
struct CallForm {
  std::vector<const Argument*> positional;
  std::vector<std::pair<std::string, Supplied>> keywords;
};

// `==` on two literals of the same kind (None == None, 1 == 1).
bool same_value(const c10::IValue& a, const c10::IValue& b) {
  try {
    return a == b;
  } catch (const std::exception&) {
    return false;
  }
}

bool is_known_tensor(const Node& n) {
  const MetaValue* meta = n.meta().find(kTensorMetaKey);
  return meta != nullptr && meta->is_map();
}

// A value whose type the graph does not say: a node without tensor_meta, or
// a sequence holding nodes.
bool is_unknown(const Argument& a) {
  return (a.is_node() && !is_known_tensor(*a.to_node())) || (!a.is_node() && a.contains_node());
}

// Whether `a` can be the value of parameter `p`, as Python's argument parser
// takes it. A node without tensor_meta may be anything; one with it is a
// tensor.
bool argument_fits(const Argument& a, const c10::Argument& p) {
  const c10::TypePtr type = without_optional(p.type());
  if (a.is_node()) {
    return !is_known_tensor(*a.to_node()) || type->kind() == c10::TypeKind::TensorType;
  }
  if (a.is_none()) return p.type()->kind() == c10::TypeKind::OptionalType ||
                          type->kind() == c10::TypeKind::NoneType;
  if (a.contains_node()) {
    return type->kind() == c10::TypeKind::ListType || type->kind() == c10::TypeKind::TupleType;
  }
  if (a.is_int()) {
    // An int literal is no dtype, layout or memory format (`x.view(-1)` is
    // not view.dtype), and is a whole `int[N]` (stride=1 of conv2d).
    const c10::TypeKind real = without_optional(p.real_type())->kind();
    if (real == c10::TypeKind::ScalarTypeType || real == c10::TypeKind::LayoutType ||
        real == c10::TypeKind::MemoryFormatType) {
      return false;
    }
    if (type->kind() == c10::TypeKind::ListType && p.N() &&
        type->expectRef<c10::ListType>().getElementType()->kind() == c10::TypeKind::IntType) {
      return true;
    }
  }
  try {
    auto value = argument_to_ivalue(a, p.type());
    return value.ok() && coerce_to_type(*std::move(value), p.type(), p.N()).ok();
  } catch (const std::exception&) {
    return false;  // libtorch refusing the literal (a string that is no device)
  }
}

bool supplied_fits(const Supplied& s, const c10::Argument& p) {
  if (s.arg != nullptr) return argument_fits(*s.arg, p);
  try {
    return coerce_to_type(s.value, p.type(), p.N()).ok();
  } catch (const std::exception&) {
    return false;
  }
}

// A call bound to one overload, and the types of the parameters that its
// values of unknown type went to (by the value's place in the call).
struct Fit {
  NormalizedCall normalized;
  std::vector<std::string> unknown_types;
};

// `form` bound to `schema`, when every value fits its parameter.
std::optional<Fit> bind_form(const c10::FunctionSchema& schema, const CallForm& form) {
  std::vector<std::string> names;
  for (const auto& kw : form.keywords) names.push_back(kw.first);
  auto positions = bind_positions(schema, form.positional.size(), names);
  if (!positions.ok()) return std::nullopt;
  Fit fit;
  fit.unknown_types.resize(form.positional.size() + form.keywords.size());
  NormalizedCall& out = fit.normalized;
  out.target = operator_name(schema);
  out.call.schema = &schema;
  const auto& params = schema.arguments();
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamBinding& b = (*positions)[i];
    const c10::Argument& p = params[i];
    c10::IValue fallback = p.default_value().value_or(c10::IValue());
    const Argument* given = nullptr;
    switch (b.kind) {
      case ParamBinding::kPositional:
        given = form.positional[b.index];
        if (!argument_fits(*given, p)) return std::nullopt;
        if (is_unknown(*given)) fit.unknown_types[b.index] = p.type()->str();
        break;
      case ParamBinding::kKeyword: {
        const Supplied& s = form.keywords[b.index].second;
        if (!supplied_fits(s, p)) return std::nullopt;
        given = s.arg;
        if (given == nullptr) fallback = s.value;
        if (given != nullptr && is_unknown(*given)) {
          fit.unknown_types[form.positional.size() + b.index] = p.type()->str();
        }
        break;
      }
      case ParamBinding::kDefault:
        break;
      case ParamBinding::kPacked:
        return std::nullopt;  // x.permute(0, 2, 1): left as written
    }
    out.call.given.push_back(given);
    out.call.defaults.push_back(std::move(fallback));
  }
  return fit;
}

// Of the overloads a call fits, the one it means: the only one; or, of
// several, the operator's default overload when `prefer_default` and every
// fit takes the values of unknown type as the same types (`aten::conv2d(x,
// w)` fits conv2d and conv2d.padding, both with tensors x and w, and is
// conv2d, as in Python and the runtime). Else the values' types decide at
// run time (`torch.add(a, b)`: add.Tensor or add.int): nothing.
class OverloadChoice {
 public:
  explicit OverloadChoice(bool prefer_default) : prefer_default_(prefer_default) {}
  void offer(std::optional<Fit> fit) {
    if (!fit) return;
    if (fits_ > 0 && fit->unknown_types != first_unknown_types_) types_agree_ = false;
    if (fits_ == 0) first_unknown_types_ = fit->unknown_types;
    ++fits_;
    if (fit->normalized.call.schema->overload_name().empty()) default_ = fit->normalized;
    if (fits_ == 1) only_ = std::move(fit->normalized);
  }
  std::optional<NormalizedCall> chosen() && {
    if (fits_ == 1) return std::move(only_);
    if (!prefer_default_ || !types_agree_) return std::nullopt;
    return std::move(default_);
  }

 private:
  bool prefer_default_;
  int fits_ = 0;
  bool types_agree_ = true;
  std::vector<std::string> first_unknown_types_;
  std::optional<NormalizedCall> only_, default_;
};

std::optional<NormalizedCall> choose_overload(
    const std::vector<const c10::FunctionSchema*>& candidates, const CallForm& form) {
  OverloadChoice choice(/*prefer_default=*/true);
  for (const c10::FunctionSchema* schema : candidates) choice.offer(bind_form(*schema, form));
  return std::move(choice).chosen();
}

// The overloads of `base` ("aten::add") a call may mean: not the `out=`
// overloads, which write to a keyword-only argument.
std::vector<const c10::FunctionSchema*> overloads_of(absl::string_view base) {
  std::vector<const c10::FunctionSchema*> out;
  for (const BoundOperator& op : find_overloads(base)) {
    bool writes_out = false;
    for (const c10::Argument& p : op.schema->arguments()) {
      writes_out |= p.kwarg_only() && p.alias_info() != nullptr && p.alias_info()->isWrite();
    }
    if (!writes_out) out.push_back(op.schema);
  }
  return out;
}

CallForm form_of(const Node& n) {
  CallForm form;
  for (const Argument& a : n.args()) form.positional.push_back(&a);
  for (const auto& [name, value] : n.kwargs()) form.keywords.push_back({name, Supplied{&value, {}}});
  return form;
}

// Python's bindings of an operator take its `self` as `input`.
void input_as_self(CallForm& form) {
  for (auto& [name, value] : form.keywords) {
    if (name == "input") name = "self";
  }
}

// A leaf function's call in the operator's parameter names, as keywords;
// nothing when a parameter the operator lacks is not at its default.
std::optional<CallForm> leaf_call_form(const c10::FunctionSchema& leaf, const Node& n,
                                       const c10::FunctionSchema& op) {
  std::vector<std::string> names;
  for (const auto& kw : n.kwargs()) names.push_back(kw.first);
  auto positions = bind_positions(leaf, n.args().size(), names);
  if (!positions.ok()) return std::nullopt;
  const auto has_param = [&op](const std::string& name) {
    for (const c10::Argument& p : op.arguments()) {
      if (p.name() == name) return true;
    }
    return false;
  };
  CallForm form;
  const auto& params = leaf.arguments();
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamBinding& b = (*positions)[i];
    const c10::Argument& p = params[i];
    Supplied s;
    switch (b.kind) {
      case ParamBinding::kPositional:
        s.arg = &n.args()[b.index];
        break;
      case ParamBinding::kKeyword:
        s.arg = &n.kwargs()[b.index].second;
        break;
      case ParamBinding::kDefault:
        s.value = *p.default_value();
        break;
      case ParamBinding::kPacked:
        return std::nullopt;
    }
    std::string name = p.name();
    if (name == "input" && !has_param("input") && has_param("self")) name = "self";
    if (has_param(name)) {
      form.keywords.push_back({name, std::move(s)});
      continue;
    }
    // A parameter of the function alone that, at its default, changes
    // nothing: F.relu's inplace=False, F.softmax's _stacklevel,
    // F.max_pool2d's return_indices=False. Any other (torch.stft's center,
    // which pads) means the function is more than the operator.
    if (name != "inplace" && name != "_stacklevel" && name != "return_indices") {
      return std::nullopt;
    }
    if (!p.default_value()) return std::nullopt;
    if (s.arg != nullptr) {
      auto value = s.arg->contains_node() ? absl::StatusOr<c10::IValue>(absl::InvalidArgumentError(""))
                                          : argument_to_ivalue(*s.arg, p.type());
      if (!value.ok() || !same_value(*value, *p.default_value())) return std::nullopt;
    }
  }
  for (const c10::Argument& p : op.arguments()) {
    if (p.name() == "cudnn_enabled" && !p.default_value()) {
      bool given = false;
      for (const auto& kw : form.keywords) given |= kw.first == p.name();
      // What the functionals pass: torch.backends.cudnn.enabled.
      if (!given) form.keywords.push_back({p.name(), Supplied{nullptr, c10::IValue(true)}});
    }
  }
  return form;
}

bool same_returns(const c10::FunctionSchema& a, const c10::FunctionSchema& b) {
  if (a.returns().size() != b.returns().size()) return false;
  for (size_t i = 0; i < a.returns().size(); ++i) {
    if (*a.returns()[i].type() != *b.returns()[i].type()) return false;
  }
  return true;
}

// A leaf function of torch.nn.functional traced from a .pt, as the operator
// of its name: only the one overload it fits, never a tie broken.
std::optional<NormalizedCall> normalize_leaf_function(
    const Node& n, const std::vector<const c10::FunctionSchema*>& leaves) {
  absl::string_view name = n.target();
  absl::ConsumePrefix(&name, "torch.nn.functional.");
  if (leaves.size() != 1) return std::nullopt;  // overloads chosen by type at run time
  OverloadChoice choice(/*prefer_default=*/false);
  for (const c10::FunctionSchema* op : overloads_of(absl::StrCat("aten::", name))) {
    if (!same_returns(*leaves[0], *op)) continue;
    if (std::optional<CallForm> form = leaf_call_form(*leaves[0], n, *op)) {
      choice.offer(bind_form(*op, *form));
    }
  }
  return std::move(choice).chosen();
}

}  // namespace

std::string NormalizedCall::base_name() const {
  return operator_base_name(Op::kCallFunction, target);
}

std::optional<NormalizedCall> normalize_call(const GraphModule& gm, const Node& n) {
  if (n.op() != Op::kCallFunction && n.op() != Op::kCallMethod) return std::nullopt;
  const std::string& target = n.target();
  CallForm form = form_of(n);
  if (n.op() == Op::kCallFunction && target.find("::") != std::string::npos) {
    std::vector<const c10::FunctionSchema*> candidates;
    if (operator_overload(n.op(), target).empty()) candidates = overloads_of(target);
    // An overload, or an operator this libtorch lacks (find_schema).
    if (candidates.empty()) {
      if (const c10::FunctionSchema* schema = find_schema(target)) candidates.push_back(schema);
    }
    return choose_overload(candidates, form);
  }
  // torch.nn.functional's functions: by their TorchScript schema when traced
  // from a .pt; else (a graph built in C++) as the runtime runs them, as the
  // operator of their name.
  absl::string_view name = target;
  if (n.op() == Op::kCallFunction && absl::ConsumePrefix(&name, "torch.nn.functional.")) {
    const std::vector<const c10::FunctionSchema*> leaves = leaf_function_schemas(gm, target);
    if (!leaves.empty()) return normalize_leaf_function(n, leaves);
    if (name.empty() || name.find('.') != absl::string_view::npos) return std::nullopt;
    input_as_self(form);
    return choose_overload(overloads_of(absl::StrCat("aten::", name)), form);
  }
  // Methods and Python's operators: on a tensor only (`operator.floordiv`
  // of two sizes is an int's, whatever overload the names suggest).
  const bool on_tensor = !n.args().empty() && n.args()[0].is_node() &&
                         is_known_tensor(*n.args()[0].to_node());
  name = target;
  std::string base;
  if (n.op() == Op::kCallMethod || find_python_operator(target) != nullptr) {
    if (!on_tensor || !names_aten_operator(n.op(), target)) return std::nullopt;
    base = operator_base_name(n.op(), target);
  } else if (absl::ConsumePrefix(&name, "torch._C._nn.") && !name.empty() &&
             name.find('.') == absl::string_view::npos) {
    base = absl::StrCat("aten::", name);
    input_as_self(form);
  } else if (names_aten_operator(n.op(), target)) {
    base = operator_base_name(n.op(), target);
    input_as_self(form);
  } else {
    return std::nullopt;
  }
  return choose_overload(overloads_of(base), form);
}

absl::Status rewrite_as_normalized(Node& n, const NormalizedCall& call) {
  const auto& params = call.call.schema->arguments();
  // A parameter is written when the call gave it or passes other than the
  // operator's default.
  const auto written = [&](size_t i) {
    if (call.call.given[i] != nullptr) return true;
    const auto& d = params[i].default_value();
    return !d || !same_value(*d, call.call.defaults[i]);
  };
  const auto value = [&](size_t i) -> absl::StatusOr<Argument> {
    if (call.call.given[i] != nullptr) return *call.call.given[i];
    return ivalue_to_argument(call.call.defaults[i], params[i].real_type());
  };
  size_t positional_end = 0;
  for (size_t i = 0; i < params.size() && !params[i].kwarg_only(); ++i) {
    if (written(i)) positional_end = i + 1;
  }
  Arguments args;
  Kwargs kwargs;
  for (size_t i = 0; i < params.size(); ++i) {
    const bool positional = i < positional_end;
    if (!positional && !written(i)) continue;
    auto v = value(i);
    if (!v.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("node '", n.name(), "': argument '",
                                                     params[i].name(), "': ", v.status().message()));
    }
    if (positional) {
      args.push_back(*std::move(v));
    } else {
      kwargs.emplace_back(params[i].name(), *std::move(v));
    }
  }
  if (absl::Status s = n.set_call(Op::kCallFunction, call.target); !s.ok()) return s;
  n.set_args_kwargs(std::move(args), std::move(kwargs));
  return absl::OkStatus();
}

}  // namespace fx
