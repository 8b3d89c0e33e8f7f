// Skips a GPU test with its reason when no device is usable here.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_query.hpp"

#define ATOMQ_REQUIRE_GPU()                                                        \
  do {                                                                             \
    std::string atomq_skip_reason;                                                 \
    try {                                                                          \
      if (::atomq::device_count() == 0) atomq_skip_reason = "no CUDA device visible"; \
    } catch (const ::atomq::CudaError& e) {                                        \
      atomq_skip_reason = std::string("no usable GPU: ") + e.name();               \
    }                                                                              \
    if (!atomq_skip_reason.empty()) GTEST_SKIP() << atomq_skip_reason;             \
  } while (0)
