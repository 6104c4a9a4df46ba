// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/transpose_linear/transpose_linear.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("transpose_linear", FX_VERSION_STRING) { fx::register_transpose_linear(registrar); }
