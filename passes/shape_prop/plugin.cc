// Copyright 2026 The FX for C++ Authors.
#include "passes/shape_prop/shape_prop.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("shape_prop", "1.0") { fx::register_shape_prop(registrar); }
