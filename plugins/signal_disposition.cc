// Copyright 2026 The FX for C++ Authors.
#include "plugins/signal_disposition.h"

#include <atomic>

namespace fx {
namespace {

std::atomic<SignalHandler> g_forwarding_handler{nullptr};
std::atomic<const struct sigaction*> g_forwarded_to{nullptr};

}  // namespace

void note_forwarding_handler(SignalHandler handler, const struct sigaction* previous) {
  g_forwarded_to.store(previous);
  g_forwarding_handler.store(handler);
}

bool signal_ends_process(const struct sigaction& action, int signal_number) {
  const struct sigaction* a = &action;
  // Through the forwarding handler (once: it forwards to what it replaced).
  for (int hop = 0; hop < 2; ++hop) {
    // (sa_handler and sa_sigaction share storage: SIG_DFL and SIG_IGN read
    // the same through either, SA_SIGINFO or not.)
    if ((a->sa_flags & SA_SIGINFO) == 0 || a->sa_handler == SIG_DFL || a->sa_handler == SIG_IGN) {
      return a->sa_handler == SIG_DFL;
    }
    const SignalHandler forwarding = g_forwarding_handler.load();
    const struct sigaction* previous = g_forwarded_to.load();
    if (forwarding == nullptr || a->sa_sigaction != forwarding || previous == nullptr ||
        signal_number <= 0 || signal_number >= NSIG) {
      return false;
    }
    a = &previous[signal_number];
  }
  return false;
}

}  // namespace fx
