// Device time of work queued on the default stream, measured as nvbench measures it: CUDA
// events around the work, the stream held by a one-thread kernel while the start event, the
// work and the stop event are queued, then released. The time between the events is then the
// device's alone; without the hold it also holds the host's launch calls after the start event
// (microseconds: the size of a small kernel).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace atomq {

class HeldStreamTimer {
 public:
  HeldStreamTimer();  // pinned host-mapped words for the hold, two events
  ~HeldStreamTimer();
  HeldStreamTimer(const HeldStreamTimer&) = delete;
  HeldStreamTimer& operator=(const HeldStreamTimer&) = delete;

  // Milliseconds between the events around what `enqueue_work` queues on the default stream.
  // The work must not synchronize with the device (the stream is held until it returns).
  double time_ms(const std::function<void()>& enqueue_work);
  // True once a hold gave up before its release (about a second): that run includes host time.
  bool hold_timed_out() const { return timed_out_; }

 private:
  volatile int* words_ = nullptr;  // [0] release (the host writes it), [1] timed out
  int* device_words_ = nullptr;    // the same words as the device addresses them
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  bool timed_out_ = false;
};

}  // namespace atomq
