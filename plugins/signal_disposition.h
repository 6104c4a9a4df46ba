// Copyright 2026 The FX for C++ Authors.
//
// signal_disposition.h (internal to libfx; not installed): whether a signal
// handler that was in place ends the process, for libfx's own handlers that
// pass a signal on to the one before them (fx/output_file.h's
// RemovedOnSignal removes its partial files only when the process is about
// to end, and leaves them to a program whose own handler may let the work go
// on).
//
//   struct sigaction before;  // what was installed before ours
//   if (fx::signal_ends_process(before, SIGTERM)) unlink(partial);
//
// Contracts: signal_ends_process is async-signal-safe (reads only): the
// default action ends the process (SIGINT, SIGTERM); a handler that
// note_forwarding_handler named (plugin_guard.h's crash report, which passes
// the signal on) ends it as what it replaced does; an ignored signal and any
// other handler (the program's own) do not.
#ifndef FX_PLUGINS_SIGNAL_DISPOSITION_H_
#define FX_PLUGINS_SIGNAL_DISPOSITION_H_

#include <signal.h>

#include "core/export.h"

namespace fx {

using SignalHandler = void (*)(int, siginfo_t*, void*);

// Says that `handler` passes each signal on to `previous[signal]` (an array
// of NSIG actions that outlives the process's handlers). One such handler.
FX_API void note_forwarding_handler(SignalHandler handler, const struct sigaction* previous);

FX_API bool signal_ends_process(const struct sigaction& action, int signal_number);

}  // namespace fx

#endif  // FX_PLUGINS_SIGNAL_DISPOSITION_H_
