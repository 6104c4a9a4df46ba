// Copyright 2026 The FX for C++ Authors.
#include "plugins/plugin_guard.h"
#include "plugins/signal_disposition.h"

#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// What the crash report says, formatted when plugin code is entered: the
// signal handler may only copy bytes out (no allocation, no locks).
constexpr int kMaxActivities = 16;
constexpr size_t kTextSize = 1024;

struct Activity {
  bool host = false;       // host code called back from plugin code
  char who[kTextSize];     // "plugin 'x' (/path/libx.so)"
  char what[kTextSize];    // "running pass 'dce'"
};

Activity g_activities[kMaxActivities];
std::atomic<int> g_depth{0};  // lock-free: read by the signal handler
char g_program[128] = "";
std::atomic<bool> g_installed{false};

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};

// A stack of its own for the handler: a stack overflow has used up the
// thread's. (sigaltstack is per thread: this one serves the main thread.)
alignas(16) char g_handler_stack[64 * 1024];

void copy_text(char (&to)[kTextSize], absl::string_view from) {
  const size_t n = std::min(from.size(), kTextSize - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

void write_text(const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

const char* describe_signal(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV, a segmentation fault or stack overflow";
    case SIGBUS: return "SIGBUS, a bus error";
    case SIGFPE: return "SIGFPE, an arithmetic error";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGABRT: return "SIGABRT, an abort";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return "a fatal signal";
  }
}

// What handled each signal before (SIG_DFL, or a sanitizer's handler): the
// report passes the signal on to it.
struct sigaction g_previous[NSIG];

void report_crash(int sig, siginfo_t* info, void*) {
  const int depth = g_depth.load();
  const bool in_plugin = depth > 0 && depth <= kMaxActivities && !g_activities[depth - 1].host;
  // A request to end (kill, Ctrl-C) is a crash of nobody's: named only
  // when plugin code was running (it may have raised it, or hung).
  const bool request = sig == SIGTERM || sig == SIGINT;
  if (request && in_plugin) {
    const Activity& a = g_activities[depth - 1];
    write_text(g_program);
    write_text(": error: ");
    write_text(describe_signal(sig));
    write_text(" ended the process while ");
    write_text(a.who);
    write_text(" was ");
    write_text(a.what);
    write_text(" (the plugin raised it, or it was sent from outside)\n");
  }
  if (request) {
    ::sigaction(sig, &g_previous[sig], nullptr);
    ::raise(sig);  // blocked in here: delivered to the previous handler, or the default, on return
    return;
  }
  write_text(g_program);
  write_text(": error: ");
  if (in_plugin) {
    const Activity& a = g_activities[depth - 1];
    write_text(a.who);
    write_text(" crashed (");
    write_text(describe_signal(sig));
    write_text(") while ");
    write_text(a.what);
    write_text("\n");
  } else {
    write_text("crashed (");
    write_text(describe_signal(sig));
    write_text("); this is a bug, please report it with the command line that caused it\n");
  }
  // Then what would have happened without the report: the previous handler,
  // or death by the signal. A fault (si_code > 0) happens again when the
  // handler returns; a signal sent (abort's raise) is sent again.
  ::sigaction(sig, &g_previous[sig], nullptr);
  if (info == nullptr || info->si_code <= 0) ::raise(sig);
}

void push(bool host, absl::string_view who, absl::string_view what, bool* pushed) {
  const int depth = g_depth.load();
  *pushed = depth < kMaxActivities;
  if (!*pushed) return;
  Activity& a = g_activities[depth];
  a.host = host;
  copy_text(a.who, who);
  copy_text(a.what, what);
  g_depth.store(depth + 1);
}

void pop(bool pushed) {
  if (pushed) g_depth.store(g_depth.load() - 1);
}

}  // namespace

void install_crash_report(absl::string_view program) {
  if (g_installed.exchange(true)) return;
  const size_t n = std::min(program.size(), sizeof(g_program) - 1);
  std::memcpy(g_program, program.data(), n);
  g_program[n] = '\0';
  stack_t stack = {};
  stack.ss_sp = g_handler_stack;
  stack.ss_size = sizeof(g_handler_stack);
  ::sigaltstack(&stack, nullptr);
  struct sigaction action = {};
  action.sa_sigaction = report_crash;
  action.sa_flags = SA_ONSTACK | SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) ::sigaction(sig, &action, &g_previous[sig]);
  // SIGINT and SIGTERM go on to what was there: libfx's other handlers
  // (output files removed on a signal that ends the process) see through it.
  note_forwarding_handler(report_crash, g_previous);
}

namespace {

// Whose code `plugin` is, for messages: a plugin, or the program's own (a
// pass given to PassManager::add has a record with neither name nor file).
std::string whose_code(const PluginRecord& plugin) {
  if (plugin.name.empty() && plugin.path.empty()) return "the program's own code";
  return absl::StrCat("plugin ", describe_plugin(plugin));
}

}  // namespace

PluginActivity::PluginActivity(const PluginRecord& plugin, absl::string_view what) {
  push(false, whose_code(plugin), what, &pushed_);
}

PluginActivity::~PluginActivity() { pop(pushed_); }

PluginActivity::Host::Host() {
  bool pushed = false;
  push(true, "", "", &pushed);
  pushed_ = pushed;
}

PluginActivity::Host::~Host() { pop(pushed_); }

std::string describe_plugin(const PluginRecord& plugin) {
  // Before its entry point has said its name, a plugin is its file.
  if (plugin.name.empty() && !plugin.path.empty()) return path_for_message(plugin.path);
  return absl::StrCat(quote_for_message(plugin.name), " (",
                      plugin.path.empty() ? std::string("built in") : path_for_message(plugin.path),
                      ")");
}

namespace {

// An exception from plugin code, already described: passed on as it is by
// the guards of plugin code that called the code that threw it.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace

namespace {

// The line call_plugin_within's timer prints, formatted before it is armed.
char g_timeout_text[3 * kTextSize];

void report_timeout(int) {
  write_text(g_timeout_text);
  ::_exit(1);
}

}  // namespace

absl::Status call_plugin_within(const PluginRecord& plugin, absl::string_view what,
                                absl::Duration limit, absl::string_view how_to_change,
                                absl::FunctionRef<absl::Status()> fn) {
  if (limit == absl::InfiniteDuration()) return call_plugin(plugin, what, fn);
  const std::string text = absl::StrCat(g_program[0] != '\0' ? g_program : "error", ": error: ",
                                        whose_code(plugin), " did not finish ", what, " in ",
                                        absl::FormatDuration(limit), "; stopped (", how_to_change, ")\n");
  const size_t n = std::min(text.size(), sizeof(g_timeout_text) - 1);
  std::memcpy(g_timeout_text, text.data(), n);
  g_timeout_text[n] = '\0';
  struct sigaction action = {};
  action.sa_handler = report_timeout;
  sigemptyset(&action.sa_mask);
  struct sigaction previous;
  ::sigaction(SIGALRM, &action, &previous);
  const int64_t micros = std::max<int64_t>(1, absl::ToInt64Microseconds(limit));
  itimerval timer = {};
  timer.it_value.tv_sec = micros / 1000000;
  timer.it_value.tv_usec = micros % 1000000;
  ::setitimer(ITIMER_REAL, &timer, nullptr);
  absl::Status s = call_plugin(plugin, what, fn);
  const itimerval off = {};
  ::setitimer(ITIMER_REAL, &off, nullptr);
  ::sigaction(SIGALRM, &previous, nullptr);
  return s;
}

absl::Status call_plugin(const PluginRecord& plugin, absl::string_view what,
                         absl::FunctionRef<absl::Status()> fn) {
  PluginActivity activity(plugin, what);
  auto threw = [&](absl::string_view reason) {
    return absl::InternalError(
        absl::StrCat(whose_code(plugin), " threw while ", what, ": ", reason));
  };
  try {
    return fn();
  } catch (const PluginError& e) {
    return absl::InternalError(e.what());
  } catch (const std::exception& e) {
    const std::string message = exception_message(e);
    return threw(escape_for_message(message.substr(0, message.find('\n'))));
  } catch (...) {
    return threw("an exception that is not a std::exception");
  }
}

namespace {

// The rest of a hook chain, run as host code.
auto host_next(CreateNodeNext next) {
  return [next](Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                absl::string_view name) {
    PluginActivity::Host host;
    return next(op, target, std::move(args), std::move(kwargs), name);
  };
}

class GuardedTracerExtension : public TracerExtension {
 public:
  GuardedTracerExtension(std::shared_ptr<TracerExtension> inner, PluginRecord plugin,
                         std::string name)
      : inner_(std::move(inner)), plugin_(std::move(plugin)), name_(std::move(name)) {}

  void begin_trace(Tracer& tracer, const ModuleRef& root) override {
    rethrow(call("begin_trace", [&] {
      inner_->begin_trace(tracer, root);
      return absl::OkStatus();
    }));
  }
  absl::Status end_trace(Tracer& tracer, GraphModule& result) override {
    return call("end_trace", [&] { return inner_->end_trace(tracer, result); });
  }
  bool is_leaf_module(Tracer& tracer, const ModuleRef& m, IsLeafModuleNext next) override {
    bool leaf = false;
    rethrow(call("is_leaf_module", [&] {
      leaf = inner_->is_leaf_module(tracer, m, [&](const ModuleRef& n) {
        PluginActivity::Host host;
        return next(n);
      });
      return absl::OkStatus();
    }));
    return leaf;
  }
  absl::StatusOr<Argument> call_module(Tracer& tracer, const ModuleRef& m,
                                       const ModuleForward& forward, const Arguments& args,
                                       const Kwargs& kwargs, CallModuleNext next) override {
    absl::StatusOr<Argument> result = absl::UnknownError("not called");
    absl::Status called = call("call_module", [&] {
      result = inner_->call_module(
          tracer, m, forward, args, kwargs,
          [&](const ModuleRef& n, const ModuleForward& f, const Arguments& a, const Kwargs& k) {
            PluginActivity::Host host;
            return next(n, f, a, k);
          });
      return absl::OkStatus();
    });
    if (!called.ok()) return called;
    return result;
  }
  Node* create_proxy(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                     Kwargs kwargs, absl::string_view name, CreateProxyNext next) override {
    return node_hook("create_proxy", [&] {
      return inner_->create_proxy(tracer, op, target, std::move(args), std::move(kwargs), name,
                                  host_next(next));
    });
  }
  Node* create_node(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                    Kwargs kwargs, absl::string_view name, CreateNodeNext next) override {
    return node_hook("create_node", [&] {
      return inner_->create_node(tracer, op, target, std::move(args), std::move(kwargs), name,
                                 host_next(next));
    });
  }

 private:
  absl::Status call(absl::string_view hook, absl::FunctionRef<absl::Status()> fn) {
    return call_plugin(plugin_, absl::StrCat("in ", hook, " of tracer extension '", name_, "'"), fn);
  }
  // create_proxy and create_node, whose result is a node: never null (the
  // next hook, or the tracer, would be blamed for it).
  Node* node_hook(absl::string_view hook, absl::FunctionRef<Node*()> fn) {
    Node* node = nullptr;
    rethrow(call(hook, [&] {
      node = fn();
      return absl::OkStatus();
    }));
    if (node == nullptr) {
      throw PluginError(absl::StrCat("plugin ", describe_plugin(plugin_), "'s tracer extension '", name_,
                                     "' returned no node from ", hook, " (it must return what its next "
                                     "hook returns, or a node it made)"));
    }
    return node;
  }
  // Hooks without a Status pass an exception on, described.
  static void rethrow(const absl::Status& s) {
    if (!s.ok()) throw PluginError(std::string(s.message()));
  }

  std::shared_ptr<TracerExtension> inner_;
  PluginRecord plugin_;
  std::string name_;
};

}  // namespace

std::shared_ptr<TracerExtension> guard_tracer_extension(std::shared_ptr<TracerExtension> extension,
                                                        const PluginRecord& plugin,
                                                        absl::string_view name) {
  return std::make_shared<GuardedTracerExtension>(std::move(extension), plugin, std::string(name));
}

}  // namespace fx
