// Copyright 2026 The FX for C++ Authors.
#include "passes/rewrite/rewrite_rules.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("rewrite", "1.0") { fx::register_rewrite(registrar); }
