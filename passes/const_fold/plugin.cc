// Copyright 2026 The FX for C++ Authors.
#include "passes/const_fold/const_fold.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("const_fold", "1.0") { fx::register_const_fold(registrar); }
