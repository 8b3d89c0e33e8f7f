// The state behind HistogramRunner, shared by its source files: runner.cpp (setup, runs),
// inputs.cpp (generation on the device, CPU reference) and timing.cpp (timed runs, read probe).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "atomq/cuda/device_buffer.hpp"
#include "atomq/cuda/held_stream_timer.hpp"
#include "atomq/histogram/histogram.hpp"
#include "variant_launcher.hpp"

namespace atomq::histogram {

// What makes a case impossible for every variant (empty when none); variant_enqueue.cpp.
std::string case_error(SampleType t, int bins);

struct HistogramRunner::Impl {
  cudaDeviceProp props{};
  int driver_version = 0;
  int runtime_version = 0;
  HistCase prepared;
  bool has_input = false;
  DeviceBuffer raw;  // samples start 256-byte aligned + misalign
  DeviceBuffer counts;
  DeviceBuffer zipf_cdf;
  DeviceBuffer rank_to_bin;
  DeviceBuffer sink;
  // Every timed run (the read probe's and each variant's); made once the device is chosen.
  std::unique_ptr<HeldStreamTimer> timer;
  bool warned_hold_timeout = false;
  detail::VariantLauncher launcher{props};

  const void* samples() const {
    return raw.as<std::uint8_t>() + prepared.misalign_elements * sample_bytes(prepared.type);
  }
  std::size_t input_bytes() const { return prepared.n * sample_bytes(prepared.type); }

  // One run of v on the prepared input (stream 0, not synchronized).
  void enqueue(HistVariant v) {
    launcher.enqueue(policy_of(v), {samples(), prepared.n, prepared.type, prepared.bins,
                                    counts.as<unsigned int>()});
  }
  // Generates the prepared case's samples on the device (inputs.cpp).
  void generate();

  // timing.cpp
  double time_once(const std::function<void()>& enqueue_work);
  // `runs` timed runs of v after a warm-up; with_input_read: each preceded by a timed input read.
  PairedTiming time_runs(HistVariant v, int runs, bool with_input_read);
  // The read-bandwidth probe over this very input (its whole 16-byte vectors from the first
  // aligned address): the reference a histogram of this input is measured against.
  void enqueue_input_read();
  // Reads `vectors` 16-byte vectors from a 16-byte-aligned `data`, one resident wave of blocks.
  void launch_read_probe(const void* data, unsigned long long vectors);
};

}  // namespace atomq::histogram
