#include "terminal.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <limits>

namespace atomq::cli {

namespace cal = atomq::calibration;

namespace {
bool g_quiet = false;
}  // namespace

void set_quiet(bool quiet) { g_quiet = quiet; }
bool quiet() { return g_quiet; }

std::string check_count(const std::string& value) {
  const std::string expected =
      "expected a count (0 to " + std::to_string(std::numeric_limits<long long>::max()) + "), got '" + value + "'";
  if (value.empty() || value.size() > 19 || !std::all_of(value.begin(), value.end(), ::isdigit)) return expected;
  try {
    (void)std::stoll(value);
  } catch (const std::exception&) {
    return expected;
  }
  return "";
}

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled && !quiet()), tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(const cal::CalibrationProgress& p) {
  if (!enabled_ || p.total == 0) return;
  const double frac = static_cast<double>(p.done) / static_cast<double>(p.total);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = p.done > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
  const int width = 30;
  const int filled = static_cast<int>(frac * width);
  if (tty_) {
    fmt::print(stderr, "\r[{}{}] {:5}/{} {:5.1f}%  elapsed {:4.0f}s  ETA {:4.0f}s  {:<40.40}",
               std::string(filled, '#'), std::string(width - filled, '.'), p.done, p.total,
               100.0 * frac, elapsed, eta, p.current);
    std::fflush(stderr);
  } else {
    const int decile = static_cast<int>(frac * 10);
    if (decile != last_decile_) {
      last_decile_ = decile;
      fmt::print(stderr, "calibrate: {:3.0f}% ({}/{}) elapsed {:.1f}s ETA {:.1f}s\n", 100.0 * frac,
                 p.done, p.total, elapsed, eta);
    }
  }
}

void ProgressBar::finish() {
  if (enabled_ && tty_) fmt::print(stderr, "\n");
}

namespace {

std::string cell_text(const cal::ServiceTable& t, int n, int e, double c, cal::OpVariant v,
                      cal::Pattern p) {
  const cal::Cell* cell = t.find(n, e, c, v, p);
  if (cell == nullptr) return "-";
  return fmt::format("{:.2f}", cell->s);
}

// Saturated cycles per request per op and spread (one_address is the same-address service
// time), requests per warp instruction, and the worst repeat spread of the saturated cells.
void print_l2_summary(std::FILE* out, const cal::ServiceTable& t) {
  const cal::L2Section& l2 = t.l2;
  fmt::print(out,
             "\nL2 atomics: L2 cycles per request at the hottest slice, saturated ({} warps/SM); "
             "requests per warp instruction in ()\n",
             l2.warps_per_sm.back());
  size_t width = 2;  // the longest op name: "op" at least
  for (GlobalAtomicOp op : l2.ops) width = std::max(width, enum_name(op).size());
  fmt::print(out, "{:<{}}", "op", width);
  for (AddressSpread s : l2.spreads) fmt::print(out, " | {:>17}", enum_name(s));
  fmt::print(out, "\n");
  double worst_spread = 0;
  for (GlobalAtomicOp op : l2.ops) {
    fmt::print(out, "{:<{}}", enum_name(op), width);
    for (AddressSpread s : l2.spreads) {
      const cal::L2Cell* c = l2.saturated(op, s);
      if (c == nullptr) {
        fmt::print(out, " | {:>17}", "-");
        continue;
      }
      worst_spread = std::max(worst_spread, c->repeat_spread);
      fmt::print(out, " | {:>17}", fmt::format("{:.3f} ({:.3g})", c->cycles_per_request,
                                               c->requests_per_instruction));
    }
    fmt::print(out, "\n");
  }
  fmt::print(out,
             "{} L2 slices, L2 clock {:.0f} MHz; repeat spread of saturated cells: max {:.2f}%; "
             "L2 sweep {:.1f} s of the calibration's {:.1f} s\n",
             l2.slices, l2.l2_clock_mhz, 100.0 * worst_spread, l2.wall_seconds,
             t.provenance.wall_seconds);
}

void print_dsmem_summary(std::FILE* out, const cal::ServiceTable& t) {
  if (t.dsmem.empty()) {
    fmt::print(out, "\nno DSMEM section (calibrated before the DSMEM sweep)\n");
    return;
  }
  fmt::print(out, "\nDSMEM: SM cycles per warp request per SM, saturated ({:.1f} s)\n", t.dsmem.wall_seconds);
  fmt::print(out, "{:<11} {:>5} {:>8} {:>8} {:>8} {:>9}\n", "op", "bins", "warps/SM", "S", "spread", "busy");
  for (const cal::DsmemCell& c : t.dsmem.cells)
    fmt::print(out, "{:<11} {:>5} {:>8} {:>8.3f} {:>7.2f}% {:>8.1f}%\n", enum_name(c.op), c.bins, c.warps_per_sm,
               c.cycles_per_request, 100.0 * c.repeat_spread, 100.0 * c.busy_fraction);
}

// One row per residency and request size: the round trip (ns) at each calibrated warps per SM.
void print_load_summary(std::FILE* out, const cal::ServiceTable& t) {
  if (t.loads.empty()) {
    fmt::print(out, "\nno load round-trip section (calibrated before the load sweep)\n");
    return;
  }
  fmt::print(out, "\nglobal load round trip, ns, one dependent load in flight per warp ({:.1f} s)\n",
             t.loads.wall_seconds);
  std::string row, key;
  double worst_spread = 0;
  for (const cal::LoadCell& c : t.loads.cells) {
    const std::string k = fmt::format("{:<4} {:>2} sectors:", enum_name(c.residency), c.sectors_per_request);
    if (k != key) {
      if (!row.empty()) fmt::print(out, "{}\n", row);
      key = k;
      row = k;
    }
    row += fmt::format(" {}w {:.0f}", c.warps_per_sm, c.round_trip_ns);
    worst_spread = std::max(worst_spread, c.repeat_spread);
  }
  fmt::print(out, "{}\nrepeat spread: max {:.2f}%\n", row, 100.0 * worst_spread);
}

}  // namespace

void print_table_summary(std::FILE* out, const cal::ServiceTable& t) {
  const cal::Provenance& p = t.provenance;
  fmt::print(out, "{} ({}, sm_{}{}, {} SMs), SM clock {:.0f}/{:.0f} MHz (start/end, under load)\n",
             p.device.name, p.device.chip.empty() ? "chip ?" : p.device.chip, p.device.compute_capability_major,
             p.device.compute_capability_minor, p.device.sm_count, p.sm_clock_mhz_start, p.sm_clock_mhz_end);
  fmt::print(out, "driver {} (CUDA {}), CUDA runtime {}, {} grid, {} cells x {} repeats, {:.1f} s, {} (atomq {} {})\n",
             p.driver_release, cuda_version_string(p.device.driver_version), cuda_version_string(p.device.runtime_version), p.grid_name, t.cells.size(), p.repeats,
             p.wall_seconds, p.created_utc, p.atomq_version, p.atomq_commit);

  const int n_lo = t.axes.n.front();
  const int n_hi = t.axes.n.back();
  const int e = t.axes.e.back();
  const bool has_c0 = std::abs(t.axes.c.front()) < 1e-9;
  const bool has_c1 = std::abs(t.axes.c.back() - 1.0) < 1e-9;
  fmt::print(out, "\nS = cycles per warp-level shared atomic instruction per SM (e = {})\n", e);
  fmt::print(out, "{:<12} | {:>10} {:>10} | {:>10} {:>10} | {:>10} {:>10}\n", "pattern",
             "POPC n=" + std::to_string(n_lo), "n=" + std::to_string(n_hi),
             "ADD n=" + std::to_string(n_lo), "n=" + std::to_string(n_hi),
             "CAS n=" + std::to_string(n_lo), "n=" + std::to_string(n_hi));
  for (const cal::Pattern& pat : t.axes.patterns) {
    auto col = [&](int n, double c, cal::OpVariant v) {
      const bool ok = (c == 0.0 && has_c0) || (c == 1.0 && has_c1);
      return ok ? cell_text(t, n, e, c, v, pat) : std::string("-");
    };
    fmt::print(out, "{:<12} | {:>10} {:>10} | {:>10} {:>10} | {:>10} {:>10}\n", cal::to_string(pat),
               col(n_lo, 0.0, cal::OpVariant::kPopcInc), col(n_hi, 0.0, cal::OpVariant::kPopcInc),
               col(n_lo, 0.0, cal::OpVariant::kAdd), col(n_hi, 0.0, cal::OpVariant::kAdd),
               col(n_lo, 1.0, cal::OpVariant::kAdd), col(n_hi, 1.0, cal::OpVariant::kAdd));
  }

  auto latency = [&](cal::LatencyOp op, cal::Pattern pat) {
    const cal::LatencyCell* c = t.find_latency(op, pat, 32);
    return c ? fmt::format("{:.1f}", c->cycles) : std::string("-");
  };
  fmt::print(out,
             "\nunloaded latency (one warp, dependent chain, e = 32), cycles: ADD distinct {}, "
             "ADD same {}, CAS distinct {}, CAS same {}\n",
             latency(cal::LatencyOp::kAdd, cal::Pattern{1}), latency(cal::LatencyOp::kAdd, cal::Pattern{0}),
             latency(cal::LatencyOp::kCas, cal::Pattern{1}), latency(cal::LatencyOp::kCas, cal::Pattern{0}));

  double max_control = 0, max_spread_saturated = 0, max_spread = 0;
  for (const auto& c : t.controls) max_control = std::max(max_control, c.cycles_per_slot);
  for (const auto& c : t.cells) {
    max_spread = std::max(max_spread, c.spread);
    if (c.n >= 8) max_spread_saturated = std::max(max_spread_saturated, c.spread);
  }
  fmt::print(out,
             "zero-atomic control: at most {:.3f} cycles per slot; repeat spread: max {:.2f}% "
             "(n >= 8), {:.2f}% (all cells)\n",
             max_control, 100.0 * max_spread_saturated, 100.0 * max_spread);
  print_l2_summary(out, t);
  print_dsmem_summary(out, t);
  print_load_summary(out, t);
}

}  // namespace atomq::cli
