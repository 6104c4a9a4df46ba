// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/compile/compile.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("compile", FX_VERSION_STRING) { fx::register_compile(registrar); }
