// Copyright 2026 The FX for C++ Authors.
//
// Ranks as threads of this process: a real TCPStore on a free port, real
// Gloo connections over loopback.
#include "distributed/tensor_exchange.h"

#include <functional>
#include <future>
#include <thread>

#include <ATen/ATen.h>

#include "distributed/process_group.h"
#include "distributed/rendezvous.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

struct LocalWorld {
  c10::intrusive_ptr<c10d::TCPStore> host;
  int size = 2;

  World world(int rank) const {
    World w;
    w.master_addr = "127.0.0.1";
    w.master_port = host->getPort();
    w.rank = rank;
    w.world_size = size;
    w.local_rank = rank;
    w.store_hosted_elsewhere = true;
    return w;
  }
};

LocalWorld make_world(int size) {
  auto host = host_store(0, 30s);
  EXPECT_TRUE(host.ok()) << host.status();
  EXPECT_GT((*host)->getPort(), 0);  // port 0: the system chose a free one
  return LocalWorld{*host, size};
}

// Runs `body(rank, group)` on every rank at once, each in its own thread
// with its own store connection and process group (timeout `timeout`).
void run_ranks(const LocalWorld& local, std::chrono::milliseconds timeout,
               const std::function<void(int, PeerGroup&)>& body) {
  std::vector<std::thread> threads;
  for (int r = 0; r < local.size; ++r) {
    threads.emplace_back([&, r] {
      const World world = local.world(r);
      auto store = connect_store(world, timeout);
      ASSERT_TRUE(store.ok()) << store.status();
      auto group = PeerGroup::connect(*store, world, CommBackend::kGloo, timeout);
      ASSERT_TRUE(group.ok()) << group.status();
      // Every rank's connections are up before any body runs: a rank whose
      // body returns at once would otherwise close its side while another
      // rank is still connecting, and that rank's connect would fail.
      (*store)->add("run_ranks/connected", 1);
      while ((*store)->add("run_ranks/connected", 0) < local.size) {
        std::this_thread::sleep_for(1ms);
      }
      body(r, **group);
    });
  }
  for (auto& t : threads) t.join();
}

TEST(TensorExchangeTest, ValuesOfUnknownShapesCrossWithTheirHeader) {
  const at::Tensor floats = at::rand({2, 3});
  const at::Tensor longs = at::arange(4);
  const at::Tensor transposed = at::rand({3, 5}).t();  // not contiguous
  const at::Tensor empty = at::empty({0, 3});
  const std::vector<c10::IValue> sent = {floats, longs, int64_t{5}, 2.5, true, c10::IValue(),
                                         c10::IValue(std::vector<int64_t>{1, 2}), transposed,
                                         empty};
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
  std::vector<c10::IValue> got;
  run_ranks(make_world(2), 30s, [&](int rank, PeerGroup& group) {
    if (rank == 0) {
      for (int64_t seq : {0, 1}) {
        auto outgoing = send_values(group, sent, names, 1, seq);
        ASSERT_TRUE(outgoing.ok()) << outgoing.status();
        ASSERT_TRUE(finish_sending(group, *outgoing).ok());
      }
    } else {
      ReceiveTimes times;
      for (int64_t seq : {0, 1}) {
        auto values = recv_values(group, names, 0, seq, c10::Device(c10::kCPU), &times);
        ASSERT_TRUE(values.ok()) << values.status();
        got = *values;
      }
      EXPECT_GE(times.waiting + times.moving, 0);
    }
  });
  ASSERT_EQ(got.size(), sent.size());
  EXPECT_TRUE(at::equal(got[0].toTensor(), floats));
  EXPECT_TRUE(at::equal(got[1].toTensor(), longs));
  EXPECT_EQ(got[1].toTensor().scalar_type(), at::kLong);
  EXPECT_EQ(got[2].toInt(), 5);
  EXPECT_EQ(got[3].toDouble(), 2.5);
  EXPECT_EQ(got[4].toBool(), true);
  EXPECT_TRUE(got[5].isNone());
  EXPECT_EQ(got[6].toIntVector(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(at::equal(got[7].toTensor(), transposed));
  EXPECT_EQ(got[8].toTensor().sizes(), empty.sizes());
}

TEST(TensorExchangeTest, AValueThatCannotCrossIsRefusedByName) {
  auto header = encode_header({at::rand({2}), c10::ivalue::Tuple::create({at::rand({1})})},
                              {"x", "pair"}, 0);
  ASSERT_FALSE(header.ok());
  EXPECT_THAT(std::string(header.status().message()), HasSubstr("pair"));
  EXPECT_THAT(std::string(header.status().message()), HasSubstr("Tuple"));
}

TEST(TensorExchangeTest, ALostOrForeignMessageIsAnErrorNotAMixUp) {
  auto header = encode_header({at::rand({2, 2})}, {"x"}, 7);
  ASSERT_TRUE(header.ok());
  auto decoded = decode_header(*header, {"x"}, 7, 0, c10::Device(c10::kCPU));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ((*decoded)[0].toTensor().sizes(), at::IntArrayRef({2, 2}));
  auto reordered = decode_header(*header, {"x"}, 6, 0, c10::Device(c10::kCPU));
  ASSERT_FALSE(reordered.ok());
  EXPECT_THAT(std::string(reordered.status().message()), HasSubstr("message 7 where 6"));
  auto counted = decode_header(*header, {"x", "y"}, 7, 3, c10::Device(c10::kCPU));
  ASSERT_FALSE(counted.ok());
  EXPECT_THAT(std::string(counted.status().message()), HasSubstr("rank 3 carries 1 values"));
  std::vector<int64_t> truncated(header->begin(), header->end() - 1);
  EXPECT_FALSE(decode_header(truncated, {"x"}, 7, 0, c10::Device(c10::kCPU)).ok());
  EXPECT_FALSE(decode_header({1, 2, 3}, {"x"}, 7, 0, c10::Device(c10::kCPU)).ok());
}

TEST(TensorExchangeTest, APeerThatNeverSendsEndsTheWaitNamingIt) {
  absl::Status waited;
  run_ranks(make_world(2), 5s, [&](int rank, PeerGroup& group) {
    if (rank == 1) waited = recv_values(group, {"x"}, 0, 0, c10::Device(c10::kCPU)).status();
    // Rank 0 sends nothing, and keeps its group until rank 1 gave up.
    if (rank == 0) std::this_thread::sleep_for(7s);
  });
  ASSERT_FALSE(waited.ok());
  EXPECT_THAT(std::string(waited.message()), HasSubstr("rank 0"));
}

TEST(TensorExchangeTest, APeerThatLeavesEndsTheWaitNamingIt) {
  absl::Status waited;
  run_ranks(make_world(2), 20s, [&](int rank, PeerGroup& group) {
    if (rank == 0) waited = recv_values(group, {"x"}, 1, 0, c10::Device(c10::kCPU)).status();
    // Rank 1 returns at once: its group closes its connections.
  });
  ASSERT_FALSE(waited.ok());
  EXPECT_THAT(std::string(waited.message()), HasSubstr("rank 1"));
}

TEST(RendezvousTest, RanksThatNeverArriveAreNamed) {
  LocalWorld local = make_world(3);
  std::vector<absl::Status> results(3);
  std::vector<std::thread> threads;
  for (int r : {0, 2}) {  // rank 1 never comes
    threads.emplace_back([&, r] {
      auto store = connect_store(local.world(r), 30s);
      ASSERT_TRUE(store.ok()) << store.status();
      results[r] = wait_for_ranks(**store, local.world(r), "ready", 1s);
    });
  }
  for (auto& t : threads) t.join();
  for (int r : {0, 2}) {
    ASSERT_FALSE(results[r].ok()) << r;
    EXPECT_EQ(results[r].code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(std::string(results[r].message()), HasSubstr("rank 1 did not reach 'ready'"));
  }
}

TEST(RendezvousTest, RanksShareWhatTheyPublish) {
  LocalWorld local = make_world(2);
  std::vector<std::string> gathered;
  std::vector<std::thread> threads;
  for (int r : {0, 1}) {
    threads.emplace_back([&, r] {
      auto store = connect_store(local.world(r), 30s);
      ASSERT_TRUE(store.ok()) << store.status();
      ASSERT_TRUE(publish(**store, local.world(r), "times", "rank" + std::to_string(r)).ok());
      if (r == 1) {
        auto all = gather_from_ranks(**store, local.world(r), "times", 30s);
        ASSERT_TRUE(all.ok()) << all.status();
        gathered = *all;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(gathered, (std::vector<std::string>{"rank0", "rank1"}));
}

TEST(RendezvousTest, NoStoreAtTheAddressIsAClearError) {
  LocalWorld local = make_world(2);
  World world = local.world(1);
  world.master_port = local.host->getPort();
  local.host.reset();  // nothing listens there any more
  auto store = connect_store(world, 1s);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("cannot reach the rendezvous store"));
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("MASTER_ADDR:MASTER_PORT"));
}

TEST(ProcessGroupTest, NcclWithoutItIsRefusedWithTheReason) {
  auto backend = parse_backend("nccl");
  ASSERT_TRUE(backend.ok());
  absl::Status available = backend_available(*backend);
#if !defined(FX_LIBTORCH_HAS_NCCL)
  ASSERT_FALSE(available.ok());
  EXPECT_THAT(std::string(available.message()), HasSubstr("built without NCCL"));
#endif
  EXPECT_FALSE(parse_backend("mpi").ok());
  EXPECT_TRUE(backend_available(CommBackend::kGloo).ok());
}

}  // namespace
}  // namespace fx
