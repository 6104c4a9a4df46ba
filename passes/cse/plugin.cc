// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/cse/cse.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("cse", FX_VERSION_STRING) { fx::register_cse(registrar); }
