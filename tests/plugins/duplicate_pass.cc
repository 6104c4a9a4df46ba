// Copyright 2026 The FX for C++ Authors.
// A test plugin that registers a pass name the dce plugin already registered.
#include "plugins/fx_plugin.h"

FX_PLUGIN("duplicate_pass", "1.0") {
  registrar.add_pass("dce", "another dce", {},
                     [](const fx::OptionValues&) -> absl::StatusOr<std::unique_ptr<fx::Pass>> {
                       return absl::UnimplementedError("never made");
                     });
}
