// Copyright 2026 The FX for C++ Authors.
//
// A plugin whose pass and tracer extension fail in every way plugin code can
// fail other than by returning a Status, chosen by option `how`: throwing a
// std::exception, a c10::Error or an int; crashing with SIGSEGV, SIGFPE, a
// stack overflow or an abort; raising SIGTERM; never returning; (the
// extension) returning no node. fxrun must name the plugin and what it was
// doing.
#include <string>

#include "plugins/fx_plugin.h"
#include "tests/testing/crash.h"

namespace {

using ::fx::testing::fail_by;
using ::fx::testing::ways_to_fail;

class Crash : public fx::Pass {
 public:
  fx::Option<std::string> how{*this, "how", "how to fail", "throw_std", ways_to_fail()};
  absl::Status run(fx::GraphModule&, fx::PassContext&) override {
    fail_by(*how);
    return absl::OkStatus();
  }
};

class CrashExtension : public fx::TracerExtension, public fx::OptionSet {
 public:
  fx::Option<std::string> how{*this, "how", "how to fail", "throw_std", ways_to_fail()};
  fx::Node* create_node(fx::Tracer&, fx::Op op, absl::string_view target, fx::Arguments args,
                        fx::Kwargs kwargs, absl::string_view name,
                        fx::CreateNodeNext next) override {
    if (op == fx::Op::kOutput) {
      if (*how == "null") return nullptr;
      fail_by(*how);
    }
    return next(op, target, std::move(args), std::move(kwargs), name);
  }
};

}  // namespace

FX_PLUGIN("crashy", "1.0") {
  registrar.add_pass<Crash>("crash", "fails as option how says");
  registrar.add_tracer_extension<CrashExtension>("crash", "fails creating the output node");
}
