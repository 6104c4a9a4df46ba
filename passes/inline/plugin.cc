// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/inline/inline.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("inline", FX_VERSION_STRING) { fx::register_inline(registrar); }
