// The validation suite: atomic workloads the model was not built beside (graph degree count,
// hash-table build, CSR row counting, particle binning, image and float histograms, a spin-locked
// counter) and the threshold sweep, each a case with its variants: the baseline, its fix, and an
// ablation (atomics or conflicts removed) that gives the ground truth. Inputs are generated with
// fixed seeds; results are checked against a CPU reference.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "atomq/common/enum_names.hpp"
#include "atomq/model/what_if_id.hpp"

namespace atomq {
class HeldStreamTimer;  // atomq/cuda/held_stream_timer.hpp
}  // namespace atomq

namespace atomq::validation {

enum class VariantRole {
  kBaseline,     // the workload as commonly written
  kFix,          // the change the analyzer should recommend
  kAblation,     // atomics or conflicts removed: ground truth, its result is not checked
  kSweepPoint,   // one point of the threshold sweep
};
constexpr std::array<EnumName<VariantRole>, 4> enum_names(VariantRole) {
  return {{{VariantRole::kBaseline, "baseline"},
           {VariantRole::kFix, "fix"},
           {VariantRole::kAblation, "ablation"},
           {VariantRole::kSweepPoint, "sweep_point"}}};
}

struct VariantSpec {
  std::string name;
  VariantRole role = VariantRole::kBaseline;
  std::string description;
  std::string compared_with;  // fix: its baseline; ablation: the variant it ablates
  // fix: the ids of the model's what-ifs that describe this change (any one of them predicts it;
  // the largest interval counts); empty when the model has no what-if for it.
  std::vector<model::WhatIfId> predicted_by;
};

struct CaseSpec {
  std::string name;
  std::string workload;
  std::string input;  // what is generated, with its seed
  std::vector<VariantSpec> variants;
  // The held-out round the case belongs to ("round2", "round3", "round4"), empty for the suite:
  // its fixes and ablations run only after the predictions on its baselines are committed
  // (tools/held_out_run.sh, docs/validation.md "Held-out protocol").
  std::string held_out;
  const VariantSpec* find(const std::string& variant) const;
};

// Every case, in the order `atomq validate --list` prints them (the one table: src/cases.cpp).
const std::vector<CaseSpec>& cases();
const CaseSpec* find_case(const std::string& name);

struct VariantCheck {
  bool checked = false;  // ablations are not checked
  bool exact = false;
  std::string detail;    // what differs, or how it was compared
};

struct VariantTiming {
  int runs = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  bool stream_held = true;  // false when a hold gave up: those runs include host launch time
};

class Workload;  // src/workload.hpp

// One case on one device: the input generated and uploaded, the CPU reference computed.
class CaseRunner {
 public:
  CaseRunner(const CaseSpec& spec, int device);
  ~CaseRunner();
  CaseRunner(const CaseRunner&) = delete;
  CaseRunner& operator=(const CaseRunner&) = delete;

  const CaseSpec& spec() const { return spec_; }
  // Clears the outputs (memsets, not timed) and launches the variant's kernel; synchronizes.
  void run(const std::string& variant);
  // Runs the variant once and compares its result with the CPU reference.
  VariantCheck check(const std::string& variant);
  // CUDA events around the launch alone on a held stream (held_stream_timer.hpp: the device's
  // time, not the host's launch calls), `runs` times after one warm-up; median, min, max.
  VariantTiming time(const std::string& variant, int runs);
  // The atomic updates the workload asks for (samples, edges, keys, ...).
  double useful_updates() const;

 private:
  const CaseSpec& spec_;
  std::unique_ptr<Workload> workload_;
  std::unique_ptr<HeldStreamTimer> timer_;  // made once the device is chosen
};

}  // namespace atomq::validation
