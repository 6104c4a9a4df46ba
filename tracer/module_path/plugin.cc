// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "plugins/fx_plugin.h"
#include "tracer/module_path/module_path.h"

FX_PLUGIN("module_path", FX_VERSION_STRING) { fx::register_module_path(registrar); }
