// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/dce/dce.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("dce", FX_VERSION_STRING) { fx::register_dce(registrar); }
