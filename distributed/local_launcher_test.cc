// Copyright 2026 The FX for C++ Authors.
#include "distributed/local_launcher.h"

#include <fstream>
#include <sstream>

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
  EXPECT_THAT(std::string(alone.message()), HasSubstr("rank 1 of 2 failed (exit status 75): fxrun: rank 1: error: lost rank 0"));
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
