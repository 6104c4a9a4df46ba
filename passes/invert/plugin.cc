// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/invert/invert.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("invert", FX_VERSION_STRING) { fx::register_invert(registrar); }
