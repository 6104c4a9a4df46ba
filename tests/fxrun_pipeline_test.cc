// Copyright 2026 The FX for C++ Authors.
//
// fxrun --run --stages=N: pipelines of 2 and 3 processes on this machine,
// checked against the model run in one process; ranks started the way
// torchrun starts them (variables, flags); ranks that die or never come; bad
// addresses and ports. Generous limits: the machine may be loaded.
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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
using testing::run_fxrun;
using testing::temporary_path;

constexpr int kLimit = 600;  // seconds for one fxrun command (3 processes tracing on 2 cores)

std::string model(const std::string& name) {
  return testing::runfile(absl::StrCat("tests/fixtures/", name, ".pt"));
}

std::string resnet18(const std::string& flags) {
  return absl::StrCat("--model=", model("resnet18"),
                      " --input-shape=8,3,64,64 --threads=1 --print=none --check ", flags);
}

// A small transformer: GPT's embeddings, two blocks of causal self-attention
// and the head (real_models.py's mini_gpt); the sizes its blocks read cross
// the cuts as ints.
std::string transformer(const std::string& flags) {
  return absl::StrCat("--model=", model("mini_gpt"),
                      " --input-shape=long:6,8 --threads=1 --print=none --check ", flags);
}

// A TCP port nothing listens on now (the system's choice).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t size = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  close(fd);
  return ntohs(address.sin_port);
}

// What each rank started by a shell script wrote and how it ended.
struct RankResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs `script` (sh), which starts ranks writing rank<R>.out/.err/.status in
// `dir`; returns each rank's result.
std::vector<RankResult> run_ranks_script(const std::string& script, const std::string& dir,
                                         int ranks) {
  const std::string path = absl::StrCat(dir, "/ranks.sh");
  testing::write_file(path, script);
  EXPECT_EQ(std::system(absl::StrCat("sh ", path).c_str()), 0) << script;
  std::vector<RankResult> results(ranks);
  for (int r = 0; r < ranks; ++r) {
    const std::string base = absl::StrCat(dir, "/rank", r);
    results[r].out = testing::read_file(base + ".out");
    results[r].err = testing::read_file(base + ".err");
    const std::string status = testing::read_file(base + ".status");
    results[r].exit_code = status.empty() ? -1 : std::atoi(status.c_str());
  }
  return results;
}

// The shell line starting rank `rank` of `world` in the background, with
// torchrun's variables (rank 0 hosts the store at `port`).
std::string rank_line(const std::string& dir, int rank, int world, int port,
                      const std::string& args) {
  const std::string base = absl::StrCat(dir, "/rank", rank);
  return absl::StrCat("(MASTER_ADDR=127.0.0.1 MASTER_PORT=", port, " RANK=", rank,
                      " WORLD_SIZE=", world, " LOCAL_RANK=", rank, " timeout ", kLimit, " ",
                      testing::runfile("tools/fxrun"), " ", args, " >", base, ".out 2>", base,
                      ".err; echo $? >", base, ".status) &\n");
}

void expect_checked(const testing::FxrunResult& r, int stages, int microbatches) {
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("pipeline: ", stages, " stages on ", stages,
                                            " processes (gloo)")));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat(microbatches, " of ", microbatches,
                                            " outputs received")));
  EXPECT_THAT(r.out, HasSubstr("check: max abs difference"));
  EXPECT_THAT(r.out, HasSubstr("against the original TorchScript module"));
  for (int rank = 0; rank < stages; ++rank) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("rank ", rank, " (stage ", rank, "): per micro-batch")));
  }
}

TEST(FxrunPipelineTest, ResNet18InTwoProcessesMatchesOneProcess) {
  auto r = run_fxrun(resnet18("--stages=2 --microbatches=4"), "", kLimit);
  expect_checked(r, 2, 4);
  EXPECT_THAT(r.out, HasSubstr("4 micro-batch(es) of 2, 2, 2, 2 rows"));
  EXPECT_THAT(r.out, HasSubstr("output 0: float[8, 1000]"));
}

TEST(FxrunPipelineTest, ResNet18InThreeProcessesWithUnevenMicrobatches) {
  auto r = run_fxrun(resnet18("--passes='split{points=layer2,layer4}' --stages=3 --microbatches=3"),
                     "", kLimit);
  expect_checked(r, 3, 3);
  EXPECT_THAT(r.out, HasSubstr("3 micro-batch(es) of 3, 3, 2 rows"));
}

TEST(FxrunPipelineTest, TransformerInTwoAndThreeProcesses) {
  expect_checked(run_fxrun(transformer("--stages=2 --microbatches=2"), "", kLimit), 2, 2);
  expect_checked(run_fxrun(transformer("--stages=3 --microbatches=3 --repeat=2 --warmup=1"), "",
                           kLimit),
                 3, 3);
}

// Issue 35: a placeholder's default (an Optional argument fixed to None with
// --concrete-args) was lost in stage 0, and a buffer returned as an output
// belonged to no stage (the message advised the split that was there).
TEST(FxrunPipelineTest, DefaultsOfInputsAndStateReturnedAsOutputsArePipelined) {
  expect_checked(run_fxrun(absl::StrCat("--model=", model("cross_attention"),
                                        " --concrete-args=context=None,mask=None --input-shape=4,3,8 "
                                        "--threads=1 --print=none --check --stages=2 --microbatches=2"),
                           "", kLimit),
                 2, 2);
  // (In one micro-batch: the buffer is no output along the batch.)
  auto r = run_fxrun(absl::StrCat("--model=", model("returns_buffer"),
                                  " --input-shape=4,4 --threads=1 --print=none --check --stages=2"),
                     "", kLimit);
  expect_checked(r, 2, 1);
  EXPECT_THAT(r.out, HasSubstr("output 1: float[4] sum 6,"));
}

// An output whose dim 0 is not the batch (a Gram matrix) was concatenated
// into another shape, exit 0; every rank now refuses it, naming it, before
// running.
TEST(FxrunPipelineTest, AnOutputThatIsNotAlongTheBatchIsRefusedWithMicrobatches) {
  auto r = run_fxrun(absl::StrCat("--model=", model("gram"),
                                  " --input-shape=8,4 --threads=1 --print=none --run --stages=2 "
                                  "--microbatches=2"),
                     "", kLimit);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.err, HasSubstr("output 1 is float[4, 4] for the whole batch of 8 rows: its dim 0 is "
                               "not the batch"));
  EXPECT_THAT(r.err, HasSubstr("--microbatches=1"));
  auto whole = run_fxrun(absl::StrCat("--model=", model("gram"),
                                      " --input-shape=8,4 --threads=1 --print=none --check --stages=2"),
                         "", kLimit);
  expect_checked(whole, 2, 1);
}

// Issue 54: a graph file whose last stage returns a tensor in oneDNN's
// opaque layout ended in "a bug" on the last rank (copying it outside the
// plan's inference mode fails inside libtorch); it is refused, naming the
// output, as on one process. to_mkldnn keeps samples apart, so micro-batches
// reach the same refusal.
TEST(FxrunPipelineTest, ALastStageReturningAnMkldnnTensorIsRefusedNamingTheOutput) {
  const std::string graph = temporary_path("mkldnn_output.json");
  testing::write_file(graph, R"({"format": "fx-graph", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}},
    {"name": "dense", "op": "call_function", "target": "aten::relu", "args": [{"node": "x"}], "kwargs": {}},
    {"name": "opaque", "op": "call_function", "target": "aten::to_mkldnn", "args": [{"node": "dense"}], "kwargs": {}},
    {"name": "output", "op": "output", "target": "output", "args": [{"node": "opaque"}], "kwargs": {}}],
    "meta": {}})");
  for (const char* microbatches : {"1", "2"}) {
    auto r = run_fxrun(absl::StrCat("--model=", model("m1"), " --graph=", graph,
                                    " --input-shape=4,3 --threads=1 --print=none --run --stages=2 "
                                    "--microbatches=",
                                    microbatches),
                       "", kLimit);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_THAT(r.err, HasSubstr("output 0 is an MKLDNN tensor (oneDNN's opaque layout), and a "
                                 "pipeline returns dense tensors: return aten::to_dense of it"));
    EXPECT_THAT(r.err, Not(HasSubstr("a bug")));
  }
}

TEST(FxrunPipelineTest, RanksStartedWithTorchrunsVariablesOrFlags) {
  const std::string dir = temporary_path("torchrun");
  ASSERT_EQ(std::system(absl::StrCat("mkdir -p ", dir).c_str()), 0);
  const int port = free_port();
  // Rank 0 by variables; rank 1 by flags of the same names.
  std::string script = rank_line(dir, 0, 2, port, transformer("--stages=2 --microbatches=2"));
  script += absl::StrCat("(timeout ", kLimit, " ", testing::runfile("tools/fxrun"), " ",
                         transformer("--stages=2 --microbatches=2"), " --master-addr=127.0.0.1",
                         " --master-port=", port, " --rank=1 --world-size=2 >", dir,
                         "/rank1.out 2>", dir, "/rank1.err; echo $? >", dir, "/rank1.status) &\n",
                         "wait\n");
  auto ranks = run_ranks_script(script, dir, 2);
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].err;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].err;
  EXPECT_EQ(ranks[0].out, "");  // only the last rank reports
  EXPECT_THAT(ranks[1].out, HasSubstr("2 of 2 outputs received"));
  EXPECT_THAT(ranks[1].out, HasSubstr("check: max abs difference"));
}

TEST(FxrunPipelineTest, ARankThatNeverArrivesIsNamedByTheOthers) {
  const std::string dir = temporary_path("never");
  ASSERT_EQ(std::system(absl::StrCat("mkdir -p ", dir).c_str()), 0);
  const int port = free_port();
  const std::string args = transformer("--stages=3 --timeout=30");
  // Ranks 0 and 2 of 3; rank 1 never starts.
  auto ranks = run_ranks_script(
      rank_line(dir, 0, 3, port, args) + rank_line(dir, 2, 3, port, args) + "wait\n", dir, 3);
  for (int r : {0, 2}) {
    EXPECT_EQ(ranks[r].exit_code, 1) << r << ": " << ranks[r].err;
    EXPECT_THAT(ranks[r].err, HasSubstr(absl::StrCat("fxrun: error: rank ", r, ": ")));
    // Within --timeout, or, when rank 0 gave up first and took the store
    // along, when it went; a rank 2 still tracing on a loaded machine may be
    // named with rank 1.
    EXPECT_THAT(ranks[r].err, ::testing::ContainsRegex("ranks? 1(, 2)? did not reach 'ready'")) << r;
  }
}

TEST(FxrunPipelineTest, ARankKilledMidRunIsNamedByTheOthers) {
  const std::string dir = temporary_path("killed");
  ASSERT_EQ(std::system(absl::StrCat("mkdir -p ", dir).c_str()), 0);
  const int port = free_port();
  // A run that would last hours: rank 1 is killed while it goes on (or, on a
  // very slow machine, before it joined: the others must name it either way).
  const std::string args = transformer("--stages=3 --timeout=30 --repeat=1000000");
  std::string script = rank_line(dir, 0, 3, port, args) + rank_line(dir, 2, 3, port, args);
  script += absl::StrCat("MASTER_ADDR=127.0.0.1 MASTER_PORT=", port,
                         " RANK=1 WORLD_SIZE=3 ", testing::runfile("tools/fxrun"), " ", args,
                         " >/dev/null 2>&1 & victim=$!\n", "sleep 20; kill -9 $victim\nwait\n");
  auto ranks = run_ranks_script(script, dir, 3);
  // Each names rank 1 (rank 0 may find rank 2 gone too, having failed on
  // rank 1 first: "ranks 1, 2 did not reach ...").
  for (int r : {0, 2}) {
    EXPECT_EQ(ranks[r].exit_code, 1) << r << ": " << ranks[r].err;
    EXPECT_THAT(ranks[r].err, ::testing::ContainsRegex("ranks? 1[ ,:]")) << r;
  }
}

TEST(FxrunPipelineTest, TheLauncherStopsTheOthersAndNamesTheRankThatDied) {
  const std::string dir = temporary_path("launcher");
  ASSERT_EQ(std::system(absl::StrCat("mkdir -p ", dir).c_str()), 0);
  // The launcher's children are the ranks; the one with RANK=1 is killed.
  const std::string script = absl::StrCat(
      "timeout ", kLimit, " ", testing::runfile("tools/fxrun"), " ",
      transformer("--stages=3 --timeout=60 --repeat=1000000"), " >", dir, "/rank0.out 2>", dir,
      "/rank0.err & launcher=$!\n",
      // Until rank 1 runs (the launcher is timeout's child), then a while.
      "victim=\n",
      "for i in $(seq 300); do\n",
      "  for p in $(cat /proc/$launcher/task/*/children 2>/dev/null); do\n",
      "    for c in $p $(cat /proc/$p/task/*/children 2>/dev/null); do\n",
      "      if tr '\\0' '\\n' </proc/$c/environ 2>/dev/null | grep -qx RANK=1; then victim=$c; fi\n",
      "    done\n",
      "  done\n",
      "  [ -n \"$victim\" ] && break; sleep 1\n",
      "done\n",
      "sleep 20; [ -n \"$victim\" ] && kill -9 $victim\n",
      "wait $launcher; echo $? >", dir, "/rank0.status\n");
  auto launcher = run_ranks_script(script, dir, 1)[0];
  EXPECT_EQ(launcher.exit_code, 1) << launcher.err;
  EXPECT_THAT(launcher.err, HasSubstr("fxrun: error: rank 1 of 3 failed (killed by signal 9"));
  EXPECT_THAT(launcher.err, HasSubstr("stopped the other ranks"));
}

TEST(FxrunPipelineTest, BadAddressesPortsAndFlagsAreClearErrors) {
  const std::string args = transformer("--stages=2 --timeout=5");
  testing::expect_one_error_line(
      run_fxrun(args, "MASTER_ADDR=127.0.0.1 MASTER_PORT=99999 RANK=1 WORLD_SIZE=2"),
      "MASTER_PORT='99999' is out of range", "port out of range");
  testing::expect_one_error_line(
      run_fxrun(args, "MASTER_ADDR=127.0.0.1 MASTER_PORT=http RANK=1 WORLD_SIZE=2"),
      "MASTER_PORT='http' is not a whole number", "port not a number");
  testing::expect_one_error_line(
      run_fxrun(args, "MASTER_ADDR=no-such-host.invalid MASTER_PORT=29511 RANK=1 WORLD_SIZE=2"),
      "cannot reach the rendezvous store at 'no-such-host.invalid':29511", "bad address");
  testing::expect_one_error_line(
      run_fxrun(args, absl::StrCat("MASTER_ADDR=127.0.0.1 MASTER_PORT=", free_port(),
                                   " RANK=1 WORLD_SIZE=2")),
      "cannot reach the rendezvous store", "nobody listening");
  testing::expect_one_error_line(
      run_fxrun(args, "MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 RANK=0 WORLD_SIZE=3"),
      "--stages=2 but the world has 3 processes", "world size");
  testing::expect_one_error_line(run_fxrun(transformer("--microbatches=2")),
                                 "--microbatches is for a pipeline of processes: add --stages=N",
                                 "no --stages");
  testing::expect_one_error_line(
      run_fxrun(absl::StrCat("--model=", model("mini_gpt"), " --stages=2")),
      "add --run (or --check)", "no --run");
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2 --backend=mpi")),
                                 "--backend takes gloo", "backend");
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2 --backend=nccl")),
                                 "--backend=nccl", "nccl");
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2 --save=/tmp/x.pt")),
                                 "--save is written by one process", "save");
  // A port in use for the launcher's store.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t size = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  testing::expect_one_error_line(
      run_fxrun(transformer(absl::StrCat("--stages=2 --master-port=", ntohs(address.sin_port)))),
      absl::StrCat("cannot open the rendezvous store on port ", ntohs(address.sin_port)),
      "port in use");
  close(fd);
  // More micro-batches than rows, in the pipeline's own process.
  auto r = run_fxrun(transformer("--stages=2 --microbatches=7"), "", kLimit);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--microbatches=7 needs a batch of at least 7 rows"));
  // (Every rank checks the batch before any waits on another: whichever ends first is named.)
  EXPECT_THAT(r.err, ::testing::ContainsRegex("rank [01] of 2 failed"));
  // ... once.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
}

// Issue 36: the launcher checked nothing before starting its ranks, which
// each printed the error (and --stages=2147483647 or --microbatches=
// 2147483647 ran out of memory). Each of these is now one line from the
// launcher, before any rank starts.
TEST(FxrunPipelineTest, TheLauncherChecksItsFlagsBeforeAnyRankStarts) {
  for (const char* port : {"0", "65536", "-1"}) {
    testing::expect_one_error_line(
        run_fxrun(transformer(absl::StrCat("--stages=2 --master-port=", port))),
        absl::StrCat("--master-port=", port, " is out of range"), absl::StrCat("port ", port));
  }
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2 --world-size=3")),
                                 "--world-size=3 but --stages=2", "world size");
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2 --local-rank=-1")),
                                 "--local-rank=-1 is out of range", "local rank");
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2 --master-addr=")),
                                 "the rendezvous address (MASTER_ADDR or --master-addr) is empty",
                                 "empty address");
  testing::expect_one_error_line(
      run_fxrun(transformer("--stages=2 --timeout=5 --master-addr=no-such-host.invalid")),
      "--master-addr='no-such-host.invalid': the store fxrun hosts for its ranks on this machine "
      "does not answer there", "address");
  testing::expect_one_error_line(
      run_fxrun(absl::StrCat("--model=- --input-shape=long:6,8 --run --stages=2 < ",
                             model("mini_gpt"))),
      "--model=- with --stages: every process of the pipeline reads the model", "stdin");
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2147483647")),
                                 "--stages=2147483647: a pipeline has at most 65536 processes",
                                 "stages");
  testing::expect_one_error_line(run_fxrun(transformer("--stages=2 --microbatches=2147483647")),
                                 "--microbatches=2147483647: at most 1048576", "microbatches");
}

// Issue 36: 24 stages of ResNet-18 in 3 GiB were started, each reading the
// model, and OOM-killed. The launcher bounds the ranks by the memory
// available (each about 200 MiB and 3 times the model's file) and the
// cores (machine_resources_test checks the arithmetic on made-up machines).
TEST(FxrunPipelineTest, TheLauncherStartsNoMoreRanksThanTheMachineHolds) {
  // 65536 ranks of ResNet-18 (21 TiB) fit no machine.
  testing::expect_one_error_line(
      run_fxrun(resnet18("--stages=65536")),
      "--stages=65536 starts 65536 processes on this machine, each of about", "memory");
  // One rank more than 8 per core (of those this process may run on).
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  ASSERT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  const int cores = CPU_COUNT(&cpus);
  if (8 * cores + 1 > 65536) GTEST_SKIP() << "more cores than a pipeline has ranks";
  const int stages = 8 * cores + 1;
  auto r = run_fxrun(transformer(absl::StrCat("--stages=", stages)));
  testing::expect_one_error_line(r, absl::StrCat("--stages=", stages, " starts ", stages,
                                                 " processes on this machine"), "cores");
}

// Issue 36: --stages beyond the graph's nodes: every rank printed the error,
// one line was cut to "fxrun: error: " (a rank stopped mid-line), and the
// launcher's line repeated "fxrun: error: rank 0: ". The gram model has 5
// nodes to put in stages.
TEST(FxrunPipelineTest, AnErrorEveryRankMakesIsOneLineAndTheLaunchersSaysItOnce) {
  auto r = run_fxrun(absl::StrCat("--model=", model("gram"),
                                  " --input-shape=8,4 --threads=1 --print=none --run --stages=6"),
                     "", kLimit);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = absl::StrSplit(r.err, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << r.err;
  EXPECT_THAT(lines[0], ::testing::MatchesRegex(
                            "fxrun: error: rank [0-5]: pass 'split' failed: split: 6 stages asked "
                            "for, but the graph has 5 nodes to put in them .*"));
  EXPECT_THAT(lines[1], ::testing::MatchesRegex(
                            "fxrun: error: rank [0-5] of 6 failed \\(exit status 1\\): pass 'split' "
                            "failed: split: 6 stages asked for, .*; stopped the other ranks"));
}

// Issue 36: ranks given other --microbatches or --repeat failed at
// --timeout, each blaming the other. They compare what they were given as
// they compare the cut, and each says the same line at once.
TEST(FxrunPipelineTest, RanksGivenOtherSettingsOrInputsSaySoBeforeRunning) {
  struct Case {
    std::string rank0, rank1, message;
  };
  // The transformer's flags but for its inputs.
  auto gpt = [](const std::string& flags) {
    return absl::StrCat("--model=", model("mini_gpt"), " --threads=1 --print=none --check ",
                        "--stages=2 --timeout=120 ", flags);
  };
  const std::vector<Case> cases = {
      {gpt("--input-shape=long:6,8 --microbatches=2"), gpt("--input-shape=long:6,8 --microbatches=3"),
       "rank 1 was given --microbatches=3 and rank 0 --microbatches=2: the ranks of a pipeline run "
       "one schedule, so give every rank the same --microbatches"},
      {gpt("--input-shape=long:6,8"), gpt("--input-shape=long:6,8 --repeat=2"),
       "rank 1 was given --repeat=2 and rank 0 --repeat=1"},
      {gpt("--input-shape=long:6,8"), gpt("--input-shape=long:6,8 --warmup=1"),
       "rank 1 was given --warmup=1 and rank 0 --warmup=0"},
      {gpt("--input-shape=long:6,8"), gpt("--input-shape=long:4,8"),
       "rank 1's inputs are long[4, 8] and rank 0's long[6, 8]"},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    const std::string dir = temporary_path(absl::StrCat("settings", c));
    ASSERT_EQ(std::system(absl::StrCat("mkdir -p ", dir).c_str()), 0);
    const int port = free_port();
    // Within --timeout the ranks would have blamed each other.
    auto ranks = run_ranks_script(rank_line(dir, 0, 2, port, cases[c].rank0) +
                                      rank_line(dir, 1, 2, port, cases[c].rank1) + "wait\n",
                                  dir, 2);
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(ranks[r].exit_code, 1) << cases[c].rank1 << ": " << ranks[r].err;
      EXPECT_THAT(ranks[r].err, ::testing::StartsWith(absl::StrCat("fxrun: error: rank ", r, ": ")));
      EXPECT_THAT(ranks[r].err, HasSubstr(cases[c].message)) << r;
      EXPECT_EQ(std::count(ranks[r].err.begin(), ranks[r].err.end(), '\n'), 1) << ranks[r].err;
    }
  }
}

}  // namespace
}  // namespace fx
