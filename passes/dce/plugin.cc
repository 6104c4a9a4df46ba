// Copyright 2026 The FX for C++ Authors.
#include "passes/dce/dce.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("dce", "1.0") { fx::register_dce(registrar); }
