// Copyright 2026 The FX for C++ Authors.
#include "passes/invert/invert.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("invert", "1.0") { fx::register_invert(registrar); }
