// Copyright 2026 The FX for C++ Authors.
// The cuDNN stand-in (libcudnn_standin.c) reports cuDNN as missing through every
// channel libtorch reads: a non-zero status, the error strings, version 0.
#include <cstddef>
#include <cstring>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

// cuDNN's C names, declared with the parameters libtorch passes (handles and
// descriptors are pointers; the stand-in ignores them).
extern "C" {
const char* cudnnGetErrorString(int status);
void cudnnGetLastErrorString(char* message, std::size_t max_size);
std::size_t cudnnGetVersion();
std::size_t cudnnGetCudartVersion();
int cudnnGetProperty(int type, int* value);
int cudnnCreate(void** handle);
int cudnnCreateTensorDescriptor(void** descriptor);
int cudnnConvolutionForward(void* handle, const void* alpha, void* x_desc, const void* x,
                            void* w_desc, const void* w, void* conv_desc, int algo,
                            void* workspace, std::size_t workspace_bytes, const void* beta,
                            void* y_desc, void* y);
int cudnnBackendExecute(void* handle, void* plan, void* variant_pack);
}

namespace {

using ::testing::StartsWith;

constexpr int kNotInitialized = 1001;  // CUDNN_STATUS_NOT_INITIALIZED in cuDNN 9

TEST(CudnnStandinTest, EveryCallFailsAsNotInitialized) {
  void* handle = nullptr;
  EXPECT_EQ(cudnnCreate(&handle), kNotInitialized);
  EXPECT_EQ(handle, nullptr);
  void* descriptor = nullptr;
  EXPECT_EQ(cudnnCreateTensorDescriptor(&descriptor), kNotInitialized);
  int value = 7;
  EXPECT_EQ(cudnnGetProperty(0, &value), kNotInitialized);
  EXPECT_EQ(value, 7);
  EXPECT_EQ(cudnnConvolutionForward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                    0, nullptr, 0, nullptr, nullptr, nullptr),
            kNotInitialized);
  EXPECT_EQ(cudnnBackendExecute(nullptr, nullptr, nullptr), kNotInitialized);
}

TEST(CudnnStandinTest, ErrorStringsSayItIsAStandIn) {
  EXPECT_THAT(cudnnGetErrorString(kNotInitialized), StartsWith("cuDNN stand-in: not installed ("));
  EXPECT_THAT(cudnnGetErrorString(0), StartsWith("cuDNN stand-in: not installed"));
  char message[512];
  cudnnGetLastErrorString(message, sizeof message);
  EXPECT_STREQ(message, cudnnGetErrorString(kNotInitialized));
  // Truncated to the buffer, always terminated; nothing written past it.
  char small[12];
  std::memset(small, 'x', sizeof small);
  cudnnGetLastErrorString(small, 10);
  EXPECT_STREQ(small, "cuDNN sta");
  EXPECT_EQ(small[10], 'x');
  cudnnGetLastErrorString(nullptr, 10);  // ignored, as is a zero size
  cudnnGetLastErrorString(small, 0);
  EXPECT_EQ(small[0], 'c');
}

TEST(CudnnStandinTest, VersionsAreZero) {
  EXPECT_EQ(cudnnGetVersion(), 0u);
  EXPECT_EQ(cudnnGetCudartVersion(), 0u);
}

}  // namespace
