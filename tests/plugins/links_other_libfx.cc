// Copyright 2026 The FX for C++ Authors.
//
// A plugin built against another libfx (tests/plugins/other_libfx.cc): its
// DT_NEEDED names libfx.so.0.1 beside the libfx it registers with.
#include "plugins/fx_plugin.h"

extern "C" int other_libfx_version();

FX_PLUGIN("links_other_libfx", "1.0") { (void)other_libfx_version(); }
