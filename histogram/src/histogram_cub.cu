// CUB paths of the histogram targets: the external reference (DeviceHistogram) and the
// sort + run-length variant. Sizes are passed to CUB as int: callers refuse n > INT32_MAX.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <cuda/std/array>

#include <cstdint>

#include "atomq/cuda/check.hpp"
#include "hist_kernels.cuh"
#include "histogram_cub.hpp"

namespace atomq::histogram::detail {

namespace {

template <typename T, typename LevelT>
void cub_even(CubScratch& s, const T* samples, int n, int bins, unsigned int* counts,
              cudaStream_t stream) {
  std::size_t bytes = 0;
  ATOMQ_CUDA(cub::DeviceHistogram::HistogramEven(nullptr, bytes, samples, counts, bins + 1,
                                                 LevelT{0}, static_cast<LevelT>(bins), n, stream));
  void* temp = s.temp.reserve(bytes);
  ATOMQ_CUDA(cub::DeviceHistogram::HistogramEven(temp, bytes, samples, counts, bins + 1,
                                                 LevelT{0}, static_cast<LevelT>(bins), n, stream));
}

template <typename T>
void sort_rle(CubScratch& s, const T* samples, int n, int bins, unsigned int* counts,
              cudaStream_t stream) {
  T* sorted = s.sorted.reserve_for<T>(n);
  T* unique = s.unique.reserve_for<T>(n);
  auto* run_counts = s.run_counts.reserve_for<unsigned int>(n);
  auto* run_total = s.run_total.reserve_for<int>(1);
  constexpr int kKeyBits = 8 * sizeof(T);  // every bit: values >= bins must not merge into runs

  std::size_t sort_bytes = 0, rle_bytes = 0;
  ATOMQ_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, samples, sorted, n, 0, kKeyBits,
                                            stream));
  ATOMQ_CUDA(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, sorted, unique, run_counts,
                                                run_total, n, stream));
  void* temp = s.temp.reserve(sort_bytes > rle_bytes ? sort_bytes : rle_bytes);
  ATOMQ_CUDA(cub::DeviceRadixSort::SortKeys(temp, sort_bytes, samples, sorted, n, 0, kKeyBits,
                                            stream));
  ATOMQ_CUDA(cub::DeviceRunLengthEncode::Encode(temp, rle_bytes, sorted, unique, run_counts,
                                                run_total, n, stream));
  const T* keys = unique;
  const unsigned int* counts_in = run_counts;
  const int* total_in = run_total;
  unsigned int bins_u = static_cast<unsigned int>(bins);
  void* args[] = {&keys, &counts_in, &total_in, &bins_u, &counts};
  const int threads = 256;
  const int blocks = (bins + threads - 1) / threads;  // at most `bins` runs can land
  ATOMQ_CUDA(cudaLaunchKernel(kernels::hist_scatter_runs_handle(sizeof(T)), dim3(blocks),
                              dim3(threads), args, 0, stream));
  ATOMQ_CUDA_LAUNCH();
}

}  // namespace

void cub_histogram(CubScratch& s, const void* samples, std::size_t n, SampleType type, int bins,
                   unsigned int* counts, cudaStream_t stream) {
  const int count = static_cast<int>(n);
  switch (type) {
    case SampleType::kU32:
      cub_even<std::uint32_t, unsigned int>(s, static_cast<const std::uint32_t*>(samples), count,
                                            bins, counts, stream);
      return;
    case SampleType::kU8:
      cub_even<std::uint8_t, int>(s, static_cast<const std::uint8_t*>(samples), count, bins,
                                  counts, stream);
      return;
    case SampleType::kRgba8: {
      cuda::std::array<unsigned int*, 4> channel_counts;
      cuda::std::array<int, 4> levels, lower, upper;
      for (int c = 0; c < 4; ++c) {
        channel_counts[c] = counts + static_cast<std::size_t>(c) * bins;
        levels[c] = bins + 1;
        lower[c] = 0;
        upper[c] = bins;
      }
      const auto* pixels = static_cast<const unsigned char*>(samples);
      std::size_t bytes = 0;
      ATOMQ_CUDA((cub::DeviceHistogram::MultiHistogramEven<4, 4>(
          nullptr, bytes, pixels, channel_counts, levels, lower, upper, count, stream)));
      void* temp = s.temp.reserve(bytes);
      ATOMQ_CUDA((cub::DeviceHistogram::MultiHistogramEven<4, 4>(
          temp, bytes, pixels, channel_counts, levels, lower, upper, count, stream)));
      return;
    }
  }
}

void sort_run_length_histogram(CubScratch& s, const void* samples, std::size_t n, SampleType type,
                               int bins, unsigned int* counts, cudaStream_t stream) {
  const int count = static_cast<int>(n);
  if (type == SampleType::kU32)
    sort_rle(s, static_cast<const std::uint32_t*>(samples), count, bins, counts, stream);
  else
    sort_rle(s, static_cast<const std::uint8_t*>(samples), count, bins, counts, stream);
}

}  // namespace atomq::histogram::detail
