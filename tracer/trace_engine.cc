// Copyright 2026 The FX for C++ Authors.
#include "tracer/trace_engine.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/frontend/source_range.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <deque>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "core/naming.h"
#include "core/printer.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace tracer_internal {
namespace {

// ---- Source locations and messages -----------------------------------------

std::string first_line(std::string text) {
  const size_t nl = text.find('\n');
  if (nl != std::string::npos) text.resize(nl);
  return std::string(absl::StripAsciiWhitespace(text));
}

// "resnet.py:102:8 (`out += identity`)", or "" when TorchScript kept no source.
std::string source_of(const jit::Node* n) {
  // A loaded module's nodes point into its serialised code; the debug info
  // maps them back to the Python source they were scripted from.
  jit::SourceRange range = n->sourceRange();
  if (auto original = range.findSourceRangeThatGenerated()) range = *original;
  auto flc = range.file_line_col();
  if (!flc) return "";
  const auto& [file, line, col] = *flc;
  std::string where = absl::StrCat(file, ":", line, ":", col);
  std::string text;
  try {
    text = first_line(range.text().str());
  } catch (const std::exception&) {
  }
  return text.empty() ? where : absl::StrCat(where, " (`", text, "`)");
}

std::string at_source(const jit::Node* n) {
  std::string s = source_of(n);
  // Some nodes (prim::SetAttr) carry no source: the values they consume do.
  for (size_t i = n->inputs().size(); s.empty() && i > 0; --i) {
    s = source_of(n->inputs()[i - 1]->node());
  }
  return s.empty() ? "" : absl::StrCat(" at ", s);
}

bool is_forward_name(absl::string_view name) {
  // DenseNet's layers are called through TorchScript's overload `forward__0`.
  return name == "forward" || absl::StartsWith(name, "forward__");
}

// `index` into a sequence of `size` elements as Python reads it (negative
// from the end); nullopt when out of range.
c10::optional<size_t> python_index(int64_t index, size_t size) {
  const int64_t n = static_cast<int64_t>(size);
  const int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) return c10::nullopt;
  return static_cast<size_t>(i);
}

// Python's str.format for the `{}` placeholders TorchScript compiles f-strings
// to; traced values print as their node names (they only end up in messages).
std::string format_message(const std::vector<std::string>& pieces) {
  std::string out;
  size_t next = 1;
  const std::string& format = pieces[0];
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '{' && i + 1 < format.size() && format[i + 1] == '}' && next < pieces.size()) {
      out += pieces[next++];
      ++i;
    } else {
      out += format[i];
    }
  }
  return out;
}

// The out-of-place operator with the same arguments as in-place `schema`
// (`aten::add.Tensor` for `aten::add_.Tensor`), or nullptr. Cached for the
// process: schemas live as long as the operator registry.
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
        !functional->schema->is_mutable()) {
      bool same = true;
      for (size_t i = 0; i < params.size(); ++i) {
        same = same && functional->schema->arguments()[i].name() == params[i].name();
      }
      if (same) it->second = std::make_unique<std::string>(functional->name());
    }
  }
  return it->second.get();
}

}  // namespace

std::string TraceEngine::describe(const Context& c) const {
  if (c.self == nullptr) {
    return absl::StrCat("function ", python_qualified_name(c.function->qualname().qualifiedName()));
  }
  return absl::StrCat(c.self->cls->class_name, ".", *c.method,
                      c.self->qualname.empty() ? std::string(" (the root module)")
                                               : absl::StrCat(" (module '", c.self->qualname, "')"));
}

absl::Status TraceEngine::error(const jit::Node* n, absl::string_view what) const {
  std::string where = context_.empty() ? std::string() : absl::StrCat(" in ", describe(context_.back()));
  return absl::InvalidArgumentError(absl::StrCat(what, at_source(n), where));
}

const ModuleInfo* TraceEngine::module_info(const c10::intrusive_ptr<c10::ivalue::Object>& object,
                                           const std::string& qualname) {
  auto it = module_by_object_.find(object.get());
  if (it != module_by_object_.end()) return it->second;
  ModuleInfo& info = modules_.emplace_back();
  const c10::ClassTypePtr type = object->type();
  info.module = torch::jit::Module(object);
  info.qualname = qualname;
  const ModuleClass*& cls = classes_[type.get()];
  if (cls == nullptr) cls = &module_class_of(type);
  info.cls = cls;
  info.type = type.get();
  module_by_object_.emplace(object.get(), &info);
  return &info;
}

Node* TraceEngine::resolve(Node* n) const {
  auto it = version_of_.find(n);
  while (it != version_of_.end()) {
    n = it->second;
    it = version_of_.find(n);
  }
  return n;
}

Argument TraceEngine::resolve(const Argument& a) const {
  if (version_of_.empty()) return a;
  if (a.is_node()) return resolve(a.to_node());
  bool stale = false;
  for_each_node(a, [&](Node* n) { stale = stale || version_of_.contains(n); });
  if (!stale) return a;
  return map_arg(a, [this](Node* n) -> Argument { return resolve(n); });
}

const TValue& TraceEngine::lookup(const Frame& frame, const jit::Value* v) const {
  static const TValue* const kUnset = new TValue();
  auto it = frame.values.find(v);
  return it != frame.values.end() ? it->second : *kUnset;
}

std::vector<TValue> TraceEngine::inputs_of(const jit::Node* n, const Frame& frame) const {
  std::vector<TValue> out;
  out.reserve(n->inputs().size());
  for (const jit::Value* v : n->inputs()) out.push_back(lookup(frame, v));
  return out;
}

c10::optional<c10::IValue> TraceEngine::as_concrete(const TValue& v,
                                                    const c10::TypePtr& type) const {
  if (v.kind == TValue::Kind::kConcrete) return v.concrete;
  if (v.kind != TValue::Kind::kList) return c10::nullopt;
  c10::TypePtr element = c10::AnyType::get();
  if (type && type->kind() == c10::TypeKind::ListType) {
    element = type->expectRef<c10::ListType>().getElementType();
  }
  std::vector<c10::IValue> items;
  for (const TValue& item : *v.list) {
    auto c = as_concrete(item, element);
    if (!c) return c10::nullopt;
    items.push_back(std::move(*c));
  }
  c10::impl::GenericList generic(element);
  for (auto& i : items) generic.push_back(std::move(i));
  auto typed = coerce_to_type(c10::IValue(generic), type ? type : c10::ListType::ofTensors());
  if (typed.ok()) return *typed;
  return c10::IValue(generic);
}

Node* TraceEngine::parameter_node(const std::string& qualname) {
  auto it = parameters_.find(qualname);
  if (it != parameters_.end()) return it->second;
  Node* n = tracer_.create_proxy(Op::kGetAttr, qualname, {}, {});
  parameters_.emplace(qualname, n);
  return n;
}

Node* TraceEngine::materialize_element(Node* node, int index) {
  node = resolve(node);
  auto key = std::make_pair(node, index);
  auto it = elements_.find(key);
  if (it != elements_.end()) return it->second;
  Node* item = tracer_.create_proxy(Op::kCallFunction, "operator.getitem", {node, index}, {});
  // An element of a list of views (aten::chunk) is a view of the same base.
  if (auto base = view_base_.find(node); base != view_base_.end()) {
    view_base_[item] = base->second;
  }
  elements_.emplace(key, item);
  return item;
}

absl::StatusOr<Argument> TraceEngine::concrete_to_argument(const c10::IValue& v,
                                                           const c10::TypePtr& type,
                                                           const std::string* origin) {
  if (v.isTensor()) {
    if (origin != nullptr) return Argument(parameter_node(*origin));
    const at::Tensor& t = v.toTensor();
    auto it = tensor_constants_.find(t.unsafeGetTensorImpl());
    if (it != tensor_constants_.end()) return Argument(it->second);
    const std::string name = gm_.add_tensor_constant(t);
    Node* n = tracer_.create_proxy(Op::kGetAttr, name, {}, {});
    tensor_constants_.emplace(t.unsafeGetTensorImpl(), n);
    return Argument(n);
  }
  if ((v.isList() || v.isTuple()) && type_contains_tensor(v.type())) {
    std::vector<Argument> items;
    for (const c10::IValue& e : sequence_elements(v)) {
      auto a = concrete_to_argument(e, nullptr, nullptr);
      if (!a.ok()) return a.status();
      items.push_back(std::move(*a));
    }
    return v.isTuple() ? Argument::Tuple(std::move(items)) : Argument::List(std::move(items));
  }
  return ivalue_to_argument(v, type);
}

absl::StatusOr<Argument> TraceEngine::to_argument(const TValue& v, const c10::TypePtr& type) {
  switch (v.kind) {
    case TValue::Kind::kSymbolic:
      return resolve(v.symbolic);
    case TValue::Kind::kElement:
      return Argument(materialize_element(v.node, v.index));
    case TValue::Kind::kModule:
      return absl::InvalidArgumentError(absl::StrCat(
          "module '", v.module->qualname, "' (", v.module->cls->type_name,
          ") is used as a value; only calling modules can be traced"));
    case TValue::Kind::kList: {
      c10::TypePtr element;
      if (type && type->kind() == c10::TypeKind::ListType) {
        element = type->expectRef<c10::ListType>().getElementType();
      }
      std::vector<Argument> items;
      for (const TValue& item : *v.list) {
        auto a = to_argument(item, element);
        if (!a.ok()) return a.status();
        items.push_back(std::move(*a));
      }
      return Argument::List(std::move(items));
    }
    case TValue::Kind::kConcrete:
      return concrete_to_argument(v.concrete, type, v.origin);
  }
  return absl::InternalError("unknown value kind");
}

TValue TraceEngine::from_argument(const Argument& a, const c10::TypePtr& type) {
  if (a.contains_node()) return TValue::Symbolic(a);
  auto v = argument_to_ivalue(a, type);
  if (v.ok()) return TValue::Concrete(std::move(*v));
  auto inferred = argument_to_ivalue(a, nullptr);
  return TValue::Concrete(inferred.ok() ? std::move(*inferred) : c10::IValue());
}

absl::StatusOr<jit::Function*> TraceEngine::find_method(const ModuleInfo* self,
                                                       const std::string& method) const {
  jit::Function* fn = self->type->findMethod(method);
  if (fn == nullptr) {
    return absl::NotFoundError(absl::StrCat("module '", self->qualname, "' (",
                                            self->cls->type_name, ") has no method '", method, "'"));
  }
  return fn;
}

absl::StatusOr<TValue> TraceEngine::call_method(const ModuleInfo* self, const std::string& method,
                                                std::vector<TValue> inputs) {
  auto fn = find_method(self, method);
  if (!fn.ok()) return fn.status();
  return call_graph(*jit::toGraphFunction(**fn).graph(), self, std::move(inputs),
                    Context{self, &method, *fn});
}

absl::StatusOr<Argument> TraceEngine::call_method(const ModuleInfo* self,
                                                  const std::string& method,
                                                  const Arguments& args, const Kwargs& kwargs) {
  if (!kwargs.empty()) {
    return absl::InvalidArgumentError("keyword arguments to a scripted forward are not supported");
  }
  auto fn = find_method(self, method);
  if (!fn.ok()) return fn.status();
  jit::Graph& graph = *jit::toGraphFunction(**fn).graph();
  // Each argument as the method's parameter type says (after self).
  const auto params = graph.inputs();
  std::vector<TValue> inputs;
  inputs.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    inputs.push_back(from_argument(args[i], i + 1 < params.size() ? params[i + 1]->type() : nullptr));
  }
  auto out = call_graph(graph, self, std::move(inputs), Context{self, &method, *fn});
  if (!out.ok()) return out.status();
  return to_argument(*out, graph.outputs()[0]->type());
}

absl::StatusOr<TValue> TraceEngine::call_graph(jit::Graph& graph, const ModuleInfo* self,
                                               std::vector<TValue> inputs, Context context) {
  if (depth_ >= 256) {
    return absl::ResourceExhaustedError(
        absl::StrCat("calls nest deeper than 256 at ", describe(context)));
  }
  Frame frame;
  frame.self = self;
  // Size the value table once: a method graph has about two values a node.
  auto [size, inserted] = graph_sizes_.try_emplace(&graph, 0);
  if (inserted) {
    size->second = graph.inputs().size();
    for (const jit::Node* node : graph.nodes()) {
      size->second += node->outputs().size() + 2 * node->blocks().size();
    }
  }
  frame.values.reserve(size->second);
  const auto graph_inputs = graph.inputs();
  size_t first = 0;
  if (self != nullptr) {
    frame.values[graph_inputs[0]] = TValue::Module(self);
    first = 1;
  }
  if (inputs.size() != graph_inputs.size() - first) {
    return absl::InvalidArgumentError(absl::StrCat(describe(context), " takes ",
                                                   graph_inputs.size() - first,
                                                   " arguments but was given ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    frame.values[graph_inputs[first + i]] = std::move(inputs[i]);
  }
  ++depth_;
  context_.push_back(context);
  absl::Status s = run_block(graph.block(), frame);
  context_.pop_back();
  --depth_;
  if (!s.ok()) return s;
  return lookup(frame, graph.outputs()[0]);
}

absl::Status TraceEngine::run_block(const jit::Block* block, Frame& frame) {
  for (const jit::Node* n : block->nodes()) {
    if (absl::Status s = run_node(n, frame); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_node(const jit::Node* n, Frame& frame) {
  const c10::Symbol kind = n->kind();
  if (kind == c10::prim::Constant) {
    auto value = jit::toIValue(n->output());
    frame.values[n->output()] = TValue::Concrete(value ? std::move(*value) : c10::IValue());
    return absl::OkStatus();
  }
  if (kind == c10::prim::GetAttr) return run_get_attr(n, frame);
  if (kind == c10::prim::CallMethod) return run_call_method(n, frame);
  if (kind == c10::prim::CallFunction) return run_call_function(n, frame);
  if (kind == c10::prim::If) return run_if(n, frame);
  if (kind == c10::prim::Loop) return run_loop(n, frame);
  if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct ||
      kind == c10::prim::DictConstruct) {
    return run_construct(n, frame);
  }
  if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack) return run_unpack(n, frame);
  if (kind == c10::prim::unchecked_cast) {
    TValue same = lookup(frame, n->input(0));  // copied: inserting may move the table
    frame.values[n->output()] = std::move(same);
    return absl::OkStatus();
  }
  if (kind == c10::prim::Uninitialized) {
    frame.values[n->output()] = TValue::Concrete(c10::IValue());
    return absl::OkStatus();
  }
  if (kind == c10::prim::RaiseException) {
    std::string message;
    if (auto m = lookup(frame, n->input(0)); m.is_concrete() && m.concrete.isString()) {
      message = absl::StrCat(": ", m.concrete.toStringRef());
    }
    return error(n, absl::StrCat("the model always raises here", message));
  }
  if (kind == c10::prim::Print || kind == c10::aten::warn) {
    return absl::OkStatus();  // Python prints and warns while torch.fx traces; nothing to record
  }
  if (kind == c10::prim::SetAttr) {
    return error(n, absl::StrCat("forward assigns module attribute '", n->s(c10::attr::name),
                                 "', which cannot be traced; make this module a leaf"));
  }
  if (n->maybeSchema() != nullptr) return run_operator(n, frame);
  return error(n, absl::StrCat("TorchScript construct ", n->kind().toQualString(),
                               " is not supported by the tracer; make the module that uses it a "
                               "leaf (TracerExtension::is_leaf_module)"));
}

absl::Status TraceEngine::run_get_attr(const jit::Node* n, Frame& frame) {
  Resolved& resolved = resolved_[n];
  if (resolved.name == nullptr) resolved.name = &n->s(c10::attr::name);
  const std::string& name = *resolved.name;
  const TValue& object = lookup(frame, n->input(0));
  if (object.kind == TValue::Kind::kConcrete && object.concrete.isObject()) {
    frame.values[n->output()] = TValue::Concrete(object.concrete.toObjectRef().getAttr(name));
    return absl::OkStatus();
  }
  if (object.kind != TValue::Kind::kModule) {
    return error(n, absl::StrCat("attribute '", name, "' is read from a value that is not a module"));
  }
  const ModuleInfo* owner = object.module;
  const c10::ivalue::Object& obj = *owner->module._ivalue();
  const c10::ClassType& type = *owner->type;
  if (resolved.type != owner->type) {
    resolved.type = owner->type;
    resolved.slot = type.findAttributeSlot(name);
  }
  const c10::optional<size_t> slot = resolved.slot;
  if (!slot) {
    if (auto constant = type.findConstantSlot(name)) {
      frame.values[n->output()] = TValue::Concrete(type.getConstant(*constant));
      return absl::OkStatus();
    }
    return error(n, absl::StrCat("module '", owner->qualname, "' has no attribute '", name, "'"));
  }
  auto qualname = [&] { return qualified_name(owner->qualname, name); };
  const c10::IValue& value = obj.getSlot(*slot);
  if (value.isObject()) {
    const auto& child = value.toObject();
    auto known = module_by_object_.find(child.get());
    if (known != module_by_object_.end()) {
      frame.values[n->output()] = TValue::Module(known->second);
      return absl::OkStatus();
    }
    if (child->type()->is_module()) {
      frame.values[n->output()] = TValue::Module(module_info(child, qualname()));
      return absl::OkStatus();
    }
  }
  if (type.is_parameter(*slot) || type.is_buffer(*slot)) {
    auto [it, inserted] = attribute_nodes_.try_emplace(std::make_pair(owner, *slot), nullptr);
    if (inserted) it->second = parameter_node(qualname());
    frame.values[n->output()] = TValue::Symbolic(it->second);
    return absl::OkStatus();
  }
  TValue t = TValue::Concrete(value);
  if (t.concrete.isTensor()) t.origin = &names_.emplace_back(qualname());
  frame.values[n->output()] = std::move(t);
  return absl::OkStatus();
}

absl::Status TraceEngine::run_call_method(const jit::Node* n, Frame& frame) {
  Resolved& resolved = resolved_[n];
  if (resolved.name == nullptr) resolved.name = &n->s(c10::attr::name);
  const std::string& name = *resolved.name;
  const TValue& object = lookup(frame, n->input(0));
  if (object.kind != TValue::Kind::kModule) {
    return error(n, absl::StrCat("method '", name, "' is called on a value that is not a module"));
  }
  const ModuleInfo* target = object.module;
  std::vector<TValue> inputs = inputs_of(n, frame);
  inputs.erase(inputs.begin());

  absl::StatusOr<TValue> result;
  if (!is_forward_name(name) || target == frame.self) {
    // Another method of a module (ResNet's `_forward_impl`): traced through.
    result = call_method(target, name, std::move(inputs));
  } else {
    // A submodule call: the call_module hook decides between a node and
    // tracing through.
    Arguments args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto a = to_argument(inputs[i], n->input(i + 1)->type());
      if (!a.ok()) return error(n, a.status().message());
      args.push_back(std::move(*a));
    }
    // Tracing through, behind one pointer (no allocation for the closure).
    struct Callee {
      TraceEngine* engine;
      const ModuleInfo* module;
      const std::string* method;
    } callee{this, target, &name};
    const Callee* c = &callee;
    ModuleForward forward = [c](const Arguments& call_args, const Kwargs& call_kwargs) {
      return c->engine->call_method(c->module, *c->method, call_args, call_kwargs);
    };
    auto called = tracer_.call_module(ModuleRef(target), forward, args, {});
    if (!called.ok()) return called.status();
    result = from_argument(*called, n->output()->type());
  }
  if (!result.ok()) return result.status();
  frame.values[n->output()] = std::move(*result);
  return absl::OkStatus();
}

absl::Status TraceEngine::run_call_function(const jit::Node* n, Frame& frame) {
  const auto fn_type = n->input(0)->type()->cast<c10::FunctionType>();
  if (!fn_type) return error(n, "call of a value that is not a function");
  jit::Function* fn = fn_type->function();
  std::vector<TValue> inputs = inputs_of(n, frame);
  inputs.erase(inputs.begin());
  const auto& leaves = tracer_.options().leaf_functions;
  if (!leaves.empty()) {
    const std::string python_name = python_qualified_name(fn->qualname().qualifiedName());
    if (std::find(leaves.begin(), leaves.end(), python_name) != leaves.end()) {
      // A leaf function (torch.fx's wrap): one node, run by the interpreter.
      const auto& params = fn->getSchema().arguments();
      Arguments args;
      for (size_t i = 0; i < inputs.size(); ++i) {
        auto a = to_argument(inputs[i], i < params.size() ? params[i].real_type() : nullptr);
        if (!a.ok()) return error(n, a.status().message());
        args.push_back(std::move(*a));
      }
      Node* node = tracer_.create_proxy(Op::kCallFunction, python_name, std::move(args), {});
      frame.values[n->output()] = TValue::Symbolic(node);
      return absl::OkStatus();
    }
  }
  auto result = call_graph(*jit::toGraphFunction(*fn).graph(), nullptr, std::move(inputs),
                           Context{nullptr, nullptr, fn});
  if (!result.ok()) return result.status();
  frame.values[n->output()] = std::move(*result);
  return absl::OkStatus();
}

std::string TraceEngine::raise_message(const jit::Block* block) const {
  for (const jit::Node* n : block->nodes()) {
    if (n->kind() != c10::prim::RaiseException) continue;
    const jit::Node* producer = n->input(0)->node();
    if (producer->kind() == c10::aten::format) producer = producer->input(0)->node();
    if (producer->kind() == c10::prim::Constant) {
      auto v = jit::toIValue(producer->output());
      if (v && v->isString()) return v->toStringRef();
    }
  }
  return "assertion failed";
}

absl::Status TraceEngine::run_if(const jit::Node* n, Frame& frame) {
  TValue cond = lookup(frame, n->input(0));
  const jit::Block* taken = nullptr;
  if (cond.is_concrete() && cond.concrete.isBool()) {
    taken = n->blocks()[cond.concrete.toBool() ? 0 : 1];
  } else {
    auto raises = [](const jit::Block* b) {
      for (const jit::Node* x : b->nodes()) {
        if (x->kind() == c10::prim::RaiseException) return true;
      }
      return false;
    };
    const bool then_raises = raises(n->blocks()[0]);
    const bool else_raises = raises(n->blocks()[1]);
    if (then_raises == else_raises) {
      return error(n, "control flow depends on an input value, which symbolic tracing cannot "
                      "follow (nor can torch.fx); make the module that contains it a leaf "
                      "(TracerExtension::is_leaf_module) or the function a leaf function "
                      "(TraceOptions::leaf_functions) so that it is called as a whole, or "
                      "compute the condition from module attributes");
    }
    // An input check: the other branch is the program; the check becomes an
    // assertion, as torch.fx's torch._assert.
    auto cond_arg = to_argument(cond, n->input(0)->type());
    if (!cond_arg.ok()) return error(n, cond_arg.status().message());
    if (tracer_.options().assertions == AssertionMode::kKeep) {
      Argument holds = *cond_arg;
      if (then_raises) {
        holds = tracer_.create_proxy(Op::kCallFunction, "operator.not_", {*cond_arg}, {});
      }
      tracer_.create_proxy(Op::kCallFunction, "torch._assert",
                           {holds, raise_message(n->blocks()[then_raises ? 0 : 1])}, {});
    }
    taken = n->blocks()[then_raises ? 1 : 0];
  }
  if (absl::Status s = run_block(taken, frame); !s.ok()) return s;
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    TValue out = lookup(frame, taken->outputs()[i]);  // copied: inserting may move the table
    frame.values[n->outputs()[i]] = std::move(out);
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_loop(const jit::Node* n, Frame& frame) {
  TValue trip = lookup(frame, n->input(0));
  TValue start = lookup(frame, n->input(1));
  if (!trip.is_concrete() || !trip.concrete.isInt() || !start.is_concrete() ||
      !start.concrete.isBool()) {
    return error(n, "a loop's trip count or condition depends on an input value, which symbolic "
                    "tracing cannot follow (nor can torch.fx); make the module that contains it a "
                    "leaf (TracerExtension::is_leaf_module) or the function a leaf function "
                    "(TraceOptions::leaf_functions)");
  }
  const jit::Block* body = n->blocks()[0];
  std::vector<TValue> carried;
  for (size_t i = 2; i < n->inputs().size(); ++i) carried.push_back(lookup(frame, n->input(i)));
  bool cond = start.concrete.toBool();
  constexpr int64_t kMaxIterations = 1000000;
  for (int64_t i = 0; cond && i < trip.concrete.toInt(); ++i) {
    if (i == kMaxIterations) {
      return error(n, absl::StrCat("the loop runs more than ", kMaxIterations,
                                   " iterations while tracing"));
    }
    frame.values[body->inputs()[0]] = TValue::Concrete(i);
    for (size_t j = 0; j < carried.size(); ++j) frame.values[body->inputs()[j + 1]] = carried[j];
    if (absl::Status s = run_block(body, frame); !s.ok()) return s;
    TValue next = lookup(frame, body->outputs()[0]);
    if (!next.is_concrete() || !next.concrete.isBool()) {
      return error(n, "a loop's condition depends on an input value; make the module that "
                      "contains it a leaf (TracerExtension::is_leaf_module)");
    }
    cond = next.concrete.toBool();
    for (size_t j = 0; j < carried.size(); ++j) carried[j] = lookup(frame, body->outputs()[j + 1]);
  }
  for (size_t j = 0; j < carried.size(); ++j) frame.values[n->outputs()[j]] = carried[j];
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
  for (size_t i = 0; i < outs; ++i) {
    frame.values[n->outputs()[i]] = TValue::Concrete(std::move(stack[stack.size() - outs + i]));
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_construct(const jit::Node* n, Frame& frame) {
  std::vector<TValue> inputs = inputs_of(n, frame);
  const c10::TypePtr& type = n->output()->type();
  if (n->kind() == c10::prim::ListConstruct) {
    // Lists that may hold tensors, or that start empty (to be appended to),
    // stay mutable abstract lists; all-constant lists are IValues.
    bool concrete = !inputs.empty() && !type_contains_tensor(type);
    for (const TValue& v : inputs) concrete = concrete && v.is_concrete();
    if (!concrete) {
      frame.values[n->output()] = TValue::List(std::move(inputs));
      return absl::OkStatus();
    }
  }
  std::vector<c10::IValue> values;
  bool concrete = true;
  for (size_t i = 0; i < inputs.size() && concrete; ++i) {
    auto c = as_concrete(inputs[i], n->input(i)->type());
    if (c) {
      values.push_back(std::move(*c));
    } else {
      concrete = false;
    }
  }
  if (concrete) {
    // TorchScript's construct operators are not exported by libtorch: build
    // the value here.
    c10::IValue out;
    if (n->kind() == c10::prim::ListConstruct) {
      c10::impl::GenericList generic(c10::AnyType::get());
      for (auto& v : values) generic.push_back(std::move(v));
      auto typed = coerce_to_type(c10::IValue(generic), type);
      if (!typed.ok()) return error(n, typed.status().message());
      out = std::move(*typed);
    } else if (n->kind() == c10::prim::TupleConstruct) {
      auto tuple_type = type->cast<c10::TupleType>();
      out = tuple_type && tuple_type->name()
                ? c10::IValue(c10::ivalue::Tuple::createNamed(std::move(values), tuple_type))
                : c10::IValue(c10::ivalue::Tuple::create(std::move(values)));
    } else {
      const auto& dict_type = type->expectRef<c10::DictType>();
      c10::impl::GenericDict dict(dict_type.getKeyType(), dict_type.getValueType());
      for (size_t i = 0; i + 1 < values.size(); i += 2) dict.insert(values[i], values[i + 1]);
      out = dict;
    }
    frame.values[n->output()] = TValue::Concrete(std::move(out));
    return absl::OkStatus();
  }

  if (n->kind() == c10::prim::TupleConstruct) {
    // All results of one multi-result node, in order: that node itself.
    Node* whole = inputs.empty() || inputs[0].kind != TValue::Kind::kElement ? nullptr : inputs[0].node;
    for (size_t i = 0; whole != nullptr && i < inputs.size(); ++i) {
      if (inputs[i].kind != TValue::Kind::kElement || inputs[i].node != whole ||
          inputs[i].index != static_cast<int>(i)) {
        whole = nullptr;
      }
    }
    if (whole != nullptr && whole->meta().find("_num_results") != nullptr &&
        whole->meta().find("_num_results")->as_int() == static_cast<int64_t>(inputs.size())) {
      frame.values[n->output()] = TValue::Symbolic(resolve(whole));
      return absl::OkStatus();
    }
    std::vector<Argument> items;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto a = to_argument(inputs[i], n->input(i)->type());
      if (!a.ok()) return error(n, a.status().message());
      items.push_back(std::move(*a));
    }
    frame.values[n->output()] = TValue::Symbolic(Argument::Tuple(std::move(items)));
    return absl::OkStatus();
  }
  // DictConstruct: keys and values alternate; keys must be known strings.
  Kwargs items;
  for (size_t i = 0; i + 1 < inputs.size(); i += 2) {
    if (!inputs[i].is_concrete() || !inputs[i].concrete.isString()) {
      return error(n, "a dict with keys that are not constant strings cannot be traced");
    }
    auto a = to_argument(inputs[i + 1], n->input(i + 1)->type());
    if (!a.ok()) return error(n, a.status().message());
    items.emplace_back(inputs[i].concrete.toStringRef(), std::move(*a));
  }
  frame.values[n->output()] = TValue::Symbolic(Argument::Dict(std::move(items)));
  return absl::OkStatus();
}

absl::Status TraceEngine::run_unpack(const jit::Node* n, Frame& frame) {
  TValue v = lookup(frame, n->input(0));
  const size_t outs = n->outputs().size();
  std::vector<TValue> items;
  if (auto c = as_concrete(v, n->input(0)->type())) {
    if (!c->isList() && !c->isTuple()) return error(n, "unpacking a value that is not a sequence");
    for (c10::IValue& e : sequence_elements(*c)) {
      items.push_back(TValue::Concrete(std::move(e)));
    }
  } else if (v.kind == TValue::Kind::kList) {
    items = *v.list;
  } else if (v.kind == TValue::Kind::kSymbolic && v.symbolic.is_sequence()) {
    for (size_t i = 0; i < v.symbolic.elements().size(); ++i) {
      const c10::TypePtr type = i < outs ? n->outputs()[i]->type() : nullptr;
      items.push_back(from_argument(v.symbolic.elements()[i], type));
    }
  } else {
    Node* whole = nullptr;
    if (v.kind == TValue::Kind::kSymbolic && v.symbolic.is_node()) whole = v.symbolic.to_node();
    if (v.kind == TValue::Kind::kElement) whole = materialize_element(v.node, v.index);
    if (whole == nullptr) return error(n, "unpacking a value that is not a sequence");
    for (size_t i = 0; i < outs; ++i) items.push_back(TValue::Element(whole, static_cast<int>(i)));
  }
  if (items.size() != outs) {
    return error(n, absl::StrCat("unpacking ", items.size(), " values into ", outs));
  }
  for (size_t i = 0; i < outs; ++i) frame.values[n->outputs()[i]] = std::move(items[i]);
  return absl::OkStatus();
}

absl::Status TraceEngine::run_list_operator(const jit::Node* n, Frame& frame, bool* handled) {
  *handled = false;
  if (n->inputs().empty()) return absl::OkStatus();
  TValue list = lookup(frame, n->input(0));
  const c10::Symbol kind = n->kind();
  auto concrete_int = [&](size_t i) -> c10::optional<int64_t> {
    TValue v = lookup(frame, n->input(i));
    if (v.is_concrete() && v.concrete.isInt()) return v.concrete.toInt();
    return c10::nullopt;
  };
  if (list.kind == TValue::Kind::kList) {
    ListStorage& items = *list.list;
    if (kind == c10::aten::append) {
      items.push_back(lookup(frame, n->input(1)));
      frame.values[n->output()] = list;
      *handled = true;
      return absl::OkStatus();
    }
    if (kind == c10::aten::len) {
      frame.values[n->output()] = TValue::Concrete(static_cast<int64_t>(items.size()));
      *handled = true;
      return absl::OkStatus();
    }
    if (kind == c10::aten::__getitem__) {
      auto index = concrete_int(1);
      if (!index) return absl::OkStatus();  // recorded as a node below
      auto i = python_index(*index, items.size());
      if (!i) return error(n, absl::StrCat("list index ", *index, " out of range"));
      frame.values[n->output()] = items[*i];
      *handled = true;
      return absl::OkStatus();
    }
    if (kind == c10::Symbol::fromQualString("aten::_set_item")) {
      auto index = concrete_int(1);
      if (!index) return error(n, "assigning to a list at an index that depends on an input");
      auto i = python_index(*index, items.size());
      if (!i) return error(n, absl::StrCat("list index ", *index, " out of range"));
      items[*i] = lookup(frame, n->input(2));
      frame.values[n->output()] = list;
      *handled = true;
      return absl::OkStatus();
    }
    if (n->maybeSchema() != nullptr && n->schema().is_mutable()) {
      return error(n, absl::StrCat("list operation ", kind.toQualString(),
                                   " on a list holding traced values is not supported"));
    }
    return absl::OkStatus();
  }
  // A sequence built of traced values: read elements and lengths directly.
  if (list.kind == TValue::Kind::kSymbolic && list.symbolic.is_sequence()) {
    const auto& items = list.symbolic.elements();
    if (kind == c10::aten::len) {
      frame.values[n->output()] = TValue::Concrete(static_cast<int64_t>(items.size()));
      *handled = true;
    } else if (kind == c10::aten::__getitem__) {
      if (auto index = concrete_int(1)) {
        auto i = python_index(*index, items.size());
        if (!i) return error(n, absl::StrCat("index ", *index, " out of range"));
        frame.values[n->output()] = from_argument(items[*i], n->output()->type());
        *handled = true;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_operator(const jit::Node* n, Frame& frame) {
  bool handled = false;
  if (absl::Status s = run_list_operator(n, frame, &handled); !s.ok() || handled) return s;

  const c10::FunctionSchema& schema = n->schema();
  std::vector<TValue> inputs = inputs_of(n, frame);

  // f-strings (aten::format) only make messages: build them here, with traced
  // values named, instead of recording a node.
  if (n->kind() == c10::aten::format && !inputs.empty() && inputs[0].is_concrete() &&
      inputs[0].concrete.isString()) {
    std::vector<std::string> pieces = {inputs[0].concrete.toStringRef()};
    for (size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i].is_concrete()) {
        std::ostringstream ss;
        if (inputs[i].concrete.isString()) {
          ss << inputs[i].concrete.toStringRef();
        } else {
          ss << inputs[i].concrete;
        }
        pieces.push_back(ss.str());
      } else {
        auto a = to_argument(inputs[i], nullptr);
        pieces.push_back(a.ok() ? python_repr(*a) : std::string("?"));
      }
    }
    frame.values[n->output()] = TValue::Concrete(format_message(pieces));
    return absl::OkStatus();
  }

  // `x is None` on a traced value: a traced value is never None.
  if ((n->kind() == c10::aten::__is__ || n->kind() == c10::aten::__isnot__) && inputs.size() == 2) {
    auto none = [](const TValue& v) { return v.is_concrete() && v.concrete.isNone(); };
    auto traced = [](const TValue& v) { return !v.is_concrete(); };
    if ((none(inputs[0]) && traced(inputs[1])) || (traced(inputs[0]) && none(inputs[1]))) {
      frame.values[n->output()] = TValue::Concrete(n->kind() == c10::aten::__isnot__);
      return absl::OkStatus();
    }
  }

  // Evaluate now what Python would compute while torch.fx traces: operations
  // on known values that neither take nor make tensors.
  bool evaluable = true;
  std::vector<c10::IValue> values;
  for (size_t i = 0; i < inputs.size() && evaluable; ++i) {
    if (type_contains_tensor(n->input(i)->type())) {
      evaluable = false;
      break;
    }
    auto c = as_concrete(inputs[i], n->input(i)->type());
    if (!c) {
      evaluable = false;
      break;
    }
    values.push_back(std::move(*c));
  }
  for (const jit::Value* out : n->outputs()) evaluable = evaluable && !type_contains_tensor(out->type());
  if (evaluable) return evaluate(n, values, frame);
  return record_operator(n, schema, inputs, frame);
}

absl::Status TraceEngine::record_operator(const jit::Node* n, const c10::FunctionSchema& schema,
                                          const std::vector<TValue>& inputs, Frame& frame) {
  const auto& params = schema.arguments();
  if (inputs.size() < params.size() && !schema.is_vararg()) {
    return error(n, absl::StrCat(schema.name(), " has fewer inputs than its schema"));
  }
  std::vector<Argument> values;
  values.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const c10::TypePtr type = i < params.size() ? params[i].real_type() : nullptr;
    auto a = to_argument(inputs[i], type);
    if (!a.ok()) return error(n, a.status().message());
    values.push_back(std::move(*a));
  }
  // Positional arguments, without trailing ones equal to their default;
  // keyword-only ones unless equal to their default.
  auto equals_default = [&](size_t i) {
    if (i >= params.size() || !params[i].default_value()) return false;
    auto d = ivalue_to_argument(*params[i].default_value(), params[i].real_type());
    return d.ok() && *d == values[i];
  };
  Arguments args;
  Kwargs kwargs;
  size_t positional = 0;
  while (positional < params.size() && !params[positional].kwarg_only()) ++positional;
  if (schema.is_vararg()) positional = values.size();
  size_t keep = std::min(positional, values.size());
  while (keep > 0 && equals_default(keep - 1)) --keep;
  for (size_t i = 0; i < keep; ++i) args.push_back(values[i]);
  for (size_t i = positional; i < values.size() && i < params.size(); ++i) {
    if (!equals_default(i)) kwargs.emplace_back(params[i].name(), values[i]);
  }

  std::string target = operator_name(schema);
  // Indexing a traced list or tuple reads as Python's `x[i]`.
  if (target == "aten::__getitem__.t" || target == "prim::TupleIndex") target = "operator.getitem";
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
                      (mutated->op() == Op::kCallFunction || mutated->op() == Op::kCallMethod ||
                       mutated->op() == Op::kCallModule) &&
                      !view_base_.contains(mutated) && !has_views_.contains(mutated);
    if (safe) {
      if (const std::string* functional = functional_variant(schema)) {
        target = *functional;
        functionalized = true;
      }
    }
  }

  Node* node = tracer_.create_proxy(Op::kCallFunction, target, std::move(args), std::move(kwargs));
  if (mutable_schema && !functionalized) node->set_impure(true);
  if (mutated != nullptr) version_of_[mutated] = node;

  // Remember views, so that in-place operators on them stay in place.
  if (!functionalized && !schema.returns().empty()) {
    const c10::AliasInfo* ret_alias = schema.returns()[0].alias_info();
    if (ret_alias != nullptr && !ret_alias->isWrite()) {
      for (size_t i = 0; i < params.size() && i < values.size(); ++i) {
        const c10::AliasInfo* a = params[i].alias_info();
        if (a == nullptr || !values[i].is_node()) continue;
        bool shared = false;
        for (const auto& set : ret_alias->beforeSets()) shared = shared || a->beforeSets().count(set);
        if (!shared) continue;
        Node* base = values[i].to_node();
        if (auto b = view_base_.find(base); b != view_base_.end()) base = b->second;
        view_base_[node] = base;
        has_views_.insert(base);
      }
    }
  }

  const size_t outs = n->outputs().size();
  if (outs == 1) {
    frame.values[n->output()] = TValue::Symbolic(node);
  } else {
    node->meta().set("_num_results", static_cast<int64_t>(outs));
    for (size_t i = 0; i < outs; ++i) {
      frame.values[n->outputs()[i]] = TValue::Element(node, static_cast<int>(i));
    }
  }
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
