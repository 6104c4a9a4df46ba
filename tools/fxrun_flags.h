// Copyright 2026 The FX for C++ Authors.
//
// fxrun_flags.h: fxrun's command-line flags (defined in fxrun_flags.cc, whose
// flags are the ones fxrun's parser accepts and --help lists).
#ifndef FX_TOOLS_FXRUN_FLAGS_H_
#define FX_TOOLS_FXRUN_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(std::string, model);
ABSL_DECLARE_FLAG(bool, cuda_graphs);
ABSL_DECLARE_FLAG(bool, tf32);
ABSL_DECLARE_FLAG(std::string, tracer);
ABSL_DECLARE_FLAG(std::string, passes);
ABSL_DECLARE_FLAG(std::vector<std::string>, plugin);
ABSL_DECLARE_FLAG(std::vector<std::string>, op_library);
ABSL_DECLARE_FLAG(bool, builtin_plugins);
ABSL_DECLARE_FLAG(bool, list_plugins);
ABSL_DECLARE_FLAG(std::string, print);
ABSL_DECLARE_FLAG(std::string, emit);
ABSL_DECLARE_FLAG(std::string, emit_scope);
ABSL_DECLARE_FLAG(std::string, output);
ABSL_DECLARE_FLAG(std::string, save);
ABSL_DECLARE_FLAG(std::string, pt2_layout);
ABSL_DECLARE_FLAG(std::string, graph);
ABSL_DECLARE_FLAG(bool, verify_each);
ABSL_DECLARE_FLAG(bool, time_passes);
ABSL_DECLARE_FLAG(double, pass_timeout);
ABSL_DECLARE_FLAG(std::vector<std::string>, print_after);
ABSL_DECLARE_FLAG(bool, print_after_all);
ABSL_DECLARE_FLAG(bool, print_pipeline);
ABSL_DECLARE_FLAG(bool, training);
ABSL_DECLARE_FLAG(std::string, assertions);
ABSL_DECLARE_FLAG(std::vector<std::string>, leaf_functions);
ABSL_DECLARE_FLAG(std::vector<std::string>, trace_through);
ABSL_DECLARE_FLAG(bool, run);
ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(std::string, input_shape);
ABSL_DECLARE_FLAG(std::string, input);
ABSL_DECLARE_FLAG(bool, check);
ABSL_DECLARE_FLAG(std::string, expected);
ABSL_DECLARE_FLAG(double, atol);
ABSL_DECLARE_FLAG(double, rtol);
ABSL_DECLARE_FLAG(int32_t, repeat);
ABSL_DECLARE_FLAG(int32_t, warmup);
ABSL_DECLARE_FLAG(int32_t, threads);
ABSL_DECLARE_FLAG(int32_t, stages);
ABSL_DECLARE_FLAG(int32_t, microbatches);
ABSL_DECLARE_FLAG(double, timeout);
ABSL_DECLARE_FLAG(std::string, backend);
ABSL_DECLARE_FLAG(std::string, master_addr);
ABSL_DECLARE_FLAG(int32_t, master_port);
ABSL_DECLARE_FLAG(int32_t, rank);
ABSL_DECLARE_FLAG(int32_t, world_size);
ABSL_DECLARE_FLAG(int32_t, local_rank);
ABSL_DECLARE_FLAG(std::vector<std::string>, concrete_args);

#endif  // FX_TOOLS_FXRUN_FLAGS_H_
