// Copyright 2026 The FX for C++ Authors.
//
// A server that reloads models keeps the memory of the models it has, not of
// every model it ever loaded: thousands of loads of a TorchScript module (its
// types new at each load) and of a torch.export program, each traced and
// called once, then dropped, leave the process's resident memory where the
// first hundreds put it.
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/ops/rand.h>

#include "fx/fx.h"
#include "gtest/gtest.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

// Resident memory in bytes, after glibc handed back what it can.
size_t resident_bytes() {
  ::malloc_trim(0);
  long pages = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<size_t>(resident) * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

void load_and_call(const std::string& path, const std::vector<c10::IValue>& inputs) {
  absl::StatusOr<Model> model = Model::load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<c10::IValue> out = model->run(inputs);
  ASSERT_TRUE(out.ok()) << out.status();
}

// Grows by less than `bound` bytes over `loads` loads after `warm_up` of them.
void expect_flat(const std::string& path, const std::vector<c10::IValue>& inputs, int warm_up,
                 int loads, size_t bound) {
  for (int i = 0; i < warm_up; ++i) load_and_call(path, inputs);
  const size_t before = resident_bytes();
  for (int i = 0; i < loads; ++i) load_and_call(path, inputs);
  const size_t after = resident_bytes();
  EXPECT_LT(after, before + bound) << loads << " loads of " << path << " grew the process from "
                                   << before / 1024 << " KiB to " << after / 1024 << " KiB";
}

TEST(ModelReloadTest, ThousandsOfTorchScriptLoadsStayFlat) {
  // Leaf modules (nn.Linear) and traced-through ones: both of the tracer's
  // per-type caches are met at every load. 3.3 KiB kept per load would be
  // about 10 MiB here.
  expect_flat(testing::runfile("tests/fixtures/multi_io.pt"), {at::rand({2, 4}), at::rand({2, 3})},
              /*warm_up=*/300, /*loads=*/3000, /*bound=*/size_t{3} << 20);
}

}  // namespace
}  // namespace fx
