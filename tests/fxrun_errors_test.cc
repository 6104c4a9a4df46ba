// Copyright 2026 The FX for C++ Authors.
//
// fxrun's guarantees to a user who gets things wrong, each checked the way it
// matters: no data loss (the bytes of the files after the run), no crash, no
// hang, one `fxrun: error: ...` line with exit status 1 for every error, a
// warning when an option matched nothing, and messages that show what the
// user typed without flooding or corrupting the terminal.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ATen/core/Tensor.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::fx::testing::expect_one_error_line;
using ::fx::testing::read_file;
using ::fx::testing::repeat;
using ::fx::testing::runfile;
using ::fx::testing::temporary_path;
using ::fx::testing::write_file;

using Result = ::fx::testing::FxrunResult;

Result fxrun(const std::string& args) { return ::fx::testing::run_fxrun(args); }


TEST(FxrunErrorsTest, OutputNamingAnInputIsRefusedAndTheInputKeepsItsBytes) {
  const std::string model = temporary_path("model_copy.pt");
  const std::string bytes = read_file(runfile("tests/fixtures/m1.pt"));
  write_file(model, bytes);
  Result r = fxrun(absl::StrCat("--model=", model, " --output=", model));
  expect_one_error_line(r, "--output " + model + " is one of the inputs", "output = model");
  EXPECT_EQ(read_file(model), bytes);
  // Also through another spelling of the same file.
  r = fxrun(absl::StrCat("--model=", model, " --output=", getenv("TEST_TMPDIR"), "/./model_copy.pt"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(read_file(model), bytes);
}

TEST(FxrunErrorsTest, AFailedRunLeavesAnExistingOutputAsItWas) {
  const std::string out = temporary_path("kept.txt");
  write_file(out, "the previous result\n");
  for (const std::string& bad :
       {std::string("--model=/no/such.pt"), std::string("--passes=nope"),
        std::string("--model=") + runfile("tests/fixtures/control_flow.pt"),
        std::string("--passes='inline{modules=}'")}) {
    Result r = fxrun(absl::StrCat(bad, " --output=", out));
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_EQ(read_file(out), "the previous result\n") << bad;
  }
  // A run that succeeds replaces it, whole.
  Result ok = fxrun(absl::StrCat("--model=", runfile("tests/fixtures/m1.pt"),
                                 " --print=code --output=", out));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(read_file(out), "def forward(self, x):\n    relu = self.relu(x);  x = None\n    return relu\n");
  // No temporary files are left beside it.
  FILE* pipe = popen(absl::StrCat("ls ", getenv("TEST_TMPDIR"), " | grep -c fxrun-").c_str(), "r");
  char count[16] = {0};
  fread(count, 1, sizeof(count) - 1, pipe);
  pclose(pipe);
  EXPECT_EQ(std::string(count), "0\n");
}

TEST(FxrunErrorsTest, OutputErrorsSayWhy) {
  expect_one_error_line(fxrun("--output=/no/such/dir/x.txt"),
               "cannot write --output /no/such/dir/x.txt: No such file or directory", "no dir");
  expect_one_error_line(fxrun(absl::StrCat("--output=", getenv("TEST_TMPDIR"))), "is a directory", "dir");
  expect_one_error_line(fxrun("--output="), "--output is empty", "empty");
}

TEST(FxrunErrorsTest, ModelsAreRegularFilesNeverWaitedOn) {
  const std::string fifo = temporary_path("model.fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A FIFO with no writer: an error at once, not a hang.
  expect_one_error_line(fxrun("--model=" + fifo), "cannot read model " + fifo + ": it is not a regular file",
               "fifo");
  expect_one_error_line(fxrun(absl::StrCat("--model=", getenv("TEST_TMPDIR"))), "it is a directory", "dir");
  // A pipe is read through --model=-.
  Result piped = fxrun(absl::StrCat("--model=- --print=code < ", runfile("tests/fixtures/m1.pt")));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_THAT(piped.out, HasSubstr("relu = self.relu(x)"));
  expect_one_error_line(fxrun("--model=- < /dev/null"), "standard input is empty", "empty stdin");
  expect_one_error_line(fxrun("--model=/dev/stdin < /dev/null"), "it is not a regular file", "/dev/stdin");
  expect_one_error_line(fxrun("--model="), "--model is empty", "empty --model");
}

TEST(FxrunErrorsTest, PluginsThatWouldCrashAreRefused) {
  // fxGetPluginInfo is a data symbol: calling it would crash.
  expect_one_error_line(fxrun("--plugin=" + runfile("tests/plugins/libdata_entry_point.so")),
               "its fxGetPluginInfo is not a function", "data entry point");
  expect_one_error_line(fxrun("--plugin=" + runfile("tests/plugins/libthrowing.so")),
               "threw while registering: cannot find my configuration file", "throwing");
}

TEST(FxrunErrorsTest, CustomOperatorsNameTheOperatorAndLoadWithOpLibrary) {
  const std::string model = runfile("tests/fixtures/uses_nms.pt");
  expect_one_error_line(fxrun("--model=" + model),
               "the model calls operator torchvision::nms, which no loaded library provides; load "
               "its library first with --op-library=PATH",
               "missing op");
  std::string library = read_file(runfile("tests/fixtures/torchvision_ops_library.txt"));
  library.pop_back();  // the newline
  Result r = fxrun(absl::StrCat("--model=", model, " --op-library=", library, " --print=code"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("torch.ops.torchvision.nms.default(boxes, scores, 0.5)"));
  expect_one_error_line(fxrun("--op-library=/no/lib.so"), "cannot open --op-library /no/lib.so", "no lib");
  expect_one_error_line(fxrun("--op-library=" + runfile("tests/plugins/not_a_library.txt")),
               "cannot load --op-library", "not a library");
}

TEST(FxrunErrorsTest, FlagErrorsAreFxrunErrors) {
  expect_one_error_line(fxrun("--modle=x.pt"), "unknown flag '--modle' (did you mean 'model'?)", "typo");
  expect_one_error_line(fxrun("--verify-each=maybe"), "--verify-each: 'maybe' is not valid", "bool");
  expect_one_error_line(fxrun("--flagfile=/no/flags.txt"),
               "cannot read --flagfile /no/flags.txt: No such file or directory", "flagfile");
  expect_one_error_line(fxrun("--print=code --print=graph"), "--print is given twice", "twice");
  expect_one_error_line(fxrun("--model"), "--model needs a value", "no value");
  // --help=false is no request for help; the run goes on.
  Result r = fxrun(absl::StrCat("--help=false --print=none --model=", runfile("tests/fixtures/m1.pt")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Flags from a file.
  const std::string flags = temporary_path("flags.txt");
  write_file(flags, absl::StrCat("# a comment\n--model=", runfile("tests/fixtures/m1.pt"), "\n--print=code\n"));
  r = fxrun("--flagfile=" + flags);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("def forward(self, x):"));
}

TEST(FxrunErrorsTest, MistakesThatUsedToDoNothingSayso) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  expect_one_error_line(fxrun(m1 + " --passes='inline{modules=}'"), "option 'modules' needs at least one name",
               "empty list");
  expect_one_error_line(fxrun(m1 + " --passes='inline{recurse=true recurse=false}'"),
               "pass 'inline' has option 'recurse' twice", "duplicate key");
  expect_one_error_line(fxrun(m1 + " --print=code --emit=json"), "--print and --emit", "print and emit");
  expect_one_error_line(fxrun(m1 + " --passes=dce --print-after=inline"),
               "print-after names pass 'inline', which the pipeline does not run", "print-after");
  // A legitimate no-op is a warning that says nothing matched, with the closest names.
  struct Warning {
    std::string args;
    std::string message;
  };
  for (const Warning& w : std::vector<Warning>{
           {m1 + " --passes='inline{modules=relux}'",
            "inline: modules='relux' matches no call_module node (did you mean 'relu'?)"},
           {m1 + " --passes='inline{types=Relu}'",
            "inline: types='Relu' matches no module the graph calls (did you mean 'ReLU'?)"},
           {m1 + " --tracer='module_path,leaf_policy{leaves=RELU}'",
            "leaf_policy{leaves=...}: no module of the model is 'RELU'"},
           {absl::StrCat("--model=", runfile("tests/fixtures/leaf_function.pt"),
                         " --leaf-functions=clip,clop"),
            "--leaf-functions: the model calls no function 'clop' (did you mean 'clip'?)"},
       }) {
    Result r = fxrun(w.args + " --print=none");
    EXPECT_EQ(r.exit_code, 0) << w.args << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("fxrun: warning: " + w.message)) << w.args;
  }
}

TEST(FxrunErrorsTest, MessagesShowInputCutAndEscaped) {
  // A megabyte of pass name (through a flagfile: too long for a command line).
  const std::string flags = temporary_path("huge.txt");
  write_file(flags, "--passes=" + std::string(1 << 20, 'x') + "\n");
  Result r = fxrun("--flagfile=" + flags);
  expect_one_error_line(r, "unknown pass 'xxxx", "huge name");
  EXPECT_LT(r.err.size(), 600u);
  EXPECT_THAT(r.err, HasSubstr("(1048576 characters)"));
  // An escape sequence that would clear the screen is shown, not sent.
  r = fxrun("--passes=$'dce\\x1b[2J'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, Not(HasSubstr("\x1b")));
  EXPECT_THAT(r.err, HasSubstr("\\x1b[2J"));
  // Untraceable models point at the flags a command-line user has.
  r = fxrun("--model=" + runfile("tests/fixtures/gated.pt"));
  expect_one_error_line(r, "control flow depends on an input value", "untraceable");
  EXPECT_THAT(r.err, HasSubstr("--tracer=module_path,leaf_policy{leaves=Gate}"));
}

TEST(FxrunErrorsTest, InliningAModuleWithOverloadedForwardSaysWhy) {
  Result r = fxrun(absl::StrCat("--model=", runfile("tests/fixtures/lstm.pt"),
                                " --passes=inline --print=none"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("its forward is overloaded in TorchScript"));
  EXPECT_THAT(r.err, Not(HasSubstr("has no method")));
}

// ---- A hostile user (issues 20 and 25) ------------------------------------

TEST(FxrunErrorsTest, PipelinesNestedWithoutEndAreErrors) {
  // Parsed, built and run recursively: 10,000 groups exhausted the stack.
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  for (bool closed : {true, false}) {
    const std::string pipeline =
        repeat("fixpoint(", 10000) + "dce" + (closed ? repeat(")", 10000) : "");
    const std::string what = closed ? "closed" : "unclosed";
    expect_one_error_line(fxrun(m1 + " --passes='" + pipeline + "'"),
                 "at character 297: groups nest deeper than 32 levels", what);
    const std::string flags = temporary_path("deep_pipeline.txt");
    write_file(flags, m1 + "\n--passes=" + pipeline + "\n");
    expect_one_error_line(fxrun("--flagfile=" + flags), "groups nest deeper than 32 levels", what + " flagfile");
  }
}

TEST(FxrunErrorsTest, TextJsonCannotHoldIsAnErrorNotAnAbort) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  // (printf's \377: the byte 0xff, which no UTF-8 text holds.)
  expect_one_error_line(fxrun(m1 + " --tracer=\"$(printf 'module_path,tagging{tag=\\377}')\" --emit=json"),
               "--emit=json: nodes[2].meta.tag: '\\xff' is not UTF-8 text, which is all JSON can "
               "hold",
               "tag");
  // A string argument fixed by --concrete-args lands in the graph's check.
  torch::jit::Module mode("Mode");
  mode.define("def forward(self, x, mode: str):\n    if mode == 'neg':\n        return -x\n    return x\n");
  const std::string model = temporary_path("mode.pt");
  mode.save(model);
  const std::string mode_ff = " --concrete-args=\"$(printf 'mode=\\377')\"";
  expect_one_error_line(fxrun("--model=" + model + mode_ff + " --emit=json"),
               "--emit=json: nodes[3].args[1]: \"mode has been specialized to have value '\\xff' "
               "but got another value\" is not UTF-8 text",
               "concrete-args");
  // --print shows any bytes.
  Result printed = fxrun("--model=" + model + mode_ff + " --print=code");
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
}

TEST(FxrunErrorsTest, InputShapesThatCannotBeMadeAreErrors) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  expect_one_error_line(fxrun(m1 + " --run --input-shape=4294967296,4294967296,4"),
               "a tensor of shape [4294967296, 4294967296, 4] has more bytes than a tensor can hold",
               "overflow");
  // 561 GiB of example inputs: more than any machine this runs on.
  expect_one_error_line(fxrun("--passes='shape_prop{device=meta}' --input-shape=1000000,3,224,224 "
                     "--print=none"),
               "GiB, more than this machine's memory", "memory");
  // An empty size is a mistake, not a shorter shape (1,,2 used to run as [1, 2]
  // and fail in a node).
  for (const char* shape : {"2,4,", "4,,4", ",2,4", "1,,2"}) {
    Result r = fxrun(m1 + " --run --input-shape=" + shape);
    expect_one_error_line(r, absl::StrCat("--input-shape '", shape, "' has an empty size"), shape);
    EXPECT_THAT(r.err, Not(HasSubstr("node"))) << shape;
  }
}

TEST(FxrunErrorsTest, NothingWaitsOnWhatDoesNotEnd) {
  const std::string fifo = temporary_path("flags.fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_error_line(fxrun("--flagfile=" + fifo),
               "cannot read --flagfile " + fifo + ": it is not a regular file but a FIFO", "fifo");
  expect_one_error_line(fxrun("--flagfile=/dev/zero"), "it is not a regular file but a device", "zeros");
  // A directory used to read as no flags at all, and the run went on.
  expect_one_error_line(fxrun(absl::StrCat("--flagfile=", getenv("TEST_TMPDIR"))), "it is a directory", "dir");
  // An endless stream on standard input is refused from its first bytes.
  expect_one_error_line(fxrun("--model=- < /dev/zero"),
               "--model=-: standard input does not start as the file should", "stdin zeros");
  // Threads beyond the machine: an error, not 100,000 threads made.
  expect_one_error_line(fxrun("--model=" + runfile("tests/fixtures/m1.pt") +
                     " --run --input-shape=4 --threads=100000 --print=none"),
               "--threads=100000 is more than the ", "threads");
}

TEST(FxrunErrorsTest, AnOutputNamingTheFlagfileIsRefused) {
  const std::string flags = temporary_path("flags_and_output.txt");
  const std::string bytes = absl::StrCat("--model=", runfile("tests/fixtures/m1.pt"), "\n--print=code\n");
  write_file(flags, bytes);
  expect_one_error_line(fxrun("--flagfile=" + flags + " --output=" + flags),
               "--output " + flags + " is one of the inputs", "flagfile");
  EXPECT_EQ(read_file(flags), bytes);
  // A flagfile a flagfile names, too.
  const std::string outer = temporary_path("outer_flags.txt");
  write_file(outer, "--flagfile=" + flags + "\n");
  expect_one_error_line(fxrun("--flagfile=" + outer + " --output=" + flags), "is one of the inputs", "nested");
  EXPECT_EQ(read_file(flags), bytes);
}

TEST(FxrunErrorsTest, MistakesThatUsedToPassSilentlyAreErrors) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  // x is a Tensor: libtorch would have made a tensor of True.
  expect_one_error_line(fxrun(m1 + " --concrete-args=x=True"),
               "concrete_args: argument 'x' of forward is a Tensor, which concrete_args cannot fix "
               "to True",
               "tensor");
  // A node that fails while shape_prop runs the graph (batch norm in training
  // mode on one value per channel) fails the run.
  expect_one_error_line(fxrun("--passes=shape_prop --input-shape=1,3,1,1 --training --print=none"),
               "pass 'shape_prop' failed: node 'bn1'", "shape_prop");
  // --atol without --check was ignored (while --threads without --run was an error).
  expect_one_error_line(fxrun(m1 + " --run --input-shape=4 --atol=1 --print=none"),
               "--atol is a tolerance of --check", "atol");
}

TEST(FxrunErrorsTest, MessagesSayWhatIsWrong) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  // Not truncated to an int: 4294967297 used to mean 1.
  expect_one_error_line(fxrun(m1 + " --passes='fixpoint{max_iterations=4294967297}(dce)'"),
               "option 'max_iterations' must be from 1 to 2147483647, not 4294967297", "rounds");
  // A number, but no GPU's (not "must be a number").
  Result gpu = fxrun(m1 + " --run --input-shape=4 --device=cuda:99999999999");
  EXPECT_EQ(gpu.exit_code, 1);
  EXPECT_THAT(gpu.err, Not(HasSubstr("must be a number")));
  EXPECT_THAT(gpu.err, ::testing::AnyOf(HasSubstr("needs CUDA"), HasSubstr("GPU(s), cuda:0 to"),
                                        HasSubstr("no CUDA device is present")));
  // Standard output is a pipe here: /dev/stdout names it, through /proc.
  expect_one_error_line(fxrun(m1 + " --output=/dev/stdout"),
               "--output /dev/stdout is not a regular file (a device, FIFO, pipe or socket), which "
               "writing the result would replace; give a file name, or leave --output out",
               "stdout");
  // A name whose temporary file (13 characters more) the file system refuses:
  // an error before the work, not after it.
  const std::string long_name = temporary_path(std::string(243, 'a'));
  expect_one_error_line(fxrun(m1 + " --output=" + long_name),
               "the name has 243 characters; the result is written first to a temporary file "
               "with 13 more, beyond the file system's 255",
               "long name");
  Result ok = fxrun(m1 + " --print=code --output=" + temporary_path(std::string(242, 'a')));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// Issue 36: `--model=- < m.pt` with --output=/dev/stdin, a link to it or
// --save=m.pt replaced m.pt, exit 0. Standard input is one of the inputs,
// identified by device and inode.
TEST(FxrunErrorsTest, TheModelOnStandardInputIsNeverAnOutput) {
  const std::string model = temporary_path("stdin_model.pt");
  const std::string bytes = read_file(runfile("tests/fixtures/m1.pt"));
  write_file(model, bytes);
  const std::string link = temporary_path("stdin_link");
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink("/dev/stdin", link.c_str()), 0);
  for (const std::string& flags : {std::string("--output=/dev/stdin"), "--output=" + link,
                                   "--save=" + model + " --print=none", std::string("--save=/dev/stdin --print=none")}) {
    Result r = fxrun(absl::StrCat("--model=- ", flags, " < ", model));
    expect_one_error_line(r, "is one of the inputs (standard input, the model)", flags);
    EXPECT_EQ(read_file(model), bytes) << flags;
  }
}

// Issue 36: under a file-size limit SIGXFSZ ended fxrun with no word and the
// temporary left beside the target; and a run whose --output failed had
// already replaced --save's target. Every output is written in full before
// any target is replaced, and EFBIG is an error as others are.
TEST(FxrunErrorsTest, AnOutputPastTheFileSizeLimitReplacesNothing) {
  const std::string saved = temporary_path("limited_save.pt");
  const std::string listing = temporary_path("limited_graph.json");
  write_file(saved, "the previous model\n");
  write_file(listing, "the previous graph\n");
  // The model (2.7 kB) fits, its graph file (7 kB) does not.
  rlimit before;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  rlimit limited = before;
  limited.rlim_cur = 5000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  Result r = fxrun(absl::StrCat("--model=", runfile("tests/fixtures/ops.pt"), " --save=", saved,
                                " --emit=json --output=", listing));
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &before), 0);
  expect_one_error_line(r, "cannot write --output", "file size");
  EXPECT_THAT(r.err, HasSubstr("File too large"));
  EXPECT_EQ(read_file(saved), "the previous model\n");
  EXPECT_EQ(read_file(listing), "the previous graph\n");
  for (const auto& entry : std::filesystem::directory_iterator(std::getenv("TEST_TMPDIR"))) {
    EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".fxrun-"))) << "a temporary was left";
  }
}

// Issue 36: numbers and combinations that crashed or ended in libtorch's text.
TEST(FxrunErrorsTest, Round4MistakesAreOneLineErrors) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  // The runs' count overflowed an int, then the median of no time: SIGSEGV.
  expect_one_error_line(fxrun(m1 + " --run --input-shape=3,4 --repeat=2147483647 --warmup=1"),
                        "--repeat and --warmup take at most 1000000 runs each", "repeat");
  // libtorch's `variable.set_data` message, moving the reference to meta.
  expect_one_error_line(fxrun(m1 + " --check --input-shape=3,4 --device=meta"),
                        "--check compares values, and the meta device has none", "meta check");
  // A TorchScript file of a format version this libtorch does not read:
  // libtorch's 268-character enforce message.
  const std::string newer = temporary_path("version99.pt");
  {
    caffe2::serialize::PyTorchStreamReader reader(runfile("tests/fixtures/m1.pt"));
    caffe2::serialize::PyTorchStreamWriter writer(newer);
    writer.setMinVersion(99);
    for (const std::string& record : reader.getAllRecords()) {
      if (record == ".data/version" || record == "version") continue;  // the writer's own
      auto [data, size] = reader.getRecord(record);
      writer.writeRecord(record, data.get(), size);
    }
    writer.writeEndOfFile();
  }
  Result r = fxrun("--model=" + newer);
  expect_one_error_line(r, "its file format version is 99, and libtorch", "version 99");
  EXPECT_THAT(r.err, HasSubstr("a newer PyTorch wrote it"));
  EXPECT_THAT(r.err, Not(HasSubstr("Your PyTorch installation")));
}

}  // namespace
}  // namespace fx
