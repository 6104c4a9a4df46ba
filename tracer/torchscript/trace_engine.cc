// Copyright 2026 The FX for C++ Authors.
//
// Running method and function graphs: frames, blocks and the dispatch of each
// TorchScript node to the part of the engine that handles it.
#include "tracer/torchscript/trace_engine.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tracer/torchscript/diagnostics.h"

namespace fx {
namespace tracer_internal {

namespace {

// A TorchScript type as an annotation Python can evaluate with `torch` and
// `typing` imported, as torch.fx writes them: `typing.Optional[torch.Tensor]`.
std::string python_annotation(const c10::TypePtr& type) {
  auto join = [](const std::string& head, c10::ArrayRef<c10::TypePtr> types) {
    std::string out = head + "[";
    for (size_t i = 0; i < types.size(); ++i) {
      absl::StrAppend(&out, i > 0 ? ", " : "", python_annotation(types[i]));
    }
    return out + "]";
  };
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
      return "torch.Tensor";
    case c10::TypeKind::OptionalType:
      return join("typing.Optional", type->containedTypes());
    case c10::TypeKind::ListType:
      return join("typing.List", type->containedTypes());
    case c10::TypeKind::DictType:
      return join("typing.Dict", type->containedTypes());
    case c10::TypeKind::TupleType:
      if (type->expectRef<c10::TupleType>().name()) break;  // a NamedTuple class
      return join("typing.Tuple", type->containedTypes());
    case c10::TypeKind::NoneType:
      return "None";
    case c10::TypeKind::DeviceObjType:
      return "torch.device";
    case c10::TypeKind::AnyType:
      return "typing.Any";
    default:
      break;
  }
  return type->annotation_str();
}

}  // namespace

std::string annotation_for(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return "";
  return python_annotation(type);
}

std::string TraceEngine::describe(const Context& c) const {
  if (c.self == nullptr) {
    return absl::StrCat("function ", python_qualified_name(c.function->qualname().qualifiedName()));
  }
  return absl::StrCat(c.self->cls->class_name, ".", *c.method,
                      c.self->qualname.empty() ? std::string(" (the root module)")
                                               : absl::StrCat(" (module '", c.self->qualname, "')"));
}

absl::Status TraceEngine::error(const jit::Node* n, absl::string_view what,
                                absl::string_view fix) const {
  std::string where = context_.empty() ? std::string() : absl::StrCat(" in ", describe(context_.back()));
  return absl::InvalidArgumentError(
      absl::StrCat(what, at_source(n), where, fix.empty() ? "" : "; ", fix));
}

absl::Status TraceEngine::untraceable(const jit::Node* n, absl::string_view what) const {
  // What a leaf would get past `n`: the innermost function (before any module
  // method), and the innermost submodule whose forward contains it (a leaf
  // replaces a forward call; other methods are always traced through).
  std::string function;
  std::string module_class;
  bool in_method = false;
  for (auto it = context_.rbegin(); it != context_.rend(); ++it) {
    if (it->self == nullptr) {
      if (function.empty() && module_class.empty() && !in_method) {
        function = python_qualified_name(it->function->qualname().qualifiedName());
      }
      continue;
    }
    if (!absl::StartsWith(*it->method, "forward")) {
      in_method = true;
      continue;
    }
    if (!it->self->qualname.empty()) module_class = it->self->cls->class_name;
    break;
  }
  std::string fix = leaf_hint(module_class, function);
  if (n->kind() == c10::prim::If || n->kind() == c10::prim::Loop) {
    if (fix.empty()) {
      // In the root module's own code: only forward's arguments can be fixed.
      fix = "if it depends on an argument of forward, fix that argument's value while tracing "
            "(fxrun: --concrete-args=NAME=VALUE; C++: TraceOptions::concrete_args); or move it "
            "into a function or submodule and make that a leaf (fxrun: --leaf-functions=... or "
            "--tracer=module_path,leaf_policy{leaves=...})";
    }
    absl::StrAppend(&fix, "; or compute the condition from module attributes");
  } else if (fix.empty()) {
    // In the root module's own code, nothing can be made a leaf. (Whether
    // torch.fx could follow it depends on the construct: Python runs what
    // TorchScript compiles, so no claim is made here.)
    fix = "the tracer cannot follow this in the root module's own code; move it into a "
          "submodule or function and make that a leaf, or trace the modules around it instead";
  }
  return error(n, what, fix);
}

absl::StatusOr<TraceValue> TraceEngine::call_graph(jit::Graph& graph, const ModuleInfo* self,
                                                   std::vector<TraceValue> inputs,
                                                   Context context) {
  constexpr size_t kMaxDepth = 256;
  if (context_.size() >= kMaxDepth) {
    return absl::ResourceExhaustedError(
        absl::StrCat("calls nest deeper than ", kMaxDepth, " at ", describe(context)));
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
    frame.values[graph_inputs[0]] = TraceValue::module(self);
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
  context_.push_back(context);
  absl::Status s = run_block(graph.block(), frame);
  context_.pop_back();
  if (!s.ok()) return s;
  return lookup(frame, graph.outputs()[0]);
}

absl::Status TraceEngine::run_block(const jit::Block* block, Frame& frame) {
  for (const jit::Node* n : block->nodes()) {
    if (absl::Status s = run_node(n, frame); !s.ok()) return s;
  }
  return absl::OkStatus();
}

const TraceValue& TraceEngine::lookup(const Frame& frame, const jit::Value* v) const {
  static const TraceValue* const kUnset = new TraceValue();
  auto it = frame.values.find(v);
  return it != frame.values.end() ? it->second : *kUnset;
}

std::vector<TraceValue> TraceEngine::inputs_of(const jit::Node* n, const Frame& frame) const {
  std::vector<TraceValue> out;
  out.reserve(n->inputs().size());
  for (const jit::Value* v : n->inputs()) out.push_back(lookup(frame, v));
  return out;
}

absl::Status TraceEngine::run_node(const jit::Node* n, Frame& frame) {
  const c10::Symbol kind = n->kind();
  if (kind == c10::prim::Constant) {
    auto value = jit::toIValue(n->output());
    frame.values[n->output()] = TraceValue::known(value ? std::move(*value) : c10::IValue());
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
    TraceValue same = lookup(frame, n->input(0));  // copied: inserting may move the table
    frame.values[n->output()] = std::move(same);
    return absl::OkStatus();
  }
  if (kind == c10::prim::Uninitialized) {
    frame.values[n->output()] = TraceValue();
    return absl::OkStatus();
  }
  if (kind == c10::prim::RaiseException) {
    std::string message;
    if (const TraceValue& m = lookup(frame, n->input(0)); m.is_known() && m.known_value().isString()) {
      message = absl::StrCat(": ", m.known_value().toStringRef());
    }
    return error(n, absl::StrCat("the model always raises here", message));
  }
  if (kind == c10::prim::Print || kind == c10::aten::warn) {
    return absl::OkStatus();  // Python prints and warns while torch.fx traces; nothing to record
  }
  if (kind == c10::prim::SetAttr) return run_set_attr(n, frame);
  if (kind == c10::prim::CreateObject) {
    // An object of a TorchScript class (a context manager such as
    // torch.no_grad()): followed at trace time, its methods traced.
    frame.values[n->output()] = TraceValue::object(n->output()->type()->expect<c10::ClassType>());
    return absl::OkStatus();
  }
  if (kind == c10::prim::Enter || kind == c10::prim::Exit) {
    // `with obj:` calls obj.__enter__() and, at the end of the block,
    // obj.__exit__(None, None, None): traced like any method.
    const TraceValue object = lookup(frame, n->input(0));
    std::vector<TraceValue> arguments;
    if (kind == c10::prim::Exit) arguments.assign(3, TraceValue());
    auto result = call_object_method(n, object, kind == c10::prim::Enter ? "__enter__" : "__exit__",
                                     std::move(arguments));
    if (!result.ok()) return result.status();
    frame.values[n->output()] = std::move(*result);
    return absl::OkStatus();
  }
  if (n->maybeSchema() != nullptr) return run_operator(n, frame);
  return untraceable(n, absl::StrCat("TorchScript construct ", n->kind().toQualString(),
                                     " is not supported by the tracer"));
}

absl::StatusOr<TraceValue> TraceEngine::call_object_method(const jit::Node* n,
                                                           const TraceValue& object,
                                                           const std::string& method,
                                                           std::vector<TraceValue> inputs) {
  if (!object.is_object()) {
    return error(n, absl::StrCat("method '", method, "' is called on a value that is not an object"));
  }
  jit::Function* fn = object.object_type()->findMethod(method);
  if (fn == nullptr) {
    return error(n, absl::StrCat(object.object_type()->repr_str(), " has no method '", method, "'"));
  }
  inputs.insert(inputs.begin(), object);
  return call_graph(*jit::toGraphFunction(*fn).graph(), nullptr, std::move(inputs),
                    Context{nullptr, nullptr, fn});
}

absl::StatusOr<TraceValue> TraceEngine::call_method(const ModuleInfo* self,
                                                    const std::string& method,
                                                    std::vector<TraceValue> inputs) {
  auto fn = find_method(self, method);
  if (!fn.ok()) return fn.status();
  return call_graph(*jit::toGraphFunction(**fn).graph(), self, std::move(inputs),
                    Context{self, &method, *fn});
}

absl::StatusOr<Argument> TraceEngine::call_method(const ModuleInfo* self,
                                                  const std::string& method,
                                                  const Arguments& args, const Kwargs& kwargs) {
  auto fn = find_method(self, method);
  if (!fn.ok() && method == "forward" && self->type->findMethod("forward__0") != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "its forward is overloaded in TorchScript (forward__0, forward__1, ...: ",
        self->cls->class_name, " takes different argument types), which a body traced from "
        "graph values cannot choose between"));
  }
  if (!fn.ok()) return fn.status();
  jit::Graph& graph = *jit::toGraphFunction(**fn).graph();
  // Bind the arguments to the method's parameters (after self) as Python
  // does: positional, then by keyword, then defaults.
  const auto& params = (*fn)->getSchema().arguments();
  const size_t count = params.empty() ? 0 : params.size() - 1;
  if (args.size() > count) {
    return absl::InvalidArgumentError(absl::StrCat(describe(Context{self, &method, *fn}), " takes ",
                                                   count, " arguments but was given ", args.size()));
  }
  std::vector<TraceValue> inputs;
  inputs.reserve(count);
  size_t kwargs_used = 0;
  for (size_t i = 0; i < count; ++i) {
    const c10::Argument& param = params[i + 1];
    const c10::TypePtr type = graph.inputs()[i + 1]->type();
    if (i < args.size()) {
      inputs.push_back(from_argument(args[i], type));
    } else if (const Argument* kw = find_kwarg(kwargs, param.name())) {
      inputs.push_back(from_argument(*kw, type));
      ++kwargs_used;
    } else if (param.default_value()) {
      inputs.push_back(TraceValue::known(*param.default_value()));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(describe(Context{self, &method, *fn}),
                                                     " is missing argument '", param.name(), "'"));
    }
  }
  if (kwargs_used != kwargs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(describe(Context{self, &method, *fn}),
                                                   " got a keyword argument it does not take"));
  }
  auto out = call_graph(graph, self, std::move(inputs), Context{self, &method, *fn});
  if (!out.ok()) return out.status();
  return to_argument(*out, graph.outputs()[0]->type());
}

}  // namespace tracer_internal
}  // namespace fx
