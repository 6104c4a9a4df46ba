// Copyright 2026 The FX for C++ Authors.
//
// python_code(): a Graph as the Python source of `forward`, torch.fx's
// `GraphModule.code`, written so that it runs with PyTorch against the
// module's state (`torch`, `typing` and `operator` imported, as torch.fx's
// generated code has them in its globals):
//   * operators with an overload print as `torch.ops.aten.add.Tensor(...)`,
//     Python-level targets as themselves (`torch.nn.functional.relu(...)`);
//   * Python's operators as Python writes them (`x + y`, `x[0]`, `x += y`);
//   * TorchScript's builtins for Python syntax, which `torch.ops` cannot call
//     (`aten::len.t`, `aten::slice.t`, `aten::__getitem__.Dict_str`,
//     `aten::_set_item.str`, ...), as that syntax: `len(x)`, `x[1:3]`,
//     `d['k']`, `d['k'] = v`;
//   * devices as `torch.device('cpu')`, non-finite floats as `float('inf')`;
//   * Python functions outside torch (a library's or the user's leaf
//     functions) imported before `def forward` under names no value of the
//     graph takes, as torch.fx keeps them in its code's globals;
//   * every value set to None after its last use.
// The TorchScript dialect (printer.h) differs where TorchScript must.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "core/last_uses.h"
#include "core/naming.h"
#include "core/printer.h"
#include "core/python_operators.h"
#include "core/well_known.h"

namespace fx {
namespace {

// The names the Python code binds NamedTuple classes to, while python_code
// writes it (nullptr: the classes' qualified names, as TorchScript's source
// has them).
thread_local const ClassNames* bound_classes = nullptr;

std::string code(const Argument& arg) { return python_code_repr(arg, bound_classes); }

// A string literal for an attribute name: `"0"` as torch.fx writes it, or
// Python's repr when the name holds a quote, a backslash or a control
// character.
std::string attribute_name_literal(absl::string_view atom) {
  const bool plain = std::all_of(atom.begin(), atom.end(), [](char c) {
    return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20 &&
           static_cast<unsigned char>(c) < 0x7f;
  });
  return plain ? absl::StrCat("\"", atom, "\"") : python_string_repr(atom);
}

// torch.fx's `_format_target`: `self.layer1` + `0.conv1` -> `getattr(self.layer1, "0").conv1`;
// also for names that are keywords or hold other characters (RegNet's `block1-0`).
std::string format_attribute_path(std::string base, absl::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    absl::string_view atom = path.substr(start, dot == absl::string_view::npos ? dot : dot - start);
    if (is_python_attribute_name(atom)) {
      absl::StrAppend(&base, ".", atom);
    } else {
      base = absl::StrCat("getattr(", base, ", ", attribute_name_literal(atom), ")");
    }
    if (dot == absl::string_view::npos) break;
    start = dot + 1;
  }
  return base;
}

// Appends `form` (python_operators.def's "{} + {}") with its `{}`s replaced
// by the operands.
void append_form(std::string& out, absl::string_view form, const Arguments& operands) {
  size_t next = 0;
  for (size_t i = 0; i < form.size(); ++i) {
    if (form[i] == '{' && i + 1 < form.size() && form[i + 1] == '}' && next < operands.size()) {
      out += code(operands[next++]);
      ++i;
    } else {
      out += form[i];
    }
  }
}

// The whole statement of a call_function of a Python operator, written as
// Python writes it (`add = x + y`, `x += y;  iadd = x`). Returns false when
// the node should be printed as a plain call.
bool format_operator_statement(const Node& node, absl::string_view lhs, std::string& out,
                               bool torchscript) {
  if (!node.kwargs().empty()) return false;
  const Arguments& args = node.args();
  if (node.target() == "operator.setitem" && args.size() == 3) {
    // A statement of its own, with no value.
    absl::StrAppend(&out, code(args[0]), "[", code(args[1]), "] = ", code(args[2]), ";  ", lhs,
                    " = None");
    return true;
  }
  const PythonOperator* op = find_python_operator(node.target());
  if (op == nullptr || static_cast<int>(args.size()) != op->arity()) return false;
  absl::string_view form = op->form;
  if (torchscript) {
    // TorchScript has no `operator` module: its syntax for the same thing.
    if (op->name == "not_") form = "not {}";
    if (op->name == "abs") form = "abs({})";
  }
  if (op->kind == PythonOperator::Kind::kInplace) {
    append_form(out, form, args);
    absl::StrAppend(&out, ";  ", lhs, " = ", code(args[0]));
    return true;
  }
  absl::StrAppend(&out, lhs, " = ");
  append_form(out, form, args);
  return true;
}

// The value of positional argument `i`, or `fallback` when it was left out.
Argument arg_or(const Node& node, size_t i, Argument fallback) {
  return i < node.args().size() ? node.args()[i] : fallback;
}

// TorchScript's builtins for Python syntax, written as that syntax. Returns
// false for other targets.
bool format_builtin_statement(const Node& node, absl::string_view lhs, std::string& out) {
  absl::string_view target = node.target();
  if (!absl::ConsumePrefix(&target, "aten::") || !node.kwargs().empty()) return false;
  const size_t dot = target.find('.');
  const absl::string_view name = target.substr(0, dot);
  const absl::string_view overload =
      dot == absl::string_view::npos ? absl::string_view() : target.substr(dot + 1);
  const Arguments& args = node.args();
  // Tensor overloads are operators `torch.ops` can call.
  if (overload == "Tensor" || args.empty()) return false;
  const std::string a0 = code(args[0]);
  auto set = [&](const std::string& rhs) {
    absl::StrAppend(&out, lhs, " = ", rhs);
    return true;
  };
  if (name == "len") return set(absl::StrCat("len(", a0, ")"));
  if (name == "__getitem__" && args.size() == 2) return set(absl::StrCat(a0, "[", code(args[1]), "]"));
  if (name == "__contains__" && args.size() == 2) return set(absl::StrCat(code(args[1]), " in ", a0));
  if (name == "__is__" && args.size() == 2) return set(absl::StrCat(a0, " is ", code(args[1])));
  if (name == "__isnot__" && args.size() == 2) return set(absl::StrCat(a0, " is not ", code(args[1])));
  if (name == "__not__") return set(absl::StrCat("not ", a0));
  if (name == "list" || name == "dict" || name == "str") return set(absl::StrCat(name, "(", a0, ")"));
  if (name == "Int" || name == "Float" || name == "Bool") {
    return set(absl::StrCat(absl::AsciiStrToLower(name), "(", a0, ")"));
  }
  if (name == "keys" || name == "values" || name == "items") {
    return set(absl::StrCat("list(", a0, ".", name, "())"));
  }
  if (name == "slice" && (overload == "t" || overload == "str")) {
    // l[start:end:step], with what is None or the default left out.
    const Argument start = arg_or(node, 1, Argument());
    const Argument end = arg_or(node, 2, Argument());
    const Argument step = arg_or(node, 3, 1);
    std::string rhs = absl::StrCat(a0, "[", start.is_none() ? "" : code(start), ":",
                                   end.is_none() ? "" : code(end));
    if (!(step.is_int() && step.to_int() == 1)) absl::StrAppend(&rhs, ":", code(step));
    return set(absl::StrCat(rhs, "]"));
  }
  if (name == "_set_item" && args.size() == 3) {
    // A statement; the list form returns the list.
    absl::StrAppend(&out, a0, "[", code(args[1]), "] = ", code(args[2]), ";  ", lhs, " = ",
                    overload == "t" ? a0 : "None");
    return true;
  }
  // List and dict methods whose schemas are generic (`t[]`, `Dict(str, t)`),
  // which torch.ops cannot convert Python values to.
  const bool list_op = overload == "t";
  const bool dict_op = absl::StartsWith(overload, "Dict_") || overload == "str" ||
                       overload == "int" || overload == "float" || overload == "bool" ||
                       overload == "complex" || absl::StartsWith(overload, "default_");
  auto method_call = [&](absl::string_view method) {
    std::string call_args;
    for (size_t i = 1; i < args.size(); ++i) {
      absl::StrAppend(&call_args, i > 1 ? ", " : "", code(args[i]));
    }
    return set(absl::StrCat(a0, ".", method, "(", call_args, ")"));
  };
  if ((name == "pop" && (list_op || dict_op)) || (name == "copy" && (list_op || dict_op)) ||
      (name == "get" && dict_op) || (name == "setdefault" && dict_op) ||
      (name == "popitem" && dict_op)) {
    return method_call(name);
  }
  if (name == "reverse" && list_op) {
    absl::StrAppend(&out, a0, ".reverse();  ", lhs, " = None");
    return true;
  }
  if (name == "sort" && overload == "any") {
    absl::StrAppend(&out, a0, ".sort(", args.size() > 1 ? absl::StrCat("reverse = ", code(args[1])) : "",
                    ");  ", lhs, " = None");
    return true;
  }
  if (name == "sorted" && overload == "any") return set(absl::StrCat("sorted(", a0, ")"));
  if (name == "select" && list_op && args.size() == 2) {
    return set(absl::StrCat(a0, "[", code(args[1]), "]"));
  }
  if (name == "Delete" && (list_op || dict_op) && args.size() == 2) {
    absl::StrAppend(&out, "del ", a0, "[", code(args[1]), "];  ", lhs, " = None");
    return true;
  }
  if ((name == "add_" || name == "mul_") && list_op && args.size() == 2) {
    absl::StrAppend(&out, a0, name == "add_" ? " += " : " *= ", code(args[1]), ";  ", lhs, " = ",
                    a0);
    return true;
  }
  if (name == "hash" && overload == "generic") return set(absl::StrCat("hash(", a0, ")"));
  if ((name == "append" || name == "extend" || name == "insert" || name == "clear" ||
       name == "update") &&
      (overload == "t" || overload == "str" || overload.empty())) {
    std::string call_args;
    for (size_t i = 1; i < args.size(); ++i) {
      absl::StrAppend(&call_args, i > 1 ? ", " : "", code(args[i]));
    }
    absl::StrAppend(&out, a0, ".", name, "(", call_args, ");  ", lhs, " = ",
                    name == "append" ? a0 : "None");
    return true;
  }
  return false;
}

// The checks the tracer records (torch._assert, torch.fx's _assert_is_none,
// the tracer's assert_is_not_none). TorchScript writes them as `assert`
// statements, which also refine an Optional's type as TorchScript's own code
// does; Python calls torch._assert, except for torch.fx's own function.
// Returns false for other nodes.
bool format_check_statement(const Node& node, absl::string_view lhs, std::string& out,
                            bool torchscript) {
  const absl::string_view target = node.target();
  const Arguments& args = node.args();
  if (args.empty() || args.size() > 2 || !node.kwargs().empty()) return false;
  std::string condition;
  if (target == kAssertTarget) {
    if (!torchscript) return false;  // torch._assert(c, msg) as written
    condition = code(args[0]);
  } else if (target == kAssertIsNoneTarget) {
    if (!torchscript) return false;  // torch.fx's function, importable
    condition = absl::StrCat(code(args[0]), " is None");
  } else if (target == kAssertIsNotNoneTarget) {
    condition = absl::StrCat(code(args[0]), " is not None");
  } else {
    return false;
  }
  const std::string message = args.size() > 1 ? code(args[1]) : std::string();
  if (torchscript) {
    absl::StrAppend(&out, "assert ", condition, message.empty() ? "" : ", ", message);
    if (!node.users().empty()) absl::StrAppend(&out, ";  ", lhs, " = None");
  } else {
    absl::StrAppend(&out, lhs, " = torch._assert(", condition, message.empty() ? "" : ", ",
                    message, ")");
  }
  return true;
}

// TorchScript's operators for a tensor's dtype, layout and device, written
// as Python reads them: `x.dtype` is a torch.dtype (torch.ops.prim.dtype
// would give TorchScript's int, which Python's torch functions and
// comparisons with `torch.float16` do not take); nullptr for others.
const char* tensor_attribute_for_operator(absl::string_view target) {
  if (target == "prim::dtype") return "dtype";
  if (target == "prim::layout") return "layout";
  if (target == "prim::device") return "device";
  return nullptr;
}

// Operators that torch.ops cannot call from Python because their data
// parameter is generic (`aten::tensor(t[] data, ...)`), called as the torch
// function they stand for; nullptr for others.
const char* python_function_for_operator(absl::string_view target) {
  if (absl::StartsWith(target, "aten::tensor.") || target == "aten::tensor") return "torch.tensor";
  if (target == "aten::as_tensor.list") return "torch.as_tensor";
  return nullptr;
}

void append_call_args(std::string& out, const Arguments& args, size_t first, const Kwargs& kwargs) {
  bool any = false;
  for (size_t i = first; i < args.size(); ++i) {
    if (any) out += ", ";
    out += code(args[i]);
    any = true;
  }
  for (const auto& [key, value] : kwargs) {
    if (any) out += ", ";
    absl::StrAppend(&out, key, " = ", code(value));
    any = true;
  }
}

}  // namespace

// The names Python functions outside torch are called by in the code, and
// the lines before `def forward` that bind them: `from
// torchvision.ops.stochastic_depth import stochastic_depth as stochastic_depth_1`
// (torch.fx's generated code has such functions in its globals, under names
// that no value of the graph takes; so do these).
struct FunctionNames {
  absl::flat_hash_map<std::string, std::string> alias;  // target -> name in the code
  ClassNames classes;  // NamedTuple class -> name in the code
  std::string prologue;
};

// The NamedTuple classes `arg` constructs.
void collect_named_tuples(const Argument& arg, std::vector<std::string>& out) {
  if (arg.is_named_tuple()) out.push_back(arg.tuple_type_name());
  if (arg.is_sequence()) {
    for (const Argument& e : arg.elements()) collect_named_tuples(e, out);
  } else if (arg.is_dict()) {
    for (const auto& kv : arg.dict_items()) collect_named_tuples(kv.second, out);
  }
}

bool is_torch_namespace(absl::string_view target) {
  for (absl::string_view prefix : {"torch.", "operator.", "math.", "builtins."}) {
    if (absl::StartsWith(target, prefix)) return true;
  }
  return target.find("::") != absl::string_view::npos;
}

FunctionNames function_names(const Graph& graph) {
  FunctionNames out;
  absl::flat_hash_set<std::string> taken;
  for (const Node* n : graph.nodes()) taken.insert(n->name());
  // Functions called, then NamedTuple classes constructed: each bound once.
  std::vector<std::pair<std::string, bool>> globals;  // (qualified name, is a class)
  for (const Node* n : graph.nodes()) {
    if (n->op() == Op::kCallFunction) globals.emplace_back(n->target(), false);
  }
  for (const Node* n : graph.nodes()) {
    std::vector<std::string> classes;
    for (const Argument& a : n->args()) collect_named_tuples(a, classes);
    for (const auto& kv : n->kwargs()) collect_named_tuples(kv.second, classes);
    for (std::string& c : classes) globals.emplace_back(std::move(c), true);
  }
  for (const auto& [target, is_class] : globals) {
    if (is_class ? out.classes.contains(target) : out.alias.contains(target)) continue;
    if (!is_class && (is_torch_namespace(target) || find_python_operator(target) != nullptr ||
                      target == kAssertIsNotNoneTarget)) {
      continue;
    }
    const size_t dot = target.rfind('.');
    const std::string name = dot == std::string::npos ? target : target.substr(dot + 1);
    if (!is_class && dot == std::string::npos && is_reserved_python_name(name)) continue;  // a builtin
    std::string alias = name;
    for (int i = 1; taken.contains(alias) || (alias != name && is_reserved_python_name(alias));
         ++i) {
      alias = absl::StrCat(name, "_", i);
    }
    taken.insert(alias);
    (is_class ? out.classes : out.alias).emplace(target, alias);
    if (dot != std::string::npos) {
      absl::StrAppend(&out.prologue, "from ", target.substr(0, dot), " import ", name,
                      alias == name ? "" : absl::StrCat(" as ", alias), "\n");
    } else if (alias != name) {
      absl::StrAppend(&out.prologue, alias, " = ", name, "\n");  // a function of the user's code
    }
  }
  if (!out.prologue.empty()) out.prologue += "\n";
  return out;
}

// A placeholder a torch.export program took as a keyword argument (meta
// `_exported`: {"input": {"keyword": true}}).
bool is_keyword_input(const Node& n) {
  const MetaValue* exported = n.meta().find(kExportedValueKey);
  const MetaValue* input = exported && exported->is_map() ? exported->to_map().find("input") : nullptr;
  const MetaValue* keyword = input && input->is_map() ? input->to_map().find("keyword") : nullptr;
  return keyword != nullptr && keyword->is_bool() && keyword->to_bool();
}

std::string torchscript_function_namespace(const Graph& graph) {
  absl::flat_hash_set<std::string> taken;
  for (const Node* n : graph.nodes()) taken.insert(n->name());
  std::string name = "_fx_functions";
  for (int i = 1; taken.contains(name); ++i) name = absl::StrCat("_fx_functions_", i);
  return name;
}

// In the TorchScript dialect, functions are called by their full names,
// except one whose first atom a value takes: `clip = clip(s)` would make the
// next `clip(...)` call a float.
FunctionNames torchscript_function_names(const Graph& graph) {
  FunctionNames out;
  absl::flat_hash_set<std::string> taken;
  for (const Node* n : graph.nodes()) taken.insert(n->name());
  std::string ns;
  for (const Node* n : graph.nodes()) {
    if (n->op() != Op::kCallFunction || is_torch_namespace(n->target()) ||
        find_python_operator(n->target()) != nullptr || is_assertion_target(n->target()) ||
        n->target() == kGetAttrTarget) {
      continue;
    }
    const std::string& target = n->target();
    if (!taken.contains(target.substr(0, target.find('.')))) continue;
    if (ns.empty()) ns = torchscript_function_namespace(graph);
    out.alias.emplace(target, absl::StrCat(ns, ".", target));
  }
  return out;
}

std::string python_code(const Graph& graph, CodeDialect dialect) {
  const bool torchscript = dialect == CodeDialect::kTorchScript;
  // A value is freed right after its last use (torch.fx's `user_to_last_uses`).
  const LastUses last_uses(graph);
  const FunctionNames functions = torchscript ? torchscript_function_names(graph) : function_names(graph);
  bound_classes = torchscript ? nullptr : &functions.classes;
  struct Unbind {
    ~Unbind() { bound_classes = nullptr; }
  } unbind;

  std::string signature = "def forward(self";
  std::string body;
  body.reserve(graph.size() * 64);
  std::string return_annotation;
  // Python takes no parameter without a default after one with a default
  // except as keyword-only: from there on (or from a torch.export program's
  // first keyword argument) the parameters are keyword-only, after `*`.
  bool defaulted = false, keyword_only = false;
  for (const Node* n : graph.nodes()) {
    if (n->op() == Op::kPlaceholder) {
      const bool starred = absl::StartsWith(n->target(), "*");
      if (!torchscript && !keyword_only && !starred &&
          ((defaulted && n->args().empty()) || is_keyword_input(*n))) {
        keyword_only = true;
        signature += ", *";
      }
      defaulted = defaulted || !n->args().empty();
      absl::StrAppend(&signature, ", ", n->target());
      if (!n->type().empty()) absl::StrAppend(&signature, " : ", n->type());
      if (!n->args().empty()) absl::StrAppend(&signature, " = ", code(n->args()[0]));
      std::string raw_name = n->target();
      raw_name.erase(std::remove(raw_name.begin(), raw_name.end(), '*'), raw_name.end());
      if (raw_name != n->name()) absl::StrAppend(&body, "    ", n->name(), " = ", raw_name, "\n");
      continue;  // placeholders free nothing
    }
    body += "    ";
    if (n->op() == Op::kOutput) {
      if (!n->type().empty() && !torchscript) return_annotation = absl::StrCat(" -> ", n->type());
      absl::StrAppend(&body, "return ", code(n->args().empty() ? Argument() : n->args()[0]), "\n");
      continue;  // nothing is freed after the return
    }
    std::string typed_name;
    if (!n->type().empty()) typed_name = absl::StrCat(n->name(), " : ", n->type());
    const absl::string_view lhs = n->type().empty() ? absl::string_view(n->name()) : typed_name;
    // `lhs = callee(args[first:], **kwargs)`.
    auto append_call = [&](const std::string& callee, size_t first) {
      absl::StrAppend(&body, lhs, " = ", callee, "(");
      append_call_args(body, n->args(), first, n->kwargs());
      body += ')';
    };
    switch (n->op()) {
      case Op::kCallMethod:
        append_call(format_attribute_path(
                        n->args().empty() ? std::string("None") : code(n->args()[0]), n->target()),
                    1);
        break;
      case Op::kCallFunction: {
        if (format_check_statement(*n, lhs, body, torchscript)) break;
        if (format_operator_statement(*n, lhs, body, torchscript)) break;
        if (format_builtin_statement(*n, lhs, body)) break;
        if (const char* attribute = tensor_attribute_for_operator(n->target());
            attribute != nullptr && n->args().size() == 1 && n->kwargs().empty()) {
          absl::StrAppend(&body, lhs, " = ", code(n->args()[0]), ".", attribute);
          break;
        }
        if (const char* function = python_function_for_operator(n->target())) {
          append_call(function, 0);
          break;
        }
        auto alias = functions.alias.find(n->target());
        const std::string fn = alias != functions.alias.end()
                                   ? alias->second
                                   : spell_function_target(n->target(), TargetStyle::kCode);
        if (fn == kGetAttrTarget && n->args().size() == 2 && n->args()[1].is_string() &&
            is_python_attribute_name(n->args()[1].to_string()) && n->kwargs().empty()) {
          absl::StrAppend(&body, lhs, " = ", code(n->args()[0]), ".", n->args()[1].to_string());
          break;
        }
        append_call(fn, 0);
        break;
      }
      case Op::kCallModule: {
        // TorchScript calls a submodule's method by name; Python calls the
        // module, except when its hooks are nodes of this graph.
        const MetaValue* method = n->meta().find(kModuleMethodKey);
        const MetaValue* hooks = n->meta().find(kHooksTracedKey);
        const bool hooks_traced = hooks != nullptr && hooks->is_bool() && hooks->to_bool();
        std::string callee = format_attribute_path("self", n->target());
        if (torchscript || hooks_traced) {
          absl::StrAppend(&callee, ".",
                          method != nullptr && method->is_string() ? method->to_string() : "forward");
        }
        append_call(callee, 0);
        break;
      }
      case Op::kGetAttr:
        absl::StrAppend(&body, lhs, " = ", format_attribute_path("self", n->target()));
        break;
      default:
        break;
    }
    // The inputs whose last use this is, in order of first appearance.
    bool any_freed = false;
    for (const Node* input : last_uses.freed_after(*n)) {
      if (torchscript) break;
      body += any_freed ? " = " : ";  ";
      body += input->name();
      any_freed = true;
    }
    if (any_freed) body += " = None";
    body += '\n';
  }
  if (body.empty()) body = "    pass\n";
  absl::StrAppend(&signature, ")", return_annotation, ":\n");
  return functions.prologue + signature + body;
}

}  // namespace fx
