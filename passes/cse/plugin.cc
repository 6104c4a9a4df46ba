// Copyright 2026 The FX for C++ Authors.
#include "passes/cse/cse.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("cse", "1.0") { fx::register_cse(registrar); }
