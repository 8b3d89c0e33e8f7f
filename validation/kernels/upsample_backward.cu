// The backward pass of 2x bilinear upsampling (align_corners false), as deep-learning frameworks
// write it: each output pixel's gradient is scattered with four float atomicAdds into the input
// pixels it was interpolated from. The source index and weights follow the usual convention:
// src = max(0, (dst + 0.5) / 2 - 0.5), the next pixel only inside the image.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

namespace {

struct Tap {
  std::uint32_t near, far;  // input index along one axis and its neighbour (= near at the border)
  float far_weight;         // the neighbour's weight; near's is 1 - far_weight
};

__device__ __forceinline__ Tap tap(std::uint32_t dst, std::uint32_t in_size) {
  const float src = fmaxf(0.0f, 0.5f * (static_cast<float>(dst) + 0.5f) - 0.5f);
  const auto near = static_cast<std::uint32_t>(src);
  return {near, near + (near < in_size - 1u ? 1u : 0u), src - static_cast<float>(near)};
}

struct OutputPixel {
  std::uint32_t plane;
  Tap row, col;
  float grad;
};

__device__ __forceinline__ OutputPixel output_pixel(const UpsampleArgs& a, unsigned long long i) {
  const std::uint32_t out_w = 2u * a.in_w, out_h = 2u * a.in_h;
  const auto x = static_cast<std::uint32_t>(i % out_w);
  const auto y = static_cast<std::uint32_t>((i / out_w) % out_h);
  return {static_cast<std::uint32_t>(i / (static_cast<unsigned long long>(out_w) * out_h)), tap(y, a.in_h),
          tap(x, a.in_w), a.grad_out[i]};
}

// The four weighted updates of one output pixel, to `add(row, col, value)`.
template <typename Add>
__device__ __forceinline__ void scatter(const OutputPixel& p, Add add) {
  const float r1 = p.row.far_weight, r0 = 1.0f - r1, c1 = p.col.far_weight, c0 = 1.0f - c1;
  add(p.row.near, p.col.near, r0 * c0 * p.grad);
  add(p.row.near, p.col.far, r0 * c1 * p.grad);
  add(p.row.far, p.col.near, r1 * c0 * p.grad);
  add(p.row.far, p.col.far, r1 * c1 * p.grad);
}

}  // namespace

__global__ void upsample_bwd_global_kernel(UpsampleArgs a) {
  for (unsigned long long i = global_thread(); i < a.out_pixels; i += global_threads()) {
    const OutputPixel p = output_pixel(a, i);
    float* plane = a.grad_in + static_cast<unsigned long long>(p.plane) * a.in_h * a.in_w;
    scatter(p, [&](std::uint32_t r, std::uint32_t c, float v) { atomicAdd(&plane[r * a.in_w + c], v); });
  }
}

// A tile of kUpsampleTileRows x kUpsampleTileCols output pixels per step: its updates go to the
// input pixels it covers in shared memory, which are then added to global memory once each.
__global__ void upsample_bwd_tile_private_kernel(UpsampleArgs a) {
  constexpr std::uint32_t kRows = kUpsampleTileRows, kCols = kUpsampleTileCols;
  constexpr std::uint32_t kInRows = kRows / 2 + 2, kInCols = kCols / 2 + 2;
  __shared__ float tile[kInRows * kInCols];
  const std::uint32_t out_w = 2u * a.in_w, out_h = 2u * a.in_h;
  const std::uint32_t tiles_x = out_w / kCols, tiles_per_plane = tiles_x * (out_h / kRows);
  const unsigned long long tiles = static_cast<unsigned long long>(tiles_per_plane) * a.planes;
  for (unsigned long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const auto plane = static_cast<std::uint32_t>(t / tiles_per_plane);
    const std::uint32_t y0 = static_cast<std::uint32_t>(t % tiles_per_plane) / tiles_x * kRows;
    const std::uint32_t x0 = static_cast<std::uint32_t>(t % tiles_per_plane) % tiles_x * kCols;
    const std::uint32_t r0 = tap(y0, a.in_h).near, c0 = tap(x0, a.in_w).near;
    const std::uint32_t rows = tap(y0 + kRows - 1u, a.in_h).far - r0 + 1u;
    const std::uint32_t cols = tap(x0 + kCols - 1u, a.in_w).far - c0 + 1u;
    for (std::uint32_t s = threadIdx.x; s < kInRows * kInCols; s += blockDim.x) tile[s] = 0.0f;
    __syncthreads();
    for (std::uint32_t o = threadIdx.x; o < kRows * kCols; o += blockDim.x) {
      const unsigned long long i =
          (static_cast<unsigned long long>(plane) * out_h + y0 + o / kCols) * out_w + x0 + o % kCols;
      scatter(output_pixel(a, i),
              [&](std::uint32_t r, std::uint32_t c, float v) { atomicAdd(&tile[(r - r0) * kInCols + c - c0], v); });
    }
    __syncthreads();
    float* out = a.grad_in + static_cast<unsigned long long>(plane) * a.in_h * a.in_w;
    for (std::uint32_t s = threadIdx.x; s < rows * cols; s += blockDim.x) {
      const float v = tile[s / cols * kInCols + s % cols];
      if (v != 0.0f) atomicAdd(&out[(r0 + s / cols) * a.in_w + c0 + s % cols], v);
    }
    __syncthreads();  // the tile is cleared for the next step
  }
}

__global__ void upsample_bwd_no_atomics_kernel(UpsampleArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.out_pixels; i += global_threads())
    scatter(output_pixel(a, i), [&](std::uint32_t r, std::uint32_t c, float v) {
      acc ^= __float_as_uint(v) + r * a.in_w + c;
    });
  keep_alive(acc, a.sink);
}

const void* upsample_bwd_global_handle() { return handle(&upsample_bwd_global_kernel); }
const void* upsample_bwd_tile_private_handle() { return handle(&upsample_bwd_tile_private_kernel); }
const void* upsample_bwd_no_atomics_handle() { return handle(&upsample_bwd_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
