// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "plugins/fx_plugin.h"
#include "tracer/tagging/tagging.h"

FX_PLUGIN("tagging", FX_VERSION_STRING) { fx::register_tagging(registrar); }
