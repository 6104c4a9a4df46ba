// Copyright 2026 The FX for C++ Authors.
//
// A plugin whose registration registers a pass and then throws: the loader
// must refuse it with the exception's message and keep nothing it registered.
#include <stdexcept>

#include "plugins/fx_plugin.h"

namespace {

class Nothing : public fx::Pass {
  absl::Status run(fx::GraphModule&, fx::PassContext&) override { return absl::OkStatus(); }
};

}  // namespace

FX_PLUGIN("throwing", "1.0") {
  registrar.add_pass<Nothing>("throwing_pass", "is registered before the exception");
  throw std::runtime_error("cannot find my configuration file");
}
