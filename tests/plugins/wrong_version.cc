// Copyright 2026 The FX for C++ Authors.
// A test plugin built for another plugin API version.
#include "plugins/fx_plugin.h"

static void register_nothing(fx::PluginRegistrar*) {}

extern "C" __attribute__((visibility("default"))) FxPluginInfo fxGetPluginInfo() {
  return FxPluginInfo{FX_PLUGIN_API_VERSION + 998, "wrong_version", "1.0", &register_nothing};
}
