// Copyright 2026 The FX for C++ Authors.
#include "passes/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/printer.h"

namespace fx {

PassManager::PassManager(PassManager&&) noexcept = default;
PassManager& PassManager::operator=(PassManager&&) noexcept = default;
PassManager::~PassManager() = default;

absl::StatusOr<PassManager> PassManager::create(absl::string_view pipeline,
                                                const Registry& registry,
                                                PassManagerOptions options) {
  auto parsed = parse_pipeline(pipeline);
  if (!parsed.ok()) return parsed.status();
  PassManager pm;
  pm.options_ = std::move(options);
  for (const PipelineElement& element : *parsed) {
    const PassInfo* info = registry.find_pass(element.name);
    if (info == nullptr) return registry.unknown_pass_error(element.name);
    if (absl::Status s = check_options("pass", element, info->options); !s.ok()) return s;
    auto pass = info->factory(element.options);
    if (!pass.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", element.name, "': ", pass.status().message()));
    }
    pm.passes_.push_back(std::move(*pass));
  }
  for (const std::string& name : pm.options_.print_after) {
    if (registry.find_pass(name) == nullptr) return registry.unknown_pass_error(name);
  }
  pm.pipeline_ = std::move(*parsed);
  return pm;
}

absl::Status PassManager::run(GraphModule& module, PassContext& context) {
  using Clock = std::chrono::steady_clock;
  seconds_.assign(passes_.size(), 0.0);
  verify_seconds_ = 0;
  for (size_t i = 0; i < passes_.size(); ++i) {
    const std::string& name = pipeline_[i].name;
    const auto start = Clock::now();
    absl::Status s = passes_[i]->run(module, context);
    seconds_[i] = std::chrono::duration<double>(Clock::now() - start).count();
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("pass '", name, "' failed: ", s.message()));
    }
    if (options_.verify_each) {
      const auto verify_start = Clock::now();
      absl::Status lint = module.lint();
      verify_seconds_ += std::chrono::duration<double>(Clock::now() - verify_start).count();
      if (!lint.ok()) {
        return absl::InternalError(absl::StrCat("pass '", name, "' left a malformed graph: ",
                                                lint.message()));
      }
    }
    const bool print =
        options_.print_after_all ||
        std::find(options_.print_after.begin(), options_.print_after.end(), name) !=
            options_.print_after.end();
    if (print) {
      if (options_.printer) {
        options_.printer(name, module);
      } else {
        std::cout << "*** IR Dump After " << name << " ***\n" << format_graph(module.graph()) << "\n";
      }
    }
  }
  return absl::OkStatus();
}

std::string PassManager::timing_report() const {
  if (!options_.time_passes || seconds_.empty()) return "";
  double total = verify_seconds_;
  for (double s : seconds_) total += s;
  const std::string rule(77, '-');
  std::string out = absl::StrCat("===", rule.substr(3), "===\n",
                                 "                        Pass execution timing report\n", "===",
                                 rule.substr(3), "===\n",
                                 absl::StrFormat("  Total Execution Time: %.4f seconds\n\n", total),
                                 "   Wall Time       Pass\n");
  auto row = [&](double seconds, absl::string_view name) {
    absl::StrAppend(&out, absl::StrFormat("  %8.4f (%5.1f%%)  %s\n", seconds,
                                          total > 0 ? 100.0 * seconds / total : 0.0, name));
  };
  for (size_t i = 0; i < seconds_.size(); ++i) row(seconds_[i], pipeline_[i].name);
  if (options_.verify_each) row(verify_seconds_, "verify (lint after each pass)");
  row(total, "Total");
  return out;
}

}  // namespace fx
