// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/mkldnn_fusion/mkldnn_fusion.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("mkldnn_fusion", FX_VERSION_STRING) { fx::register_mkldnn_fusion(registrar); }
