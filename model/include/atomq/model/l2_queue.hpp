// The L2 queue: global atomics serialize at the L2 slices' atomic units; the hottest slice is
// modelled as a single-server queue whose service time per request comes from the table's L2
// section (calibration/include/atomq/calibration/l2_section.hpp). docs/model.md, "The L2 queue".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "atomq/calibration/l2_section.hpp"
#include "atomq/common/global_atomic.hpp"
#include "atomq/model/inputs.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/rules.hpp"
#include "atomq/model/utilization_class.hpp"

namespace atomq::model {

// Why the hottest slice's service time is the one chosen.
enum class L2ServiceBasis {
  kHotAddress,  // one address serializes: the calibrated one_address service time
  kHotSlice,    // few addresses on uneven slices: the hottest slice's count carries it
  kSpread,      // evenly spread
  // (not one address: the spread's cell is the one nearest in requests per instruction)
};
constexpr std::array<EnumName<L2ServiceBasis>, 3> enum_names(L2ServiceBasis) {
  return {{{L2ServiceBasis::kHotAddress, "one_hot_address"},
           {L2ServiceBasis::kHotSlice, "hot_slice"},
           {L2ServiceBasis::kSpread, "spread"}}};
}

// Where the L2 path's U comes from: requests x S, (same-address serialization) the busy counter
// over the calibrated cell's busy share, or the SMs' request port held by the atomics.
enum class L2UtilizationBasis { kRequests, kBusyCounter, kRequestPort };

constexpr std::array<EnumName<L2UtilizationBasis>, 3> enum_names(L2UtilizationBasis) {
  return {{{L2UtilizationBasis::kRequests, "requests"},
           {L2UtilizationBasis::kBusyCounter, "busy_counter"},
           {L2UtilizationBasis::kRequestPort, "request_port"}}};
}

// The L2 counters of one kernel, as the queue reads them.
struct L2Inputs {
  double requests = 0;                // atom + red requests, all slices
  double requests_hottest_slice = 0;  // atom .max + red .max (an upper bound when both occur)
  double cas_requests = 0;
  int slices = 0;                     // lts__cycles_elapsed .sum / .max
  double hottest_share = 0;           // hottest slice / all requests
  double concentration = 0;           // hottest slice / mean slice
  double cas_share = 0;               // CAS / all requests
  std::optional<double> warp_instructions;          // ATOMG + REDG
  std::optional<double> requests_per_instruction;   // requests / warp instructions
  std::optional<double> sectors_per_request;        // atom + red sectors / requests (1 to 4)
  // Distinct sectors a global atomic warp instruction touches ("Lanes per sector"): requests per
  // instruction / this is the lanes a warp merge folds into one request.
  std::optional<double> sectors_per_instruction;
  // The request port ("The request port"): the share of the SMs' time their L1 was handing
  // requests to the crossbar or held one it did not take, and the atomics' share of the L2
  // requests the SMs sent; unknown without the counters collected on request.
  std::optional<double> request_port_occupancy;
  std::optional<double> atomic_request_share;
  double elapsed_cycles = 0;          // L2 cycles of the kernel (lts__cycles_elapsed.max)
  std::string elapsed_source;
  std::optional<double> busy_fraction;  // lts__d_atomic_input_cycles_active.max / elapsed
  std::optional<double> duration_ns;
  std::optional<double> addresses;      // distinct global addresses, from a hint

  // The op: the SASS hint, else the candidates the counters allow (chosen by the queue).
  std::vector<GlobalAtomicOp> candidate_ops;
  Origin op_origin = Origin::kAssumed;
  std::string op_reason;

  double observed_cycles_per_request() const {
    return requests_hottest_slice > 0 ? elapsed_cycles / requests_hottest_slice : 0.0;
  }
};

// The L2 inputs of a profile, or nullopt with the reason in `note` (missing counters: the
// queue is not evaluated; old profiles and ncu CSVs without them keep working). The section
// gives the L2 clock (when the profile lacks the elapsed counter) and the ops it calibrates.
std::optional<L2Inputs> derive_l2_inputs(const KernelProfile& profile, const calibration::L2Section& section,
                                         std::string& note);

// The hottest slice by the calibrated L2 law (l2_law.hpp), evaluated beside the queue's cell
// choice: its S and U for the kernel's op, sectors per request and hot-line chains; not
// evaluated (with the missing counter or table part named) where its inputs are absent. It
// does not set the class yet: docs/model.md, "The L2 law", says where it and the cells differ.
struct L2LawEvaluation {
  bool evaluated = false;
  std::string not_evaluated_reason;
  double sectors_per_request = 0;
  double chains = 0;           // m: hot lines at the hottest slice, from its share
  double request_cycles = 0;   // a_op
  double sector_cycles = 0;    // b_op
  double chain_cycles = 0;     // lambda_op
  double exponent = 0;         // p
  double service_cycles = 0;   // S by the law
  double utilization = 0;      // requests at the hottest slice x S / elapsed, as computed (may exceed 1)
};

// Little's law on the L2 path (docs/model.md, "Round trips"): a warp that waits for each ATOM's
// result (a hash probe, a CAS loop, a ticket) spends the calibrated round trip at the requests
// the SMs keep in flight per ATOM it issues. Its share of the SMs' active time is the latency
// utilization: near 1, the warps' time is the atomics' round trips, and only fewer or shorter
// round trips shorten the kernel, whatever the slices' utilization.
struct L2LatencyEvaluation {
  bool evaluated = false;
  std::string not_evaluated_reason;
  double atom_instructions_per_sm = 0;  // ATOMG warp instructions (returning atomics)
  double requests_per_instruction = 0;  // L2 ATOM requests per ATOMG instruction
  double resident_warps_per_sm = 0;     // achieved occupancy x max warps per SM
  double in_flight_per_sm = 0;          // resident warps x requests per instruction
  double round_trip_ns = 0;             // calibrated at that load
  std::string round_trip_basis;         // which calibrated chains, in words
  double exposed_time_ns = 0;           // ATOMs per warp x round trip
  double active_time_ns = 0;            // the SMs' mean active time
  double utilization = 0;               // exposed / active, as computed
  UtilizationClass utilization_class = UtilizationClass::kInsufficientData;
};

struct L2Queue {
  bool evaluated = false;
  std::string not_evaluated_reason;  // when !evaluated
  L2Inputs inputs;
  GlobalAtomicOp op = GlobalAtomicOp::kRedAddU32;
  Origin op_origin = Origin::kAssumed;
  std::string op_reason;              // how the op was obtained, in words
  L2ServiceBasis basis = L2ServiceBasis::kSpread;
  AddressSpread spread = AddressSpread::kManyLines;
  std::string basis_text;             // why this service time, in words
  double service_cycles = 0;          // S: L2 cycles per request at the hottest slice
  double one_address_cycles = 0;      // calibrated same-address S of the op
  double addresses_of_spread = 0;     // distinct words of the calibrated cell used
  double utilization = 0;             // hottest slice: requests x S / elapsed (or serialization)
  double request_utilization = 0;     // requests x S / elapsed
  // The SMs' request port held by the atomics (port occupancy x the atomics' share of the
  // requests); where it exceeds the slice's U it is U (basis request_port). Unknown without the
  // counters collected on request.
  std::optional<double> port_utilization;
  L2UtilizationBasis utilization_basis = L2UtilizationBasis::kRequests;
  double busy_cycles = 0;             // requests at the hottest slice x S
  std::optional<double> atomic_bound_time_ns;
  double calibrated_busy_fraction = 0;           // the saturated cell's busy counter share
  std::optional<double> expected_busy_fraction;  // U x the saturated cell's busy fraction
  std::string busy_cross_check;       // the busy counter against that, in words
  UtilizationClass utilization_class = UtilizationClass::kInsufficientData;
  L2LawEvaluation law;                // the L2 law's figures for the same slice
  L2LatencyEvaluation latency;        // the round trips of its returning atomics
  bool bound_by_round_trips = false;  // the class is the round trips', worse than the slice's
  // The class is the request port's: it was occupied at least the potential mark of the time and
  // the atomics sent enough of its requests that without them it would be Rules::atomic_bound_gain
  // faster (U stays the atomics' own part of the port's time).
  bool bound_by_port = false;
};

// Never throws. section may be null (a table without an L2 section): not evaluated.
L2Queue evaluate_l2_queue(const KernelProfile& profile, const calibration::L2Section* section,
                          const Rules& rules) noexcept;

}  // namespace atomq::model
