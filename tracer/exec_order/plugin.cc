// Copyright 2026 The FX for C++ Authors.
#include "fx/version.h"
#include "plugins/fx_plugin.h"
#include "tracer/exec_order/exec_order.h"

FX_PLUGIN("exec_order", FX_VERSION_STRING) { fx::register_exec_order(registrar); }
