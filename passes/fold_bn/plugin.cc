// Copyright 2026 The FX for C++ Authors.
#include "passes/fold_bn/fold_bn.h"
#include "plugins/fx_plugin.h"

FX_PLUGIN("fold_bn", "1.0") { fx::register_fold_bn(registrar); }
