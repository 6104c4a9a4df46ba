// Copyright 2026 The FX for C++ Authors.
//
// invert.h: builds the inverse of a function by walking its graph backwards
// (seed 000's inverter, as a pass).
//
// The graph must compute one value from one input through single-input
// operations. Walking it backwards, the output becomes the input placeholder
// (named as the output node, `output`), each operation becomes its inverse,
// and the input placeholder becomes the output: exp(tan(x)) inverts to
// atan(log(output)).
//
// Inverses come from extension table "invert.inverses": pairs of function
// names used both ways (`exp`/`log`), which any plugin can extend
// (`registrar.add_table_entry("invert.inverses", "sinh", "asinh")`). An
// inverse keeps the form of the operation it undoes: `torch.exp` becomes
// `torch.log`, `aten::exp` becomes `aten::log`, method `exp` method `log`.
// Built in: sin/asin, cos/acos, tan/atan, exp/log, exp2/log2, expm1/log1p,
// sinh/asinh, tanh/atanh, sigmoid/logit, sqrt/square, neg, reciprocal, and
// adding, subtracting, multiplying or dividing by a constant.
//
// Errors name the node and the reason: an operation with no registered
// inverse, one that takes several values of the graph, a graph with several
// inputs or outputs, or an operation off the input-to-output chain.
#ifndef FX_PASSES_INVERT_INVERT_H_
#define FX_PASSES_INVERT_INVERT_H_

#include <string>
#include <utility>
#include <vector>

#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

inline constexpr char kInverseTable[] = "invert.inverses";

class FX_API Invert : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "invert" and the built-in inverse pairs.
FX_API void register_invert(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_INVERT_INVERT_H_
