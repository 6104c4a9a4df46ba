// Copyright 2026 The FX for C++ Authors.
#include "passes/split/split.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("split", "1.0") { fx::register_split(registrar); }
