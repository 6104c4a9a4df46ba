// Copyright 2026 The FX for C++ Authors.
#include "passes/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "plugins/plugin_guard.h"

namespace fx {

// A pass, or a fixpoint group of steps.
struct PassManager::Step {
  std::string name;
  std::unique_ptr<Pass> pass;        // a pass
  PluginRecord plugin;               // a pass: the plugin that registered it
  std::vector<Step> group;           // a group
  int max_iterations = 0;            // a group
  size_t timing = 0;                 // a pass: its row in timings_
};

namespace {

// The options of a fixpoint group, declared as a pass's are.
class FixpointOptions : public OptionSet {
 public:
  Option<int64_t> max_iterations{*this, "max_iterations",
                                  "rounds allowed before giving up on a fixed point", 10};

 protected:
  absl::Status validate_options() override {
    // Rounds are counted in an int.
    if (*max_iterations < 1 || *max_iterations > std::numeric_limits<int>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "option 'max_iterations' must be from 1 to ", std::numeric_limits<int>::max(), ", not ",
          *max_iterations));
    }
    return absl::OkStatus();
  }
};

void collect_pass_names(const std::vector<PipelineElement>& pipeline,
                        std::vector<std::string>* names) {
  for (const PipelineElement& e : pipeline) {
    if (e.has_nested) {
      collect_pass_names(e.nested, names);
    } else {
      names->push_back(e.name);
    }
  }
}

}  // namespace

PassManager::PassManager(PassManagerOptions options) : options_(std::move(options)) {}
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
  // Steps for a list of elements, recursively for groups.
  std::function<absl::Status(const std::vector<PipelineElement>&, std::vector<Step>&)> build =
      [&](const std::vector<PipelineElement>& elements, std::vector<Step>& steps) -> absl::Status {
    for (const PipelineElement& element : elements) {
      Step step;
      step.name = element.name;
      if (element.name == kFixpointGroup) {
        FixpointOptions group_options;
        if (absl::Status s = check_option_names("group", element, group_options.option_specs());
            !s.ok()) {
          return s;
        }
        if (absl::Status s = group_options.set_options(element.options); !s.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("group '", kFixpointGroup, "': ", s.message()));
        }
        if (!element.has_nested || element.nested.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "group '", kFixpointGroup, "' needs passes in parentheses, e.g. ", kFixpointGroup,
              "(inline,dce)"));
        }
        step.max_iterations = static_cast<int>(*group_options.max_iterations);
        if (absl::Status s = build(element.nested, step.group); !s.ok()) return s;
      } else {
        auto pass = registry.make_pass(element);
        if (!pass.ok()) return pass.status();
        step.pass = std::move(*pass);
        step.plugin = registry.find_pass(element.name)->plugin;
        step.timing = pm.timings_.size();
        pm.timings_.emplace_back(element.name, 0.0);
      }
      steps.push_back(std::move(step));
    }
    return absl::OkStatus();
  };
  if (absl::Status s = build(*parsed, pm.steps_); !s.ok()) return s;

  std::vector<std::string> names;
  collect_pass_names(*parsed, &names);
  for (const std::string& name : pm.options_.print_after) {
    if (registry.find_pass(name) == nullptr) return registry.unknown_pass_error(name);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "print-after names pass '", name, "', which the pipeline does not run (the pipeline runs: ",
          names.empty() ? std::string("no passes") : absl::StrJoin(names, ", "), ")"));
    }
  }
  pm.pipeline_ = std::move(*parsed);
  return pm;
}

absl::Status PassManager::add(std::unique_ptr<Pass> pass, std::string name) {
  if (pass == nullptr) return absl::InvalidArgumentError("PassManager::add: no pass given");
  if (!is_pipeline_name(name) || name == kFixpointGroup) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PassManager::add: ", quote_for_message(name),
        " is not a pass name a pipeline could show (letters, digits, '_', '-' and '.'; not 'fixpoint')"));
  }
  Step step;
  step.name = name;
  step.pass = std::move(pass);
  step.plugin = PluginRecord{"", "", ""};  // the program's own code, run as it is
  step.timing = timings_.size();
  timings_.emplace_back(name, 0.0);
  steps_.push_back(std::move(step));
  PipelineElement element;
  element.name = std::move(name);
  pipeline_.push_back(std::move(element));
  return absl::OkStatus();
}

absl::Status PassManager::run(GraphModule& module, PassContext& context) {
  for (auto& [name, seconds] : timings_) seconds = 0;
  verify_seconds_ = 0;
  return run_steps(steps_, module, context);
}

absl::Status PassManager::run_steps(std::vector<Step>& steps, GraphModule& module,
                                    PassContext& context) {
  for (Step& step : steps) {
    if (step.pass != nullptr) {
      if (absl::Status s = run_pass(step, module, context); !s.ok()) return s;
      continue;
    }
    auto rounds = run_to_fixed_point(module, step.max_iterations,
                                     [&] { return run_steps(step.group, module, context); });
    if (rounds.status().code() == absl::StatusCode::kResourceExhausted) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "group '", kFixpointGroup, "' still changed the graph after ", step.max_iterations,
          " rounds; raise ", kFixpointGroup, "{max_iterations=...} or check its passes"));
    }
    if (!rounds.ok()) return rounds.status();
  }
  return absl::OkStatus();
}

absl::Status PassManager::run_pass(Step& step, GraphModule& module, PassContext& context) {
  using Clock = std::chrono::steady_clock;
  const uint64_t before = module.version();
  const auto start = Clock::now();
  absl::Status s = call_plugin_within(step.plugin, absl::StrCat("running pass '", step.name, "'"),
                                      options_.pass_time_limit, options_.time_limit_hint,
                                      [&] { return step.pass->run(module, context); });
  timings_[step.timing].second += std::chrono::duration<double>(Clock::now() - start).count();
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("pass '", step.name, "' failed: ", s.message()));
  }
  if (options_.verify_each && module.version() != before) {
    const auto verify_start = Clock::now();
    absl::Status lint = module.lint();
    verify_seconds_ += std::chrono::duration<double>(Clock::now() - verify_start).count();
    if (!lint.ok()) {
      return absl::InternalError(
          absl::StrCat("pass '", step.name, "' left a malformed graph: ", lint.message()));
    }
  }
  const bool print =
      options_.print_after_all ||
      std::find(options_.print_after.begin(), options_.print_after.end(), step.name) !=
          options_.print_after.end();
  if (print) {
    if (options_.printer) {
      options_.printer(step.name, module);
    } else {
      std::cout << "*** IR Dump After " << step.name << " ***\n"
                << format_graph(module.graph()) << "\n";
    }
  }
  return absl::OkStatus();
}

std::string PassManager::timing_report() const {
  if (!options_.time_passes || timings_.empty()) return "";
  double total = verify_seconds_;
  for (const auto& [name, seconds] : timings_) total += seconds;
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
  for (const auto& [name, seconds] : timings_) row(seconds, name);
  if (options_.verify_each) row(verify_seconds_, "verify (lint after each pass)");
  row(total, "Total");
  return out;
}

}  // namespace fx
