// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_dot.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/well_known.h"

extern char** environ;

namespace fx {
namespace {

// The largest PNG drawn, in inches a side (9600 pixels at Graphviz's 96 dpi):
// larger ones are scaled down to fit. In full, cairo's bitmap of inlined
// ResNet-50 took dot 52 s and 2.4 GB; scaled, 4 s and 230 MB.
constexpr int kMaxPngInches = 100;

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

// ---------------------------------------------------------------------------
// Running dot.

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// A close-on-exec pipe whose ends are not 0, 1 or 2, so that the child's
// dup2 onto those always makes a fresh, inheritable descriptor.
absl::Status make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe to dot: ", std::strerror(errno)));
  }
  for (int& fd : fds) {
    if (fd > 2) continue;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    fd = moved;
  }
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  if (fds[0] < 0 || fds[1] < 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe to dot: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// Blocks SIGPIPE in this thread while alive, so that writing to a dot that
// has exited gives EPIPE; a SIGPIPE raised meanwhile is taken off the thread
// before the old mask comes back.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero = {0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

std::string first_line(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) return std::string(line);
  }
  return "";
}

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

absl::StatusOr<std::string> find_graphviz_dot() {
  const char* env = std::getenv("PATH");
  // A shell's search path when PATH is unset.
  const std::string search = env != nullptr ? env : "/bin:/usr/bin";
  for (absl::string_view dir : absl::StrSplit(search, ':')) {
    const std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/dot");
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "Graphviz's dot program is not on PATH (", path_for_message(search),
      "); install Debian's graphviz: apt-get install graphviz (tools/bootstrap.sh does)"));
}

absl::StatusOr<RenderedPicture> render_with_graphviz(const std::string& dot_program,
                                                     absl::string_view dot_text,
                                                     absl::string_view format) {
  if (format != "svg" && format != "png") {
    return absl::InvalidArgumentError(
        absl::StrCat("Graphviz renders svg or png here, not ", quote_for_message(format)));
  }
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  for (auto [r, w] : {std::pair<Fd*, Fd*>{&in_read, &in_write}, {&out_read, &out_write},
                      {&err_read, &err_write}}) {
    if (absl::Status s = make_pipe(*r, *w); !s.ok()) return s;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  const std::string type_flag = absl::StrCat("-T", format);
  const std::string size_flag = absl::StrCat("-Gsize=", kMaxPngInches, ",", kMaxPngInches);
  std::vector<char*> argv = {const_cast<char*>("dot"), const_cast<char*>(type_flag.c_str())};
  if (format == "png") argv.push_back(const_cast<char*>(size_flag.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned =
      posix_spawn(&pid, dot_program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::InternalError(absl::StrCat("cannot run Graphviz's dot (", path_for_message(dot_program),
                                            "): ", std::strerror(spawned)));
  }
  in_read.reset();
  out_write.reset();
  err_write.reset();
  for (int fd : {in_write.get(), out_read.get(), err_read.get()}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }

  // Feed stdin while draining stdout and stderr: dot may write before it has
  // read everything, and either side's pipe fills up at 64 KiB.
  std::string output, errors;
  absl::Status io_error;
  {
    SigpipeBlock no_sigpipe;
    size_t written = 0;
    if (dot_text.empty()) in_write.reset();
    char buffer[1 << 16];
    while (out_read.get() >= 0 || err_read.get() >= 0) {
      pollfd fds[3] = {{in_write.get(), POLLOUT, 0},
                       {out_read.get(), POLLIN, 0},
                       {err_read.get(), POLLIN, 0}};
      if (::poll(fds, 3, -1) < 0) {
        if (errno == EINTR) continue;
        io_error = absl::InternalError(absl::StrCat("waiting for dot: ", std::strerror(errno)));
        break;
      }
      if (fds[0].revents != 0) {
        const ssize_t n = ::write(in_write.get(), dot_text.data() + written, dot_text.size() - written);
        if (n > 0) written += static_cast<size_t>(n);
        // Done, or dot stopped reading (EPIPE): it says why on stderr.
        if (written == dot_text.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          in_write.reset();
        }
      }
      for (auto [index, fd, sink] : {std::tuple<int, Fd*, std::string*>{1, &out_read, &output},
                                     {2, &err_read, &errors}}) {
        if (fds[index].revents == 0) continue;
        const ssize_t n = ::read(fd->get(), buffer, sizeof buffer);
        if (n > 0) {
          sink->append(buffer, static_cast<size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          fd->reset();
        }
      }
    }
    in_write.reset();
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for dot: ", std::strerror(errno)));
    }
  }
  if (!io_error.ok()) return io_error;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status)
                                ? absl::StrCat("exit status ", WEXITSTATUS(status))
                                : absl::StrCat("killed by signal ", WTERMSIG(status));
    const std::string said = first_line(errors);
    return absl::InternalError(absl::StrCat(
        "Graphviz's dot failed (", how, ")",
        said.empty() ? "" : absl::StrCat(": ", escape_for_message(said, 200))));
  }
  RenderedPicture picture;
  picture.output = std::move(output);
  for (absl::string_view line : absl::StrSplit(errors, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) picture.warnings.push_back(std::string(line));
  }
  return picture;
}

}  // namespace fx
