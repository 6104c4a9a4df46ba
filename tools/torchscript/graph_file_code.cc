// Copyright 2026 The FX for C++ Authors.
#include "tools/torchscript/graph_file_code.h"

#include <exception>
#include <utility>

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/mobile/type_parser.h>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "core/well_known.h"
#include "runtime/torchscript/script_functions.h"
#include "runtime/torchscript/script_module.h"

namespace fx {
namespace {

// Whether TorchScript function `python_name` is what a leaf call of `target`
// runs: the same function, or in the same module one that TorchScript picks
// for it (boolean dispatch: max_pool2d runs _max_pool2d or
// max_pool2d_with_indices).
bool names_the_function(const std::string& python_name, absl::string_view target) {
  if (python_name == target) return true;
  const size_t a = python_name.rfind('.');
  const size_t b = target.rfind('.');
  if (a == std::string::npos || b == absl::string_view::npos ||
      absl::string_view(python_name).substr(0, a) != target.substr(0, b)) {
    return false;
  }
  const absl::string_view name = absl::StripLeadingAsciiWhitespace(
      absl::string_view(python_name).substr(a + 1));
  absl::string_view bare = name;
  while (absl::ConsumePrefix(&bare, "_")) {
  }
  return absl::StartsWith(bare, target.substr(b + 1));
}

// The Python spelling of a type the tracer writes (python_annotation in the
// tracer), as TorchScript's type parser spells it; other names as they are.
std::string torchscript_atom(absl::string_view python) {
  if (python == "torch.Tensor") return "Tensor";
  if (python == "torch.device") return "Device";
  if (python == "None") return "NoneType";
  if (absl::ConsumePrefix(&python, "typing.")) return std::string(python);
  return std::string(python);
}

// `type`, a type annotation (dotted names, with brackets and commas, nested
// at most kMaxTypeNesting deep), as TorchScript's type parser spells it; an
// error for anything else. Checked without recursion: libtorch's type parser
// recurses on brackets.
constexpr int kMaxTypeNesting = 32;

absl::StatusOr<std::string> annotation_as_torchscript(absl::string_view type) {
  std::string torchscript;
  int depth = 0;
  bool expect_name = true;  // after '[' or ',', and at the start
  size_t i = 0;
  auto not_annotation = [&]() {
    return absl::InvalidArgumentError(absl::StrCat(
        quote_for_message(type), " is not a type annotation (names such as torch.Tensor, "
                                 "typing.Optional[int], with brackets and commas, nested at most ",
        kMaxTypeNesting, " deep)"));
  };
  while (i < type.size()) {
    const char c = type[i];
    if (c == ' ') {
      ++i;
    } else if (expect_name) {
      size_t end = i;
      while (end < type.size() && (absl::ascii_isalnum(type[end]) || type[end] == '_' || type[end] == '.')) ++end;
      const absl::string_view name = type.substr(i, end - i);
      for (absl::string_view atom : absl::StrSplit(name, '.')) {
        if (!is_python_identifier(atom)) return not_annotation();
      }
      torchscript += torchscript_atom(name);
      expect_name = false;
      i = end;
    } else if (c == '[') {
      if (++depth > kMaxTypeNesting) return not_annotation();
      torchscript += c;
      expect_name = true;
      ++i;
    } else if (c == ',' && depth > 0) {
      torchscript += ", ";
      expect_name = true;
      ++i;
    } else if (c == ']' && depth > 0) {
      --depth;
      torchscript += c;
      ++i;
    } else {
      return not_annotation();
    }
  }
  if (depth != 0 || expect_name) return not_annotation();
  return torchscript;
}

}  // namespace

std::shared_ptr<torch::jit::CompilationUnit> model_code_unit(const Module& model) {
  const TorchScriptClass* code = torchscript_class(model);
  return code != nullptr ? code->unit() : nullptr;
}

void set_model_code_unit(GraphModule& gm, std::shared_ptr<torch::jit::CompilationUnit> unit) {
  set_script_unit(gm, std::move(unit));
}

std::map<std::string, std::vector<std::string>> leaf_function_names(const GraphModule& gm) {
  std::map<std::string, std::vector<std::string>> names;
  for (const auto& [target, fns] : script_functions_by_target(gm)) {
    std::vector<std::string>& qualified = names[target];
    for (const auto& fn : fns) qualified.push_back(fn.function_->qualname().qualifiedName());
  }
  return names;
}

absl::Status add_leaf_function(GraphModule& gm,
                               const std::shared_ptr<torch::jit::CompilationUnit>& unit,
                               const std::string& target, const std::string& name) {
  torch::jit::Function* fn = nullptr;
  try {
    // (A model not read from TorchScript has no unit, and no functions.)
    if (unit != nullptr) fn = unit->find_function(c10::QualifiedName(name));
  } catch (const std::exception&) {
    // not a qualified name: reported as missing
  }
  if (fn == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("the model has no TorchScript function ", name,
                                                   " (the graph was written for another model?)"));
  }
  if (!names_the_function(python_qualified_name(fn->qualname().qualifiedName()), target)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the model's function ", name, " is not the function ", target));
  }
  add_script_function(gm, target, torch::jit::StrongFunctionPtr(unit, fn));
  return absl::OkStatus();
}

void broadcast_list_arguments(GraphModule& gm) {
  for (Node* n : gm.graph().nodes()) {
    absl::string_view name = n->target();
    if (n->op() != Op::kCallFunction || !absl::ConsumePrefix(&name, "torch.nn.functional.")) continue;
    size_t rank = 0;
    if (name == "fold" || name == "unfold") {
      rank = 2;
    } else if (name.size() > 2 && name.back() == 'd' && name[name.size() - 2] >= '1' &&
               name[name.size() - 2] <= '3') {
      rank = static_cast<size_t>(name[name.size() - 2] - '0');
    }
    if (rank == 0) continue;
    std::vector<torch::jit::Function*> functions = find_script_functions(gm, n->target());
    if (functions.empty()) functions = find_unit_functions(gm, n->target());
    // Boolean dispatch (max_pool2d): what TorchScript compiled is `_max_pool2d`,
    // of the same parameters, which an export calls (torchscript_export.cc).
    if (functions.empty()) functions = find_unit_functions(gm, absl::StrCat("torch.nn.functional._", name));
    if (functions.empty()) continue;
    Arguments args = n->args();
    Kwargs kwargs = n->kwargs();
    const auto& params = functions[0]->getSchema().arguments();
    for (size_t i = 0; i < params.size(); ++i) {
      const c10::Argument& p = params[i];
      c10::TypePtr type = p.type();  // BroadcastingList2[int], or Optional of one (a stride)
      if (type->kind() == c10::TypeKind::OptionalType) {
        type = type->expectRef<c10::OptionalType>().getElementType();
      }
      if (p.N().has_value() || type->kind() != c10::TypeKind::ListType) continue;
      const c10::TypeKind element = type->expectRef<c10::ListType>().getElementType()->kind();
      if (element != c10::TypeKind::IntType && element != c10::TypeKind::FloatType) continue;
      auto broadcast = [&](Argument& a) {
        if (a.is_int() || (a.is_double() && element == c10::TypeKind::FloatType)) {
          a = Argument::List(std::vector<Argument>(rank, a));
        }
      };
      if (i < args.size()) broadcast(args[i]);
      for (auto& [key, value] : kwargs) {
        if (key == p.name()) broadcast(value);
      }
    }
    n->set_args(std::move(args));
    n->set_kwargs(std::move(kwargs));
  }
}

absl::Status check_node_type(const Node& n, const torch::jit::CompilationUnit* unit,
                             std::string* where) {
  const MetaValue* declared = n.meta().find(kTorchScriptTypeKey);
  c10::TypePtr expected;
  if (declared != nullptr && declared->is_string()) {
    *where = absl::StrCat("meta ", kTorchScriptTypeKey);
    auto spelled = annotation_as_torchscript(declared->to_string());
    if (!spelled.ok()) return spelled.status();
    try {
      expected = c10::parseType(*spelled);
    } catch (const std::exception&) {
      // A type the interpreter does not check either (a class of the model).
    }
  }
  *where = "type";
  const std::string& type = n.type();
  if (type.empty()) return absl::OkStatus();
  auto torchscript = annotation_as_torchscript(type);
  if (!torchscript.ok()) return torchscript.status();
  c10::TypePtr parsed;
  try {
    parsed = c10::parseType(*torchscript);
  } catch (const std::exception&) {
    // A class of the model (a NamedTuple): its qualified name.
    if (unit != nullptr && unit->get_type(c10::QualifiedName(*torchscript)) != nullptr) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat(quote_for_message(type), " names no type TorchScript knows"));
  }
  if (n.op() == Op::kPlaceholder && expected != nullptr && *parsed != *expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        quote_for_message(type), " is not the type of forward's argument ",
        quote_for_message(n.target()), " (", quote_for_message(declared->to_string()),
        " in its meta _torchscript_type)"));
  }
  return absl::OkStatus();
}

}  // namespace fx
