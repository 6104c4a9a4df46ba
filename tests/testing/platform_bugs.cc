// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/platform_bugs.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/ops/add.h>
#include <ATen/ops/randn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace fx {
namespace testing {
namespace {

bool probe_onednn_binary_ops() {
  if (!at::hasMKLDNN()) return true;  // nothing to break
  const pid_t child = fork();
  if (child < 0) return true;  // cannot tell: let the test run
  if (child == 0) {
    at::set_num_threads(1);
    const at::Tensor x = at::randn({1, 8, 4, 4}).to_mkldnn();
    const at::Tensor sum = at::add(x, x).to_dense();
    _exit(sum.defined() ? 0 : 1);
  }
  // A child that hangs (a thread pool that did not survive fork) is not the
  // bug looked for: after a minute it is stopped and the test runs.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !(WIFSIGNALED(status) && WTERMSIG(status) == SIGFPE);
}

}  // namespace

bool onednn_binary_ops_work() {
  static const bool works = probe_onednn_binary_ops();
  return works;
}

}  // namespace testing
}  // namespace fx
