// Copyright 2026 The FX for C++ Authors.
// A shared library that is not an FX plugin: it has no fxGetPluginInfo.
extern "C" int fx_test_not_a_plugin() { return 42; }
