// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/fuse_elementwise/fuse_elementwise.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("fuse_elementwise", FX_VERSION_STRING) { fx::register_fuse_elementwise(registrar); }
