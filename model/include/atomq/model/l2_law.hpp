// The L2 law: one calibrated service-demand law for the hottest L2 slice's atomic unit
// (docs/model.md, "The L2 law"). Per request at the slice, a pipelined bandwidth cost per
// sector and a same-address chain cost shared by the chains the slice interleaves:
//
//   S(op, s, m) = ( a_op^p + (b_op * s)^p + (lambda_op / m)^p )^(1/p)
//
// s: 32-byte sectors per request; m: independent chains (hot lines) at the slice; a_op, b_op, lambda_op
// per op and the exponent p fitted on the table's L2 cells (law sweep and spread cells);
// m of a kernel read off the calibrated curve of the hottest slice's share against hot lines.
// Little's law on the calibrated round trip gives the latency floor of dependent atomics.
// Plain C++; fitted with Eigen.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "atomq/calibration/l2_section.hpp"
#include "atomq/common/global_atomic.hpp"

namespace atomq::model {

struct L2LawOpTerms {
  GlobalAtomicOp op = GlobalAtomicOp::kRedAddU32;
  double request_cycles = 0;  // a_op: L2 cycles per request, whatever it carries
  double sector_cycles = 0;   // b_op: L2 cycles per sector, pipelined
  double chain_cycles = 0;   // lambda_op: L2 cycles between two updates of one address
  int cells = 0;             // saturated cells the op's terms were fitted on
};

// One saturated cell against the law: what the residual statistics are made of.
struct L2LawResidual {
  GlobalAtomicOp op = GlobalAtomicOp::kRedAddU32;
  std::string pattern;  // e.g. "H=64 per-line lanes=32" or "spread one_line"
  double sectors = 0, chains = 0;
  double measured = 0, predicted = 0;
  double relative() const { return measured > 0 ? predicted / measured - 1 : 0.0; }
};

// The hottest slice's share of all requests against the hot lines it holds (the law sweep's
// one-word-per-line cells: H lines, round-robin).
struct L2SharePoint {
  double share = 0;
  double chains = 0;  // hot lines at the hottest slice
  double lines = 0;   // hot lines in all (the cells' H)
};

// One dependent-chain cell: the round trip of a global atomic with `in_flight_per_sm` requests
// outstanding on every SM (warps x lanes, each lane its own line), by Little's law.
struct L2RoundTripPoint {
  GlobalAtomicOp op = GlobalAtomicOp::kAtomAddU32;
  int lanes = 1, warps_per_sm = 1;
  double in_flight_per_sm = 0;
  double latency_ns = 0;
};

// How well any function of the law's inputs (op, sectors per request, chains) could fit the
// cells: cells with the same inputs that measured differently cannot all be met. For each such
// group the value whose relative error is the same on its fastest and slowest cell makes the
// smallest largest error: max_abs_residual is a bound no law of these inputs beats. The median
// is that fit's (one value per group), not a bound.
struct L2LawInputBound {
  double median_abs_residual = 0, max_abs_residual = 0;
  // The group that sets the max: its op, inputs and the two cells that measured furthest apart.
  GlobalAtomicOp op = GlobalAtomicOp::kRedAddU32;
  double sectors = 0, chains = 0;
  std::string fastest_pattern, slowest_pattern;
  double fastest_cycles = 0, slowest_cycles = 0;
};

struct L2Law {
  bool fitted = false;
  std::string not_fitted_reason;
  double exponent = 0;  // p
  std::vector<L2LawOpTerms> ops;
  std::vector<L2SharePoint> share_curve;  // descending share
  double one_line_share = 0;              // the hottest share of one hot line
  std::vector<L2LawResidual> residuals;   // every saturated cell fitted
  double median_abs_residual = 0, max_abs_residual = 0;
  L2LawInputBound input_bound;  // the least residuals any law of (op, s, m) can reach on them
  // Little's law: the round trip of one global atomic alone (dependent one-lane chain at the
  // fewest warps) and its requests in flight per SM at the most warps measured; ns.
  std::optional<double> latency_alone_ns;
  std::optional<double> latency_loaded_ns;
  double latency_loaded_in_flight_per_sm = 0;
  std::vector<L2RoundTripPoint> round_trip;  // every dependent cell, by requests in flight

  const L2LawOpTerms* terms(GlobalAtomicOp op) const;
  // L2 cycles per request at the slice; nullopt when the op has no terms.
  std::optional<double> service_cycles(GlobalAtomicOp op, double sectors, double chains) const;
  // Independent hot-line chains at a slice holding `share` of all requests (>= 1).
  double chains_at_share(double share) const;
  // The hottest slice's share of all requests when `lines` consecutive lines are hot alike, as the
  // law sweep measured it (log-log between its line counts; the last beyond them), and backwards:
  // the hot lines a hottest share stands for. Both 0 without a curve.
  double share_at_lines(double lines) const;
  double lines_at_share(double share) const;
};

// The least residuals any law of (op, sectors, chains) can reach on these cells.
L2LawInputBound input_bound(const std::vector<L2LawResidual>& cells);

// The law fitted on a table's L2 section (deterministic; not fitted, with the reason, where the
// section has no law cells: tables calibrated before the law sweep).
L2Law fit_l2_law(const calibration::L2Section& section);

// The law of a section, fitted once per content and kept while it is among the last few fitted
// (a process uses a table or two); shared, so a caller's copy outlives the cache's.
std::shared_ptr<const L2Law> l2_law_of(const calibration::L2Section& section);

}  // namespace atomq::model
