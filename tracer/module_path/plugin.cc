// Copyright 2026 The FX for C++ Authors.
#include "plugins/fx_plugin.h"
#include "tracer/module_path/module_path.h"

FX_PLUGIN("module_path", "1.0") { fx::register_module_path(registrar); }
