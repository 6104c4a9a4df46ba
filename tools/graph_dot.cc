// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_dot.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/well_known.h"

namespace fx {
namespace {

// How many valid module paths an error about a bad scope lists.
constexpr size_t kScopesListed = 10;

// ---------------------------------------------------------------------------
// Escaping.

// The length of the well-formed UTF-8 sequence at s[i] that encodes a
// printable character (no C1 control), or 0.
size_t utf8_sequence_length(absl::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  uint32_t code = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, code = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, code = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, code = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    code = (code << 6) | (b & 0x3F);
  }
  const bool overlong = (n == 3 && code < 0x800) || (n == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  const bool c1_control = code >= 0x80 && code < 0xA0;
  if (overlong || surrogate || code > 0x10FFFF || c1_control) return 0;
  return n;
}

// Calls `plain(c)` for each printable ASCII character of `text`,
// `character(code_point)` for each printable non-ASCII character, and writes
// `\xNN` for every other byte (control characters, bytes that are not UTF-8).
// The result is ASCII.
template <typename Plain>
void escape_text(std::string& out, absl::string_view text, Plain plain) {
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      plain(out, static_cast<char>(c));
      ++i;
      continue;
    }
    if (const size_t n = utf8_sequence_length(text, i); n > 0) {
      // As a numeric character reference, which both quoted IDs (shown only
      // in titles) and HTML-like labels read as the character.
      uint32_t code = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
      for (size_t k = 1; k < n; ++k) code = (code << 6) | (text[i + k] & 0x3F);
      absl::StrAppend(&out, "&#", code, ";");
      i += n;
      continue;
    }
    absl::StrAppendFormat(&out, "\\x%02x", c);
    ++i;
  }
}

// Text inside an HTML-like label: XML's five special characters as entities.
std::string html_text(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  escape_text(out, text, [](std::string& o, char c) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  });
  return out;
}

// A DOT quoted ID. Inside quotes DOT's lexer reads `\"` as a quote and `\\`
// as a pair it keeps, so escaping both makes the closing quote unambiguous;
// `&` becomes `&amp;` so that no name reads as another's character reference.
std::string quoted_id(absl::string_view text) {
  std::string out = "\"";
  escape_text(out, text, [](std::string& o, char c) {
    if (c == '&') {
      o += "&amp;";
      return;
    }
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  });
  out += '"';
  return out;
}

// ---------------------------------------------------------------------------
// Labels.

const std::string* module_path_of(const Node& node) {
  const MetaValue* v = node.meta().find(kModulePathKey);
  if (v == nullptr || !v->is_string() || v->to_string().empty()) return nullptr;
  return &v->to_string();
}

std::string describe_one_tensor(const MetaValue& value) {
  if (!value.is_map()) return "";
  const Meta& m = value.to_map();
  std::string shape;
  if (const MetaValue* s = m.find("shape"); s != nullptr && s->is_list()) {
    if (s->to_list().empty()) shape = "scalar";
    for (const MetaValue& size : s->to_list()) {
      if (!shape.empty()) shape += "\xC3\x97";  // U+00D7 MULTIPLICATION SIGN
      shape += size.is_int() ? absl::StrCat(size.to_int()) : "?";
    }
  }
  std::string dtype;
  if (const MetaValue* d = m.find("dtype"); d != nullptr && d->is_string()) {
    dtype = std::string(absl::StripPrefix(d->to_string(), "torch."));
  }
  if (shape.empty() || dtype.empty()) return shape + dtype;
  return absl::StrCat(shape, " ", dtype);
}

// `cluster`: the module path of the cluster the box is drawn in ("" for none).
std::string node_label(const Node& node, absl::string_view cluster) {
  std::string label = absl::StrCat("<<B>", html_text(node.name()), "</B>");
  const absl::string_view op = op_name(node.op());
  if (node.op() == Op::kOutput) {
    absl::StrAppend(&label, "<BR/><FONT COLOR=\"#475569\">", op, "</FONT>");
  } else {
    const std::string target = node.op() == Op::kCallFunction
                                   ? spell_function_target(node.target(), TargetStyle::kTabular)
                                   : node.target();
    absl::StrAppend(&label, "<BR/><FONT COLOR=\"#475569\">", op, " </FONT>", html_text(target));
  }
  if (const MetaValue* t = node.meta().find(kTensorMetaKey)) {
    if (std::string shape = describe_tensor_meta(*t); !shape.empty()) {
      absl::StrAppend(&label, "<BR/>", html_text(shape));
    }
  }
  // The module path, unless the target (a call_module's) or the cluster's
  // label already says it.
  if (const std::string* path = module_path_of(node);
      path != nullptr && *path != cluster &&
      !(node.op() == Op::kCallModule && node.target() == *path)) {
    absl::StrAppend(&label, "<BR/><I>", html_text(*path), "</I>");
  }
  return label + ">";
}

absl::string_view fill_colour(Op op) {
  switch (op) {
    case Op::kPlaceholder:
    case Op::kOutput: return "#dbeafe";
    case Op::kGetAttr: return "#dcfce7";
    case Op::kCallFunction: return "#f3f4f6";
    case Op::kCallMethod: return "#ede9fe";
    case Op::kCallModule: return "#fef3c7";
  }
  return "#ffffff";
}

// ---------------------------------------------------------------------------
// Clusters.

bool within(absl::string_view path, absl::string_view scope) {
  if (scope.empty()) return true;
  return path == scope || (absl::StartsWith(path, scope) && path.size() > scope.size() &&
                           path[scope.size()] == '.');
}

absl::string_view parent_path(absl::string_view path) {
  const size_t dot = path.rfind('.');
  return dot == absl::string_view::npos ? absl::string_view() : path.substr(0, dot);
}

// The module path whose cluster a node belongs in: its module path, or for a
// call_module node (which is that module) the parent's.
absl::string_view home_path(const Node& node) {
  const std::string* path = module_path_of(node);
  if (path == nullptr) return {};
  if (node.op() == Op::kCallModule && node.target() == *path) return parent_path(*path);
  return *path;
}

// One call of a module: the run of consecutive nodes (in graph order, which
// is execution order) at or under its module path. A module called twice
// (a ReLU reused in a block) is two calls, so two clusters: one cluster for
// both would have to span everything between them. The root stands for the
// graph itself.
struct Call {
  std::string path;  // empty for the root
  int nodes = 0;     // nodes at or under it
  struct Item {
    const Node* node = nullptr;
    Call* call = nullptr;
  };
  std::vector<Item> items;  // nodes and nested calls, in graph order
};

class DotWriter {
 public:
  DotWriter(const Graph& graph, std::string scope) : graph_(graph), scope_(std::move(scope)) {}

  absl::StatusOr<std::string> write() {
    for (const Node* n : graph_.nodes()) {
      const std::string* path = module_path_of(*n);
      if (scope_.empty() || (path != nullptr && within(*path, scope_))) kept_.insert(n);
    }
    if (!scope_.empty() && kept_.empty()) return bad_scope();
    group_into_calls();

    absl::StrAppend(&out_,
                    "digraph fx_graph {\n"
                    "  graph [rankdir=TB, nodesep=0.25, ranksep=0.35, fontname=\"Helvetica,Arial,"
                    "sans-serif\", fontsize=11, labeljust=l];\n"
                    "  node [shape=box, style=\"rounded,filled\", penwidth=0.8, fontname=\""
                    "Helvetica,Arial,sans-serif\", fontsize=10, margin=\"0.12,0.04\"];\n"
                    "  edge [arrowsize=0.6, penwidth=0.8, color=\"#475569\"];\n");
    write_boundary_nodes();
    write_items(root_, 1, "");
    write_edges();
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  // Walks the kept nodes keeping a stack of open calls, as a call stack: a
  // node whose home path leaves a call closes it; entering a path opens a
  // call of it (and of each enclosing path not open yet). Only paths at or
  // under the scope open calls.
  void group_into_calls() {
    std::vector<Call*> open;
    std::vector<absl::string_view> chain;  // the node's home path and its ancestors, outermost first
    for (const Node* n : graph_.nodes()) {
      if (!kept_.contains(n)) continue;
      chain.clear();
      for (absl::string_view p = home_path(*n); !p.empty() && within(p, scope_);
           p = parent_path(p)) {
        chain.push_back(p);
      }
      std::reverse(chain.begin(), chain.end());
      size_t same = 0;
      while (same < open.size() && same < chain.size() && open[same]->path == chain[same]) ++same;
      open.resize(same);
      for (size_t i = same; i < chain.size(); ++i) {
        calls_.push_back(std::make_unique<Call>());
        Call* call = calls_.back().get();
        call->path = std::string(chain[i]);
        (open.empty() ? root_ : *open.back()).items.push_back({nullptr, call});
        open.push_back(call);
      }
      (open.empty() ? root_ : *open.back()).items.push_back({n, nullptr});
      for (Call* call : open) ++call->nodes;
    }
  }

  // A call is a cluster when it holds two or more nodes, or is the scope's:
  // a cluster around one node says nothing its label does not.
  bool drawn(const Call& call) const { return call.nodes >= 2 || call.path == scope_; }

  // `cluster`: the path of the innermost cluster drawn around the items.
  void write_items(const Call& call, int depth, absl::string_view cluster) {
    const std::string indent(2 * depth, ' ');
    for (const Call::Item& item : call.items) {
      if (item.node != nullptr) {
        const Node& n = *item.node;
        absl::StrAppend(&out_, indent, quoted_id(n.name()), " [label=", node_label(n, cluster),
                        ", fillcolor=\"", fill_colour(n.op()), "\"];\n");
      } else if (!drawn(*item.call)) {
        write_items(*item.call, depth, cluster);
      } else {
        const Call& c = *item.call;
        const int level = depth - 1;  // 0 for a top-level cluster
        absl::StrAppend(&out_, indent, "subgraph cluster_", next_cluster_id_++, " {\n", indent,
                        "  label=<", html_text(c.path),
                        ">; style=\"rounded,filled\"; color=\"#94a3b8\"; fillcolor=\"",
                        level % 2 == 0 ? "#f8fafc" : "#eef2f7", "\";\n");
        write_items(c, depth + 1, c.path);
        absl::StrAppend(&out_, indent, "}\n");
      }
    }
  }

  // The nodes outside the scope that kept nodes read or that read them, in
  // graph order.
  void write_boundary_nodes() {
    if (scope_.empty()) return;
    for (const Node* n : graph_.nodes()) {
      if (!kept_.contains(n)) continue;
      for (const Node* in : n->input_nodes()) {
        if (!kept_.contains(in)) boundary_.insert(in);
      }
      for (const Node* user : n->users()) {
        if (!kept_.contains(user)) boundary_.insert(user);
      }
    }
    for (const Node* n : graph_.nodes()) {
      if (!boundary_.contains(n)) continue;
      absl::StrAppend(&out_, "  ", quoted_id(n->name()), " [label=<", html_text(n->name()),
                      ">, shape=ellipse, style=dashed, color=\"#64748b\", fontcolor=\"#475569\","
                      " fontsize=9, margin=\"0.04,0.02\", height=0.3];\n");
    }
  }

  void write_edges() {
    for (const Node* n : graph_.nodes()) {
      if (!kept_.contains(n)) continue;
      for (const Node* in : n->input_nodes()) {
        absl::StrAppend(&out_, "  ", quoted_id(in->name()), " -> ", quoted_id(n->name()), ";\n");
      }
      for (const Node* user : n->users()) {
        if (!kept_.contains(user)) {
          absl::StrAppend(&out_, "  ", quoted_id(n->name()), " -> ", quoted_id(user->name()),
                          ";\n");
        }
      }
    }
  }

  absl::Status bad_scope() const {
    std::vector<std::string> paths;
    absl::flat_hash_set<std::string> seen;
    for (const Node* n : graph_.nodes()) {
      const std::string* path = module_path_of(*n);
      if (path == nullptr) continue;
      // Every prefix at a '.', outermost first.
      for (size_t end = 0; end != std::string::npos;) {
        end = path->find('.', end + 1);
        std::string prefix = path->substr(0, end);
        if (seen.insert(prefix).second) paths.push_back(std::move(prefix));
      }
    }
    if (paths.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scope ", quote_for_message(scope_),
          " names no module: no node of this graph has a module path (trace with "
          "--tracer=module_path to record them), so draw the whole graph"));
    }
    std::vector<std::string> listed(paths.begin(),
                                    paths.begin() + std::min(paths.size(), kScopesListed));
    return absl::InvalidArgumentError(absl::StrCat(
        "scope ", quote_for_message(scope_), " is not a module path of the graph",
        did_you_mean(scope_, paths), "; module paths: ", absl::StrJoin(listed, ", "),
        paths.size() > listed.size() ? absl::StrCat(", ... (", paths.size(), " in all)") : ""));
  }

  const Graph& graph_;
  const std::string scope_;
  std::string out_;
  absl::flat_hash_set<const Node*> kept_;
  absl::flat_hash_set<const Node*> boundary_;
  std::vector<std::unique_ptr<Call>> calls_;
  Call root_;
  int next_cluster_id_ = 0;
};

}  // namespace

std::string describe_tensor_meta(const MetaValue& value) {
  if (value.is_map()) return describe_one_tensor(value);
  if (!value.is_list()) return "";
  std::vector<std::string> parts;
  bool any = false;
  for (const MetaValue& v : value.to_list()) {
    std::string part = v.is_list() ? describe_tensor_meta(v) : describe_one_tensor(v);
    if (v.is_list() && !part.empty()) part = absl::StrCat("(", part, ")");
    any = any || !part.empty();
    parts.push_back(part.empty() ? "?" : std::move(part));
  }
  return any ? absl::StrJoin(parts, ", ") : "";
}

absl::StatusOr<std::string> graph_to_dot(const Graph& graph, const DotOptions& options) {
  return DotWriter(graph, options.scope).write();
}

}  // namespace fx
