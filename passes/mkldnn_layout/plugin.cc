// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_layout/mkldnn_layout.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("mkldnn_layout", "1.0") { fx::register_mkldnn_layout(registrar); }
