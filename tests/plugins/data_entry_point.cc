// Copyright 2026 The FX for C++ Authors.
//
// Not a plugin, though it looks like one to dlsym: its fxGetPluginInfo is a
// data symbol. Calling it would crash; the loader must refuse it.
extern "C" __attribute__((visibility("default"))) const char fxGetPluginInfo[] = "not code";
