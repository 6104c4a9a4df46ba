// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "passes/fold_bn/fold_bn.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("fold_bn", FX_VERSION_STRING) { fx::register_fold_bn(registrar); }
