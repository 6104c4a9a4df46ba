// Copyright 2026 The FX for C++ Authors.
//
// plugin_guard.h: a host's defences against plugin code that fails other
// than by returning a Status: it throws (anything, std::exception or not), or
// it crashes (a segmentation fault, an abort, a stack overflow, SIGFPE).
//
//   fx::install_crash_report("fxrun");           // once, first thing in main()
//   absl::Status s = fx::call_plugin(info.plugin, "running pass 'dce'", [&] {
//     return pass->run(module, context);          // plugin code
//   });                                           // an exception becomes an error
//
// Contracts:
//   * call_plugin runs `fn` with the plugin marked as running (a
//     PluginActivity); an exception escaping it becomes an InternalError
//     naming the plugin, its file and what it was doing: "plugin 'x'
//     (/path/libx.so) threw while running pass 'dce': <what()>". It never
//     lets an exception through.
//   * While a PluginActivity lives (they nest: the innermost counts), a crash
//     prints one line on stderr, "<program>: error: plugin 'x' (/path) crashed
//     (SIGSEGV, a segmentation fault) while running pass 'dce'", and the
//     signal then goes where it went before (a sanitizer's handler, or death
//     by the signal: the exit status stays the signal's). A crash outside plugin code prints "<program>: error:
//     crashed (SIGSEGV, ...); this is a bug". The handler runs on its own stack,
//     so a stack overflow is reported too, and does only async-signal-safe
//     work (write(2) of text formatted before).
//   * PluginActivity::Host marks code a plugin calls back into (the rest of a
//     hook chain): a crash there is not the plugin's.
//   * SIGTERM and SIGINT while plugin code runs (raised by the plugin, or
//     sent from outside to a plugin that hangs) print one line naming the
//     plugin and what it was doing before the process ends by the signal;
//     outside plugin code they are left alone.
//   * call_plugin_within bounds the time of one call: past `limit` the
//     process ends (exit status 1) after one line, "<program>: error: plugin
//     'x' (/path) did not finish running pass 'p' in 30s; stopped". Code that
//     does not return cannot be stopped and leave the program sound, so
//     nothing else is possible; the host says how the limit is set.
#ifndef FX_PLUGINS_PLUGIN_GUARD_H_
#define FX_PLUGINS_PLUGIN_GUARD_H_

#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/export.h"
#include "plugins/registry.h"
#include "tracer/tracer.h"

namespace fx {

// Installs the crash report for the process (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT), with `program` in front of its line. Idempotent.
FX_API void install_crash_report(absl::string_view program);

class FX_API PluginActivity {
 public:
  // Marks `plugin` as doing `what` ("running pass 'dce'") until destroyed.
  PluginActivity(const PluginRecord& plugin, absl::string_view what);
  ~PluginActivity();
  PluginActivity(const PluginActivity&) = delete;
  PluginActivity& operator=(const PluginActivity&) = delete;

  // Marks host code running inside plugin code (a hook's `next`).
  class Host {
   public:
    Host();
    ~Host();
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

   private:
    bool pushed_;
  };

 private:
  bool pushed_;
};

// How a plugin is named in messages: "'x' (/path/libx.so)", "'x' (built in)".
FX_API std::string describe_plugin(const PluginRecord& plugin);

// Runs plugin code `fn` as `plugin` doing `what`; see the file comment.
FX_API absl::Status call_plugin(const PluginRecord& plugin, absl::string_view what,
                                absl::FunctionRef<absl::Status()> fn);

// call_plugin, and the process ended should `fn` not return within `limit`
// (absl::InfiniteDuration(): no bound); `how_to_change` ends the line
// ("--pass-timeout sets the limit"). Calls on one thread at a time.
FX_API absl::Status call_plugin_within(const PluginRecord& plugin, absl::string_view what,
                                       absl::Duration limit, absl::string_view how_to_change,
                                       absl::FunctionRef<absl::Status()> fn);

// `extension` (made by `plugin`'s factory for tracer extension `name`) with
// every hook run as plugin code. Hooks that return a Status (call_module,
// end_trace) turn an exception into one; the others rethrow it as a
// std::runtime_error whose what() names the plugin, the extension and the
// hook, which the host catches around Tracer::trace.
FX_API std::shared_ptr<TracerExtension> guard_tracer_extension(
    std::shared_ptr<TracerExtension> extension, const PluginRecord& plugin, absl::string_view name);

}  // namespace fx

#endif  // FX_PLUGINS_PLUGIN_GUARD_H_
