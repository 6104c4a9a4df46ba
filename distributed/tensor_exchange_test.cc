// Copyright 2026 The FX for C++ Authors.
//
// Ranks as threads of this process: a real TCPStore on a free port, real
// Gloo connections over loopback (NCCL's between GPUs, where there are two).
#include "distributed/tensor_exchange.h"

#include <functional>
#include <future>
#include <thread>

#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/tensor.h>
#include <torch/cuda.h>

#include "distributed/process_group.h"
#include "absl/strings/str_cat.h"
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
               const std::function<void(int, PeerGroup&)>& body,
               CommBackend backend = CommBackend::kGloo) {
  std::vector<std::thread> threads;
  for (int r = 0; r < local.size; ++r) {
    threads.emplace_back([&, r] {
      const World world = local.world(r);
      auto store = connect_store(world, timeout);
      ASSERT_TRUE(store.ok()) << store.status();
      auto group = PeerGroup::connect(*store, world, backend, timeout);
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
  EXPECT_EQ(decoded->values[0].toTensor().sizes(), at::IntArrayRef({2, 2}));
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

// Issue 36: what a peer's header says is checked before anything is
// allocated or handed to libtorch. The header of one float[4, 4] tensor x
// is: magic, sequence, count, kind, dtype, dims, 4, 4, end mark.
TEST(TensorExchangeTest, WhatAPeersHeaderAnnouncesIsCheckedBeforeAnythingIsMade) {
  auto good = encode_header({at::rand({4, 4})}, {"x"}, 0);
  ASSERT_TRUE(good.ok()) << good.status();
  ASSERT_EQ(good->size(), 9u);
  constexpr size_t kDtype = 4, kDims = 5, kFirstSize = 6;
  auto decoded = [](const std::vector<int64_t>& header) {
    return decode_header(header, {"x"}, 0, 0, c10::Device(c10::kCPU)).status();
  };
  auto refused = [&](std::vector<int64_t> header, const std::string& message, const std::string& what) {
    absl::Status s;
    EXPECT_NO_THROW(s = decoded(header)) << what;
    EXPECT_FALSE(s.ok()) << what;
    EXPECT_THAT(std::string(s.message()), HasSubstr(message)) << what;
    EXPECT_THAT(std::string(s.message()), HasSubstr("rank 0")) << what;
  };
  ASSERT_TRUE(decoded(*good).ok());
  // Dtypes: quantized ones, Undefined, past the last, negative.
  for (int64_t dtype : {static_cast<int64_t>(c10::ScalarType::QInt8),
                        static_cast<int64_t>(c10::ScalarType::QUInt8),
                        static_cast<int64_t>(c10::ScalarType::QInt32),
                        static_cast<int64_t>(c10::ScalarType::Undefined),
                        static_cast<int64_t>(c10::ScalarType::NumOptions), int64_t{-1},
                        int64_t{1} << 40}) {
    std::vector<int64_t> h = *good;
    h[kDtype] = dtype;
    refused(h, "not one a pipeline carries", absl::StrCat("dtype ", dtype));
  }
  // Sizes whose bytes overflow (with a 0 too: libtorch multiplies them), or
  // pass the machine's memory; negative.
  for (std::vector<int64_t> sizes : std::vector<std::vector<int64_t>>{
           {int64_t{1} << 40, int64_t{1} << 40}, {INT64_MAX, 2}, {INT64_MAX, 0}}) {
    std::vector<int64_t> h = *good;
    h[kFirstSize] = sizes[0];
    h[kFirstSize + 1] = sizes[1];
    refused(h, "more bytes than a tensor can hold", absl::StrCat("sizes ", sizes[0], "x", sizes[1]));
  }
  {
    std::vector<int64_t> h = *good;
    h[kFirstSize] = int64_t{1} << 20;
    h[kFirstSize + 1] = int64_t{1} << 30;  // 4 PiB of floats
    refused(h, "more than this machine's memory", "sizes 2^20x2^30");
  }
  {
    std::vector<int64_t> h = *good;
    h[kFirstSize + 1] = -4;
    refused(h, "negative size", "negative size");
  }
  // A size of 0 with sane others is an empty tensor, made from the header alone.
  {
    std::vector<int64_t> h = *good;
    h[kFirstSize] = 0;
    auto empty = decode_header(h, {"x"}, 0, 0, c10::Device(c10::kCPU));
    ASSERT_TRUE(empty.ok()) << empty.status();
    EXPECT_EQ(empty->values[0].toTensor().sizes(), at::IntArrayRef({0, 4}));
    EXPECT_FALSE(empty->payload.defined());
  }
  // Ranks: negative, past kMaxDims; more than the words there are.
  for (int64_t dims : {int64_t{-1}, kMaxDims + 1, int64_t{1} << 40}) {
    std::vector<int64_t> h = *good;
    h[kDims] = dims;
    refused(h, "dims (a pipeline carries 0 to 64)", absl::StrCat("dims ", dims));
  }
  {
    std::vector<int64_t> h = *good;
    h[kDims] = 3;  // one size more than there are words
    refused(h, "ends within value x", "dims 3");
  }
  // Words left over, an end mark missing (a short header read into zeros).
  {
    std::vector<int64_t> h = *good;
    h.insert(h.end() - 1, {7, 7});
    refused(h, "2 words after its values", "left over");
  }
  {
    std::vector<int64_t> h = *good;
    h.back() = 0;
    refused(h, "shorter than the 9 words it announced", "no end mark");
  }
  // A list longer than the header, of negative length; an unknown kind.
  auto list = encode_header({c10::IValue(std::vector<int64_t>{1, 2})}, {"x"}, 0);
  ASSERT_TRUE(list.ok());
  for (int64_t length : {int64_t{3}, int64_t{-1}, int64_t{1} << 40}) {
    std::vector<int64_t> h = *list;
    h[4] = length;
    refused(h, "ends within value x", absl::StrCat("list of ", length));
  }
  {
    std::vector<int64_t> h = *good;
    h[3] = 99;
    refused(h, "unknown kind 99", "kind");
  }
}

// A rogue rank 0: sends `parts` (the header's length, the header, the
// payload) as message 0 to rank 1.
void send_parts(PeerGroup& group, const std::vector<at::Tensor>& parts) {
  for (size_t part = 0; part < parts.size(); ++part) {
    auto transfer = group.start_send(parts[part], 1, exchange_tag(0, part));
    ASSERT_TRUE(transfer.ok()) << transfer.status();
    // Rank 1 may refuse the message and leave: the send may then fail.
    (void)group.wait(*transfer, "sending a rogue part");
  }
}

at::Tensor longs(const std::vector<int64_t>& words) {
  return at::tensor(words, at::TensorOptions().dtype(at::kLong));
}

// What rank 1 makes of message 0 from a rogue rank 0 that sends `parts`.
absl::Status received_from_rogue(const std::vector<at::Tensor>& parts) {
  absl::Status got;
  run_ranks(make_world(2), 30s, [&](int rank, PeerGroup& group) {
    if (rank == 0) {
      send_parts(group, parts);
    } else {
      got = recv_values(group, {"x"}, 0, 0, c10::Device(c10::kCPU)).status();
    }
  });
  return got;
}

// Issue 36: 2 floats for a float[4, 4] tensor were accepted, the rest
// uninitialised memory; the header's parts likewise.
TEST(TensorExchangeTest, PartsShorterThanAnnouncedAreRefused) {
  auto header = encode_header({at::rand({4, 4})}, {"x"}, 0);
  ASSERT_TRUE(header.ok());
  const int64_t words = static_cast<int64_t>(header->size());
  // The payload: 2 floats of the 16 (and the end mark) announced.
  absl::Status payload = received_from_rogue(
      {longs({words}), longs(*header), at::ones({2}, at::kFloat)});
  ASSERT_FALSE(payload.ok());
  EXPECT_THAT(std::string(payload.message()),
              HasSubstr("the message from rank 0 carried fewer bytes of tensors than its header "
                        "announced"));
  // The header: 4 words of the 9 announced.
  absl::Status short_header = received_from_rogue(
      {longs({words}), longs(std::vector<int64_t>(header->begin(), header->begin() + 4))});
  ASSERT_FALSE(short_header.ok());
  EXPECT_THAT(std::string(short_header.message()),
              HasSubstr("header is shorter than the 9 words it announced"));
  // The header's length: no word at all.
  absl::Status no_length = received_from_rogue({at::empty({0}, at::kLong)});
  ASSERT_FALSE(no_length.ok());
  EXPECT_THAT(std::string(no_length.message()), HasSubstr("announces a 0-word header"));
}

// Issue 36: a receiving rank died of SIGABRT (gloo::EnforceNotMet, "op.
// preamble.length <= op.nbytes" on Gloo's thread) when the previous stage
// sent more than its header announced. It now ends with one line naming the
// peer, as the error of a receive that failed would. (Where a Gloo reports
// such a message as an error of the receive instead, the line is that.)
TEST(TensorExchangeDeathTest, APayloadLongerThanAnnouncedEndsTheRankWithOneLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        report_broken_transport("test: error: rank 1: ", 3);
        auto header = encode_header({at::rand({4, 4})}, {"x"}, 0);
        absl::Status got = received_from_rogue(
            {longs({static_cast<int64_t>(header->size())}), longs(*header), at::ones({1000})});
        std::cerr << "test: error: rank 1: " << got.message() << "\n";
        std::_Exit(got.ok() ? 0 : 3);
      },
      ::testing::ExitedWithCode(3), "test: error: rank 1: [^\n]*rank 0");
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
  EXPECT_FALSE(parse_backend("mpi").ok());
  EXPECT_TRUE(backend_available(CommBackend::kGloo).ok());
#if !defined(FX_LIBTORCH_HAS_NCCL)
  ASSERT_FALSE(available.ok());
  EXPECT_THAT(std::string(available.message()), HasSubstr("built without NCCL"));
#else
  // A CUDA libtorch with NCCL on a machine without a GPU (the trixie-cuda lane).
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU: needs one without";
  ASSERT_FALSE(available.ok());
  EXPECT_THAT(std::string(available.message()),
              ::testing::AnyOf(HasSubstr("no CUDA device is visible"), HasSubstr("nccl.h")));
#endif
}

// NCCL between two GPUs, ranks as threads (one GPU each): values cross from
// cuda:0 to cuda:1 as they do over Gloo.
TEST(ProcessGroupTest, NcclMovesValuesBetweenGpus) {
  if (!backend_available(CommBackend::kNccl).ok() || torch::cuda::device_count() < 2) {
    GTEST_SKIP() << "needs NCCL and two GPUs: "
                 << (backend_available(CommBackend::kNccl).ok()
                         ? absl::StrCat("this machine has ", torch::cuda::device_count())
                         : std::string(backend_available(CommBackend::kNccl).message()));
  }
  const at::Tensor floats = at::rand({4, 5}, at::device(c10::Device(c10::kCUDA, 0)));
  const std::vector<std::string> names = {"x", "n"};
  std::vector<c10::IValue> got;
  run_ranks(
      make_world(2), 60s,
      [&](int rank, PeerGroup& group) {
        EXPECT_EQ(group.device(), c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(rank)));
        if (rank == 0) {
          auto outgoing = send_values(group, {floats, int64_t{7}}, names, 1, 0);
          ASSERT_TRUE(outgoing.ok()) << outgoing.status();
          ASSERT_TRUE(finish_sending(group, *outgoing).ok());
        } else {
          auto values = recv_values(group, names, 0, 0, group.device(), nullptr);
          ASSERT_TRUE(values.ok()) << values.status();
          got = *values;
        }
      },
      CommBackend::kNccl);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].toTensor().device(), c10::Device(c10::kCUDA, 1));
  EXPECT_TRUE(at::equal(got[0].toTensor().cpu(), floats.cpu()));
  EXPECT_EQ(got[1].toInt(), 7);
}

// NCCL takes one GPU per rank: a rank past the machine's GPUs is refused by
// name before anything connects (two ranks on one GPU, as fxrun --stages=2
// would start on a one-GPU machine).
TEST(ProcessGroupTest, NcclRefusesARankPastTheMachinesGpus) {
  if (!backend_available(CommBackend::kNccl).ok()) {
    GTEST_SKIP() << "needs NCCL and a GPU: " << backend_available(CommBackend::kNccl).message();
  }
  const LocalWorld local = make_world(2);
  World world = local.world(1);
  world.local_rank = static_cast<int>(torch::cuda::device_count());
  auto store = connect_store(world, 10s);
  ASSERT_TRUE(store.ok()) << store.status();
  auto group = PeerGroup::connect(*store, world, CommBackend::kNccl, 10s);
  ASSERT_FALSE(group.ok());
  EXPECT_THAT(std::string(group.status().message()),
              HasSubstr(absl::StrCat("this machine has ", torch::cuda::device_count(),
                                     " GPU(s): NCCL takes one GPU per rank")));
}

}  // namespace
}  // namespace fx
