// Input generator: element i is a pure function of (seed, i), so any run can be repeated and
// the generation order does not matter.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

namespace {

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Unbiased enough for a benchmark: the high 32 bits scaled to [0, bins).
__device__ __forceinline__ unsigned int scale_to_bins(unsigned long long h, unsigned int bins) {
  return static_cast<unsigned int>(((h >> 32) * bins) >> 32);
}

__device__ __forceinline__ double unit_interval(unsigned long long h) {
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

}  // namespace

// InputKind: 0 uniform, 1 zipf, 2 hot fraction, 3 single value.
__global__ void hist_generate_kernel(GenerateArgs g) {
  const unsigned long long stride = global_thread_count();
  for (unsigned long long i = global_thread_index(); i < g.count; i += stride) {
    const unsigned long long h = splitmix64(g.seed ^ splitmix64(i));
    const unsigned int channel = g.channels == 4 ? static_cast<unsigned int>(i & 3u) : 0u;
    unsigned int v = 0u;
    switch (g.kind) {
      case 0:
        v = scale_to_bins(h, g.bins);
        break;
      case 1: {
        // Inverse CDF by binary search: the first rank whose CDF exceeds u.
        const double u = unit_interval(h);
        unsigned int lo = 0u, hi = g.bins - 1u;
        while (lo < hi) {
          const unsigned int mid = (lo + hi) / 2u;
          if (g.zipf_cdf[mid] > u) hi = mid; else lo = mid + 1u;
        }
        v = g.rank_to_bin[lo];
        break;
      }
      case 2:
        v = unit_interval(h) < g.hot_fraction ? g.fixed_value[channel]
                                              : scale_to_bins(splitmix64(h), g.bins);
        break;
      default:
        v = g.fixed_value[channel];
        break;
    }
    if (g.element_bytes == 1) static_cast<std::uint8_t*>(g.out)[i] = static_cast<std::uint8_t>(v);
    else static_cast<std::uint32_t*>(g.out)[i] = v;
  }
}

const void* hist_generate_handle() { return handle(&hist_generate_kernel); }

}  // namespace atomq::histogram::kernels
