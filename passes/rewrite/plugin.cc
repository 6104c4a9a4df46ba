// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/rewrite/rewrite_rules.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("rewrite", FX_VERSION_STRING) { fx::register_rewrite(registrar); }
