// Copyright 2026 The FX for C++ Authors.
//
// Operators: evaluated now when every input is known and nothing involves a
// tensor (what Python computes while torch.fx traces); otherwise recorded as
// a call_function node of the exact overload, with trailing arguments equal to
// their default dropped and keyword-only ones as kwargs. In-place operators go
// through the AliasTracker: recorded out of place where nothing can observe the
// difference, kept in place (impure) where something can.
#include <algorithm>
#include <functional>
#include <iterator>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "core/naming.h"
#include "core/printer.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"
#include "tracer/torchscript/diagnostics.h"
#include "tracer/torchscript/trace_engine.h"

namespace fx {
namespace tracer_internal {
namespace {

// The out-of-place operator with the same arguments as in-place `schema`
// (`aten::add.Tensor` for `aten::add_.Tensor`), or nullptr. One whose result
// may share another input's storage (`set`; `copy(y, x)` returns x itself) is
// no twin: later writes to its result would reach that input, where the
// in-place form wrote only self. Cached for the process: schemas live as long
// as the operator registry.
const std::string* functional_variant(const c10::FunctionSchema& schema) {
  struct Cache {
    absl::Mutex mu;
    absl::flat_hash_map<const c10::FunctionSchema*, std::unique_ptr<std::string>> variants
        ABSL_GUARDED_BY(mu);
  };
  static Cache* cache = new Cache();
  absl::MutexLock lock(&cache->mu);
  auto [it, inserted] = cache->variants.try_emplace(&schema);
  if (inserted) {
    const std::string& name = schema.name();
    const std::string functional_name = name.substr(0, name.size() - 1);
    auto functional = find_operator(schema.overload_name().empty()
                                        ? functional_name
                                        : absl::StrCat(functional_name, ".", schema.overload_name()));
    const auto& params = schema.arguments();
    if (functional.ok() && functional->schema->arguments().size() == params.size() &&
        !functional->schema->is_mutable() && !may_share_an_input(functional->schema->name())) {
      bool same = true;
      for (size_t i = 0; i < params.size(); ++i) {
        same = same && functional->schema->arguments()[i].name() == params[i].name();
      }
      if (same) it->second = std::make_unique<std::string>(functional->name());
    }
  }
  return it->second.get();
}

// The operator's name with its overload, or the overload it is a twin of:
// TorchScript registers `aten::index.Tensor_hacked_twin` (and index_put,
// index_put_, _index_put_impl_) with a `Tensor[]` where the original takes
// `Tensor?[]`, and picks it when no index is None; both compute the same, and
// the graph records the original, as the model's own TorchScript has it.
std::string canonical_operator_name(const std::string& name) {
  absl::string_view rest = name;
  if (!absl::ConsumeSuffix(&rest, "hacked_twin")) return name;
  if (!absl::ConsumeSuffix(&rest, "_")) absl::ConsumeSuffix(&rest, ".");
  const std::string original(rest);
  return find_operator(original).ok() ? original : name;
}

// The target an operator is recorded under: its exact overload, except that
// operators on Python values (no tensor among the parameters: ints, floats,
// lists, strings) that stand for Python's operators are recorded as those, as
// torch.fx records Python code (`operator.mul` for aten::mul.int,
// `operator.add` for list concatenation aten::add.t, `operator.getitem` for
// indexing a list, a tuple or a dict).
std::string python_level_target(const c10::FunctionSchema& schema) {
  const std::string& name = schema.name();
  if (name == "prim::TupleIndex" || name == "aten::__getitem__") return std::string(kGetItemTarget);
  if (name == "aten::__not__") return std::string(kNotTarget);
  for (const c10::Argument& param : schema.arguments()) {
    if (type_contains_tensor(param.type())) return canonical_operator_name(operator_name(schema));
  }
  for (const PythonOperator& op : python_operators()) {
    if (op.kind == PythonOperator::Kind::kInplace) continue;
    for (absl::string_view aten : absl::StrSplit(op.aten, '|')) {
      if (aten == name) return absl::StrCat(kOperatorModulePrefix, op.name);
    }
  }
  return operator_name(schema);
}

// Operators that read only a tensor's metadata (dtype, device, layout,
// sizes, kind of storage), which is known while tracing for a parameter.
bool reads_only_metadata(c10::Symbol kind) {
  static const auto* kinds = [] {
    auto* set = new absl::flat_hash_set<c10::Symbol>();
    for (const char* name :
         {"prim::dtype", "prim::device", "prim::layout", "aten::size", "aten::dim", "aten::numel",
          "aten::len", "aten::stride", "aten::is_floating_point", "aten::is_complex",
          "aten::is_signed", "prim::is_cuda", "prim::is_cpu", "prim::is_xpu", "prim::is_sparse",
          "prim::is_sparse_csr", "prim::is_mkldnn", "prim::is_mps", "prim::is_quantized",
          "prim::is_meta", "prim::is_nested", "prim::is_vulkan", "prim::is_ipu", "prim::is_ort",
          "prim::requires_grad"}) {
      set->insert(c10::Symbol::fromQualString(name));
    }
    return set;
  }();
  return kinds->contains(kind);
}

// Operators that read the state of the process when the graph runs (the
// grad mode, autocast), whose value while tracing is known.
bool reads_process_state(c10::Symbol kind) {
  static const c10::Symbol kinds[] = {
      c10::Symbol::fromQualString("aten::is_grad_enabled"),
      c10::Symbol::fromQualString("aten::is_autocast_enabled"),
      c10::Symbol::fromQualString("aten::is_autocast_cpu_enabled"),
  };
  return std::find(std::begin(kinds), std::end(kinds), kind) != std::end(kinds);
}

// What the ints of a comparison stand for when one side is a dtype or a
// layout (`x.dtype == torch.float16`, `x.dtype in [torch.float16,
// torch.bfloat16]`, which TorchScript compiles to comparisons of ints):
// ScalarType or Layout, else nullptr.
c10::TypePtr enum_compared_in(const c10::FunctionSchema& schema,
                              const std::vector<Argument>& values) {
  const std::string& name = schema.name();
  if (name != "aten::eq" && name != "aten::ne" && name != "aten::__contains__") return nullptr;
  c10::TypePtr kind;
  std::function<void(const Argument&)> visit = [&](const Argument& a) {
    if (a.is_dtype() || (a.is_node() && a.to_node()->target() == "prim::dtype")) {
      kind = c10::ScalarTypeType::get();
    } else if (a.is_layout() || (a.is_node() && a.to_node()->target() == "prim::layout")) {
      kind = c10::LayoutType::get();
    } else if (a.is_sequence()) {
      for (const Argument& e : a.elements()) visit(e);
    }
  };
  for (const Argument& v : values) visit(v);
  return kind;
}

// `a` with its ints (in lists too) written as what they stand for.
Argument ints_as(const Argument& a, const c10::TypePtr& kind) {
  if (a.is_int()) return int_as_literal(a.to_int(), kind);
  if (!a.is_sequence()) return a;
  std::vector<Argument> items;
  for (const Argument& e : a.elements()) items.push_back(ints_as(e, kind));
  return a.with_elements(std::move(items));
}

}  // namespace

absl::Status TraceEngine::run_operator(const jit::Node* n, Frame& frame) {
  bool handled = false;
  if (absl::Status s = run_container_operator(n, frame, &handled); !s.ok() || handled) return s;

  const c10::FunctionSchema& schema = n->schema();
  std::vector<TraceValue> inputs = inputs_of(n, frame);

  // f-strings (aten::format) only make messages: build them here, with traced
  // values named, instead of recording a node.
  if (n->kind() == c10::aten::format && !inputs.empty() && inputs[0].is_known() &&
      inputs[0].known_value().isString()) {
    std::vector<std::string> pieces = {inputs[0].known_value().toStringRef()};
    for (size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i].is_known()) {
        std::ostringstream ss;
        if (inputs[i].known_value().isString()) {
          ss << inputs[i].known_value().toStringRef();
        } else {
          ss << inputs[i].known_value();
        }
        pieces.push_back(ss.str());
      } else {
        auto a = to_argument(inputs[i], nullptr);
        pieces.push_back(a.ok() ? python_repr(*a) : std::string("?"));
      }
    }
    frame.values[n->output()] = TraceValue::known(format_message(pieces));
    return absl::OkStatus();
  }

  // `x is None` on a traced value: the trace takes the path for a value, as
  // torch.fx does (a Proxy is never None). When the value may be None at run
  // time (an Optional argument of forward, an Optional result of a leaf), the
  // graph checks that it is not, so that a call without it fails instead of
  // computing what the model computes for another input.
  if ((n->kind() == c10::aten::__is__ || n->kind() == c10::aten::__isnot__) && inputs.size() == 2) {
    auto none = [](const TraceValue& v) { return v.is_none(); };
    auto traced = [](const TraceValue& v) { return !v.is_known(); };
    if ((none(inputs[0]) && traced(inputs[1])) || (traced(inputs[0]) && none(inputs[1]))) {
      if (absl::Status s = check_not_none(n, none(inputs[0]) ? inputs[1] : inputs[0]); !s.ok()) {
        return s;
      }
      frame.values[n->output()] = TraceValue::known(n->kind() == c10::aten::__isnot__);
      return absl::OkStatus();
    }
  }

  // Evaluate now what Python would compute while torch.fx traces: operations
  // whose inputs are all known and hold no tensor, and that make no tensor
  // (`out is None` for an Optional[Tensor] argument left out, sizes from
  // module attributes, `self.training and ...`). What a value's declared type
  // allows does not matter, only what it is.
  // Operators with effects (setting the grad mode) or that read the state of
  // the process (is_grad_enabled) are recorded: the graph does it when it runs.
  bool evaluable = !n->hasSideEffects();
  std::vector<c10::IValue> values;
  for (size_t i = 0; i < inputs.size() && evaluable; ++i) {
    auto c = as_known(inputs[i], n->input(i)->type());
    if (!c || type_contains_tensor(c->type())) {
      evaluable = false;
      break;
    }
    values.push_back(std::move(*c));
  }
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    // Outputs must not be tensors, except a new empty list or dict that will
    // hold them (`OrderedDict()` is aten::dict()), which evaluate() turns into
    // a container of the trace.
    const c10::TypePtr& type = n->outputs()[i]->type();
    const bool new_container =
        (type->kind() == c10::TypeKind::ListType || type->kind() == c10::TypeKind::DictType) &&
        i < schema.returns().size() && schema.returns()[i].alias_info() == nullptr;
    evaluable = evaluable && (new_container || !type_contains_tensor(type));
  }
  if (evaluable) return evaluate(n, values, frame);
  // A traced value put into a list or dict the trace does not hold (one read
  // from a module attribute): the change could not be followed.
  if (schema.is_mutable() && !inputs.empty() && inputs[0].is_known() &&
      (inputs[0].known_value().isList() || inputs[0].known_value().isGenericDict())) {
    return untraceable(n, absl::StrCat(n->kind().toQualString(),
                                       " stores a traced value in a container that forward did "
                                       "not build (a module attribute?)"));
  }
  return record_operator(n, schema, inputs, frame);
}

absl::Status TraceEngine::record_operator(const jit::Node* n, const c10::FunctionSchema& schema,
                                          const std::vector<TraceValue>& inputs, Frame& frame) {
  const auto& params = schema.arguments();
  if (inputs.size() < params.size() && !schema.is_vararg()) {
    return error(n, absl::StrCat(schema.name(), " has fewer inputs than its schema"));
  }
  std::vector<Argument> values;
  values.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const c10::TypePtr type = i < params.size() ? params[i].real_type() : nullptr;
    if (c10::optional<Argument> number = python_number_constant(inputs[i], schema, i)) {
      values.push_back(std::move(*number));
      continue;
    }
    auto a = to_argument(inputs[i], type);
    if (!a.ok()) return error(n, a.status().message());
    values.push_back(std::move(*a));
  }
  if (const c10::TypePtr kind = enum_compared_in(schema, values)) {
    for (Argument& v : values) v = ints_as(v, kind);
  }
  Arguments args;
  Kwargs kwargs;
  split_call_arguments(params, 0, schema.is_vararg(), values, &args, &kwargs);

  std::string target = python_level_target(schema);
  Node* mutated = nullptr;
  bool functionalized = false;
  const bool mutable_schema = schema.is_mutable();
  if (mutable_schema && !values.empty() && values[0].is_node() && !params.empty() &&
      params[0].alias_info() != nullptr && params[0].alias_info()->isWrite()) {
    mutated = values[0].to_node();
    // Record `x.add_(y)` as `add(x, y)` when no other value can see x change.
    const bool safe = tracer_.options().functionalize_inplace &&
                      is_inplace_name(function_base_name(schema.name())) &&
                      schema.returns().size() == 1 &&
                      aliases_.may_functionalize(mutated);
    if (safe) {
      if (const std::string* functional = functional_variant(schema)) {
        target = canonical_operator_name(*functional);
        functionalized = true;
      }
    }
  }

  Node* node = tracer_.create_proxy(Op::kCallFunction, target, std::move(args), std::move(kwargs));
  if ((mutable_schema && !functionalized) || n->hasSideEffects()) node->set_impure(true);
  if (mutated != nullptr) aliases_.record_update(mutated, node);
  // Kept in place, the node's value is the mutated tensor itself (`Tensor(a!)`
  // returns self): whatever may see that tensor change sees this value
  // change, so in-place operations on it must stay in place too (after
  // `u.squeeze_(0)` on a view u, `u.add_(1)` still writes u's base).
  if (mutated != nullptr && !functionalized) aliases_.record_view(node, mutated);

  // Remember views, so that in-place operators on them stay in place: a
  // result in an alias set of an argument (`Tensor(a)`), or a list of such
  // (`Tensor(a)[]`: split, chunk, unbind), whose elements are then views too.
  if (!functionalized && !schema.returns().empty()) {
    const c10::AliasInfo* ret_alias = schema.returns()[0].alias_info();
    if (ret_alias != nullptr && !ret_alias->isWrite()) {
      std::vector<c10::Symbol> ret_sets(ret_alias->beforeSets().begin(),
                                        ret_alias->beforeSets().end());
      for (const c10::AliasInfo& element : ret_alias->containedTypes()) {
        ret_sets.insert(ret_sets.end(), element.beforeSets().begin(), element.beforeSets().end());
      }
      for (size_t i = 0; i < params.size() && i < values.size(); ++i) {
        const c10::AliasInfo* a = params[i].alias_info();
        if (a == nullptr || !values[i].is_node()) continue;
        bool shared = false;
        for (const c10::Symbol& set : ret_sets) shared = shared || a->beforeSets().count(set);
        if (!shared) continue;
        aliases_.record_view(node, values[i].to_node());
      }
    }
  }

  // An element of a list or tuple of views (`x.chunk(2)[0]`, whose schema
  // says only `t(*)`) is a view of their base.
  if (target == kGetItemTarget && !values.empty() && values[0].is_node()) {
    aliases_.record_element(node, values[0].to_node());
  }
  // Results that may be an input itself or share its storage although the
  // schema does not say so (atleast_2d, type_as, dropout, einsum, ...).
  // (`set_`, which makes self share its source's storage, is such an
  // operator under its twin's name.)
  const std::string& name = schema.name();
  const bool inplace = is_inplace_name(function_base_name(name));
  if (!functionalized &&
      may_share_an_input(inplace ? absl::string_view(name).substr(0, name.size() - 1) : name)) {
    for (const Argument& v : values) {
      for_each_node(v, [&](Node* input) { aliases_.record_view(node, input); });
    }
  }

  const size_t outs = n->outputs().size();
  if (outs == 1) {
    note_optional(node, n->output()->type());  // `d.get(k)`, an element of a tuple of Optionals
    frame.values[n->output()] = TraceValue::traced(node, value_now(n, inputs));
  } else {
    node->meta().set(kNumResultsKey, static_cast<int64_t>(outs));
    for (size_t i = 0; i < outs; ++i) {
      frame.values[n->outputs()[i]] = TraceValue::result(node, static_cast<int>(i));
    }
  }
  return absl::OkStatus();
}

c10::optional<c10::IValue> TraceEngine::value_now(const jit::Node* n,
                                                 const std::vector<TraceValue>& inputs) const {
  if (n->outputs().size() != 1 || type_contains_tensor(n->output()->type())) return c10::nullopt;
  const bool reads_state = reads_process_state(n->kind());
  if (n->hasSideEffects() && !reads_state) return c10::nullopt;
  const bool reads_metadata = reads_only_metadata(n->kind());
  torch::jit::Stack stack;
  for (size_t i = 0; i < inputs.size(); ++i) {
    c10::optional<c10::IValue> v;
    if (inputs[i].is_traced()) {
      v = inputs[i].traced_now();
    } else {
      v = as_known(inputs[i], n->input(i)->type());
    }
    // Only a tensor's metadata is known while tracing, never its data.
    if (!v || (!reads_metadata && type_contains_tensor(v->type()))) return c10::nullopt;
    stack.push_back(std::move(*v));
  }
  try {
    n->getOperation()(stack);
  } catch (const std::exception&) {
    return c10::nullopt;
  }
  if (stack.size() != 1) return c10::nullopt;
  return std::move(stack.back());
}

void TraceEngine::note_optional(Node* n, const c10::TypePtr& type) {
  if (type != nullptr && type->kind() == c10::TypeKind::OptionalType) may_be_none_.insert(n);
}

absl::Status TraceEngine::check_not_none(const jit::Node* n, const TraceValue& v) {
  if (!v.is_traced() && !v.is_result()) return absl::OkStatus();  // a list, dict, module: never None
  auto a = to_argument(v, nullptr);
  if (!a.ok()) return error(n, a.status().message());
  if (!a->is_node()) return absl::OkStatus();
  Node* value = a->to_node();
  const MetaValue* declared = value->meta().find(kTorchScriptTypeKey);
  const bool optional_input = value->op() == Op::kPlaceholder && declared != nullptr &&
                              declared->is_string() &&
                              absl::StartsWith(declared->to_string(), "Optional[");
  if (!optional_input && !may_be_none_.contains(value)) return absl::OkStatus();
  if (!checked_not_none_.insert(value).second) return absl::OkStatus();
  const std::string where = source_of(n, /*file_name_only=*/true);
  std::string message;
  if (optional_input) {
    message = absl::StrCat(
        value->target(), " was traced as given (not None)", where.empty() ? "" : " at ", where,
        "; to call the graph without it, trace with --concrete-args=", value->target(),
        "=None (C++: TraceOptions::concrete_args)");
  } else {
    message = absl::StrCat(value->name(), " is None, but was traced as not None",
                           where.empty() ? "" : " at ", where);
  }
  tracer_.create_proxy(Op::kCallFunction, kAssertIsNotNoneTarget, {value, message}, {});
  return absl::OkStatus();
}

absl::Status TraceEngine::evaluate(const jit::Node* n, const std::vector<c10::IValue>& inputs,
                                   Frame& frame) {
  torch::jit::Stack stack(inputs.begin(), inputs.end());
  try {
    n->getOperation()(stack);
  } catch (const std::exception& e) {
    return error(n, absl::StrCat("evaluating ", n->kind().toQualString(),
                                 " while tracing failed: ", exception_message(e)));
  }
  const size_t outs = n->outputs().size();
  if (stack.size() < outs) return error(n, "the operator returned too few values");
  const c10::FunctionSchema* schema = n->maybeSchema();
  for (size_t i = 0; i < outs; ++i) {
    c10::IValue value = std::move(stack[stack.size() - outs + i]);
    // A new list or dict (`OrderedDict()`, `list(...)`: a result the schema
    // does not say aliases an input) is a container of the trace, which the
    // code may fill with traced values.
    const bool fresh = schema != nullptr && i < schema->returns().size() &&
                       schema->returns()[i].alias_info() == nullptr;
    if (fresh && value.isList()) {
      std::vector<TraceValue> items;
      for (const c10::IValue& e : value.toListRef()) items.push_back(TraceValue::known(e));
      frame.values[n->outputs()[i]] = TraceValue::list(std::move(items));
    } else if (fresh && value.isGenericDict()) {
      std::vector<std::pair<c10::IValue, TraceValue>> items;
      for (const auto& kv : value.toGenericDict()) {
        items.emplace_back(kv.key(), TraceValue::known(kv.value()));
      }
      frame.values[n->outputs()[i]] = TraceValue::dict(std::move(items));
    } else {
      frame.values[n->outputs()[i]] = TraceValue::known(std::move(value));
    }
  }
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
