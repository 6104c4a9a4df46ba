// Copyright 2026 The FX for C++ Authors.
//
// A plugin whose pass and tracer extension fail in every way plugin code can
// fail other than by returning a Status, chosen by option `how`: throwing a
// std::exception, a c10::Error or an int; crashing with SIGSEGV, SIGFPE, a
// stack overflow or an abort. fxrun must name the plugin and what it was doing.
#include <c10/util/Exception.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "plugins/fx_plugin.h"

namespace {

const std::vector<std::string> kWays = {"throw_std", "throw_c10", "throw_int", "segv",
                                        "fpe",       "stack",     "abort"};

// Deep enough to overflow any stack, and not a tail call the compiler could
// turn into a loop.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"  // it is meant to overflow the stack
__attribute__((noinline)) int recurse(volatile int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return recurse(depth + 1) + frame[0];
}
#pragma GCC diagnostic pop

__attribute__((noinline)) int divide(int a, int b) { return a / b; }

void fail(const std::string& how) {
  if (how == "throw_std") throw std::runtime_error("the plugin's own std::runtime_error");
  if (how == "throw_c10") TORCH_CHECK(false, "the plugin's own c10::Error");
  if (how == "throw_int") throw 42;
  if (how == "segv") {
    volatile int* volatile nowhere = nullptr;
    *nowhere = 1;
  }
  if (how == "fpe") {
    volatile int zero = 0;
    std::printf("%d\n", divide(1, zero));  // integer division by zero: SIGFPE
  }
  if (how == "stack") recurse(0);
  if (how == "abort") std::abort();
}

class Crash : public fx::Pass {
 public:
  fx::Option<std::string> how{*this, "how", "how to fail", "throw_std", kWays};
  absl::Status run(fx::GraphModule&, fx::PassContext&) override {
    fail(*how);
    return absl::OkStatus();
  }
};

class CrashExtension : public fx::TracerExtension, public fx::OptionSet {
 public:
  fx::Option<std::string> how{*this, "how", "how to fail", "throw_std", kWays};
  fx::Node* create_node(fx::Tracer&, fx::Op op, absl::string_view target, fx::Arguments args,
                        fx::Kwargs kwargs, absl::string_view name,
                        fx::CreateNodeNext next) override {
    if (op == fx::Op::kOutput) fail(*how);
    return next(op, target, std::move(args), std::move(kwargs), name);
  }
};

}  // namespace

FX_PLUGIN("crashy", "1.0") {
  registrar.add_pass<Crash>("crash", "fails as option how says");
  registrar.add_tracer_extension<CrashExtension>("crash", "fails creating the output node");
}
