// Copyright 2026 The FX for C++ Authors.
#include "passes/inline/inline.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("inline", "1.0") { fx::register_inline(registrar); }
