// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/const_fold/const_fold.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("const_fold", FX_VERSION_STRING) { fx::register_const_fold(registrar); }
