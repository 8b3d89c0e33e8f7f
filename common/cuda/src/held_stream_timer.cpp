// HeldStreamTimer: the hold, the events, the release.
#include "atomq/cuda/held_stream_timer.hpp"

#include <atomic>

#include "../kernels/stream_hold.cuh"
#include "atomq/cuda/check.hpp"

namespace atomq {

HeldStreamTimer::HeldStreamTimer() {
  void* words = nullptr;
  ATOMQ_CUDA(cudaHostAlloc(&words, 2 * sizeof(int), cudaHostAllocMapped));
  words_ = static_cast<volatile int*>(words);
  ATOMQ_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_words_), words, 0));
  ATOMQ_CUDA(cudaEventCreate(&start_));
  ATOMQ_CUDA(cudaEventCreate(&stop_));
}

HeldStreamTimer::~HeldStreamTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
  cudaFreeHost(const_cast<int*>(words_));
}

double HeldStreamTimer::time_ms(const std::function<void()>& enqueue_work) {
  words_[0] = 0;
  words_[1] = 0;
  const volatile int* release = device_words_;
  unsigned long long timeout_cycles = 2000000000ull;  // about a second
  int* timed_out = device_words_ + 1;
  void* params[] = {&release, &timeout_cycles, &timed_out};
  ATOMQ_CUDA(cudaLaunchKernel(cuda_kernels::stream_hold_handle(), dim3(1), dim3(1), params, 0, 0));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaEventRecord(start_, 0));
  enqueue_work();
  ATOMQ_CUDA(cudaEventRecord(stop_, 0));
  std::atomic_thread_fence(std::memory_order_seq_cst);
  words_[0] = 1;
  ATOMQ_CUDA(cudaEventSynchronize(stop_));
  if (words_[1] != 0) timed_out_ = true;
  float ms = 0.0f;
  ATOMQ_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace atomq
