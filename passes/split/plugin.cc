// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/split/split.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("split", FX_VERSION_STRING) { fx::register_split(registrar); }
