// Copyright 2026 The FX for C++ Authors.
#include "distributed/local_launcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

// A launch of `/bin/sh -c script` as every rank.
LocalLaunch shell(const std::string& script, int world_size) {
  LocalLaunch launch;
  launch.program = "/bin/sh";
  launch.args = {"sh", "-c", script};
  launch.world_size = world_size;
  launch.port = 4321;
  launch.grace = std::chrono::seconds(2);
  return launch;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LocalLauncherTest, EveryRankGetsItsVariables) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  LocalLaunch launch = shell(
      "echo \"$MASTER_ADDR:$MASTER_PORT $RANK/$WORLD_SIZE $LOCAL_RANK $TORCHELASTIC_USE_AGENT_STORE "
      "$EXTRA\" > \"$OUT_DIR/rank$RANK\"",
      3);
  launch.env = {{"OUT_DIR", dir}, {"EXTRA", "given"}};
  ASSERT_TRUE(run_local_ranks(launch).ok());
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(read(dir + "/rank" + std::to_string(r)),
              "127.0.0.1:4321 " + std::to_string(r) + "/3 " + std::to_string(r) + " True given\n");
  }
}

TEST(LocalLauncherTest, AFailedRankStopsTheOthersAndIsNamedWithItsCause) {
  // Rank 1 fails at once; ranks 0 and 2 would run for ten minutes.
  absl::Status s = run_local_ranks(shell(
      "if [ \"$RANK\" = 1 ]; then echo 'fxrun: rank 1: error: the model is broken' >&2; exit 3; "
      "fi; exec sleep 600",
      3));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("rank 1 of 3 failed (exit status 3)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("the model is broken"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("stopped the other ranks"));
}

// Issue 35: rank 0 failed, rank 1 then lost its connection and exited first;
// the launcher named rank 1 ("the connection with rank 0 broke"). A rank
// failing because of a peer waits for the peer's own cause.
TEST(LocalLauncherTest, TheRankThatFailedOfItsOwnCauseIsNamedNotThePeerThatLostIt) {
  absl::Status s = run_local_ranks(shell(
      "if [ \"$RANK\" = 1 ]; then echo 'fxrun: rank 1: error: the connection with rank 0 broke' >&2; "
      "exit 75; fi; sleep 1; echo 'fxrun: rank 0: error: missing input mask' >&2; exit 1",
      2));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("rank 0 of 2 failed (exit status 1)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("missing input mask"));
  // Alone, it is still reported.
  absl::Status alone = run_local_ranks(shell(
      "if [ \"$RANK\" = 1 ]; then echo 'fxrun: rank 1: error: lost rank 0' >&2; exit 75; fi; exit 0", 2));
  ASSERT_FALSE(alone.ok());
  EXPECT_THAT(std::string(alone.message()), HasSubstr("rank 1 of 2 failed (exit status 75): lost rank 0"));
}

// What the launcher writes on its standard error while `launch` runs, and
// how it ended.
std::pair<absl::Status, std::string> run_capturing_stderr(const LocalLaunch& launch) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/launcher.err";
  fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(file, STDERR_FILENO);
  close(file);
  absl::Status s = run_local_ranks(launch);
  dup2(saved, STDERR_FILENO);
  close(saved);
  return {s, read(path)};
}

// Issue 36: with --stages beyond the graph's nodes each rank printed the same
// error, and the launcher's last line repeated "fxrun: error: rank 0: ".
// Every rank says it; rank 0 fails once ranks 1 and 2 have.
TEST(LocalLauncherTest, AnErrorEveryRankMakesIsPassedThroughOnceAndNamedOnce) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  LocalLaunch launch = shell(
      "echo \"prog: error: rank $RANK: split: 6 stages asked for\" >&2; "
      "if [ \"$RANK\" != 0 ]; then touch \"$DIR/said$RANK\"; exec sleep 600; fi; "
      "while [ ! -e \"$DIR/said1\" ] || [ ! -e \"$DIR/said2\" ]; do sleep 0.05; done; exit 1",
      3);
  launch.env = {{"DIR", dir}};
  auto [s, err] = run_capturing_stderr(launch);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(std::string(s.message()),
            "rank 0 of 3 failed (exit status 1): split: 6 stages asked for; stopped the other ranks");
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(err, '\n', absl::SkipEmpty())) {
    EXPECT_THAT(std::string(line), ::testing::MatchesRegex("prog: error: rank [012]: split: 6 stages asked for"));
    ++lines;
  }
  EXPECT_EQ(lines, 1) << err;
}

// Issue 36: a line was cut to "fxrun: error: ": a rank the launcher stopped
// (SIGTERM) had written its error line's beginning only. Rank 1 writes
// half a line, then rank 0 fails and the launcher stops rank 1.
TEST(LocalLauncherTest, WhatARankWritesOnceTheLauncherStoppedItIsNotPassedThrough) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  LocalLaunch launch = shell(
      "if [ \"$RANK\" = 1 ]; then printf 'prog: error: ' >&2; touch \"$DIR/half\"; exec sleep 600; fi; "
      "while [ ! -e \"$DIR/half\" ]; do sleep 0.05; done; echo 'prog: error: rank 0: broken' >&2; exit 1",
      2);
  launch.env = {{"DIR", dir}};
  auto [s, err] = run_capturing_stderr(launch);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(err, "prog: error: rank 0: broken\n");
  // A line written before the stop goes through; a handler's line saying
  // the rank was stopped does not (fxrun's names the plugin code the signal
  // interrupted).
  std::remove((dir + "/said").c_str());
  LocalLaunch trapped = shell(
      "if [ \"$RANK\" = 1 ]; then sleep 600 & s=$!; "
      "trap 'kill $s; echo \"prog: error: rank 1: SIGTERM ended the process\" >&2; exit 1' TERM; "
      "echo 'prog: warning: rank 1: before' >&2; touch \"$DIR/said\"; wait $s; fi; "
      "while [ ! -e \"$DIR/said\" ]; do sleep 0.05; done; echo 'prog: error: rank 0: broken' >&2; exit 1",
      2);
  trapped.env = {{"DIR", dir}};
  auto [stopped, told] = run_capturing_stderr(trapped);
  ASSERT_FALSE(stopped.ok());
  EXPECT_THAT(told, HasSubstr("prog: warning: rank 1: before\n"));
  EXPECT_THAT(told, HasSubstr("prog: error: rank 0: broken\n"));
  EXPECT_THAT(told, ::testing::Not(HasSubstr("SIGTERM"))) << told;
  // A rank that ends by itself keeps its unended line.
  auto [ended, said] = run_capturing_stderr(shell("printf 'last words' >&2; exit 2", 1));
  ASSERT_FALSE(ended.ok());
  EXPECT_EQ(said, "last words\n");
}

TEST(LocalLauncherTest, ARankKilledByASignalIsNamed) {
  absl::Status s = run_local_ranks(shell(
      "if [ \"$RANK\" = 0 ]; then kill -9 $$; fi; exec sleep 600", 2));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("rank 0 of 2 failed (killed by signal 9"));
}

TEST(LocalLauncherTest, ARankIgnoringSigtermIsKilled) {
  absl::Status s = run_local_ranks(shell(
      "if [ \"$RANK\" = 1 ]; then exit 1; fi; trap '' TERM; exec sleep 600", 2));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("rank 1 of 2 failed"));
}

TEST(LocalLauncherTest, AProgramThatCannotStartIsNamed) {
  LocalLaunch launch = shell("true", 2);
  launch.program = "/nonexistent/fxrun";
  absl::Status s = run_local_ranks(launch);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("cannot start rank 0"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("/nonexistent/fxrun"));
}

}  // namespace
}  // namespace fx
