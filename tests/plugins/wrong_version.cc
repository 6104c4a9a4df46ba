// Copyright 2026 The FX for C++ Authors.
// A test plugin built for another plugin API version.
#include "plugins/fx_plugin.h"

static void register_nothing(fx::PluginRegistrar*) {}

extern "C" __attribute__((visibility("default"))) FxPluginInfo fxGetPluginInfo() {
  return FxPluginInfo{999, "wrong_version", "1.0", &register_nothing};
}
