// Copyright 2026 The FX for C++ Authors.
#include "plugins/fx_plugin.h"
#include "tracer/leaf_policy/leaf_policy.h"

FX_PLUGIN("leaf_policy", "1.0") { fx::register_leaf_policy(registrar); }
