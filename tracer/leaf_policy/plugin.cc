// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "plugins/fx_plugin.h"
#include "tracer/leaf_policy/leaf_policy.h"

FX_PLUGIN("leaf_policy", FX_VERSION_STRING) { fx::register_leaf_policy(registrar); }
