// Copyright 2026 The FX for C++ Authors.
//
// fxrun's flags, with their help text (fxrun --help lists them in this order).
#include "tools/fxrun_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, model, "",
          "TorchScript model (.pt) to trace or torch.export program (.pt2) to read, or - to read "
          "either from standard input; default: the bundled ResNet-18");
ABSL_FLAG(std::string, tracer, "module_path",
          "tracer extensions, in order, with options: module_path,tagging{tag=bar}");
ABSL_FLAG(std::string, passes, "", "pass pipeline: inline{modules=relu},dce,invert");
ABSL_FLAG(std::vector<std::string>, plugin, {},
          "plugin shared library to load (repeatable, or comma-separated)");
ABSL_FLAG(std::vector<std::string>, op_library, {},
          "library of custom operators to load before the model (repeatable), e.g. "
          "torchvision's _C extension for torchvision::nms");
ABSL_FLAG(bool, builtin_plugins, true, "load the in-tree plugins from fxrun's runfiles");
ABSL_FLAG(bool, list_plugins, false,
          "list every plugin, tracer extension and pass, with options, and exit");
ABSL_FLAG(std::string, print, "tabular", "what to print: graph, tabular, code or none");
ABSL_FLAG(std::string, emit, "",
          "emit the graph in another format instead: json, or a picture: dot (Graphviz's text), "
          "svg or png (rendered by Graphviz's dot program)");
ABSL_FLAG(std::string, emit_scope, "",
          "with --emit=dot|svg|png: draw only the nodes at or under this module path (layer1.0), "
          "with their neighbours outside it as small boundary nodes");
ABSL_FLAG(std::string, output, "", "write the printed or emitted result to this file");
ABSL_FLAG(std::string, save, "",
          "export the final graph to this file: a torch.export program when its name ends in "
          ".pt2 (torch.export.load reads it), else a TorchScript module (torch.jit.load reads it)");
ABSL_FLAG(std::string, pt2_layout, "",
          "the layout --save=X.pt2 writes: pt2 (the PT2 archive, torch 2.8 and later) or legacy "
          "(the zip torch 2.1 to 2.7 write); by default the layout the program was read in, else pt2");
ABSL_FLAG(std::string, graph, "",
          "read the graph from this file (written by --emit=json) instead of tracing; its "
          "parameters and submodules come from --model");
ABSL_FLAG(bool, verify_each, true, "lint the graph after every pass");
ABSL_FLAG(bool, time_passes, false, "report the wall time of every pass (on stderr)");
ABSL_FLAG(double, pass_timeout, 0,
          "seconds one pass may run before fxrun stops, naming the pass and its plugin (a plugin "
          "pass that never returns); 0, the default: no limit");
ABSL_FLAG(std::vector<std::string>, print_after, {}, "print the graph after these passes");
ABSL_FLAG(bool, print_after_all, false, "print the graph after every pass");
ABSL_FLAG(bool, print_pipeline, false, "print the parsed pass pipeline (on stdout) first");
ABSL_FLAG(bool, training, false, "trace in training mode (default: eval mode)");
ABSL_FLAG(std::string, assertions, "keep",
          "input checks that only raise: keep (torch._assert nodes) or drop");
ABSL_FLAG(std::vector<std::string>, leaf_functions, {},
          "TorchScript functions to keep as call_function nodes (torch.fx's wrap)");
ABSL_FLAG(std::vector<std::string>, trace_through, {},
          "functions of torch's API to trace through instead of recording whole, by name or "
          "module: torch.nn.functional.interpolate,torch.functional");
ABSL_FLAG(bool, run, false, "run the final graph with its execution plan and print its outputs");
ABSL_FLAG(std::string, device, "cpu", "device to run on: cpu, cuda, cuda:N (or meta: shapes only)");
ABSL_FLAG(bool, cuda_graphs, false,
          "with --device=cuda: capture the run into a CUDA graph after two runs and replay it "
          "(one launch per run); a graph that cannot be captured runs as before, and the "
          "report says which node prevents it");
ABSL_FLAG(bool, tf32, false,
          "with --device=cuda: let matrix products and convolutions round float32 inputs to "
          "TF32 (faster, about 1e-3 relative error; off by default, as --check needs)");
ABSL_FLAG(std::string, input_shape, "",
          "random inputs of these shapes, one per placeholder, ';' between: 1,3,224,224 or "
          "long:4,8; for --run and for passes that run the graph (shape_prop)");
ABSL_FLAG(std::string, input, "",
          "inputs from a file saved with torch.save, or a TorchScript module of buffers; for "
          "--run and for passes that run the graph (shape_prop)");
ABSL_FLAG(bool, check, false,
          "also run the original TorchScript module on the same inputs and fail beyond "
          "--atol/--rtol (implies --run)");
ABSL_FLAG(std::string, expected, "",
          "for --check of a .pt2 program: a run PyTorch saved, torch.save({'inputs': args, "
          "'outputs': torch.utils._pytree.tree_leaves(outputs)}); default: NAME.expected.pt "
          "beside NAME.pt2");
ABSL_FLAG(double, atol, 1e-5, "absolute tolerance of --check");
ABSL_FLAG(double, rtol, 1e-4, "relative tolerance of --check");
ABSL_FLAG(int32_t, repeat, 1, "timed runs (implies --run); latency median/min/max");
ABSL_FLAG(int32_t, warmup, 0, "untimed runs before the timed ones");
ABSL_FLAG(int32_t, threads, 0,
          "intra-op threads for the passes and --run (0: libtorch's default)");
ABSL_FLAG(int32_t, stages, 0,
          "run the graph as a pipeline of this many processes, one stage each (with --run): "
          "fxrun starts them on this machine, or, with RANK set (torchrun), is one of them; "
          "split by the split pass in --passes, else by split{stages=N} added at the end");
ABSL_FLAG(int32_t, microbatches, 1,
          "with --stages: cut the batch (dim 0 of the inputs) into this many micro-batches, "
          "which the stages work on at once (GPipe)");
ABSL_FLAG(double, timeout, 300,
          "with --stages: seconds a process waits for another (to join, send, finish) before "
          "failing with an error naming it");
ABSL_FLAG(std::string, backend, "gloo",
          "with --stages: the c10d backend: gloo (CPU), or nccl (a CUDA libtorch with NCCL)");
ABSL_FLAG(std::string, master_addr, "", "with --stages: MASTER_ADDR, the host of rank 0's store");
ABSL_FLAG(int32_t, master_port, 0,
          "with --stages: MASTER_PORT, the store's port (the launcher's default: a free one)");
ABSL_FLAG(int32_t, rank, 0, "with --stages: RANK, this process's stage");
ABSL_FLAG(int32_t, world_size, 0, "with --stages: WORLD_SIZE, the number of processes");
ABSL_FLAG(int32_t, local_rank, 0, "with --stages: LOCAL_RANK (the CUDA device of --backend=nccl)");
ABSL_FLAG(std::vector<std::string>, concrete_args, {},
          "fix forward's arguments while tracing (torch.fx's concrete_args): "
          "name=value,... with True, False, None, numbers or strings");
