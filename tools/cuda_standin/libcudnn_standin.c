/* Copyright 2026 The FX for C++ Authors.
 *
 * A STAND-IN for libcudnn.so.9, NOT cuDNN. It has no cuDNN code: every
 * function reports that cuDNN is missing.
 *
 * Why it exists: the trixie-cuda lane (tools/platform.sh trixie-cuda) builds
 * and tests this repository against Debian 13's CUDA libtorch
 * (libtorch-cuda-2.6, contrib) on machines with no GPU and no access to
 * NVIDIA's servers. libtorch_cuda.so.2.6 has libcudnn.so.9 as a DT_NEEDED
 * library and is linked with BIND_NOW, so the dynamic loader must find that
 * file and every cuDNN symbol it imports before any program using libtorch
 * starts, GPU or not. Debian ships cuDNN only as nvidia-cudnn, an installer
 * that downloads it from NVIDIA. tools/bootstrap_cuda.sh compiles this file
 * into /usr/lib/<multiarch>/libcudnn.so.9 of the lane's root, inside a local
 * package (fx-cudnn-standin) that provides nvidia-cudnn to apt. Nothing outside
 * that lane uses it; on a machine with a GPU install the real cuDNN instead.
 *
 * What callers see: status functions return CUDNN_STATUS_NOT_INITIALIZED
 * (1001 in cuDNN 9; any non-zero status is an error), cudnnGetVersion() is 0,
 * and cudnnGetErrorString()/cudnnGetLastErrorString() say "cuDNN stand-in: not
 * installed ...", which is what libtorch puts in its error if a cuDNN path is
 * ever reached. Without a GPU none is: libtorch calls cuDNN for CUDA tensors
 * only.
 *
 * The exported names are those libtorch_cuda.so and libtorch_python.so of
 * libtorch 2.6 import (nm -D --undefined-only), under the symbol version
 * "libcudnn.so.9" that they require (libcudnn_standin.map);
 * tools/bootstrap_cuda.sh checks, after installing libtorch, that none is
 * missing. The functions are defined without prototypes, "()", which in C17
 * means unspecified parameters: they ignore their arguments, which the x86-64
 * calling convention allows (the caller owns its argument registers and
 * stack). Compile as C17 (C23 reads "()" as "(void)", which is the same ABI).
 */
#include <stddef.h>
#include <string.h>

#define CUDNN_STANDIN_NOT_INITIALIZED 1001

static const char kMessage[] =
    "cuDNN stand-in: not installed (this libcudnn.so.9 is the placeholder of FX for C++'s "
    "trixie-cuda lane, tools/cuda_standin; install NVIDIA's cuDNN 9 to run cuDNN kernels)";

#define STANDIN(name) \
  int name() { return CUDNN_STANDIN_NOT_INITIALIZED; }

const char* cudnnGetErrorString() { return kMessage; }

void cudnnGetLastErrorString(char* message, size_t max_size) {
  if (message == NULL || max_size == 0) return;
  strncpy(message, kMessage, max_size - 1);
  message[max_size - 1] = '\0';
}

/* Versions: none. (libtorch compares cuDNN's version with the one it was
 * built against only once a CUDA tensor reaches cuDNN.) */
size_t cudnnGetVersion() { return 0; }
size_t cudnnGetCudartVersion() { return 0; }

STANDIN(cudnnGetProperty)
STANDIN(cudnnCreate)
STANDIN(cudnnGetStream)
STANDIN(cudnnSetStream)

STANDIN(cudnnBackendCreateDescriptor)
STANDIN(cudnnBackendDestroyDescriptor)
STANDIN(cudnnBackendExecute)
STANDIN(cudnnBackendFinalize)
STANDIN(cudnnBackendGetAttribute)
STANDIN(cudnnBackendSetAttribute)

STANDIN(cudnnBatchNormalizationBackwardEx)
STANDIN(cudnnBatchNormalizationForwardInference)
STANDIN(cudnnBatchNormalizationForwardTrainingEx)
STANDIN(cudnnGetBatchNormalizationBackwardExWorkspaceSize)
STANDIN(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize)
STANDIN(cudnnGetBatchNormalizationTrainingExReserveSpaceSize)

STANDIN(cudnnCTCLoss)
STANDIN(cudnnCTCLoss_v8)
STANDIN(cudnnCreateCTCLossDescriptor)
STANDIN(cudnnDestroyCTCLossDescriptor)
STANDIN(cudnnGetCTCLossWorkspaceSize)
STANDIN(cudnnGetCTCLossWorkspaceSize_v8)
STANDIN(cudnnSetCTCLossDescriptorEx)
STANDIN(cudnnSetCTCLossDescriptor_v9)

STANDIN(cudnnConvolutionBackwardData)
STANDIN(cudnnConvolutionBackwardFilter)
STANDIN(cudnnConvolutionBiasActivationForward)
STANDIN(cudnnConvolutionForward)
STANDIN(cudnnCreateConvolutionDescriptor)
STANDIN(cudnnDestroyConvolutionDescriptor)
STANDIN(cudnnFindConvolutionBackwardDataAlgorithmEx)
STANDIN(cudnnFindConvolutionBackwardFilterAlgorithmEx)
STANDIN(cudnnFindConvolutionForwardAlgorithmEx)
STANDIN(cudnnGetConvolutionBackwardDataAlgorithm_v7)
STANDIN(cudnnGetConvolutionBackwardDataWorkspaceSize)
STANDIN(cudnnGetConvolutionBackwardFilterAlgorithm_v7)
STANDIN(cudnnGetConvolutionBackwardFilterWorkspaceSize)
STANDIN(cudnnGetConvolutionForwardAlgorithm_v7)
STANDIN(cudnnGetConvolutionForwardWorkspaceSize)
STANDIN(cudnnSetConvolutionGroupCount)
STANDIN(cudnnSetConvolutionMathType)
STANDIN(cudnnSetConvolutionNdDescriptor)

STANDIN(cudnnCreateActivationDescriptor)
STANDIN(cudnnDestroyActivationDescriptor)
STANDIN(cudnnSetActivationDescriptor)

STANDIN(cudnnCreateDropoutDescriptor)
STANDIN(cudnnDestroyDropoutDescriptor)
STANDIN(cudnnDropoutGetStatesSize)
STANDIN(cudnnRestoreDropoutDescriptor)
STANDIN(cudnnSetDropoutDescriptor)

STANDIN(cudnnCreateFilterDescriptor)
STANDIN(cudnnDestroyFilterDescriptor)
STANDIN(cudnnGetFilterNdDescriptor)
STANDIN(cudnnSetFilterNdDescriptor)

STANDIN(cudnnCreateTensorDescriptor)
STANDIN(cudnnDestroyTensorDescriptor)
STANDIN(cudnnGetTensorNdDescriptor)
STANDIN(cudnnSetTensorNdDescriptor)

STANDIN(cudnnCreatePoolingDescriptor)
STANDIN(cudnnPoolingForward)
STANDIN(cudnnSetPooling2dDescriptor)

STANDIN(cudnnCreateRNNDataDescriptor)
STANDIN(cudnnCreateRNNDescriptor)
STANDIN(cudnnDestroyRNNDataDescriptor)
STANDIN(cudnnDestroyRNNDescriptor)
STANDIN(cudnnGetRNNTempSpaceSizes)
STANDIN(cudnnGetRNNWeightParams)
STANDIN(cudnnGetRNNWeightSpaceSize)
STANDIN(cudnnRNNBackwardData_v8)
STANDIN(cudnnRNNBackwardWeights_v8)
STANDIN(cudnnRNNForward)
STANDIN(cudnnSetRNNDataDescriptor)
STANDIN(cudnnSetRNNDescriptor_v8)

STANDIN(cudnnCreateSpatialTransformerDescriptor)
STANDIN(cudnnDestroySpatialTransformerDescriptor)
STANDIN(cudnnSetSpatialTransformerNdDescriptor)
STANDIN(cudnnSpatialTfGridGeneratorBackward)
STANDIN(cudnnSpatialTfGridGeneratorForward)
STANDIN(cudnnSpatialTfSamplerBackward)
STANDIN(cudnnSpatialTfSamplerForward)
