// Copyright 2026 The FX for C++ Authors.
//
// fxrun --emit=dot|svg|png end to end: pictures of the bundled ResNet-18,
// rendered by Graphviz's dot (tools/bootstrap.sh installs it), and their
// errors.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using ::fx::testing::read_file;
using ::fx::testing::runfile;

using Result = ::fx::testing::FxrunResult;

constexpr char kPngSignature[] = "\x89PNG\r\n\x1a\n";

Result fxrun(const std::string& args, const std::string& env = "") {
  return ::fx::testing::run_fxrun(args, env);
}

std::string tmp_path(const std::string& name) { return absl::StrCat(getenv("TEST_TMPDIR"), "/", name); }

size_t count_lines_with(const std::string& text, absl::string_view needle) {
  size_t n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) n += absl::StrContains(line, needle);
  return n;
}

TEST(FxrunPicturesTest, DotOfResNet18HasEveryNodeInNestedClusters) {
  Result r = fxrun("--emit=dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("digraph fx_graph {\n"));
  EXPECT_EQ(count_lines_with(r.out, "\" [label=<<B>"), 71u);  // one box per node
  EXPECT_EQ(count_lines_with(r.out, " -> "), 78u);  // 70 in a chain, 8 residual shortcuts
  // The top level: the stem, then layer1, whose first block is a cluster
  // inside it (indentation is nesting) holding layer1_0_conv1.
  EXPECT_THAT(r.out, HasSubstr("\n  \"conv1\" [label=<<B>conv1</B>"));
  EXPECT_THAT(r.out, HasSubstr("\n  subgraph cluster_0 {\n    label=<layer1>;"));
  EXPECT_THAT(r.out, HasSubstr("\n    subgraph cluster_1 {\n      label=<layer1.0>;"));
  EXPECT_THAT(r.out, HasSubstr("\n      \"layer1_0_conv1\" [label=<<B>layer1_0_conv1</B>"));
  EXPECT_THAT(r.out, HasSubstr("\n    subgraph cluster_2 {\n      label=<layer1.1>;"));
  EXPECT_THAT(r.out, HasSubstr("label=<layer4.1>;"));
  EXPECT_THAT(r.out, HasSubstr("\n  \"maxpool\" -> \"layer1_0_conv1\";\n"));
  EXPECT_THAT(r.out, HasSubstr("\n  \"maxpool\" -> \"add\";\n"));
  EXPECT_THAT(r.out, HasSubstr("\n  \"fc\" -> \"output\";\n"));
  // Byte for byte the same each time.
  EXPECT_EQ(fxrun("--emit=dot").out, r.out);
}

TEST(FxrunPicturesTest, ScopeDrawsOneBlockWithItsNeighbours) {
  Result r = fxrun("--emit=dot --emit-scope=layer1.0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines_with(r.out, "\" [label=<<B>"), 7u);
  EXPECT_THAT(r.out, HasSubstr("\n  subgraph cluster_0 {\n    label=<layer1.0>;"));
  EXPECT_THAT(r.out, HasSubstr("\n    \"add\" [label=<<B>add</B>"));
  for (const char* boundary : {"maxpool", "layer1_1_conv1", "add_1"}) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("\n  \"", boundary, "\" [label=<", boundary,
                                              ">, shape=ellipse, style=dashed")));
  }
  EXPECT_THAT(r.out, Not(HasSubstr("\"fc\"")));
  EXPECT_THAT(r.out, Not(HasSubstr("label=<layer1>")));
}

TEST(FxrunPicturesTest, ShapesFromShapePropAreInTheBoxes) {
  Result r = fxrun("--passes=shape_prop --input-shape=1,3,224,224 --emit=dot --emit-scope=layer1.0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every node of layer1.0 keeps maxpool's 64 channels at 56 by 56 (× as HTML).
  EXPECT_EQ(count_lines_with(r.out, "<BR/>1&#215;64&#215;56&#215;56 float32>"), 7u) << r.out;
  Result cheap = fxrun(
      "--passes=shape_prop{device=meta} --input-shape=1,3,224,224 --emit=dot --emit-scope=layer1.0");
  ASSERT_EQ(cheap.exit_code, 0) << cheap.err;
  EXPECT_EQ(cheap.out, r.out);
}

TEST(FxrunPicturesTest, SvgIsADocumentWithTheNodes) {
  Result r = fxrun("--emit=svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("<?xml"));
  EXPECT_THAT(r.out, HasSubstr("<svg width="));
  for (const char* text : {">layer1_0_conv1</text>", ">layer1.0</text>", ">fc</text>",
                           "<title>cluster_1</title>"}) {
    EXPECT_THAT(r.out, HasSubstr(text));
  }
  EXPECT_THAT(r.out, HasSubstr("</svg>"));
  EXPECT_EQ(r.err, "");
}

TEST(FxrunPicturesTest, PngGoesToAFileOrAPipe) {
  const std::string path = tmp_path("block.png");
  Result r = fxrun("--emit=png --emit-scope=layer1.0 --output=" + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string png = read_file(path);
  EXPECT_THAT(png, StartsWith(kPngSignature));
  EXPECT_GT(png.size(), 1000u);
  Result piped = fxrun("--emit=png --emit-scope=layer1.0");  // stdout is a pipe here
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, png);
}

// fxrun with its standard output on a pseudo-terminal, as typed in a shell;
// the exit code and what it wrote on stderr.
Result fxrun_on_terminal(const std::vector<std::string>& args) {
  Result r;
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    ADD_FAILURE() << "no pseudo-terminal: " << strerror(errno);
    return r;
  }
  const int terminal = open(ptsname(master), O_RDWR | O_NOCTTY);
  const std::string err_path = tmp_path("terminal.err");
  const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string program = runfile("tools/fxrun");
  std::vector<char*> argv = {const_cast<char*>(program.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(terminal, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  close(terminal);
  close(err);
  char buffer[4096];
  while (true) {  // until the terminal's last writer is gone (EIO)
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n > 0) r.out.append(buffer, static_cast<size_t>(n));
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_path);
  return r;
}

TEST(FxrunPicturesTest, PngToATerminalIsRefused) {
  Result r = fxrun_on_terminal({"--emit=png"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "fxrun: error: --emit=png writes binary data, which a terminal cannot show: give "
            "--output=FILE.png or redirect standard output to a file\n");
  EXPECT_EQ(r.out, "");
  // SVG is text: a terminal may have it.
  Result svg = fxrun_on_terminal({"--emit=svg", "--emit-scope=layer1.0"});
  EXPECT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_THAT(svg.out, HasSubstr("<svg"));
}

TEST(FxrunPicturesTest, WithoutGraphvizSvgAndPngSayHowToInstallIt) {
  const std::string empty_dir = tmp_path("empty_bin");
  mkdir(empty_dir.c_str(), 0755);
  for (const char* format : {"svg", "png"}) {
    Result r = fxrun(absl::StrCat("--emit=", format, " --output=", tmp_path("never.out")),
                     "PATH=" + empty_dir);
    EXPECT_EQ(r.exit_code, 1) << format;
    EXPECT_EQ(r.err, absl::StrCat("fxrun: error: --emit=", format,
                                  ": Graphviz's dot program is not on PATH (", empty_dir,
                                  "); install Debian's graphviz: apt-get install graphviz "
                                  "(tools/bootstrap.sh does)\n"));
  }
  // DOT text needs no Graphviz.
  Result dot = fxrun("--emit=dot", "PATH=" + empty_dir);
  EXPECT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_THAT(dot.out, StartsWith("digraph"));
}

TEST(FxrunPicturesTest, BadFlagsAreOneLineErrors) {
  struct Case {
    std::string args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"--emit=gif", "fxrun: error: --emit takes json, dot, svg or png, not 'gif'"},
      {"--emit-scope=layer1.0",
       "fxrun: error: --emit-scope says which part of the graph a picture draws: add --emit=dot, "
       "svg or png"},
      {"--emit=json --emit-scope=layer1.0", "--emit-scope says which part of the graph"},
      {"--emit=dot --emit-scope=", "fxrun: error: --emit-scope is empty (an unset variable?)"},
      {"--emit=svg --emit-scope=layer9",
       "fxrun: error: --emit-scope: scope 'layer9' is not a module path of the graph (did you "
       "mean 'layer1'?); module paths: conv1, bn1, relu, maxpool, layer1, layer1.0, "
       "layer1.0.conv1, layer1.0.bn1, layer1.0.relu, layer1.0.conv2, ... ("},
      {"--emit=dot --emit-scope=layer1.", "scope 'layer1.' is not a module path"},
      {"--emit=png --print=code", "--print and --emit both say what to write"},
  };
  for (const Case& c : cases) {
    Result r = fxrun(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << ": " << r.err;
  }
}

TEST(FxrunPicturesTest, HelpNamesThePictureFlags) {
  Result r = fxrun("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("--emit  emit the graph in another format instead: json, or a "
                               "picture: dot"));
  EXPECT_THAT(r.out, HasSubstr("--emit-scope  with --emit=dot|svg|png"));
}

}  // namespace
}  // namespace fx
