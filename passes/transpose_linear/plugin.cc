// Copyright 2026 The FX for C++ Authors.
#include "passes/transpose_linear/transpose_linear.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("transpose_linear", "1.0") { fx::register_transpose_linear(registrar); }
