// Copyright 2026 The FX for C++ Authors.
#include "plugins/fx_plugin.h"
#include "tracer/tagging/tagging.h"

FX_PLUGIN("tagging", "1.0") { fx::register_tagging(registrar); }
