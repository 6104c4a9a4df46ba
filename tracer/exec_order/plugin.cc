// Copyright 2026 The FX for C++ Authors.
#include "plugins/fx_plugin.h"
#include "tracer/exec_order/exec_order.h"

FX_PLUGIN("exec_order", "1.0") { fx::register_exec_order(registrar); }
