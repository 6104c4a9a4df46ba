// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/shape_prop/shape_prop.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("shape_prop", FX_VERSION_STRING) { fx::register_shape_prop(registrar); }
