// Copyright 2026 The FX for C++ Authors.
#include "tools/output_check.h"

#include "fx/model_values.h"

#include <algorithm>
#include <cmath>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/allclose.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/value_conversion.h"
#include "fx/model_file.h"

namespace fx {
namespace {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

at::Tensor as_double(const at::Tensor& t) { return t.detach().to(at::kCPU).to(at::kDouble); }

std::vector<c10::IValue> in_float64(const std::vector<c10::IValue>& values) {
  std::vector<c10::IValue> out;
  for (const c10::IValue& v : deep_copy(values)) {
    out.push_back(map_tensors(v, [](const at::Tensor& t) {
      return t.is_floating_point() ? t.to(at::kDouble) : t;
    }));
  }
  return out;
}

// What a float64 run of the reference says about the outputs in `beyond`
// (indices of outputs outside the tolerance): every one within rounding, or
// not, and the largest errors of each side against it.
struct RoundingVerdict {
  bool rounding = false;
  double graph_error = 0;
  double reference_error = 0;
};

absl::StatusOr<RoundingVerdict> judge_rounding(const NamedTensors& outputs,
                                               const NamedTensors& expected,
                                               const std::vector<size_t>& beyond,
                                               const std::vector<c10::IValue>& inputs,
                                               const CheckReference& reference,
                                               const Tolerance& tolerance) {
  absl::StatusOr<c10::IValue> exact_run = reference.run_exact(in_float64(inputs));
  if (!exact_run.ok()) return exact_run.status();
  NamedTensors exact;
  flatten_tensors(*exact_run, "", exact);
  if (exact.size() != outputs.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("it returns ", exact.size(), " tensor(s) in float64"));
  }
  RoundingVerdict verdict;
  verdict.rounding = true;
  for (size_t i : beyond) {
    if (exact[i].second.sizes() != outputs[i].second.sizes()) {
      verdict.rounding = false;
      continue;
    }
    const at::Tensor got = as_double(outputs[i].second);
    const at::Tensor want = as_double(expected[i].second);
    const at::Tensor truth = as_double(exact[i].second);
    const double reference_error = (want - truth).abs().max().item<double>();
    const at::Tensor graph_error = (got - truth).abs();
    const at::Tensor allowed = tolerance.atol + tolerance.rtol * truth.abs() +
                               kRoundingFactor * (std::isnan(reference_error) ? 0.0 : reference_error);
    // Equal values (infinities included) and NaN against NaN agree.
    const bool within =
        (graph_error.le(allowed) | got.eq(truth) | (got.isnan() & truth.isnan())).all().item<bool>();
    verdict.rounding = verdict.rounding && within;
    verdict.graph_error = std::max(verdict.graph_error, graph_error.max().item<double>());
    verdict.reference_error = std::max(verdict.reference_error, reference_error);
  }
  return verdict;
}

// The inputs as the graph's run left them against the reference's: equal
// where the model wrote nothing, written alike where it wrote. Rounding is
// not judged here (an input written in place is rarely more than a step).
absl::Status check_written_inputs(const std::vector<c10::IValue>& written,
                                  const std::vector<c10::IValue>& reference_inputs,
                                  const CheckReference& reference, const Tolerance& tolerance) {
  for (size_t i = 0; i < written.size() && i < reference_inputs.size(); ++i) {
    NamedTensors graph_side, reference_side;
    flatten_tensors(written[i], std::to_string(i), graph_side);
    flatten_tensors(reference_inputs[i], std::to_string(i), reference_side);
    if (graph_side.size() != reference_side.size()) continue;  // the call's structure: checked by the run
    for (size_t j = 0; j < graph_side.size(); ++j) {
      const at::Tensor& g = graph_side[j].second;
      const at::Tensor& r = reference_side[j].second;
      const bool same_shape = g.sizes() == r.sizes() && g.scalar_type() == r.scalar_type();
      if (same_shape && (g.numel() == 0 || at::allclose(as_double(g), as_double(r), tolerance.rtol,
                                                        tolerance.atol, /*equal_nan=*/true))) {
        continue;
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "--check: input ", graph_side[j].first, " after the run differs from the same input after ",
          reference.name, "'s run: ",
          same_shape ? absl::StrFormat("max abs difference %.3g",
                                       (as_double(g) - as_double(r)).abs().max().item<double>())
                     : absl::StrCat(describe_tensor(g), " against ", describe_tensor(r)),
          "; the model writes its input in place and the graph does not write it alike; ",
          reference.culprit));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> check_outputs(const c10::IValue& got,
                                          const std::vector<c10::IValue>& inputs,
                                          const CheckReference& reference,
                                          const Tolerance& tolerance,
                                          const std::vector<c10::IValue>* written) {
  std::vector<c10::IValue> reference_inputs = deep_copy(inputs);
  absl::StatusOr<c10::IValue> want = reference.run(reference_inputs);
  if (!want.ok()) return want.status();
  if (written != nullptr && reference.writes_inputs) {
    if (absl::Status s = check_written_inputs(*written, reference_inputs, reference, tolerance);
        !s.ok()) {
      return s;
    }
  }
  NamedTensors outputs, expected;
  flatten_tensors(got, "", outputs);
  flatten_tensors(*want, "", expected);
  if (expected.size() != outputs.size()) {
    return absl::FailedPreconditionError(absl::StrCat("--check: the graph returns ", outputs.size(),
                                                      " tensor(s), ", reference.name, " ",
                                                      expected.size()));
  }
  double worst = 0;
  std::vector<size_t> beyond;  // outputs outside the tolerance
  std::string first_beyond;    // how the first of them differs
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string name = outputs[i].first.empty() ? "0" : outputs[i].first;
    if (outputs[i].second.sizes() != expected[i].second.sizes() ||
        outputs[i].second.scalar_type() != expected[i].second.scalar_type()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--check: output ", name, " is ", describe_tensor(outputs[i].second), " but in ",
          reference.name, " it is ", describe_tensor(expected[i].second)));
    }
    if (outputs[i].second.numel() == 0) continue;
    const at::Tensor g = as_double(outputs[i].second);
    const at::Tensor e = as_double(expected[i].second);
    const double diff = (g - e).abs().max().item<double>();
    worst = std::max(worst, diff);
    if (at::allclose(g, e, tolerance.rtol, tolerance.atol, /*equal_nan=*/true)) continue;
    if (beyond.empty()) {
      first_beyond = absl::StrCat(
          "output ", name, " differs from ", reference.name, ": ",
          std::isnan(diff) ? "NaN where the other has a number"
                           : absl::StrFormat("max abs difference %.3g", diff));
    }
    beyond.push_back(i);
  }
  if (beyond.empty()) {
    return absl::StrFormat("check: max abs difference %.3g against %s (atol %g, rtol %g): ok\n",
                           worst, reference.name, tolerance.atol, tolerance.rtol);
  }
  // Integer and boolean results do not round: any difference is a change.
  const bool all_floating = std::all_of(beyond.begin(), beyond.end(), [&](size_t i) {
    return outputs[i].second.is_floating_point() && expected[i].second.is_floating_point();
  });
  std::string exact_note;
  if (reference.run_exact && all_floating) {
    absl::StatusOr<RoundingVerdict> verdict =
        judge_rounding(outputs, expected, beyond, inputs, reference, tolerance);
    if (verdict.ok() && verdict->rounding) {
      return absl::StrFormat(
          "check: max abs difference %.3g against %s, beyond atol %g, rtol %g, but rounding: "
          "against its float64 run the graph is off by at most %.3g, it by %.3g (%gx allowed): "
          "ok\n",
          worst, reference.name, tolerance.atol, tolerance.rtol, verdict->graph_error,
          verdict->reference_error, kRoundingFactor);
    }
    exact_note = verdict.ok()
                     ? absl::StrFormat("; against its float64 run the graph is off by %.3g, it by "
                                       "%.3g: more than rounding",
                                       verdict->graph_error, verdict->reference_error)
                     : absl::StrCat("; (its float64 run, to tell rounding apart, failed: ",
                                    first_line_of(std::string(verdict.status().message())), ")");
  }
  // A saved run may come from another libtorch, whose kernels round
  // differently: then the difference need not be a pass's doing.
  return absl::FailedPreconditionError(absl::StrFormat(
      "--check: %s (beyond --atol=%g --rtol=%g)%s; %s%s", first_beyond, tolerance.atol,
      tolerance.rtol, exact_note, reference.culprit,
      reference.other_kernels ? ", or the kernels of the libtorch that saved it round "
                                "differently (compare on that platform, or widen --rtol)"
                              : ""));
}

}  // namespace fx
