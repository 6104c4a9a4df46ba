// Copyright 2026 The FX for C++ Authors.
//
// fxrun's guarantees to a user who gets things wrong, each checked the way it
// matters: no data loss (the bytes of the files after the run), no crash, no
// hang, one `fxrun: error: ...` line with exit status 1 for every error, a
// warning when an option matched nothing, and messages that show what the
// user typed without flooding or corrupting the terminal.
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
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
using ::fx::testing::read_file;
using ::fx::testing::runfile;

using Result = ::fx::testing::FxrunResult;

Result fxrun(const std::string& args) { return ::fx::testing::run_fxrun(args); }

std::string tmp(const std::string& name) { return absl::StrCat(getenv("TEST_TMPDIR"), "/", name); }

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// One error line, status 1.
void expect_error(const Result& r, const std::string& message, const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << what << ": " << r.err;
  EXPECT_THAT(r.err, ::testing::StartsWith("fxrun: error: ")) << what;
  EXPECT_THAT(r.err, HasSubstr(message)) << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
}

TEST(FxrunErrorsTest, OutputNamingAnInputIsRefusedAndTheInputKeepsItsBytes) {
  const std::string model = tmp("model_copy.pt");
  const std::string bytes = read_file(runfile("tests/fixtures/m1.pt"));
  write(model, bytes);
  Result r = fxrun(absl::StrCat("--model=", model, " --output=", model));
  expect_error(r, "--output " + model + " is one of the inputs", "output = model");
  EXPECT_EQ(read_file(model), bytes);
  // Also through another spelling of the same file.
  r = fxrun(absl::StrCat("--model=", model, " --output=", getenv("TEST_TMPDIR"), "/./model_copy.pt"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(read_file(model), bytes);
}

TEST(FxrunErrorsTest, AFailedRunLeavesAnExistingOutputAsItWas) {
  const std::string out = tmp("kept.txt");
  write(out, "the previous result\n");
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
  expect_error(fxrun("--output=/no/such/dir/x.txt"),
               "cannot write --output /no/such/dir/x.txt: No such file or directory", "no dir");
  expect_error(fxrun(absl::StrCat("--output=", getenv("TEST_TMPDIR"))), "is a directory", "dir");
  expect_error(fxrun("--output="), "--output is empty", "empty");
}

TEST(FxrunErrorsTest, ModelsAreRegularFilesNeverWaitedOn) {
  const std::string fifo = tmp("model.fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A FIFO with no writer: an error at once, not a hang.
  expect_error(fxrun("--model=" + fifo), "cannot read model " + fifo + ": it is not a regular file",
               "fifo");
  expect_error(fxrun(absl::StrCat("--model=", getenv("TEST_TMPDIR"))), "it is a directory", "dir");
  // A pipe is read through --model=-.
  Result piped = fxrun(absl::StrCat("--model=- --print=code < ", runfile("tests/fixtures/m1.pt")));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_THAT(piped.out, HasSubstr("relu = self.relu(x)"));
  expect_error(fxrun("--model=- < /dev/null"), "standard input is empty", "empty stdin");
  expect_error(fxrun("--model=/dev/stdin < /dev/null"), "it is not a regular file", "/dev/stdin");
  expect_error(fxrun("--model="), "--model is empty", "empty --model");
}

TEST(FxrunErrorsTest, PluginsThatWouldCrashAreRefused) {
  // fxGetPluginInfo is a data symbol: calling it would crash.
  expect_error(fxrun("--plugin=" + runfile("tests/plugins/libdata_entry_point.so")),
               "its fxGetPluginInfo is not a function", "data entry point");
  expect_error(fxrun("--plugin=" + runfile("tests/plugins/libthrowing.so")),
               "threw while registering: cannot find my configuration file", "throwing");
}

TEST(FxrunErrorsTest, CustomOperatorsNameTheOperatorAndLoadWithOpLibrary) {
  const std::string model = runfile("tests/fixtures/uses_nms.pt");
  expect_error(fxrun("--model=" + model),
               "the model calls operator torchvision::nms, which no loaded library provides; load "
               "its library first with --op-library=PATH",
               "missing op");
  std::string library = read_file(runfile("tests/fixtures/torchvision_ops_library.txt"));
  library.pop_back();  // the newline
  Result r = fxrun(absl::StrCat("--model=", model, " --op-library=", library, " --print=code"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("torch.ops.torchvision.nms.default(boxes, scores, 0.5)"));
  expect_error(fxrun("--op-library=/no/lib.so"), "cannot open --op-library /no/lib.so", "no lib");
  expect_error(fxrun("--op-library=" + runfile("tests/plugins/not_a_library.txt")),
               "cannot load --op-library", "not a library");
}

TEST(FxrunErrorsTest, FlagErrorsAreFxrunErrors) {
  expect_error(fxrun("--modle=x.pt"), "unknown flag '--modle' (did you mean 'model'?)", "typo");
  expect_error(fxrun("--verify-each=maybe"), "--verify-each: 'maybe' is not valid", "bool");
  expect_error(fxrun("--flagfile=/no/flags.txt"),
               "cannot read --flagfile /no/flags.txt: No such file or directory", "flagfile");
  expect_error(fxrun("--print=code --print=graph"), "--print is given twice", "twice");
  expect_error(fxrun("--model"), "--model needs a value", "no value");
  // --help=false is no request for help; the run goes on.
  Result r = fxrun(absl::StrCat("--help=false --print=none --model=", runfile("tests/fixtures/m1.pt")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Flags from a file.
  const std::string flags = tmp("flags.txt");
  write(flags, absl::StrCat("# a comment\n--model=", runfile("tests/fixtures/m1.pt"), "\n--print=code\n"));
  r = fxrun("--flagfile=" + flags);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("def forward(self, x):"));
}

TEST(FxrunErrorsTest, MistakesThatUsedToDoNothingSayso) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt");
  expect_error(fxrun(m1 + " --passes='inline{modules=}'"), "option 'modules' needs at least one name",
               "empty list");
  expect_error(fxrun(m1 + " --passes='inline{recurse=true recurse=false}'"),
               "pass 'inline' has option 'recurse' twice", "duplicate key");
  expect_error(fxrun(m1 + " --print=code --emit=json"), "--print and --emit", "print and emit");
  expect_error(fxrun(m1 + " --passes=dce --print-after=inline"),
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
  const std::string flags = tmp("huge.txt");
  write(flags, "--passes=" + std::string(1 << 20, 'x') + "\n");
  Result r = fxrun("--flagfile=" + flags);
  expect_error(r, "unknown pass 'xxxx", "huge name");
  EXPECT_LT(r.err.size(), 600u);
  EXPECT_THAT(r.err, HasSubstr("(1048576 characters)"));
  // An escape sequence that would clear the screen is shown, not sent.
  r = fxrun("--passes=$'dce\\x1b[2J'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, Not(HasSubstr("\x1b")));
  EXPECT_THAT(r.err, HasSubstr("\\x1b[2J"));
  // Untraceable models point at the flags a command-line user has.
  r = fxrun("--model=" + runfile("tests/fixtures/gated.pt"));
  expect_error(r, "control flow depends on an input value", "untraceable");
  EXPECT_THAT(r.err, HasSubstr("--tracer=module_path,leaf_policy{leaves=Gate}"));
}

TEST(FxrunErrorsTest, InliningAModuleWithOverloadedForwardSaysWhy) {
  Result r = fxrun(absl::StrCat("--model=", runfile("tests/fixtures/lstm.pt"),
                                " --passes=inline --print=none"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("its forward is overloaded in TorchScript"));
  EXPECT_THAT(r.err, Not(HasSubstr("has no method")));
}

}  // namespace
}  // namespace fx
