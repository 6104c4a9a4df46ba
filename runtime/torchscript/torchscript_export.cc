// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/torchscript_export.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/schema_matching.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <iterator>
#include <functional>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "runtime/torchscript/script_functions.h"
#include "runtime/torchscript/script_module.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

namespace jit = torch::jit;
using jit::SugaredValue;
using SugaredValuePtr = std::shared_ptr<SugaredValue>;

// True when TorchScript compiling a call of `wanted` as `picked` computes the
// same: the same overload, or its `hacked_twin` (aten::index.Tensor_hacked_twin
// for aten::index.Tensor, aten::index_put.hacked_twin for aten::index_put),
// which TorchScript registers with a `Tensor[]` instead of a `Tensor?[]`
// parameter and picks when no index is None. libtorch 1.13 has four, for
// index, index_put, index_put_ and _index_put_impl_.
bool same_operator_overload(absl::string_view picked, absl::string_view wanted) {
  if (picked == wanted) return true;
  return picked == (wanted.empty() ? std::string("hacked_twin")
                                   : absl::StrCat(wanted, "_hacked_twin"));
}

// `torch.ops.<ns>.<op>.<overload>`: a call compiled as loading the saved file
// will compile it (TorchScript saves `torch.<op>(...)` and matches the
// overload again by argument types), refused when that is another overload.
// An operator without a default overload named without one (`aten::slice`,
// which the runtime binds to the overload its values fit: a tensor's or a
// list's) is any overload TorchScript matches.
class OperatorOverloadValue : public SugaredValue {
 public:
  OperatorOverloadValue(c10::Symbol symbol, std::optional<std::string> overload)
      : symbol_(symbol), overload_(std::move(overload)) {}
  std::string kind() const override { return "operator overload"; }

  SugaredValuePtr call(const jit::SourceRange& loc, jit::GraphFunction& m,
                       at::ArrayRef<jit::NamedValue> args, at::ArrayRef<jit::NamedValue> kwargs,
                       size_t /*n_binders*/) override {
    jit::Value* out = jit::emitBuiltinCall(loc, *m.graph(), symbol_, args, kwargs);
    jit::Node* op = out->node();
    // Several results come packed in a tuple; none in an empty one, after
    // the call (aten::set_grad_enabled).
    if (op->kind() == c10::prim::TupleConstruct) {
      op = op->inputs().size() > 0 ? op->input(0)->node() : op->prev();
    }
    const c10::FunctionSchema* schema = op->maybeSchema();
    if (schema == nullptr || op->kind() != symbol_ ||
        (overload_.has_value() && !same_operator_overload(schema->overload_name(), *overload_))) {
      throw jit::ErrorReport(loc)
          << "TorchScript reads this call back as "
          << (schema != nullptr ? c10::toString(*schema) : op->kind().toQualString())
          << ", not the overload '"
          << (!overload_.has_value() || overload_->empty() ? "default" : *overload_)
          << "' the graph calls; a saved file would compute something else";
    }
    return std::make_shared<jit::SimpleValue>(out);
  }

 private:
  c10::Symbol symbol_;
  std::optional<std::string> overload_;  // none: any
};

// `torch.ops.<ns>.<op>`: its overloads are attributes.
class OperatorPacketValue : public SugaredValue {
 public:
  explicit OperatorPacketValue(c10::Symbol symbol) : symbol_(symbol) {}
  std::string kind() const override { return "operator"; }
  SugaredValuePtr attr(const jit::SourceRange& loc, jit::GraphFunction& m,
                       const std::string& field) override {
    const std::string overload = field == "default" ? "" : field;
    const auto ops = jit::getAllOperatorsFor(symbol_);
    for (const auto& op : ops) {
      if (op->schema().overload_name() == overload) {
        return std::make_shared<OperatorOverloadValue>(symbol_, overload);
      }
    }
    if (field == "default" && !ops.empty()) {
      return std::make_shared<OperatorOverloadValue>(symbol_, std::nullopt);
    }
    throw jit::ErrorReport(loc) << "there is no operator " << symbol_.toQualString() << "."
                                << field << " (is its library loaded?)";
  }

 private:
  c10::Symbol symbol_;
};

// `torch.ops` and `torch.ops.<ns>`.
class OperatorNamespaceValue : public SugaredValue {
 public:
  explicit OperatorNamespaceValue(std::string ns) : ns_(std::move(ns)) {}
  std::string kind() const override { return "operator namespace"; }
  SugaredValuePtr attr(const jit::SourceRange& loc, jit::GraphFunction& m,
                       const std::string& field) override {
    if (ns_.empty()) return std::make_shared<OperatorNamespaceValue>(field);
    return std::make_shared<OperatorPacketValue>(
        c10::Symbol::fromQualString(absl::StrCat(ns_, "::", field)));
  }

 private:
  std::string ns_;
};

// The function a graph's `operator.pos` is exported as (graph_for_torchscript
// renames it; TorchScript has no unary `+`): for a tensor, aten::positive
// (what Python's `+t` runs); for an int or a float, the number; for a bool,
// the int Python's `+True` is.
constexpr absl::string_view kExportedPosTarget = "torch._fx_operator_pos";

class PosValue : public SugaredValue {
 public:
  std::string kind() const override { return "operator.pos"; }
  SugaredValuePtr call(const jit::SourceRange& loc, jit::GraphFunction& m,
                       at::ArrayRef<jit::NamedValue> args, at::ArrayRef<jit::NamedValue> kwargs,
                       size_t) override {
    if (args.size() != 1 || !kwargs.empty()) {
      throw jit::ErrorReport(loc) << "operator.pos takes one positional argument";
    }
    jit::Value* v = args[0].value(*m.graph());
    const c10::TypePtr& type = v->type();
    if (type->isSubtypeOf(*c10::TensorType::get())) {
      return std::make_shared<jit::SimpleValue>(jit::emitBuiltinCall(
          loc, *m.graph(), c10::Symbol::fromQualString("aten::positive"), {v}, {}));
    }
    if (type->kind() == c10::TypeKind::IntType || type->kind() == c10::TypeKind::FloatType) {
      return std::make_shared<jit::SimpleValue>(v);
    }
    if (type->kind() == c10::TypeKind::BoolType) {
      return std::make_shared<jit::SimpleValue>(jit::emitBuiltinCall(
          loc, *m.graph(), c10::Symbol::fromQualString("aten::Int"), {v}, {}));
    }
    throw jit::ErrorReport(loc) << "operator.pos of a " << type->repr_str()
                                << " has no TorchScript";
  }
};

// The names the generated source uses that TorchScript's own resolver does
// not know: leaf functions by their dotted targets, `torch.ops`, and torch's
// dtype, layout and memory format constants.
class ExportResolver : public jit::Resolver {
 public:
  // `graph` is what is compiled: `gm`'s graph as graph_for_torchscript respelled it.
  ExportResolver(const GraphModule& gm, const Graph& graph) : gm_(gm) {
    auto add_prefixes = [&](absl::string_view name) {
      std::string prefix;
      for (absl::string_view atom : absl::StrSplit(name, '.')) {
        prefix = prefix.empty() ? std::string(atom) : absl::StrCat(prefix, ".", atom);
        prefixes_.insert(prefix);
      }
    };
    for (const auto& [target, functions] : script_functions_by_target(gm)) add_prefixes(target);
    // Functions of the model's code a target names (torch.nn.functional's,
    // which TorchScript compiled for the model): called as the runtime calls
    // them, since TorchScript cannot resolve `torch.nn.functional` itself.
    for (const Node* n : graph.nodes()) {
      if (n->op() != Op::kCallFunction || has_script_function(gm, n->target()) ||
          unit_functions_.contains(n->target())) {
        continue;
      }
      std::vector<jit::StrongFunctionPtr> functions;
      for (jit::Function* f : find_unit_functions(gm, n->target())) {
        functions.emplace_back(script_unit(gm), f);
      }
      if (!functions.empty()) {
        unit_functions_.emplace(n->target(), std::move(functions));
        add_prefixes(n->target());
      }
    }
    // Functions a value's name shadows are called through a namespace (printer.h).
    namespace_ = torchscript_function_namespace(graph);
    prefixes_.insert(namespace_);
    // NamedTuple classes the graph constructs, as the model's code defines them.
    const std::shared_ptr<jit::CompilationUnit> cu = script_unit(gm);
    std::function<void(const Argument&)> visit = [&](const Argument& a) {
      if (cu != nullptr && a.is_named_tuple() && !named_tuples_.contains(a.tuple_type_name())) {
        if (auto type = cu->get_named_tuple(
                c10::QualifiedName(torchscript_class_name(a.tuple_type_name())))) {
          named_tuples_.emplace(a.tuple_type_name(), type);
          add_prefixes(a.tuple_type_name());
        }
      }
      if (a.is_sequence()) {
        for (const Argument& e : a.elements()) visit(e);
      } else if (a.is_dict()) {
        for (const auto& kv : a.dict_items()) visit(kv.second);
      }
    };
    for (const Node* n : graph.nodes()) {
      for (const Argument& a : n->args()) visit(a);
      for (const auto& kv : n->kwargs()) visit(kv.second);
    }
  }

  SugaredValuePtr resolveValue(const std::string& name, jit::GraphFunction& m,
                               const jit::SourceRange& loc) override {
    if (name == "torch" || name == "math" || prefixes_.contains(name)) return lookup(name, loc, m);
    return nullptr;
  }
  c10::TypePtr resolveType(const std::string&, const jit::SourceRange&) override {
    return nullptr;
  }

  // The value of the dotted name `path`.
  SugaredValuePtr lookup(const std::string& path, const jit::SourceRange& loc,
                         jit::GraphFunction& m);

 private:
  const GraphModule& gm_;
  absl::flat_hash_set<std::string> prefixes_;  // of leaf function targets and NamedTuples
  std::string namespace_;                      // of shadowed functions
  absl::flat_hash_map<std::string, c10::TupleTypePtr> named_tuples_;
  absl::flat_hash_map<std::string, std::vector<jit::StrongFunctionPtr>> unit_functions_;  // by target
};

// Python's math module: aten's operators of the name on numbers. On a tensor
// Python's math.floor gives an int where aten::floor gives a tensor, so a
// tensor is refused, as the runtime refuses it.
class MathFunctionValue : public SugaredValue {
 public:
  explicit MathFunctionValue(std::string name) : name_(std::move(name)) {}
  std::string kind() const override { return "math function"; }
  SugaredValuePtr call(const jit::SourceRange& loc, jit::GraphFunction& m,
                       at::ArrayRef<jit::NamedValue> args, at::ArrayRef<jit::NamedValue> kwargs,
                       size_t n_binders) override {
    for (const jit::NamedValue& a : args) {
      if (a.value(*m.graph())->type()->isSubtypeOf(*c10::TensorType::get())) {
        throw jit::ErrorReport(loc) << "math." << name_ << " takes Python numbers, not a Tensor";
      }
    }
    return jit::BuiltinModule("aten").attr(loc, m, name_)->call(loc, m, args, kwargs, n_binders);
  }

 private:
  std::string name_;
};

class MathModuleValue : public SugaredValue {
 public:
  std::string kind() const override { return "module"; }
  SugaredValuePtr attr(const jit::SourceRange& loc, jit::GraphFunction& m,
                       const std::string& field) override {
    return std::make_shared<MathFunctionValue>(field);
  }
};

// A dotted name on the way to a leaf function or a torch name.
class NamespaceValue : public SugaredValue {
 public:
  NamespaceValue(ExportResolver* resolver, std::string path)
      : resolver_(resolver), path_(std::move(path)) {}
  std::string kind() const override { return "module"; }
  SugaredValuePtr attr(const jit::SourceRange& loc, jit::GraphFunction& m,
                       const std::string& field) override {
    return resolver_->lookup(absl::StrCat(path_, ".", field), loc, m);
  }

 private:
  ExportResolver* resolver_;
  std::string path_;
};

SugaredValuePtr ExportResolver::lookup(const std::string& path, const jit::SourceRange& loc,
                                       jit::GraphFunction& m) {
  absl::string_view unqualified = path;
  if (absl::ConsumePrefix(&unqualified, namespace_) && absl::ConsumePrefix(&unqualified, ".")) {
    return lookup(std::string(unqualified), loc, m);
  }
  const auto& functions = script_functions_by_target(gm_);
  if (auto it = functions.find(path); it != functions.end()) {
    return std::make_shared<jit::FunctionValue>(it->second);
  }
  if (auto it = unit_functions_.find(path); it != unit_functions_.end()) {
    return std::make_shared<jit::FunctionValue>(it->second);
  }
  // Python's math module (math.sqrt(x.size(-1))), as TorchScript's Python
  // frontend resolves it: aten's number operators, never a tensor's.
  if (path == "math") return std::make_shared<MathModuleValue>();
  if (auto it = named_tuples_.find(path); it != named_tuples_.end()) {
    return std::make_shared<jit::NamedTupleConstructor>(it->second);
  }
  if (prefixes_.contains(path) || path == "torch") {
    return std::make_shared<NamespaceValue>(this, path);
  }
  if (path == "torch.ops") return std::make_shared<OperatorNamespaceValue>("");
  if (path == kExportedPosTarget) return std::make_shared<PosValue>();
  {
    // torch's bindings of aten operators as torch.fx names them
    // (torch._C._nn.gelu is F.gelu): exactly aten::<name>.
    absl::string_view rest = path;
    if (absl::ConsumePrefix(&rest, "torch._C")) {
      if (rest.empty() || (absl::ConsumePrefix(&rest, "._") && rest.find('.') == absl::string_view::npos)) {
        return std::make_shared<NamespaceValue>(this, path);
      }
      const size_t dot = rest.find('.');
      if (dot != absl::string_view::npos && rest.find('.', dot + 1) == absl::string_view::npos) {
        return jit::BuiltinModule("aten").attr(loc, m, std::string(rest.substr(dot + 1)));
      }
    }
  }
  auto constant = [&](int64_t value) -> SugaredValuePtr {
    return std::make_shared<jit::SimpleValue>(m.graph()->insertConstant(value, loc));
  };
  if (auto dtype = dtype_from_python_name(path)) return constant(static_cast<int64_t>(*dtype));
  if (auto layout = layout_from_python_name(path)) return constant(static_cast<int64_t>(*layout));
  if (auto format = memory_format_from_python_name(path)) {
    return constant(static_cast<int64_t>(*format));
  }
  absl::string_view rest = path;
  if (absl::ConsumePrefix(&rest, "torch.") && rest.find('.') == absl::string_view::npos) {
    return jit::BuiltinModule("aten").attr(loc, m, std::string(rest));  // torch.device, ...
  }
  throw jit::ErrorReport(loc) << "'" << path
                              << "' is neither an operator nor a function this module has "
                                 "TorchScript for";
}

// The node whose statement a compiler message points at: TorchScript quotes
// the source and underlines the culprit (`~~~~ <--- HERE`) on the next line.
// python_code writes one line per node after `def forward` and the lines
// renaming placeholders.
const Node* node_in_message(const Graph& graph, const std::string& source,
                            absl::string_view message) {
  const std::vector<absl::string_view> message_lines = absl::StrSplit(message, '\n');
  absl::string_view quoted;
  for (size_t i = 1; i < message_lines.size(); ++i) {
    if (absl::StrContains(message_lines[i], "~~") || absl::StrContains(message_lines[i], "<--- HERE")) {
      quoted = absl::StripAsciiWhitespace(message_lines[i - 1]);
      break;
    }
  }
  if (quoted.empty()) return nullptr;
  const std::vector<absl::string_view> lines = absl::StrSplit(source, '\n');
  std::vector<const Node*> statements;
  size_t first = 1;
  for (const Node* n : graph.nodes()) {
    if (n->op() != Op::kPlaceholder) {
      statements.push_back(n);
    } else if (absl::StripPrefix(n->target(), "*") != n->name()) {
      ++first;  // `name = target`
    }
  }
  for (size_t i = 0; i < statements.size() && first + i < lines.size(); ++i) {
    if (absl::StripAsciiWhitespace(lines[first + i]) == quoted) return statements[i];
  }
  return nullptr;
}

// The first line of a compiler message, without the colon that ends it (the
// lines after it quote the source, and are not shown).
std::string compiler_message_line(absl::string_view message) {
  std::string line = first_line_of(message);
  absl::string_view kept = line;
  if (absl::ConsumeSuffix(&kept, ":")) return std::string(absl::StripTrailingAsciiWhitespace(kept));
  return line;
}

// Every name pasted into the source must be what it claims to be: a node
// name or keyword that is an identifier, a target of dotted identifiers or
// `ns::op.overload`, a type of names, brackets and commas. Anything else
// could change what the source means, so it is refused. Attribute paths are
// another matter: the printer reaches atoms that are not identifiers
// (nn.Sequential's `0`, RegNet's `block1-0`) through `getattr(m, "block1-0")`
// with a string literal, so any atom of printable characters is safe.
bool is_attribute_path(absl::string_view s) {
  if (s.empty()) return false;
  for (absl::string_view atom : absl::StrSplit(s, '.')) {
    if (atom.empty()) return false;
    for (char c : atom) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
    }
  }
  return true;
}

bool is_dotted_name(absl::string_view s) {
  if (s.empty()) return false;
  for (absl::string_view atom : absl::StrSplit(s, '.')) {
    if (!is_python_identifier(atom)) return false;
  }
  return true;
}

bool is_function_target(absl::string_view target) {
  const size_t colons = target.find("::");
  if (colons == absl::string_view::npos) return is_dotted_name(target);
  return is_python_identifier(target.substr(0, colons)) &&
         is_dotted_name(target.substr(colons + 2));
}

bool is_type_annotation(absl::string_view type) {
  int depth = 0;
  for (char c : type) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return false;
    if (!(absl::ascii_isalnum(c) || c == '_' || c == '.' || c == ',' || c == ' ' || c == '[' ||
          c == ']')) {
      return false;
    }
  }
  return depth == 0;
}

absl::Status unsafe_name(const Node& n, absl::string_view what, absl::string_view name) {
  return absl::InvalidArgumentError(absl::StrCat("cannot export node ", quote_for_message(n.name()),
                                                 " to TorchScript: its ", what, " ",
                                                 quote_for_message(name), " is not a valid name"));
}

// Checks what TorchScript cannot express before compiling, naming the node.
absl::Status check_expressible(const GraphModule& gm, const Graph& graph) {
  if (!is_python_identifier(gm.class_name())) {
    return absl::InvalidArgumentError(absl::StrCat("cannot export to TorchScript: the class name ",
                                                   quote_for_message(gm.class_name()),
                                                   " is not a Python identifier"));
  }
  for (const auto& [name, value] : gm.own_attributes()) {
    if (!is_python_identifier(name)) {
      return absl::InvalidArgumentError(absl::StrCat("cannot export to TorchScript: attribute ",
                                                     quote_for_message(name),
                                                     " is not a Python identifier"));
    }
  }
  for (const Node* n : graph.nodes()) {
    if (!is_python_identifier(n->name())) return unsafe_name(*n, "name", n->name());
    for (const auto& [key, value] : n->kwargs()) {
      if (!is_python_identifier(key)) return unsafe_name(*n, "keyword", key);
    }
    if (!is_type_annotation(n->type())) return unsafe_name(*n, "type", n->type());
    switch (n->op()) {
      case Op::kPlaceholder:
        if (!is_python_identifier(absl::StripLeadingAsciiWhitespace(
                absl::StripPrefix(absl::StripPrefix(n->target(), "*"), "*"))) ) {
          return unsafe_name(*n, "target", n->target());
        }
        break;
      case Op::kGetAttr:
      case Op::kCallModule:
        if (!is_attribute_path(n->target())) return unsafe_name(*n, "target", n->target());
        break;
      case Op::kCallMethod:
        if (!is_python_identifier(n->target())) return unsafe_name(*n, "target", n->target());
        break;
      case Op::kCallFunction:
        if (!is_function_target(n->target())) return unsafe_name(*n, "target", n->target());
        break;
      default:
        break;
    }
    if (n->op() == Op::kCallModule) {
      if (const MetaValue* m = n->meta().find(kModuleMethodKey); m != nullptr &&
          (!m->is_string() || !is_python_identifier(m->to_string()))) {
        return unsafe_name(*n, "method (meta _method)", m->is_string() ? m->to_string() : "?");
      }
    }
    if (n->op() == Op::kPlaceholder && absl::StartsWith(n->target(), "*")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot export node '", n->name(), "' to TorchScript: forward takes ", n->target(),
          ", and a TorchScript method takes no variable arguments"));
    }
    if (n->op() == Op::kCallFunction) {
      const std::string& target = n->target();
      const bool known = target.find("::") != std::string::npos ||
                         absl::StartsWith(target, "torch.") ||
                         absl::StartsWith(target, "operator.") || target == kGetAttrTarget ||
                         target == kAssertIsNotNoneTarget || absl::StartsWith(target, "math.") ||
                         has_script_function(gm, target) ||
                         !find_unit_functions(gm, target).empty();
      if (!known && target.find('.') != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot export node '", n->name(), "' to TorchScript: it calls ", target,
            ", a Python function this module has no TorchScript for (graphs traced from "
            "TorchScript record their leaf functions; a graph built in C++ must "
            "GraphModule::add_function it)"));
      }
    }
    if (n->op() == Op::kCallModule && gm.graph_submodule(n->target()) == nullptr) {
      auto module = gm.get_submodule(n->target());
      const MetaValue* method = n->meta().find(kModuleMethodKey);
      const std::string name =
          method != nullptr && method->is_string() ? method->to_string() : "forward";
      const TorchScriptClass* code = module.ok() ? torchscript_class(**module) : nullptr;
      if (module.ok() && code == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot export node '", n->name(), "' to TorchScript: it calls module ", n->target(),
            " (", (*module)->type_name(), "), which has no TorchScript code (it was not read "
            "from a TorchScript file)"));
      }
      if (code != nullptr && code->type()->findMethod(name) == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot export node '", n->name(), "' to TorchScript: it calls module ", n->target(),
            ", which has no TorchScript method ", name,
            name == "forward" ? " (its forward is overloaded? meta '_method' names the overload)"
                              : ""));
      }
    }
  }
  return absl::OkStatus();
}

// A call of torch.nn.functional's (or torch.functional's) `name` that the
// model's code has no function for (a scripted model has them for the
// functions it calls itself), respelled for TorchScript. The max pooling
// functions Python dispatches on `return_indices`: with it False, the
// function TorchScript compiled for that (`_max_pool2d`), else aten's
// `max_pool2d` with `stride=None` as aten's default (the kernel size); the
// adaptive ones return (values, indices) from aten, so they stay as they
// are (refused). The functions whose Python signature and result are aten's
// operator of the same name, as torch.fx records their calls
// (kAtenLikeFunctions): that operator, as TorchScript matches it. Any other
// stays as it is, which TorchScript refuses: aten's namesake may take its
// arguments in another order (embedding, batch_norm), lack its keywords
// (relu's inplace) or return a tuple where Python returns a tensor
// (unique_consecutive).
constexpr absl::string_view kAtenLikeFunctions[] = {
    "pad", "layer_norm", "group_norm", "glu", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_avg_pool3d", "split", "einsum", "meshgrid", "atleast_1d", "atleast_2d",
    "atleast_3d", "block_diag", "cartesian_prod", "chain_matmul", "broadcast_tensors",
};

void respell_functional_call(const GraphModule& gm, Node& n, absl::string_view name) {
  const bool adaptive = absl::StartsWith(name, "adaptive_max_pool");
  if (!adaptive && !absl::StartsWith(name, "max_pool")) {
    if (std::find(std::begin(kAtenLikeFunctions), std::end(kAtenLikeFunctions), name) !=
        std::end(kAtenLikeFunctions)) {
      n.set_target(absl::StrCat("torch.", name));
    }
    return;
  }
  const size_t position = adaptive ? 2 : 6;  // of return_indices
  const Argument* flag = n.args().size() > position ? &n.args()[position] : nullptr;
  for (const auto& [key, value] : n.kwargs()) {
    if (key == "return_indices") flag = &value;
  }
  if (flag != nullptr && !(flag->is_bool() && !flag->to_bool())) return;
  const std::string dispatched = absl::StrCat("torch.nn.functional._", name);
  if (!find_unit_functions(gm, dispatched).empty()) {
    n.set_target(dispatched);
    return;
  }
  if (adaptive || absl::StrContains(name, "with_indices")) return;
  // (input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)
  Arguments args = n.args();
  if (args.size() > position) args.resize(position);
  if (args.size() > 2 && args[2].is_none()) args[2] = args[1];
  Kwargs kwargs;
  for (const auto& [key, value] : n.kwargs()) {
    if (key == "return_indices" || (key == "stride" && value.is_none())) continue;
    kwargs.emplace_back(key, value);
  }
  n.set_target(absl::StrCat("torch.", name));
  n.set_args(std::move(args));
  n.set_kwargs(std::move(kwargs));
}

// The graph as the exporter prints it: placeholders annotated with the
// TorchScript type the tracer recorded, no other annotations; a submodule
// whose forward TorchScript compiled as one overload called by its name.
std::unique_ptr<Graph> graph_for_torchscript(const GraphModule& gm) {
  std::unique_ptr<Graph> copy = gm.graph().copy();
  for (Node* n : copy->nodes()) {
    if (n->op() == Op::kCallFunction) {
      if (n->target() == "operator.pos" || n->target() == "_operator.pos") {
        n->set_target(std::string(kExportedPosTarget));
      }
      // F.softmax(x, dim=1, _stacklevel=5, dtype=None), as torch.fx records
      // it, is torch.softmax(x, 1, dtype=None): `_stacklevel` only places a
      // warning Python gives when dim is None (left to TorchScript's refusal).
      // Not where the model has TorchScript for the function.
      absl::string_view name = n->target();
      if (absl::ConsumePrefix(&name, "torch.nn.functional.") &&
          (name == "softmax" || name == "log_softmax") && !has_script_function(gm, n->target())) {
        Arguments args = n->args();
        Kwargs kwargs;
        bool has_dim = args.size() >= 2 && !args[1].is_none();
        for (const auto& [key, value] : n->kwargs()) {
          if (key == "_stacklevel") continue;
          if (key == "dim") {
            has_dim = !value.is_none();
            if (args.size() < 2) {
              args.push_back(value);
              continue;
            }
          }
          kwargs.emplace_back(key, value);
        }
        if (args.size() >= 3) {  // (input, dim, _stacklevel, dtype)
          if (args.size() == 4) kwargs.emplace_back("dtype", args[3]);
          args.resize(2);
        }
        if (has_dim && args.size() == 2) {
          n->set_target(absl::StrCat("torch.", name));
          n->set_args(std::move(args));
          n->set_kwargs(std::move(kwargs));
        }
      }
      name = n->target();
      if ((absl::ConsumePrefix(&name, "torch.nn.functional.") ||
           absl::ConsumePrefix(&name, "torch.functional.")) &&
          !has_script_function(gm, n->target()) && find_unit_functions(gm, n->target()).empty()) {
        respell_functional_call(gm, *n, name);
      }
    }
    if (n->op() == Op::kCallModule && !n->meta().contains(kModuleMethodKey)) {
      auto module = gm.get_submodule(n->target());
      const TorchScriptClass* code = module.ok() ? torchscript_class(**module) : nullptr;
      if (code != nullptr && code->type()->findMethod("forward") == nullptr) {
        std::vector<std::string> overloads;
        for (const jit::Function* m : code->type()->methods()) {
          if (absl::StartsWith(m->name(), "forward__")) overloads.push_back(m->name());
        }
        if (overloads.size() == 1) n->meta().set(kModuleMethodKey, overloads[0]);
      }
    }
    std::string type;
    if (n->op() == Op::kPlaceholder) {
      const MetaValue* t = n->meta().find(kTorchScriptTypeKey);
      if (t != nullptr && t->is_string()) {
        type = t->to_string();
      } else if (n->type() != "torch.Tensor") {
        type = n->type();
      }
    }
    if (n->type() != type) n->set_type(type);
  }
  return copy;
}

// TorchScript's serializer numbers the source range of every node it writes
// in a hash map whose hash (SourceRangeHasher) XORs the address of the
// range's Source with its start and end offsets. In one long text, ranges of
// statements of equal length mostly hash alike, so saving a graph of N nodes
// took O(N^2) time (40,000 nodes: 20 s). Each line of the generated source
// (each statement) becomes a Source of its own, sharing the text and keeping
// the file name and line number, so messages quote the same code as before
// and the hashes differ.
class SourceByLine {
 public:
  void rewrite(jit::Block* block) {
    for (jit::Node* node : block->nodes()) {
      node->setSourceRange(range_by_line(node->sourceRange()));
      for (jit::Block* inner : node->blocks()) rewrite(inner);
    }
    jit::Node* param = block->param_node();
    param->setSourceRange(range_by_line(param->sourceRange()));
    jit::Node* ret = block->return_node();
    ret->setSourceRange(range_by_line(ret->sourceRange()));
  }

 private:
  jit::SourceRange range_by_line(const jit::SourceRange& range) {
    const std::shared_ptr<jit::Source>& source = range.source();
    if (source == nullptr || range.end() > source->size() || range.start() > range.end()) {
      return range;
    }
    const size_t first = source->lineno_for_offset(range.start());
    const size_t last = source->lineno_for_offset(range.end() > range.start() ? range.end() - 1
                                                                              : range.start());
    const size_t begin = source->offset_for_line(first);
    std::shared_ptr<jit::Source>& lines = sources_[{source.get(), first, last}];
    if (lines == nullptr) {
      const size_t end = last + 1 < source->num_lines() ? source->offset_for_line(last + 1)
                                                         : source->size();
      lines = std::make_shared<jit::Source>(source->text_str().substr(begin, end - begin),
                                            source->filename(),
                                            source->lineno_to_source_lineno(first));
    }
    return jit::SourceRange(lines, range.start() - begin, range.end() - begin);
  }

  absl::flat_hash_map<std::tuple<const jit::Source*, size_t, size_t>, std::shared_ptr<jit::Source>>
      sources_;
};

}  // namespace

std::string torchscript_source(const GraphModule& gm) {
  return python_code(*graph_for_torchscript(gm), CodeDialect::kTorchScript);
}

absl::StatusOr<torch::jit::Module> export_to_torchscript(const GraphModule& gm) {
  if (absl::Status s = gm.check_storable("TorchScript"); !s.ok()) return s;
  std::unique_ptr<Graph> graph = graph_for_torchscript(gm);
  if (absl::Status s = check_expressible(gm, *graph); !s.ok()) return s;
  const std::string source = python_code(*graph, CodeDialect::kTorchScript);
  auto holder = GraphModule::from_referenced(gm, std::move(graph), gm.class_name());
  if (!holder.ok()) return holder.status();
  // The root and the modules holding what is referenced below it get new
  // classes; modules read from TorchScript keep theirs.
  auto made = torchscript_object(holder->root(), std::make_shared<jit::CompilationUnit>());
  if (!made.ok()) return made.status();
  torch::jit::Module root = *made;
  for (const auto& [name, value] : holder->own_attributes()) {
    root.register_attribute(name, value.isTensor() ? c10::TensorType::get() : value.type(), value);
  }
  // Graph submodules (split's stages) become TorchScript submodules, each
  // exported in turn.
  for (const auto& [name, sub] : holder->graph_submodules()) {
    auto exported = export_to_torchscript(*sub);
    if (!exported.ok()) {
      return absl::Status(exported.status().code(),
                          absl::StrCat("graph submodule '", name, "': ", exported.status().message()));
    }
    root.register_module(name, *exported);
  }
  try {
    root.define(source, std::make_shared<ExportResolver>(gm, holder->graph()));
  } catch (const std::exception& e) {
    const std::string message = e.what();
    const Node* node = node_in_message(gm.graph(), source, message);
    const std::string what =
        node != nullptr ? absl::StrCat("node '", node->name(), "' (", node->target(), ")")
                        : std::string("the graph");
    return absl::InvalidArgumentError(
        absl::StrCat("cannot export ", what, " to TorchScript: ", compiler_message_line(message)));
  }
  SourceByLine().rewrite(root.get_method("forward").graph()->block());
  return root;
}

absl::Status save_torchscript(const GraphModule& gm, const std::string& path) {
  auto module = export_to_torchscript(gm);
  if (!module.ok()) return module.status();
  try {
    module->save(path);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot write ", path_for_message(path), ": ", first_line_of(e.what())));
  }
  return absl::OkStatus();
}

absl::Status write_torchscript(const GraphModule& gm, std::ostream& out) {
  auto module = export_to_torchscript(gm);
  if (!module.ok()) return module.status();
  try {
    module->save(out);
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat("cannot save the model as TorchScript: ", first_line_of(e.what())));
  }
  return absl::OkStatus();
}

}  // namespace fx
