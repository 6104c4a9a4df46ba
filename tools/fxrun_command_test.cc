// Copyright 2026 The FX for C++ Authors.
//
// fxrun's command in-process: the checks made before any work and the errors
// of each step, through the Status-returning functions (the message a user
// reads after "fxrun: error: ", and its code), and whole runs on fixtures
// printed to strings. The end-to-end tests (tests/fxrun_*_test.cc) run the
// binary as a user does; these need no process.
#include "tools/fxrun_command.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/local_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/bazel_runfiles.h"
#include "tools/fxrun_settings.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string runfiles() { return bazel_runfiles_directory(); }

std::string fixture(const std::string& path) {
  const std::string file = bazel_runfile(runfiles(), path);
  EXPECT_FALSE(file.empty()) << path << " is not in the test's runfiles";
  return file;
}

std::string temporary(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The flags are Abseil's globals: every test starts from their defaults.
class FxrunCommandTest : public ::testing::Test {
 protected:
  // The settings `args` make (argv[0] added), or the first error.
  static absl::StatusOr<FxrunSettings> settings(std::vector<std::string> args,
                                                bool out_is_terminal = false) {
    args.insert(args.begin(), "fxrun");
    auto command_line = parse_fxrun_flags(args);
    if (!command_line.ok()) return command_line.status();
    return settings_from_flags(*std::move(command_line), out_is_terminal);
  }

  // Expects `args` to be refused before any work with `message`, as
  // InvalidArgument.
  static void expect_refused(const std::vector<std::string>& args, const std::string& message) {
    absl::FlagSaver fresh;  // several cases in one test
    auto s = settings(args);
    ASSERT_FALSE(s.ok()) << absl::StrJoin(args, " ");
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
    EXPECT_EQ(s.status().message(), message) << absl::StrJoin(args, " ");
  }

  struct Run {
    absl::Status status;
    std::string out, err;
  };
  // The whole command, as fxrun's main() runs it, on string streams.
  static Run fxrun(std::vector<std::string> args) {
    args.insert(args.begin(), "fxrun");
    std::ostringstream out, err;
    FxrunStreams streams{out, err};
    Run r;
    r.status = run_fxrun(args, streams);
    r.out = out.str();
    r.err = err.str();
    return r;
  }

  absl::FlagSaver flags_;
};

// ---- Settings: the checks before any work -------------------------------------

TEST_F(FxrunCommandTest, WhatToWriteIsCheckedFirst) {
  expect_refused({"--print=table"}, "--print takes graph, tabular, code or none, not 'table'");
  expect_refused({"--emit=xml"}, "--emit takes json, dot, svg or png, not 'xml'");
  expect_refused({"--emit=json", "--emit-scope=layer1"},
                 "--emit-scope says which part of the graph a picture draws: add --emit=dot, svg "
                 "or png");
  expect_refused({"--emit=dot", "--emit-scope="},
                 "--emit-scope is empty (an unset variable?); give a module path such as "
                 "layer1.0, or leave it out to draw the whole graph");
  expect_refused({"--print=code", "--emit=json"},
                 "--print and --emit both say what to write; give one of them");
  // The first failing check is the error, in fxrun's order.
  expect_refused({"--print=table", "--emit=xml"},
                 "--print takes graph, tabular, code or none, not 'table'");
}

TEST_F(FxrunCommandTest, PngIsRefusedOnATerminalOnly) {
  {
    absl::FlagSaver fresh;
    auto refused = settings({"--emit=png"}, /*out_is_terminal=*/true);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().message(),
              "--emit=png writes binary data, which a terminal cannot show: give --output=FILE.png "
              "or redirect standard output to a file");
  }
  auto to_file = settings({"--emit=dot", "--output=x.dot"}, /*out_is_terminal=*/true);
  ASSERT_TRUE(to_file.ok()) << to_file.status();
  EXPECT_TRUE(to_file->emit_picture);
  EXPECT_TRUE(to_file->dot_program.empty());  // dot draws svg and png only
}

TEST_F(FxrunCommandTest, TracingFlagsAndAGraphFileExcludeEachOther) {
  expect_refused({"--graph=g.json", "--tracer=module_path"},
                 "--tracer is for tracing, and --graph reads the graph instead: give one of them");
  expect_refused({"--graph=g.json", "--leaf_functions=f"},
                 "--leaf-functions is for tracing, and --graph reads the graph instead: give one "
                 "of them");
  expect_refused({"--model="},
                 "--model is empty (an unset variable?); give a .pt file, or leave --model out "
                 "for the bundled ResNet-18");
}

TEST_F(FxrunCommandTest, InputsAndTolerances) {
  expect_refused({"--run", "--input-shape=1,3", "--input=x.pt"},
                 "--input-shape and --input both give the inputs; give one of them");
  for (const char* flag : {"atol", "rtol", "expected"}) {
    expect_refused({"--run", absl::StrCat("--", flag, "=1")},
                   absl::StrCat("--", flag, " is a tolerance of --check, which compares the "
                                "graph's outputs with the original module's: add --check"));
  }
  expect_refused({"--check", "--atol=-1"}, "--atol and --rtol take non-negative numbers");
  expect_refused({"--check", "--rtol=nan"}, "--atol and --rtol take non-negative numbers");
  // An empty size is an error of the shapes' parser, quoted.
  absl::FlagSaver fresh;
  auto s = settings({"--run", "--input-shape=2,4,"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("'2,4,'"));
}

TEST_F(FxrunCommandTest, RunOnlyFlagsNeedRun) {
  expect_refused({"--device=cpu"}, "--device is for running the graph: add --run (or --check)");
  expect_refused({"--threads=1"}, "--threads is for running the graph: add --run (or --check)");
  expect_refused({"--input-shape=1,3"},
                 "--input-shape is for running the graph: add --run (or --check), or a pass that "
                 "runs it (--passes=shape_prop)");
  expect_refused({"--input=x.pt"},
                 "--input is for running the graph: add --run (or --check), or a pass that runs "
                 "it (--passes=shape_prop)");
  // A pass may run the graph on example inputs.
  auto s = settings({"--input-shape=1,3", "--passes=shape_prop"});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->run);
  EXPECT_TRUE(s->example_inputs);
  ASSERT_EQ(s->input_shapes.size(), 1u);
  EXPECT_EQ(s->input_shapes[0].sizes, (std::vector<int64_t>{1, 3}));
}

TEST_F(FxrunCommandTest, DeviceAndCountsAreBounded) {
  {
    absl::FlagSaver fresh;
    auto s = settings({"--run", "--device=tpu"});
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(std::string(s.status().message()), StartsWith("--device: "));
  }
  expect_refused({"--run", "--repeat=0"},
                 "--repeat takes a count of at least 1, --warmup and --threads counts of at least 0");
  expect_refused({"--warmup=-1"},
                 "--repeat takes a count of at least 1, --warmup and --threads counts of at least 0");
  expect_refused({"--run", "--threads=-1"},
                 "--repeat takes a count of at least 1, --warmup and --threads counts of at least 0");
  expect_refused({"--repeat=1000001"},
                 "--repeat and --warmup take at most 1000000 runs each (given 1000001 and 0)");
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  expect_refused({"--run", absl::StrCat("--threads=", hardware + 1)},
                 absl::StrCat("--threads=", hardware + 1, " is more than the ", hardware,
                              " threads this machine runs at once; give at most ", hardware,
                              " (or 0 for libtorch's default)"));
  // --repeat and --warmup imply --run.
  auto s = settings({"--repeat=3", "--warmup=2", "--model=m.pt"});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->run);
  EXPECT_FALSE(s->check);
  EXPECT_EQ(s->run_options.repeat, 3);
  EXPECT_EQ(s->run_options.warmup, 2);
  EXPECT_TRUE(s->input_shapes.empty());  // a model given brings its own (or none)
}

TEST_F(FxrunCommandTest, Pt2Layout) {
  expect_refused({"--pt2-layout=zip"}, "--pt2-layout takes pt2 or legacy, not 'zip'");
  expect_refused({"--pt2-layout=pt2", "--save=out.pt"},
                 "--pt2-layout says how --save writes a .pt2 file: add --save=FILE.pt2");
  auto s = settings({"--pt2-layout=legacy", "--save=out.pt2"});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->save_program);
  EXPECT_EQ(s->write_options.layout, exported::WriteLayout::kLegacy);
}

TEST_F(FxrunCommandTest, GpuFlagsNeedACudaRun) {
  expect_refused({"--cuda-graphs"}, "--cuda-graphs is for running the graph: add --run (or --check)");
  expect_refused({"--run", "--cuda-graphs"}, "--cuda-graphs is for runs on a GPU: add --device=cuda");
  expect_refused({"--run", "--tf32"}, "--tf32 is for runs on a GPU: add --device=cuda");
  expect_refused({"--run", "--device=meta", "--cuda-graphs"},
                 "--cuda-graphs is for runs on a GPU: add --device=cuda");
}

TEST_F(FxrunCommandTest, PipelineAndMetaDevice) {
  expect_refused({"--microbatches=2"},
                 "--microbatches is for a pipeline of processes: add --stages=N (and --run)");
  expect_refused({"--stages=2"},
                 "--stages runs the graph as a pipeline of processes: add --run (or --check)");
  expect_refused({"--stages=2", "--run", "--emit=json"},
                 "--emit is written by one process, and --stages runs several: run without "
                 "--stages to write it (the split graph is the same)");
  expect_refused({"--stages=2", "--run", "--device=meta"}, "--stages runs values: use cpu or cuda");
  expect_refused({"--check", "--device=meta"},
                 "--check compares values, and the meta device has none: run on cpu or cuda "
                 "(--device=meta with --run gives shapes and dtypes)");
  auto s = settings({"--stages=2", "--microbatches=4", "--run"});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->pipeline.stages, 2);
  EXPECT_EQ(s->pipeline.microbatches, 4);
}

TEST_F(FxrunCommandTest, NoFlagsAtAllRunsAndChecksTheBundledModel) {
  auto s = settings({});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->bundled_default);
  EXPECT_TRUE(s->check);
  EXPECT_TRUE(s->run);
  EXPECT_EQ(s->print, "tabular");
  EXPECT_EQ(s->tracer.extensions, "module_path");
  ASSERT_EQ(s->input_shapes.size(), 1u);
  EXPECT_EQ(s->input_shapes[0].sizes, (std::vector<int64_t>{1, 3, 224, 224}));
}

TEST_F(FxrunCommandTest, FlagsWithDashesOrUnderscoresAndFromAFlagfile) {
  {
    absl::FlagSaver fresh;
    auto s = settings({"--time_passes", "--print-after=dce", "--leaf-functions=a.b,c"});
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_TRUE(s->time_passes);
    EXPECT_EQ(s->print_after, (std::vector<std::string>{"dce"}));
    EXPECT_EQ(s->tracer.leaf_functions, (std::vector<std::string>{"a.b", "c"}));
  }
  const std::string flagfile = temporary("flags.txt");
  write_file(flagfile, "# fxrun's flags\n--print=code\n--passes=dce\n");
  auto s = settings({"--flagfile=" + flagfile, "--time-passes"});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->print, "code");
  EXPECT_EQ(s->passes, "dce");
  EXPECT_TRUE(s->time_passes);
  EXPECT_EQ(s->command_line.flagfiles, (std::vector<std::string>{flagfile}));
  // The flagfile is an input: no output may replace it.
  auto files = resolve_files(*s, runfiles());
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(files->inputs, ::testing::Contains(flagfile));
}

TEST_F(FxrunCommandTest, CommandLineErrorsNameTheFlag) {
  auto unknown = parse_fxrun_flags({"fxrun", "--prnt=code"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()),
              StartsWith("unknown flag '--prnt' (did you mean"));
  auto twice = parse_fxrun_flags({"fxrun", "--print=code", "--print=graph"});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "--print is given twice, as 'code' and 'graph'; give it once");
  auto typed = parse_fxrun_flags({"fxrun", "--repeat=many"});
  ASSERT_FALSE(typed.ok());
  EXPECT_THAT(std::string(typed.status().message()), StartsWith("--repeat: 'many' is not valid"));
  auto help = parse_fxrun_flags({"fxrun", "--help"});
  ASSERT_TRUE(help.ok());
  EXPECT_TRUE(help->help);
}

// ---- The steps --------------------------------------------------------------

TEST_F(FxrunCommandTest, FilesAreTheUsersAndAnEmptyExpectedIsRefused) {
  auto s = settings({"--check", "--expected="});
  ASSERT_TRUE(s.ok()) << s.status();  // only once a pipeline's processes started
  auto files = resolve_files(*s, runfiles());
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(files.status().message(),
            "--expected is empty (an unset variable?); give the file of a run PyTorch saved");
}

TEST_F(FxrunCommandTest, RelativePathsAreTakenFromWhereBazelRunStarted) {
  ASSERT_EQ(setenv("BUILD_WORKING_DIRECTORY", "/home/user/work", 1), 0);
  auto s = settings({"--model=m.pt", "--plugin=a.so,/abs/b.so", "--graph=g.json"});
  ASSERT_TRUE(s.ok()) << s.status();
  auto files = resolve_files(*s, runfiles());
  unsetenv("BUILD_WORKING_DIRECTORY");
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->model, "/home/user/work/m.pt");
  EXPECT_EQ(files->plugins, (std::vector<std::string>{"/home/user/work/a.so", "/abs/b.so"}));
  EXPECT_EQ(files->graph, "/home/user/work/g.json");
  EXPECT_EQ(files->inputs, (std::vector<std::string>{"/home/user/work/m.pt", "/home/user/work/a.so",
                                                     "/abs/b.so", "/home/user/work/g.json"}));
}

TEST_F(FxrunCommandTest, TheModelIsKnownBeforeAPipelineStarts) {
  {
    absl::FlagSaver fresh;
    auto s = settings({"--model=m.pt"});
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(model_path(*s, runfiles()), "m.pt");
  }
  // The launcher is given it: every rank would read standard input.
  Run r = fxrun({"--model=-", "--stages=2", "--run"});
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status.message(),
            "--model=- with --stages: every process of the pipeline reads the model, and standard "
            "input can be read once: give the model's path");
  EXPECT_TRUE(r.out.empty());
}

TEST_F(FxrunCommandTest, StandardInputIsAnInputAndHasNoSavedRunBesideIt) {
  auto s = settings({"--model=-", "--check"});
  ASSERT_TRUE(s.ok()) << s.status();
  auto files = resolve_files(*s, runfiles());
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->model, "-");
  EXPECT_TRUE(files->saved_run.empty());
  EXPECT_THAT(files->inputs, ::testing::Contains("/proc/self/fd/0"));
}

TEST_F(FxrunCommandTest, OutputsAreCheckedBeforeAnyWork) {
  // A writable copy: the runfiles' fixture is refused as read-only first.
  const std::string model = temporary("model_and_output.pt");
  write_file(model, read_file(fixture("tests/fixtures/m_relu_add.pt")));
  {
    absl::FlagSaver fresh;
    auto s = settings({"--model=" + model, "--output=" + model});
    ASSERT_TRUE(s.ok()) << s.status();
    auto outputs = prepare_outputs(*s, *resolve_files(*s, runfiles()));
    ASSERT_FALSE(outputs.ok());
    EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(outputs.status().message(),
              absl::StrCat("--output ", model, " is one of the inputs (", model,
                           "); writing it would destroy it: give another --output"));
  }
  {
    absl::FlagSaver fresh;
    const std::string target = temporary("both.txt");
    auto s = settings({"--model=" + model, "--output=" + target, "--save=" + target});
    ASSERT_TRUE(s.ok()) << s.status();
    auto outputs = prepare_outputs(*s, *resolve_files(*s, runfiles()));
    ASSERT_FALSE(outputs.ok());
    EXPECT_EQ(outputs.status().message(), "--output and --save name the same file; give two files");
  }
  auto s = settings({"--model=" + model, "--output=/dev/null"});
  ASSERT_TRUE(s.ok()) << s.status();
  auto outputs = prepare_outputs(*s, *resolve_files(*s, runfiles()));
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(std::string(outputs.status().message()), HasSubstr("is not a regular file"));
}

TEST_F(FxrunCommandTest, CommitWritesTheFilesOrSaysStandardOutputFailed) {
  FxrunOutputs none;
  std::ostringstream broken;
  broken.setstate(std::ios::badbit);
  absl::Status failed = commit_outputs(none, broken);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.message(), "writing to standard output failed");
  std::ostringstream fine;
  EXPECT_TRUE(commit_outputs(none, fine).ok());

  const std::string target = temporary("committed.txt");
  write_file(target, "before\n");
  auto s = settings({"--output=" + target});
  ASSERT_TRUE(s.ok()) << s.status();
  auto outputs = prepare_outputs(*s, *resolve_files(*s, runfiles()));
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  outputs->stream(fine) << "after\n";
  EXPECT_EQ(read_file(target), "before\n");  // nothing written before the commit
  ASSERT_TRUE(commit_outputs(*outputs, broken).ok());  // standard output is not --output's
  EXPECT_EQ(read_file(target), "after\n");
  EXPECT_TRUE(fine.str().empty());
}

TEST_F(FxrunCommandTest, LibrariesThatCannotLoadAreErrors) {
  const std::string not_a_library = temporary("not_a_library.so");
  write_file(not_a_library, "text, not ELF\n");
  {
    absl::FlagSaver fresh;
    auto s = settings({"--builtin-plugins=false", "--plugin=" + not_a_library});
    ASSERT_TRUE(s.ok()) << s.status();
    absl::Status loaded = load_libraries(*s, *resolve_files(*s, runfiles()), runfiles());
    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(std::string(loaded.message()), HasSubstr(not_a_library));
  }
  {
    absl::FlagSaver fresh;
    auto s = settings({"--builtin-plugins=false", "--op-library=/no/such/libops.so"});
    ASSERT_TRUE(s.ok()) << s.status();
    absl::Status loaded = load_libraries(*s, *resolve_files(*s, runfiles()), runfiles());
    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(std::string(loaded.message()), HasSubstr("/no/such/libops.so"));
  }
  // The in-tree plugins come from an installation or Bazel's runfiles.
  auto s = settings({});
  ASSERT_TRUE(s.ok()) << s.status();
  absl::Status loaded = load_libraries(*s, FxrunFiles{}, /*runfiles=*/"");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.message()), StartsWith("fxrun finds its in-tree plugins in "));
  EXPECT_THAT(std::string(loaded.message()),
              HasSubstr("give --builtin-plugins=false and --plugin=..."));
}

TEST_F(FxrunCommandTest, PassManagerTakesThePipelineAndItsOptions) {
  {
    absl::FlagSaver fresh;
    auto s = settings({"--pass-timeout=-1"});
    ASSERT_TRUE(s.ok()) << s.status();  // checked after --list-plugins, as always
    std::ostringstream out;
    auto pm = make_pass_manager(*s, 0, out, out);
    ASSERT_FALSE(pm.ok());
    EXPECT_EQ(pm.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(pm.status().message(),
              "--pass-timeout takes the seconds one pass may run, 0 for no limit (a week at most)");
  }
  auto s = settings({"--passes=dce", "--print-pipeline"});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(load_libraries(*s, FxrunFiles{}, runfiles()).ok());
  std::ostringstream out, standard_output;
  auto pm = make_pass_manager(*s, /*stages=*/2, out, standard_output);
  ASSERT_TRUE(pm.ok()) << pm.status();
  EXPECT_THAT(standard_output.str(), HasSubstr("split{stages=2}"));  // a pipeline rank's
  EXPECT_TRUE(out.str().empty());
  absl::FlagSaver fresh;
  auto unknown = make_pass_manager(*settings({"--passes=nope"}), 0, out, standard_output);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("unknown pass 'nope'"));
}

TEST_F(FxrunCommandTest, ModelErrors) {
  std::ostringstream out, err;
  FxrunStreams streams{out, err};
  {
    absl::FlagSaver fresh;
    auto s = settings({"--print=code"});
    ASSERT_TRUE(s.ok()) << s.status();
    auto model = read_model(*s, FxrunFiles{}, streams);  // no bundled model in this test
    ASSERT_FALSE(model.ok());
    EXPECT_THAT(std::string(model.status().message()),
                StartsWith("no --model given: give a TorchScript .pt"));
  }
  {
    absl::FlagSaver fresh;
    auto s = settings({"--model=/no/such/model.pt"});
    ASSERT_TRUE(s.ok()) << s.status();
    auto model = read_model(*s, *resolve_files(*s, runfiles()), streams);
    ASSERT_FALSE(model.ok());
    EXPECT_THAT(std::string(model.status().message()), HasSubstr("/no/such/model.pt"));
  }
  const std::string torchscript = fixture("tests/fixtures/m_relu_add.pt");
  {
    absl::FlagSaver fresh;
    auto s = settings({"--model=" + torchscript, "--check", "--expected=x.pt"});
    ASSERT_TRUE(s.ok()) << s.status();
    auto model = read_model(*s, *resolve_files(*s, runfiles()), streams);
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().message(),
              absl::StrCat("--expected is for --check of a torch.export program; ", torchscript,
                           " is TorchScript, which --check runs itself: leave it out"));
  }
  const std::string program = fixture("tests/exported_programs/torch2.6/linear_bn.pt2");
  auto s = settings({"--model=" + program, "--leaf-functions=f"});
  ASSERT_TRUE(s.ok()) << s.status();
  auto model = read_model(*s, *resolve_files(*s, runfiles()), streams);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(),
            absl::StrCat("--leaf-functions is for tracing TorchScript, and ", program,
                         " is a torch.export program, a graph already: leave it out"));
  EXPECT_TRUE(out.str().empty());
}

TEST_F(FxrunCommandTest, RunNeedsInputsForEveryPlaceholder) {
  Run r = fxrun({"--model=" + fixture("tests/fixtures/m2.pt"), "--run"});
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status.message(),
            "--run needs inputs for forward's a, b: --input-shape=1,3,224,224 (one shape per "
            "placeholder, ';' between) or --input=FILE (saved with torch.save)");
  EXPECT_TRUE(r.out.empty());
}

TEST_F(FxrunCommandTest, ACheckOfAProgramNeedsItsSavedRunAndNoOtherInputs) {
  const std::string copied = temporary("lonely.pt2");
  write_file(copied, read_file(fixture("tests/exported_programs/torch2.6/linear_bn.pt2")));
  {
    absl::FlagSaver fresh;
    Run r = fxrun({"--model=" + copied, "--check", "--print=none"});
    ASSERT_FALSE(r.status.ok());
    EXPECT_THAT(std::string(r.status.message()),
                StartsWith("--check of a torch.export program compares with a run PyTorch saved"));
    EXPECT_THAT(std::string(r.status.message()),
                HasSubstr(absl::StrCat(", or put it at ", temporary("lonely.expected.pt"))));
  }
  Run r = fxrun({"--model=" + fixture("tests/exported_programs/torch2.6/linear_bn.pt2"), "--check",
                 "--input-shape=1,3,8,8"});
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.message(),
            "--check of a torch.export program runs the inputs saved with the outputs it compares "
            "with (--expected): leave out --input and --input-shape");
}

// ---- Messages and exit statuses ---------------------------------------------

TEST_F(FxrunCommandTest, MessagesAreOneLineAndNameTheRank) {
  std::ostringstream out, err;
  FxrunStreams streams{out, err};
  EXPECT_EQ(error_line("cannot read\nx\x1b[2J", streams), "fxrun: error: cannot read x\\x1b[2J");
  streams.message_prefix = "rank 1: ";
  EXPECT_EQ(error_line("the store went away", streams), "fxrun: error: rank 1: the store went away");
  warn(streams, "inline{modules=relu6} matched nothing");
  report_error(streams, "a pass failed\non two lines");
  EXPECT_EQ(err.str(),
            "fxrun: warning: rank 1: inline{modules=relu6} matched nothing\n"
            "fxrun: error: rank 1: a pass failed on two lines\n");
  EXPECT_TRUE(out.str().empty());
}

TEST_F(FxrunCommandTest, APeersFailureExitsWithItsOwnStatusInLaunchedRanksOnly) {
  EXPECT_EQ(exit_status(absl::OkStatus()), 0);
  EXPECT_EQ(exit_status(absl::InvalidArgumentError("bad flag")), 1);
  unsetenv(kLaunchedVariable);
  EXPECT_EQ(exit_status(rank_failure(absl::UnavailableError("rank 0 went away"))), 1);
  ASSERT_EQ(setenv(kLaunchedVariable, "1", 1), 0);
  const absl::Status peer = rank_failure(absl::UnavailableError("rank 0 went away"));
  EXPECT_EQ(exit_status(peer), kPeerFailedExitStatus);
  EXPECT_EQ(peer.message(), "rank 0 went away");
  EXPECT_EQ(exit_status(rank_failure(absl::InternalError("a pass failed"))), 1);
  unsetenv(kLaunchedVariable);
}

// ---- Whole runs, in-process -------------------------------------------------

TEST_F(FxrunCommandTest, HelpListsTheFlags) {
  Run r = fxrun({"--help"});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out, HasSubstr("Flags (dashes and underscores are interchangeable):"));
  EXPECT_THAT(r.out, HasSubstr("  --time-passes  "));
  EXPECT_TRUE(r.err.empty());
}

TEST_F(FxrunCommandTest, InlineAndDcePrintTheCode) {
  Run r = fxrun({"--model=" + fixture("tests/fixtures/m_relu_add.pt"), "--passes=inline,dce",
                 "--print=code"});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.out,
            "def forward(self, x):\n"
            "    relu_1 = torch.nn.functional.relu(x, inplace = False);  x = None\n"
            "    add = torch.ops.aten.add.Scalar(relu_1, 1.0);  relu_1 = None\n"
            "    return add\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(FxrunCommandTest, AnInputNoPassUsedIsAWarning) {
  Run r = fxrun({"--model=" + fixture("tests/fixtures/m_relu_add.pt"), "--input-shape=2,3",
                 "--passes=dce", "--print=none", "--print-pipeline"});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.out, "dce\n");
  EXPECT_EQ(r.err,
            "fxrun: warning: --input-shape was not used: no pass in --passes runs the graph "
            "(shape_prop does), and --run was not given\n");
}

TEST_F(FxrunCommandTest, AProgramIsRunAndCheckedAgainstItsSavedRun) {
  Run r = fxrun({"--model=" + fixture("tests/exported_programs/torch2.6/linear_bn.pt2"),
                 "--passes=dce", "--check", "--print=graph"});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out, StartsWith("graph():\n"));
  EXPECT_THAT(r.out, HasSubstr("\ncheck: "));
  EXPECT_THAT(r.out, HasSubstr("linear_bn.expected.pt"));
  EXPECT_THAT(r.out, HasSubstr(": ok\n"));
}

TEST_F(FxrunCommandTest, BesideEmitTheRunsReportGoesToStandardError) {
  const std::string target = temporary("graph.json");
  Run r = fxrun({"--model=" + fixture("tests/fixtures/m_relu_add.pt"), "--emit=json",
                 "--output=" + target, "--run", "--input-shape=2,3"});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.out.empty());
  EXPECT_THAT(read_file(target), StartsWith("{"));
  EXPECT_THAT(r.err, HasSubstr("output 0: float[2, 3]"));
}

TEST_F(FxrunCommandTest, AFailedRunLeavesTheOutputAsItWas) {
  const std::string target = temporary("kept.txt");
  write_file(target, "the previous result\n");
  Run r = fxrun({"--model=" + fixture("tests/fixtures/m_relu_add.pt"), "--passes=nope",
                 "--output=" + target});
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(exit_status(r.status), 1);
  EXPECT_THAT(std::string(r.status.message()), HasSubstr("unknown pass 'nope'"));
  EXPECT_EQ(read_file(target), "the previous result\n");
}

TEST_F(FxrunCommandTest, ListPluginsNamesThePassesAndStops) {
  Run r = fxrun({"--list-plugins", "--pass-timeout=-1"});  // nothing after the list is checked
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.out, HasSubstr("\nPasses (--passes=NAME{option=value ...},...):\n"));
  EXPECT_THAT(r.out, HasSubstr("  dce  "));
}

}  // namespace
}  // namespace fx
