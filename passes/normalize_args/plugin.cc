// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/normalize_args/normalize_args.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("normalize_args", FX_VERSION_STRING) { fx::register_normalize_args(registrar); }
