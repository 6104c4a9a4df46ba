// Copyright 2026 The FX for C++ Authors.
#include "tracer/torchscript/diagnostics.h"

#include <torch/csrc/jit/frontend/source_range.h>
#include <torch/csrc/jit/ir/ir.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"

namespace fx {
namespace tracer_internal {
namespace {

std::string first_line(std::string text) {
  const size_t nl = text.find('\n');
  if (nl != std::string::npos) text.resize(nl);
  return std::string(absl::StripAsciiWhitespace(text));
}

}  // namespace

std::string source_of(const torch::jit::Node* n, bool file_name_only) {
  // A loaded module's nodes point into its serialised code; the debug info
  // maps them back to the Python source they were scripted from.
  torch::jit::SourceRange range = n->sourceRange();
  if (auto original = range.findSourceRangeThatGenerated()) range = *original;
  auto flc = range.file_line_col();
  if (!flc) return "";
  const auto& [file, line, col] = *flc;
  absl::string_view name = file;
  if (file_name_only && name.rfind('/') != absl::string_view::npos) {
    name = name.substr(name.rfind('/') + 1);
  }
  std::string where = absl::StrCat(path_for_message(name), ":", line, ":", col);
  std::string text;
  try {
    text = first_line(range.text().str());
  } catch (const std::exception&) {
  }
  return text.empty() ? where : absl::StrCat(where, " (`", escape_for_message(text), "`)");
}

std::string at_source(const torch::jit::Node* n) {
  std::string s = source_of(n);
  // Some nodes (prim::SetAttr) carry no source: the values they consume, or
  // the statements around them, do.
  for (size_t i = n->inputs().size(); s.empty() && i > 0; --i) {
    s = source_of(n->inputs()[i - 1]->node());
  }
  for (const torch::jit::Node* near = n->prev(); s.empty() && near != nullptr &&
                                                 near->kind() != c10::prim::Param;
       near = near->prev()) {
    s = source_of(near);
    if (!s.empty()) s = absl::StrCat("(near) ", s);
  }
  return s.empty() ? "" : absl::StrCat(" at ", s);
}

std::string leaf_hint(absl::string_view module_class, absl::string_view function) {
  std::string hint;
  if (!function.empty()) {
    absl::StrAppend(&hint, "make ", function,
                    " a leaf function, called as a whole (fxrun: --leaf-functions=", function,
                    "; C++: TraceOptions::leaf_functions)");
  }
  if (!module_class.empty()) {
    absl::StrAppend(&hint, hint.empty() ? "make " : ", or make ", module_class,
                    " a leaf module, called as a whole (fxrun: --tracer=module_path,leaf_policy{"
                    "leaves=",
                    module_class,
                    "}; C++: a TracerExtension whose is_leaf_module returns true for it)");
  }
  return hint;
}

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

}  // namespace tracer_internal
}  // namespace fx
