// CUB-based histogram paths (compiled by nvcc in histogram_cub.cu): the DeviceHistogram
// reference and sort + run-length encode. Internal to the histogram library.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "atomq/cuda/device_buffer.hpp"
#include "atomq/histogram/histogram.hpp"

namespace atomq::histogram::detail {

// Grow-only, so timed runs after the first allocate nothing.
struct CubScratch {
  DeviceBuffer temp, sorted, unique, run_counts, run_total;
};

// counts: histogram_count(type) * bins words; written completely (no zeroing needed).
void cub_histogram(CubScratch& scratch, const void* samples, std::size_t n, SampleType type,
                   int bins, unsigned int* counts, cudaStream_t stream);
// counts must be zeroed first: only bins that occur are written.
void sort_run_length_histogram(CubScratch& scratch, const void* samples, std::size_t n,
                               SampleType type, int bins, unsigned int* counts,
                               cudaStream_t stream);

}  // namespace atomq::histogram::detail
