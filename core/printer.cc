// Copyright 2026 The FX for C++ Authors.
#include "core/printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "core/well_known.h"

namespace fx {
namespace {

// The ways torch.fx turns a leaf value into text: str() in the graph printer,
// repr() in tables; code is repr() with what repr() spells in a way Python
// cannot read back (`device(type='cpu')`, `inf`) written as an expression.
enum class Spelling { kStr, kRepr, kCode };

void append_leaf(std::string& out, const Argument& arg, Spelling spelling) {
  switch (arg.kind()) {
    case Argument::Kind::kNone:
      out += "None";
      return;
    case Argument::Kind::kBool:
      out += arg.to_bool() ? "True" : "False";
      return;
    case Argument::Kind::kInt:
      absl::StrAppend(&out, arg.to_int());
      return;
    case Argument::Kind::kDouble:
      if (spelling == Spelling::kCode && !std::isfinite(arg.to_double())) {
        absl::StrAppend(&out, "float('", python_float_repr(arg.to_double()), "')");
      } else {
        out += python_float_repr(arg.to_double());
      }
      return;
    case Argument::Kind::kString:
      out += spelling == Spelling::kStr ? arg.to_string() : python_string_repr(arg.to_string());
      return;
    case Argument::Kind::kNode:
      out += arg.to_node()->name();
      return;
    case Argument::Kind::kDtype:
      out += python_dtype_name(arg.to_dtype());
      return;
    case Argument::Kind::kDevice: {
      const c10::Device d = arg.to_device();
      if (spelling == Spelling::kStr) {
        out += d.str();
      } else if (spelling == Spelling::kCode) {
        absl::StrAppend(&out, "torch.device('", c10::DeviceTypeName(d.type(), true), "'");
        if (d.has_index()) absl::StrAppend(&out, ", ", static_cast<int>(d.index()));
        out += ")";
      } else {
        absl::StrAppend(&out, "device(type='", c10::DeviceTypeName(d.type(), true), "'");
        if (d.has_index()) absl::StrAppend(&out, ", index=", static_cast<int>(d.index()));
        out += ")";
      }
      return;
    }
    case Argument::Kind::kLayout:
      out += python_layout_name(arg.to_layout());
      return;
    case Argument::Kind::kMemoryFormat:
      out += python_memory_format_name(arg.to_memory_format());
      return;
    default:
      return;  // containers are handled by the callers
  }
}

void append_value(std::string& out, const Argument& arg, Spelling spelling,
                  const ClassNames* classes = nullptr);

// `(a, b)`, `(a,)` or `[a, b]`.
void append_sequence(std::string& out, const std::vector<Argument>& items, bool is_list,
                     Spelling spelling, const ClassNames* classes = nullptr) {
  out += is_list ? '[' : '(';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    append_value(out, items[i], spelling, classes);
  }
  if (!is_list && items.size() == 1) out += ',';
  out += is_list ? ']' : ')';
}

// A NamedTuple: `Outputs(logits=%fc, aux=None)` as Python's repr shows one
// (by the class's own name), `Outputs(fc, None)` in code, as torch.fx's code
// constructs one, by the name `classes` gives the class (its qualified name
// without).
void append_named_tuple(std::string& out, const Argument& arg, Spelling spelling,
                        const ClassNames* classes) {
  const std::string& type_name = arg.tuple_type_name();
  if (spelling == Spelling::kCode) {
    auto bound = classes != nullptr ? classes->find(type_name) : ClassNames::const_iterator();
    out += classes != nullptr && bound != classes->end() ? bound->second : type_name;
  } else {
    const size_t dot = type_name.rfind('.');
    out += dot == std::string::npos ? type_name : type_name.substr(dot + 1);
  }
  out += '(';
  const std::vector<Argument>& items = arg.elements();
  const std::vector<std::string>& fields = arg.tuple_fields();
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    if (spelling != Spelling::kCode && i < fields.size()) absl::StrAppend(&out, fields[i], "=");
    append_value(out, items[i], spelling, classes);
  }
  out += ')';
}

// `{'dim': -1}` in repr, `{dim: -1}` in torch.fx's format.
void append_dict(std::string& out, const Kwargs& items, Spelling spelling,
                 const ClassNames* classes = nullptr) {
  out += '{';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    const std::string& key = items[i].first;
    absl::StrAppend(&out, spelling == Spelling::kStr ? key : python_string_repr(key), ": ");
    append_value(out, items[i].second, spelling, classes);
  }
  out += '}';
}

// Containers and leaves, in one of the two spellings: Python's repr (nodes by
// name, strings and dict keys quoted) or torch.fx's `_format_arg` (`%name`
// for nodes, str() for leaves, dict keys bare).
void append_value(std::string& out, const Argument& arg, Spelling spelling,
                  const ClassNames* classes) {
  switch (arg.kind()) {
    case Argument::Kind::kNode:
      if (spelling == Spelling::kStr) out += '%';
      out += arg.to_node()->name();
      return;
    case Argument::Kind::kList:
    case Argument::Kind::kTuple:
      if (arg.is_named_tuple()) {
        append_named_tuple(out, arg, spelling, classes);
      } else {
        append_sequence(out, arg.elements(), arg.is_list(), spelling, classes);
      }
      return;
    case Argument::Kind::kDict:
      append_dict(out, arg.dict_items(), spelling, classes);
      return;
    default:
      append_leaf(out, arg, spelling);
  }
}

void append_repr(std::string& out, const Argument& arg) { append_value(out, arg, Spelling::kRepr); }

// `ns::name.overload` parts, or false for other names.
bool split_operator_name(absl::string_view target, absl::string_view* ns, absl::string_view* name,
                         absl::string_view* overload) {
  size_t sep = target.find("::");
  if (sep == absl::string_view::npos) return false;
  *ns = target.substr(0, sep);
  absl::string_view rest = target.substr(sep + 2);
  size_t dot = rest.find('.');
  *name = rest.substr(0, dot);
  *overload = dot == absl::string_view::npos ? absl::string_view("default") : rest.substr(dot + 1);
  if (overload->empty()) *overload = "default";
  return true;
}

// Python's str(): like repr() except for a top-level string or device.
std::string python_str(const Argument& arg) {
  std::string out;
  if (arg.is_string() || arg.is_device()) {
    append_leaf(out, arg, Spelling::kStr);
  } else {
    append_repr(out, arg);
  }
  return out;
}


}  // namespace

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  absl::string_view sci(buf, result.ptr - buf);  // shortest round trip, e.g. "-1.5e+16"
  std::string out;
  if (sci[0] == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int point = exponent + 1;  // digits before the decimal point
  const int ndigits = static_cast<int>(digits.size());
  if (point < -3 || point > 16) {
    // Python's repr switches to exponent notation outside 1e-4 <= |x| < 1e16.
    out += digits[0];
    if (ndigits > 1) absl::StrAppend(&out, ".", digits.substr(1));
    absl::StrAppend(&out, "e", exponent < 0 ? "-" : "+",
                    absl::StrFormat("%02d", std::abs(exponent)));
  } else if (point <= 0) {
    absl::StrAppend(&out, "0.", std::string(-point, '0'), digits);
  } else if (point >= ndigits) {
    absl::StrAppend(&out, digits, std::string(point - ndigits, '0'), ".0");
  } else {
    absl::StrAppend(&out, digits.substr(0, point), ".", digits.substr(point));
  }
  return out;
}

std::string python_string_repr(absl::string_view s) {
  const char quote = python_quote_for(s);
  std::string out(1, quote);
  append_python_escaped(out, s, quote, /*escape_non_ascii=*/false);
  out += quote;
  return out;
}

std::string python_dtype_name(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::ScalarType::Byte: return "torch.uint8";
    case c10::ScalarType::Char: return "torch.int8";
    case c10::ScalarType::Short: return "torch.int16";
    case c10::ScalarType::Int: return "torch.int32";
    case c10::ScalarType::Long: return "torch.int64";
    case c10::ScalarType::Half: return "torch.float16";
    case c10::ScalarType::Float: return "torch.float32";
    case c10::ScalarType::Double: return "torch.float64";
    case c10::ScalarType::ComplexHalf: return "torch.complex32";
    case c10::ScalarType::ComplexFloat: return "torch.complex64";
    case c10::ScalarType::ComplexDouble: return "torch.complex128";
    case c10::ScalarType::Bool: return "torch.bool";
    case c10::ScalarType::QInt8: return "torch.qint8";
    case c10::ScalarType::QUInt8: return "torch.quint8";
    case c10::ScalarType::QInt32: return "torch.qint32";
    case c10::ScalarType::BFloat16: return "torch.bfloat16";
    case c10::ScalarType::QUInt4x2: return "torch.quint4x2";
    case c10::ScalarType::QUInt2x4: return "torch.quint2x4";
    default: return absl::StrCat("torch.", c10::toString(dtype));
  }
}

std::string python_layout_name(c10::Layout layout) {
  switch (layout) {
    case c10::Layout::Strided: return "torch.strided";
    case c10::Layout::Sparse: return "torch.sparse_coo";
    case c10::Layout::SparseCsr: return "torch.sparse_csr";
    case c10::Layout::Mkldnn: return "torch._mkldnn";
    case c10::Layout::SparseCsc: return "torch.sparse_csc";
    case c10::Layout::SparseBsr: return "torch.sparse_bsr";
    case c10::Layout::SparseBsc: return "torch.sparse_bsc";
    default: return "torch.strided";
  }
}

std::string python_memory_format_name(c10::MemoryFormat format) {
  switch (format) {
    case c10::MemoryFormat::Contiguous: return "torch.contiguous_format";
    case c10::MemoryFormat::Preserve: return "torch.preserve_format";
    case c10::MemoryFormat::ChannelsLast: return "torch.channels_last";
    case c10::MemoryFormat::ChannelsLast3d: return "torch.channels_last_3d";
    default: return "torch.contiguous_format";
  }
}

namespace {

// The enumerator of `Enum` (0 .. NumOptions-1) whose name is `name`.
template <typename Enum>
std::optional<Enum> enumerator_named(absl::string_view name, std::string (*name_of)(Enum)) {
  for (int i = 0; i < static_cast<int>(Enum::NumOptions); ++i) {
    if (name_of(static_cast<Enum>(i)) == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

}  // namespace

std::optional<c10::ScalarType> dtype_from_python_name(absl::string_view name) {
  return enumerator_named<c10::ScalarType>(name, &python_dtype_name);
}

std::optional<c10::Layout> layout_from_python_name(absl::string_view name) {
  return enumerator_named<c10::Layout>(name, &python_layout_name);
}

std::optional<c10::MemoryFormat> memory_format_from_python_name(absl::string_view name) {
  return enumerator_named<c10::MemoryFormat>(name, &python_memory_format_name);
}

std::string spell_function_target(absl::string_view target, TargetStyle style) {
  absl::string_view ns, name, overload;
  if (split_operator_name(target, &ns, &name, &overload)) {
    if (style == TargetStyle::kTabular) return absl::StrCat(ns, ".", name, ".", overload);
    return absl::StrCat("torch.ops.", ns, ".", name, ".", overload);
  }
  if (style == TargetStyle::kGraph && target.find('.') == absl::string_view::npos) {
    return absl::StrCat("builtins.", target);
  }
  return std::string(target);
}

std::string format_arg(const Argument& arg) {
  std::string out;
  append_value(out, arg, Spelling::kStr);
  return out;
}

std::string python_repr(const Argument& arg) {
  std::string out;
  append_repr(out, arg);
  return out;
}

std::string python_code_repr(const Argument& arg, const ClassNames* classes) {
  std::string out;
  append_value(out, arg, Spelling::kCode, classes);
  return out;
}

std::string format_meta_value(const MetaValue& value) {
  // Inside a list or map, strings are quoted as Python's repr quotes them.
  auto item = [](const MetaValue& v) {
    return v.is_string() ? python_string_repr(v.to_string()) : format_meta_value(v);
  };
  switch (value.kind()) {
    case MetaValue::Kind::kNone: return "None";
    case MetaValue::Kind::kBool: return value.to_bool() ? "True" : "False";
    case MetaValue::Kind::kInt: return absl::StrCat(value.to_int());
    case MetaValue::Kind::kDouble: return python_float_repr(value.to_double());
    case MetaValue::Kind::kString: return value.to_string();
    case MetaValue::Kind::kList: {
      std::string out = "[";
      bool first = true;
      for (const MetaValue& v : value.to_list()) {
        if (!first) out += ", ";
        first = false;
        out += item(v);
      }
      return out + "]";
    }
    case MetaValue::Kind::kMap: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, v] : value.to_map()) {
        if (!first) out += ", ";
        first = false;
        absl::StrAppend(&out, python_string_repr(k), ": ", item(v));
      }
      return out + "}";
    }
  }
  return "";
}

namespace {

void append_node(std::string& out, const Node& node) {
  absl::string_view type = node.type();
  if (node.op() == Op::kOutput) {
    absl::StrAppend(&out, "return ", python_str(node.args().empty() ? Argument() : node.args()[0]));
    return;
  }
  absl::StrAppend(&out, "%", node.name(), " : ", type, type.empty() ? "" : " ",
                  "[num_users=", node.users().size(), "] = ", op_name(node.op()), "[target=");
  if (node.op() == Op::kCallFunction) {
    out += spell_function_target(node.target(), TargetStyle::kGraph);
  } else {
    out += node.target();
  }
  out += ']';
  switch (node.op()) {
    case Op::kPlaceholder:
      if (!node.args().empty()) absl::StrAppend(&out, "(default=", python_str(node.args()[0]), ")");
      return;
    case Op::kGetAttr:
      return;
    default:
      out += "(args = ";
      append_sequence(out, node.args(), /*is_list=*/false, Spelling::kStr);
      out += ", kwargs = ";
      append_dict(out, node.kwargs(), Spelling::kStr);
      out += ')';
  }
}

}  // namespace

std::string format_node(const Node& node) {
  std::string out;
  append_node(out, node);
  return out;
}

std::string format_graph(const Graph& graph) {
  std::string out = "graph():";
  out.reserve(graph.size() * 96);
  for (const Node* n : graph.nodes()) {
    out += "\n    ";
    append_node(out, *n);
  }
  return out;
}

namespace {

// `path`'s fields of `value` (see format_tabular): a map's field, or the
// fields of a list's elements; None where an element has no such field.
MetaValue meta_field(const MetaValue& value, absl::string_view path) {
  if (path.empty()) return value;
  const size_t dot = path.find('.');
  const absl::string_view field = path.substr(0, dot);
  const absl::string_view rest = dot == absl::string_view::npos ? "" : path.substr(dot + 1);
  if (value.is_map()) {
    const MetaValue* v = value.to_map().find(field);
    return v == nullptr ? MetaValue() : meta_field(*v, rest);
  }
  if (value.is_list()) {
    MetaValue::List items;
    for (const MetaValue& item : value.to_list()) items.push_back(meta_field(item, path));
    return items;
  }
  return MetaValue();
}

// The cell of meta column `column` for `meta`; empty when the node has no value.
std::string meta_cell(const Meta& meta, const std::string& column) {
  if (const MetaValue* v = meta.find(column)) return format_meta_value(*v);
  const size_t dot = column.find('.');
  if (dot == std::string::npos) return "";
  const absl::string_view path = column;
  const MetaValue* v = meta.find(path.substr(0, dot));
  return v == nullptr ? "" : format_meta_value(meta_field(*v, path.substr(dot + 1)));
}

}  // namespace

std::string format_tabular(const Graph& graph, const std::vector<std::string>& meta_columns) {
  std::vector<std::string> headers = {"opcode", "name", "target", "args", "kwargs"};
  for (const std::string& column : meta_columns) {
    headers.push_back(column.substr(column.rfind('.') + 1));  // npos + 1 == 0
  }
  const size_t ncols = headers.size();

  std::vector<std::vector<std::string>> rows;
  rows.reserve(graph.size());
  for (const Node* n : graph.nodes()) {
    std::vector<std::string> row;
    row.reserve(ncols);
    row.emplace_back(op_name(n->op()));
    row.push_back(n->name());
    row.push_back(n->op() == Op::kCallFunction
                      ? spell_function_target(n->target(), TargetStyle::kTabular)
                      : n->target());
    append_sequence(row.emplace_back(), n->args(), /*is_list=*/false, Spelling::kRepr);
    append_dict(row.emplace_back(), n->kwargs(), Spelling::kRepr);
    for (const std::string& column : meta_columns) row.push_back(meta_cell(n->meta(), column));
    rows.push_back(std::move(row));
  }

  // tabulate's "simple" format: columns at least two wider than their header,
  // separated by two spaces, trailing blanks stripped.
  std::vector<size_t> widths(ncols);
  for (size_t c = 0; c < ncols; ++c) widths[c] = headers[c].size() + 2;
  for (const auto& row : rows) {
    for (size_t c = 0; c < ncols; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  auto append_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < ncols; ++c) {
      if (c > 0) line += "  ";
      line += cells[c];
      line.append(widths[c] - cells[c].size(), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!out.empty()) out += '\n';
    out += line;
  };
  append_row(headers);
  std::vector<std::string> rule(ncols);
  for (size_t c = 0; c < ncols; ++c) rule[c] = std::string(widths[c], '-');
  append_row(rule);
  for (const auto& row : rows) append_row(row);
  return out;
}

}  // namespace fx
