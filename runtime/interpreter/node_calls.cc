// Copyright 2026 The FX for C++ Authors.
#include "runtime/interpreter/node_calls.h"

#include <algorithm>
#include <optional>
#include <ATen/ScalarOps.h>
#include <ATen/TensorIndexing.h>
#include <ATen/core/dynamic_type.h>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "core/printer.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "runtime/interpreter/python_functions.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/torchscript/schema_parsing.h"
#include "runtime/torchscript/script_calls.h"
#include "runtime/value_conversion.h"

namespace fx {

Builtin builtin_for(absl::string_view target) {
  std::string canonical;
  if (absl::StartsWith(target, "_operator.")) {  // torch 1.x's qualified name of operator.X
    canonical = absl::StrCat("operator.", target.substr(10));
    target = canonical;
  }
  if (target == kGetItemTarget) return Builtin::kGetItem;
  if (target == kNotTarget) return Builtin::kNot;
  if (target == "operator.pos") return Builtin::kPos;
  if (target == kGetAttrTarget) return Builtin::kGetAttr;
  if (target == kAssertTarget) return Builtin::kAssert;
  if (target == kAssertIsNoneTarget) return Builtin::kAssertIsNone;
  if (target == kAssertIsNotNoneTarget) return Builtin::kAssertIsNotNone;
  if (target == "aten::_assert_tensor_metadata" || target == "aten::_assert_tensor_metadata.default") {
    return Builtin::kAssertTensorMetadata;
  }
  return Builtin::kNone;
}

const c10::FunctionSchema* builtin_schema(absl::string_view target) {
  if (builtin_for(target) != Builtin::kAssertTensorMetadata) return nullptr;
  static const auto* schema = new c10::FunctionSchema(parse_schema(
      "aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, "
      "ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()"));
  return schema;
}

namespace {

// How a Python-level target maps to aten: the aten names to search, in
// order, and what to do with a leading number in `number op tensor`.
struct PythonTarget {
  std::vector<std::string> aten_names;
  std::string reflected_name;  // 2 - x == rsub(x, 2); 2 + x == add(x, 2)
  // `math.sqrt`: Python's math functions, on Python numbers only (aten's
  // number overloads: aten::sqrt.int), never on a tensor.
  bool numbers_only = false;
};

// aten names after the fx_python operators of a Python function (python_functions.h).
PythonTarget with_python_functions(Op op, absl::string_view target, PythonTarget t) {
  std::vector<std::string> names = python_function_operators(target, op == Op::kCallMethod);
  if (names.empty()) return t;
  names.insert(names.end(), t.aten_names.begin(), t.aten_names.end());
  t.aten_names = std::move(names);
  return t;
}

absl::StatusOr<PythonTarget> python_target(Op op, absl::string_view target);

absl::StatusOr<PythonTarget> python_target_of(Op op, absl::string_view target) {
  auto t = python_target(op, target);
  if (!t.ok()) return t;
  return with_python_functions(op, target, *std::move(t));
}

absl::StatusOr<PythonTarget> python_target(Op op, absl::string_view target) {
  if (op == Op::kCallMethod) return PythonTarget{{absl::StrCat("aten::", target)}, ""};
  std::string canonical;
  if (absl::StartsWith(target, "_operator.")) {  // torch 1.x's qualified name of operator.X
    canonical = absl::StrCat("operator.", target.substr(10));
    target = canonical;
  }
  {
    // torch's bindings of aten operators, as torch.fx names them:
    // torch._C._nn.gelu (F.gelu), torch._C._linalg.linalg_norm,
    // torch._C._special.special_erf, torch._C._fft.fft_fft,
    // torch._C._VariableFunctions.add: exactly aten::<name>.
    absl::string_view rest = target;
    if (absl::ConsumePrefix(&rest, "torch._C._")) {
      const size_t dot = rest.find('.');
      if (dot != absl::string_view::npos) {
        absl::string_view name = rest.substr(dot + 1);
        if (!name.empty() && name.find('.') == absl::string_view::npos) {
          return PythonTarget{{absl::StrCat("aten::", name)}, ""};
        }
      }
    }
    // Python's math module on numbers: math.sqrt(x.size(-1)).
    rest = target;
    if (absl::ConsumePrefix(&rest, "math.") && !rest.empty() &&
        rest.find('.') == absl::string_view::npos) {
      PythonTarget t{{absl::StrCat("aten::", rest)}, ""};
      t.numbers_only = true;
      return t;
    }
  }
  if (const PythonOperator* py = find_python_operator(target)) {
    return PythonTarget{absl::StrSplit(py->aten, '|', absl::SkipEmpty()),
                        std::string(py->reflected)};
  }
  if (absl::StartsWith(target, kOperatorModulePrefix)) {
    return absl::UnimplementedError(absl::StrCat("no aten operator for ", target));
  }
  if (target.find("::") != absl::string_view::npos) {
    // `ns::name` without an overload: any overload that fits.
    return PythonTarget{{std::string(target)}, ""};
  }
  // Python functions that return a tensor or a tuple by a flag (boolean
  // dispatch), where aten's operator of the name returns the tuple always:
  // run as the model's TorchScript compiled them, or not at all.
  for (absl::string_view dispatched :
       {"torch.functional.unique", "torch.functional.unique_consecutive", "torch.functional.lu",
        "torch.nn.functional.fractional_max_pool2d", "torch.nn.functional.fractional_max_pool3d"}) {
    if (target == dispatched) {
      return absl::UnimplementedError(absl::StrCat(
          "cannot run call_function target '", target, "': Python returns a tensor or a tuple "
          "by its return_* flags, where aten's operator of the name returns the tuple; the "
          "model file's TorchScript has no function for it"));
    }
  }
  // torch's functions (`torch.add`, `torch.nn.functional.relu`, a builtin
  // `len`) are the aten operators of their name; not `torch.nope.add`.
  absl::string_view name = target;
  if (absl::ConsumePrefix(&name, "torch.")) {
    absl::ConsumePrefix(&name, "nn.functional.") || absl::ConsumePrefix(&name, "functional.") ||
        absl::ConsumePrefix(&name, "Tensor.");
  }
  if (!name.empty() && name.find('.') == absl::string_view::npos) {
    return PythonTarget{{absl::StrCat("aten::", name)}, ""};
  }
  return absl::UnimplementedError(absl::StrCat(
      "cannot run call_function target '", target,
      "': it is neither an operator (ns::name.overload) nor a torch, operator or builtin function"));
}

bool is_number(const c10::IValue& v) { return v.isInt() || v.isDouble() || v.isBool(); }

std::string describe_target(const Node& node) {
  if (node.op() == Op::kCallFunction) return spell_function_target(node.target(), TargetStyle::kGraph);
  return absl::StrCat(op_name(node.op()), " ", node.target());
}

}  // namespace

// A Python number as the 0-dim "wrapped number" tensor torch makes of it.
c10::IValue wrap_number(const c10::IValue& v) {
  at::Tensor t = c10::scalar_to_tensor(v.toScalar());
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

absl::Status node_error(const Node& node, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (",
                                                 describe_target(node), "): ", message));
}

// Whether `value` is a value of `type`: by its static type, or, for a
// container whose element types say less (a Dict[Any, Any] read from a
// pickle, a List[Any]), by its elements, as Python would see it.
bool value_fits(const c10::IValue& value, const c10::TypePtr& type, int depth = 0) {
  if (value.type()->isSubtypeOf(*type)) return true;
  if (depth > 32) return false;
  // The type parser of annotations gives mobile's DynamicType: its static form.
  if (type->kind() == c10::TypeKind::DynamicType) {
    return value_fits(value, type->expectRef<c10::DynamicType>().fallback(), depth + 1);
  }
  switch (type->kind()) {
    case c10::TypeKind::FloatType:
      return value.isInt();
    case c10::TypeKind::OptionalType:
      return value.isNone() || value_fits(value, type->expectRef<c10::OptionalType>().getElementType(), depth + 1);
    case c10::TypeKind::ListType: {
      if (!value.isList()) return false;
      const c10::TypePtr element = type->expectRef<c10::ListType>().getElementType();
      for (const c10::IValue& e : value.toListRef()) {
        if (!value_fits(e, element, depth + 1)) return false;
      }
      return true;
    }
    case c10::TypeKind::DictType: {
      if (!value.isGenericDict()) return false;
      const auto& dict_type = type->expectRef<c10::DictType>();
      for (const auto& kv : value.toGenericDict()) {
        if (!value_fits(kv.key(), dict_type.getKeyType(), depth + 1) ||
            !value_fits(kv.value(), dict_type.getValueType(), depth + 1)) {
          return false;
        }
      }
      return true;
    }
    case c10::TypeKind::TupleType: {
      if (!value.isTuple()) return false;
      const auto& items = value.toTupleRef().elements();
      const auto& types = type->expectRef<c10::TupleType>().elements();
      if (items.size() != types.size()) return false;
      for (size_t i = 0; i < items.size(); ++i) {
        if (!value_fits(items[i], types[i], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// Checks a caller's input against a placeholder's TorchScript type, when known.
absl::Status check_input_type(const Node& node, size_t index, const c10::IValue& value) {
  std::string annotation;
  if (const MetaValue* t = node.meta().find(kTorchScriptTypeKey); t != nullptr && t->is_string()) {
    annotation = t->to_string();
  } else if (node.type() == "torch.Tensor") {
    annotation = "Tensor";
  } else {
    return absl::OkStatus();
  }
  c10::TypePtr expected;
  try {
    expected = parse_type(annotation);
  } catch (const std::exception&) {
    return absl::OkStatus();  // an annotation we cannot check
  }
  if (value_fits(value, expected)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("input ", index, " (placeholder '", node.name(),
                                                 "') must be ", annotation, " but got ",
                                                 escape_for_message(value.type()->repr_str())));
}

namespace {

// aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]?
// stride=None, ScalarType? dtype=None, *, Device? device=None, Layout?
// layout=None): what is given must match, as in libtorch 2.x (a device
// without an index matches any index; the meta device matches any device).
absl::StatusOr<c10::IValue> assert_tensor_metadata(const Node& node, const std::vector<c10::IValue>& args,
                                                   const IValueKwargs& kwargs) {
  static const char* const kNames[] = {"a", "size", "stride", "dtype", "device", "layout"};
  std::vector<c10::IValue> bound(6);
  if (args.size() > 4) return node_error(node, "takes at most 4 positional arguments");
  for (size_t i = 0; i < args.size(); ++i) bound[i] = args[i];
  for (const auto& [name, value] : kwargs) {
    const auto* at = std::find(std::begin(kNames), std::end(kNames), name);
    if (at == std::end(kNames)) return node_error(node, absl::StrCat("unexpected keyword argument '", name, "'"));
    bound[at - std::begin(kNames)] = value;
  }
  if (!bound[0].isTensor()) return node_error(node, "its first argument must be a tensor");
  const at::Tensor& t = bound[0].toTensor();
  auto mismatch = [&](const char* what, const std::string& expected, const std::string& got) {
    return node_error(node, absl::StrCat("assertion failed: tensor ", what, " mismatch: expected ", expected,
                                         ", got ", got));
  };
  for (int i : {1, 2}) {
    if (bound[i].isNone()) continue;
    if (!bound[i].isIntList()) return node_error(node, absl::StrCat(kNames[i], " must be a list of ints"));
    const std::vector<int64_t> want = bound[i].toIntVector();
    const c10::IntArrayRef have = i == 1 ? t.sizes() : t.strides();
    if (have != c10::IntArrayRef(want)) {
      return mismatch(i == 1 ? "sizes" : "strides", absl::StrCat("[", absl::StrJoin(want, ", "), "]"),
                      absl::StrCat("[", absl::StrJoin(have, ", "), "]"));
    }
  }
  if (!bound[3].isNone()) {
    const auto dtype = static_cast<c10::ScalarType>(bound[3].toInt());
    if (t.scalar_type() != dtype) {
      return mismatch("dtype", python_dtype_name(dtype), python_dtype_name(t.scalar_type()));
    }
  }
  if (!bound[4].isNone() && !t.is_meta()) {
    const c10::Device device = bound[4].isDevice() ? bound[4].toDevice() : c10::Device(bound[4].toStringRef());
    if (device.type() != t.device().type() ||
        (device.has_index() && t.device().has_index() && device.index() != t.device().index())) {
      return mismatch("device", device.str(), t.device().str());
    }
  }
  if (!bound[5].isNone()) {
    const auto layout = static_cast<c10::Layout>(bound[5].toInt());
    if (t.layout() != layout) {
      return mismatch("layout", c10::toString(layout), c10::toString(t.layout()));
    }
  }
  return c10::IValue();
}

}  // namespace

namespace {

// The position of the return named `name` among the `size` returns of the
// call `getattr` node reads (its first argument), by the schemas of every
// overload its target may run: one position they all agree on, or an error
// naming the field.
absl::StatusOr<size_t> named_return_index(const Node& getattr, size_t size, const std::string& name) {
  const Node* producer = !getattr.args().empty() && getattr.args()[0].is_node()
                             ? getattr.args()[0].to_node()
                             : nullptr;
  std::optional<size_t> index;
  bool ambiguous = false;
  if (producer != nullptr &&
      (producer->op() == Op::kCallFunction || producer->op() == Op::kCallMethod)) {
    auto target = python_target_of(producer->op(), producer->target());
    if (target.ok()) {
      for (const std::string& aten : target->aten_names) {
        const size_t dot = aten.find('.', aten.find("::"));
        std::vector<BoundOperator> overloads;
        if (dot == std::string::npos) {
          overloads = find_overloads(aten);
        } else if (auto exact = find_operator(aten); exact.ok()) {
          overloads.push_back(*exact);
        }
        for (const BoundOperator& op : overloads) {
          const auto& returns = op.schema->returns();
          if (returns.size() != size) continue;
          for (size_t i = 0; i < returns.size(); ++i) {
            if (returns[i].name() != name) continue;
            ambiguous = ambiguous || (index.has_value() && *index != i);
            index = i;
          }
        }
      }
    }
  }
  if (index.has_value() && !ambiguous) return *index;
  return node_error(getattr, absl::StrCat("no return of ",
                                          producer != nullptr ? escape_for_message(producer->target()) : "it",
                                          " is named '", escape_for_message(name), "'",
                                          ambiguous ? " at one position in every overload" : ""));
}

}  // namespace

absl::StatusOr<c10::IValue> run_builtin(const Node& node, Builtin builtin,
                                        std::vector<c10::IValue>& args, const IValueKwargs& kwargs) {
  if (builtin == Builtin::kAssertTensorMetadata) return assert_tensor_metadata(node, args, kwargs);
  if (!kwargs.empty()) return node_error(node, "takes no keyword arguments");
  auto arity = [&](size_t n) -> absl::Status {
    if (args.size() == n) return absl::OkStatus();
    return node_error(node, absl::StrCat("expects ", n, " arguments, got ", args.size()));
  };
  switch (builtin) {
    case Builtin::kGetItem: {
      if (absl::Status s = arity(2); !s.ok()) return s;
      const c10::IValue& seq = args[0];
      if ((seq.isList() || seq.isTuple()) && args[1].isInt()) {
        const std::vector<c10::IValue> items = sequence_elements(seq);
        int64_t i = args[1].toInt();
        const int64_t n = static_cast<int64_t>(items.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) {
          return node_error(node, absl::StrCat("index ", args[1].toInt(), " out of range for ",
                                               n, " elements"));
        }
        return items[i];
      }
      if (seq.isGenericDict()) {
        auto dict = seq.toGenericDict();
        auto it = dict.find(args[1]);
        if (it == dict.end()) return node_error(node, "key not found");
        return it->value();
      }
      if (seq.isTensor() && args[1].isInt()) return seq.toTensor().select(0, args[1].toInt());
      if (seq.isTensor() && (args[1].isTensor() || args[1].isTuple())) {
        // x[t], x[i, t]: Python's indexing, by libtorch's own (a 0-dim integer
        // tensor selects, an integer tensor gathers, a bool tensor masks).
        std::vector<at::indexing::TensorIndex> index;
        const std::vector<c10::IValue> items =
            args[1].isTuple() ? sequence_elements(args[1]) : std::vector<c10::IValue>{args[1]};
        for (const c10::IValue& item : items) {
          if (item.isTensor()) {
            index.emplace_back(item.toTensor());
          } else if (item.isBool()) {
            index.emplace_back(item.toBool());
          } else if (item.isInt()) {
            index.emplace_back(item.toInt());
          } else if (item.isNone()) {
            index.emplace_back(at::indexing::None);
          } else {
            return node_error(node, absl::StrCat("cannot index a Tensor with a ", item.tagKind(),
                                                 " in a tuple"));
          }
        }
        try {
          return seq.toTensor().index(index);
        } catch (const std::exception& e) {
          return node_error(node, exception_message(e));
        }
      }
      return node_error(node, absl::StrCat("cannot index a ", seq.tagKind(), " with a ",
                                           args[1].tagKind()));
    }
    case Builtin::kNot:
      if (absl::Status s = arity(1); !s.ok()) return s;
      if (args[0].isBool()) return c10::IValue(!args[0].toBool());
      if (args[0].isInt()) return c10::IValue(args[0].toInt() == 0);
      if (args[0].isTensor()) return c10::IValue(!args[0].toTensor().item<bool>());
      return node_error(node, absl::StrCat("cannot negate a ", args[0].tagKind()));
    case Builtin::kPos:
      if (absl::Status s = arity(1); !s.ok()) return s;
      return args[0];
    case Builtin::kGetAttr: {
      if (absl::Status s = arity(2); !s.ok()) return s;
      if (args[0].isTuple() && args[1].isString()) {
        // A field of what an operator returns, by the name its schema gives
        // it: `x.max(dim=1).values` (Python's torch.return_types).
        const std::vector<c10::IValue>& items = args[0].toTupleRef().elements().vec();
        auto field = named_return_index(node, items.size(), args[1].toStringRef());
        if (!field.ok()) return field.status();
        return items[*field];
      }
      if (!args[0].isTensor() || !args[1].isString()) {
        return node_error(node, "getattr runs on a tensor and an attribute name");
      }
      const at::Tensor& t = args[0].toTensor();
      const std::string& attr = args[1].toStringRef();
      if (attr == "shape") return c10::IValue(c10::List<int64_t>(t.sizes()));
      if (attr == "dtype") return c10::IValue(static_cast<int64_t>(t.scalar_type()));
      if (attr == "device") return c10::IValue(t.device());
      if (attr == "ndim") return c10::IValue(t.dim());
      return node_error(node, absl::StrCat("unsupported tensor attribute '", attr, "'"));
    }
    case Builtin::kAssert: {
      if (args.empty() || args.size() > 2) return node_error(node, "expects (condition, message)");
      bool ok = false;
      if (args[0].isBool()) {
        ok = args[0].toBool();
      } else if (args[0].isTensor()) {
        ok = args[0].toTensor().item<bool>();
      } else if (args[0].isInt()) {
        ok = args[0].toInt() != 0;
      } else {
        return node_error(node, "the condition must be a bool or a tensor");
      }
      if (!ok) {
        const std::string message = args.size() == 2 && args[1].isString() ? args[1].toStringRef()
                                                                          : "assertion failed";
        return node_error(node, absl::StrCat("assertion failed: ", message));
      }
      return c10::IValue();
    }
    case Builtin::kAssertIsNone: {
      if (args.empty() || args.size() > 2) return node_error(node, "expects (value, message)");
      if (args[0].isNone()) return c10::IValue();
      const std::string message = args.size() == 2 && args[1].isString() ? args[1].toStringRef()
                                                                        : "value is not None";
      return node_error(node, absl::StrCat("assertion failed: ", message));
    }
    case Builtin::kAssertIsNotNone: {
      if (args.empty() || args.size() > 2) return node_error(node, "expects (value, message)");
      if (!args[0].isNone()) return c10::IValue();
      const std::string message = args.size() == 2 && args[1].isString() ? args[1].toStringRef()
                                                                        : "value is None";
      return node_error(node, absl::StrCat("assertion failed: ", message));
    }
    case Builtin::kAssertTensorMetadata:
    case Builtin::kNone:
      break;
  }
  return absl::InternalError("not a builtin");
}

// Finds the overload of a Python-level target that accepts these arguments.
absl::StatusOr<ResolvedCall> resolve_call(const Node& node, const std::vector<c10::IValue>& args,
                                          const IValueKwargs& kwargs) {
  ResolvedCall call;
  auto target = python_target_of(node.op(), node.target());
  if (!target.ok()) return node_error(node, target.status().message());
  if (target->numbers_only) {
    for (const c10::IValue& a : args) {
      if (!is_number(a)) {
        return node_error(node, absl::StrCat(node.target(), " takes Python numbers, not a ",
                                             a.type()->repr_str()));
      }
    }
    if (!kwargs.empty()) return node_error(node, absl::StrCat(node.target(), " takes no keywords"));
  }
  // A Python function's `inplace=` (F.relu(x, inplace=True)) chooses between
  // two functions, so the node must give it as a literal: the overload is
  // chosen once per input types.
  auto inplace_literal = [&](const c10::FunctionSchema& schema) -> std::optional<bool> {
    const auto& params = schema.arguments();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].name() != "inplace") continue;
      const Argument* given = nullptr;
      if (i < node.args().size()) given = &node.args()[i];
      for (const auto& [key, value] : node.kwargs()) {
        if (key == "inplace") given = &value;
      }
      if (given == nullptr) return false;
      if (given->is_bool()) return given->to_bool();
      return std::nullopt;
    }
    return std::nullopt;
  };
  // TorchScript passes dtypes, layouts and memory formats as ints; a graph
  // literal says which it is. An int literal never binds to a dtype parameter
  // (so `x.view(-1)` is not `view.dtype`).
  auto literal_fits = [&](const c10::FunctionSchema& schema, bool swapped) {
    const auto& params = schema.arguments();
    auto fits = [](const c10::Argument& p, const Argument& a) {
      const c10::TypePtr t = without_optional(p.real_type());
      const bool enum_like = t->kind() == c10::TypeKind::ScalarTypeType ||
                             t->kind() == c10::TypeKind::LayoutType ||
                             t->kind() == c10::TypeKind::MemoryFormatType;
      return !(enum_like && a.is_int());
    };
    for (size_t i = 0; i < node.args().size() && i < params.size(); ++i) {
      const size_t arg_index = swapped && node.args().size() == 2 ? 1 - i : i;
      if (!fits(params[i], node.args()[arg_index])) return false;
    }
    for (const auto& [key, value] : node.kwargs()) {
      for (const c10::Argument& p : params) {
        if (p.name() == key && !fits(p, value)) return false;
      }
    }
    return true;
  };
  // Whether the overload would read an int as something else: as a whole
  // `int[]` (as `x.view(-1)` passes its size) or as a dtype, layout or
  // memory format (TorchScript passes those as ints). `operator.ne(d, 4)`
  // is `ne.int`, not `ne.int_list` on lists of one (which would also cost a
  // list per call).
  auto reads_an_int_as_other = [&](const c10::FunctionSchema& schema,
                                   const std::vector<c10::IValue>& candidate_args) {
    auto other = [](const c10::Argument& p) {
      const c10::TypePtr t = without_optional(p.real_type());
      if (t->kind() == c10::TypeKind::ScalarTypeType || t->kind() == c10::TypeKind::LayoutType ||
          t->kind() == c10::TypeKind::MemoryFormatType) {
        return true;
      }
      if (t->kind() != c10::TypeKind::ListType || p.N()) return false;
      const c10::TypeKind element = t->expectRef<c10::ListType>().getElementType()->kind();
      return element == c10::TypeKind::IntType || element == c10::TypeKind::SymIntType;
    };
    const auto& params = schema.arguments();
    for (size_t i = 0; i < candidate_args.size() && i < params.size(); ++i) {
      if (candidate_args[i].isInt() && other(params[i])) return true;
    }
    for (const auto& [key, value] : kwargs) {
      for (const c10::Argument& p : params) {
        if (p.name() == key && value.isInt() && other(p)) return true;
      }
    }
    return false;
  };
  auto try_overloads = [&](const std::string& name, const std::vector<c10::IValue>& candidate_args,
                           bool swapped = false) -> bool {
    const std::vector<BoundOperator> overloads = find_overloads(name);
    // First an overload that takes every value as what it is; else the first
    // that binds, in the registry's order (`x.view(n)` is `view(x, [n])`,
    // not `view.dtype`).
    for (const bool as_is : {true, false}) {
      for (const BoundOperator& op : overloads) {
        if (!literal_fits(*op.schema, swapped)) continue;
        if (target->numbers_only &&
            std::any_of(op.schema->arguments().begin(), op.schema->arguments().end(),
                        [](const c10::Argument& p) { return takes_wrapped_number(p); })) {
          continue;  // math.sqrt is not torch.sqrt
        }
        if (has_inplace_overload(op.schema->name())) {
          const std::optional<bool> inplace = inplace_literal(*op.schema);
          if (!inplace.has_value() || *inplace != op.schema->is_mutable()) continue;
        } else if (op.schema->is_mutable() && node.op() == Op::kCallFunction &&
                   !absl::string_view(name).empty() && name.back() != '_') {
          continue;  // `out=` overloads write to an argument
        }
        if (as_is && reads_an_int_as_other(*op.schema, candidate_args)) continue;
        if (bind_arguments(*op.schema, candidate_args, kwargs).ok()) {
          call.op = op;
          return true;
        }
      }
    }
    return false;
  };
  for (const std::string& name : target->aten_names) {
    if (try_overloads(name, args)) return call;
  }
  // `2 - x`: Python's reflected operators on a number and a tensor.
  if (args.size() == 2 && is_number(args[0]) && args[1].isTensor()) {
    if (!target->reflected_name.empty() &&
        try_overloads(target->reflected_name, {args[1], args[0]}, true)) {
      call.swap_operands = true;
      return call;
    }
    for (const std::string& name : target->aten_names) {
      if (try_overloads(name, {wrap_number(args[0]), args[1]})) {
        call.wrap_first = true;
        return call;
      }
    }
  }
  std::vector<std::string> types;
  for (const c10::IValue& a : args) types.push_back(a.type()->repr_str());
  for (const auto& [k, v] : kwargs) types.push_back(absl::StrCat(k, "=", v.type()->repr_str()));
  return node_error(node, absl::StrCat("no overload of ", absl::StrJoin(target->aten_names, " or "),
                                       " accepts (",
                                       absl::StrJoin(types, ", "), ")"));
}


bool takes_wrapped_number(const c10::Argument& param) {
  return without_optional(param.type())->kind() == c10::TypeKind::TensorType;
}

void adjust_arguments(const ResolvedCall& call, std::vector<c10::IValue>& args) {
  if (call.swap_operands && args.size() == 2) std::swap(args[0], args[1]);
  if (call.wrap_first && !args.empty() && is_number(args[0])) args[0] = wrap_number(args[0]);
  if (call.wrap_numbers) {
    const auto& params = call.op.schema->arguments();
    for (size_t i = 0; i < args.size() && i < params.size() && !params[i].kwarg_only(); ++i) {
      if (is_number(args[i]) && takes_wrapped_number(params[i])) args[i] = wrap_number(args[i]);
    }
  }
}

c10::IValue take_returns(const c10::FunctionSchema& schema, torch::jit::Stack& stack) {
  const size_t returns = schema.returns().size();
  if (returns == 1 && !stack.empty()) return std::move(stack.back());
  if (returns == 0) return c10::IValue();
  std::vector<c10::IValue> outs(std::make_move_iterator(stack.end() - returns),
                                std::make_move_iterator(stack.end()));
  return c10::IValue(c10::ivalue::Tuple::create(std::move(outs)));
}

absl::StatusOr<c10::IValue> call_operator(const Node& node, const ResolvedCall& call,
                                          std::vector<c10::IValue> args,
                                          const IValueKwargs& kwargs,
                                          torch::jit::Stack* called_with) {
  adjust_arguments(call, args);
  IValueKwargs wrapped;
  if (call.wrap_numbers) {
    wrapped = kwargs;
    for (auto& [key, value] : wrapped) {
      for (const c10::Argument& p : call.op.schema->arguments()) {
        if (p.name() == key && is_number(value) && takes_wrapped_number(p)) value = wrap_number(value);
      }
    }
  }
  auto stack = bind_arguments(*call.op.schema, std::move(args), call.wrap_numbers ? wrapped : kwargs);
  if (!stack.ok()) return node_error(node, stack.status().message());
  if (called_with != nullptr) *called_with = *stack;
  try {
    call.op.run(*stack);
  } catch (const std::exception& e) {
    return node_error(node, exception_message(e));
  }
  return take_returns(*call.op.schema, *stack);
}

absl::StatusOr<c10::IValue> read_attribute(const Node& node, const NodeTarget& target) {
  if (target.attr_owner == nullptr) return target.attr;
  auto value = target.attr_owner->read_code_written(target.attr_name);
  if (!value.ok()) return node_error(node, value.status().message());
  return value;
}

absl::StatusOr<NodeTarget> lookup_target(const GraphModule& gm, const Node& node) {
  NodeTarget t;
  switch (node.op()) {
    case Op::kGetAttr: {
      auto value = gm.get_attr(node.target());
      if (!value.ok()) return node_error(node, value.status().message());
      t.attr = std::move(*value);
      if (code_may_assign(gm.root(), node.target())) {
        const size_t dot = node.target().rfind('.');
        auto owner = gm.get_submodule(dot == std::string::npos ? "" : node.target().substr(0, dot));
        if (!owner.ok()) return node_error(node, owner.status().message());
        t.attr_owner = *std::move(owner);
        t.attr_name = node.target().substr(dot + 1);
      }
      break;
    }
    case Op::kCallFunction:
      t.builtin = builtin_for(node.target());
      if (t.builtin != Builtin::kNone) break;
      if (node.target().find("::") != std::string::npos) {
        auto op = find_operator(node.target());
        // `ns::name` without overload is resolved by argument types later.
        if (op.ok()) {
          t.op = *op;
          t.exact = true;
        } else if (node.target().find('.') != std::string::npos) {
          return node_error(node, op.status().message());
        }
      } else {
        // A leaf function the tracer recorded, or a function of the model's code.
        auto script = find_script_callee(gm, node);
        if (!script.ok()) return script.status();
        t.script = *std::move(script);
      }
      break;
    case Op::kCallModule: {
      if (const GraphModule* graph_module = gm.graph_submodule(node.target())) {
        t.graph_module = graph_module;
        break;
      }
      auto script = find_script_callee(gm, node);
      if (!script.ok()) return script.status();
      t.script = *std::move(script);
      break;
    }
    default:
      break;
  }
  return t;
}

absl::Status compile_graph_submodule(const Node& node, NodeTarget& target,
                                     const PlanOptions& options) {
  if (target.graph_module == nullptr) return absl::OkStatus();
  auto plan = ExecutionPlan::compile(*target.graph_module, options);
  if (!plan.ok()) {
    return node_error(node, absl::StrCat("graph submodule '", node.target(),
                                         "': ", plan.status().message()));
  }
  target.graph_module_plan = *std::move(plan);
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> call_graph_module(const Node& node, const ExecutionPlan& plan,
                                              std::vector<c10::IValue> args,
                                              const IValueKwargs& kwargs) {
  if (!kwargs.empty()) {
    return node_error(node, "a graph submodule takes positional inputs only, not keywords");
  }
  auto value = plan.run(std::move(args));
  if (!value.ok()) {
    return node_error(node, absl::StrCat("in graph submodule '", node.target(),
                                         "': ", value.status().message()));
  }
  return value;
}

}  // namespace fx
