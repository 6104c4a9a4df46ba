// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/pipelines.h"

#include "absl/strings/str_cat.h"
#include "passes/const_fold/const_fold.h"
#include "passes/cse/cse.h"
#include "passes/dce/dce.h"
#include "passes/fold_bn/fold_bn.h"
#include "passes/fuse_elementwise/fuse_elementwise.h"
#include "passes/inline/inline.h"
#include "passes/mkldnn_fusion/mkldnn_fusion.h"
#include "passes/normalize_args/normalize_args.h"
#include "passes/pass_manager.h"
#include "passes/shape_prop/shape_prop.h"

namespace fx {
namespace testing {

absl::Status run_pipeline(GraphModule& gm, absl::string_view pipeline,
                          std::vector<c10::IValue> example_inputs) {
  static const Registry* registry = [] {
    auto* r = new Registry();
    PluginRegistrar registrar({"passes", "1", ""});
    register_const_fold(registrar);
    register_inline(registrar);
    register_dce(registrar);
    register_shape_prop(registrar);
    register_fold_bn(registrar);
    register_cse(registrar);
    register_mkldnn_fusion(registrar);
    register_fuse_elementwise(registrar);
    register_normalize_args(registrar);
    if (!r->commit(registrar).ok()) std::abort();  // the in-tree passes always register
    return r;
  }();
  auto pm = PassManager::create(pipeline, *registry);
  if (!pm.ok()) return pm.status();
  PassContext context(*registry);
  if (!example_inputs.empty()) context.set_example_inputs(std::move(example_inputs));
  absl::Status ran = pm->run(gm, context);
  if (!ran.ok()) return absl::Status(ran.code(), absl::StrCat(pipeline, ": ", ran.message()));
  return absl::OkStatus();
}

}  // namespace testing
}  // namespace fx
