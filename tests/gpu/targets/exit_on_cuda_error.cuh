// The test programs' CUDA error check: they stand in for users' programs, so they do not use
// atomq's own error header (common/cuda/include/atomq/cuda/check.hpp); a failed call prints
// where and exits with code 2.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t rc_ = (call);                                                                     \
    if (rc_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(rc_)); \
      std::exit(2);                                                                               \
    }                                                                                             \
  } while (0)
