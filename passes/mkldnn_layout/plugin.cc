// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/mkldnn_layout/mkldnn_layout.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("mkldnn_layout", FX_VERSION_STRING) { fx::register_mkldnn_layout(registrar); }
