// Copyright 2026 The FX for C++ Authors.
#include "distributed/world.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

EnvironmentLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const std::map<std::string, std::string> kTorchrun = {
    {"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}, {"RANK", "2"},
    {"WORLD_SIZE", "4"},         {"LOCAL_RANK", "0"}};

TEST(WorldTest, ReadsTorchrunsVariables) {
  auto world = world_from({}, env_of(kTorchrun));
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ(world->master_addr, "10.0.0.1");
  EXPECT_EQ(world->master_port, 29500);
  EXPECT_EQ(world->rank, 2);
  EXPECT_EQ(world->world_size, 4);
  EXPECT_EQ(world->local_rank, 0);
  EXPECT_FALSE(world->hosts_store());
  EXPECT_FALSE(world->is_last());
}

TEST(WorldTest, FlagsWinOverVariablesAndRankZeroHostsTheStore) {
  WorldFlags flags;
  flags.rank = 0;
  flags.master_port = 1234;
  auto world = world_from(flags, env_of(kTorchrun));
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ(world->rank, 0);
  EXPECT_EQ(world->master_port, 1234);
  EXPECT_EQ(world->local_rank, 0);
  EXPECT_TRUE(world->hosts_store());
}

TEST(WorldTest, AnAgentsStoreMakesRankZeroAClient) {
  auto vars = kTorchrun;
  vars["RANK"] = "0";
  vars["TORCHELASTIC_USE_AGENT_STORE"] = "True";
  auto world = world_from({}, env_of(vars));
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_FALSE(world->hosts_store());
}

TEST(WorldTest, LocalRankDefaultsToRank) {
  auto vars = kTorchrun;
  vars.erase("LOCAL_RANK");
  auto world = world_from({}, env_of(vars));
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ(world->local_rank, 2);
}

TEST(WorldTest, BadValuesNameTheVariableAndTheFix) {
  struct Case {
    std::string variable, value, message;
  };
  for (const Case& c : std::vector<Case>{
           {"MASTER_PORT", "http", "MASTER_PORT='http' is not a whole number"},
           {"MASTER_PORT", "70000", "MASTER_PORT='70000' is out of range"},
           {"MASTER_PORT", "0", "is from 1 to 65535"},
           {"RANK", "4", "RANK='4' is out of range"},
           {"RANK", "-1", "out of range"},
           {"WORLD_SIZE", "0", "WORLD_SIZE='0' is out of range"},
           {"MASTER_ADDR", " ", "is empty"},
       }) {
    auto vars = kTorchrun;
    vars[c.variable] = c.value;
    auto world = world_from({}, env_of(vars));
    ASSERT_FALSE(world.ok()) << c.variable << "=" << c.value;
    EXPECT_THAT(std::string(world.status().message()), HasSubstr(c.message));
  }
  for (const char* missing : {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"}) {
    auto vars = kTorchrun;
    vars.erase(missing);
    auto world = world_from({}, env_of(vars));
    ASSERT_FALSE(world.ok()) << missing;
    EXPECT_THAT(std::string(world.status().message()),
                HasSubstr(std::string(missing) + " is not set"));
  }
  WorldFlags flags;
  flags.world_size = 2;
  flags.rank = 2;
  auto world = world_from(flags, env_of(kTorchrun));
  ASSERT_FALSE(world.ok());
  EXPECT_THAT(std::string(world.status().message()), HasSubstr("--rank=2 is out of range"));
}

TEST(WorldTest, StartedAsRankWhenRankIsGiven) {
  EXPECT_TRUE(started_as_rank({}, env_of(kTorchrun)));
  EXPECT_FALSE(started_as_rank({}, env_of({})));
  WorldFlags flags;
  flags.rank = 1;
  EXPECT_TRUE(started_as_rank(flags, env_of({})));
}

TEST(WorldTest, LocalVariablesStartARankOfTheLaunchersWorld) {
  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : local_rank_variables(1, 3, 4321)) vars[name] = value;
  auto world = world_from({}, env_of(vars));
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ(world->rank, 1);
  EXPECT_EQ(world->world_size, 3);
  EXPECT_EQ(world->master_port, 4321);
  EXPECT_EQ(world->master_addr, "127.0.0.1");
  EXPECT_TRUE(world->store_hosted_elsewhere);
}

}  // namespace
}  // namespace fx
