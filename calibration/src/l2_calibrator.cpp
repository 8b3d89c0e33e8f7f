// The L2 sweep: sizes each cell's launch, then reads the L2 counters of every repeat.
#include "atomq/calibration/l2_calibrator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <cmath>
#include <stdexcept>

#include "atomq/common/statistics.hpp"
#include "atomq/microbench/l2_atomic_stream.hpp"

namespace atomq::calibration {

namespace mb = atomq::microbench;

namespace {

std::string cell_label(const mb::L2AtomicConfig& c) {
  if (c.hot_addresses > 0)
    return fmt::format("L2 law {} H={} {} lanes={}{}{} w={}", enum_name(c.op), c.hot_addresses,
                       c.packed ? "packed" : "per-line", c.active_lanes, c.dependent ? " dependent" : "",
                       c.lanes_per_word > 1 ? fmt::format(" {} per word", c.lanes_per_word) : "", c.warps_per_sm);
  return "L2 " + enum_name(c.op) + " " + enum_name(c.spread) + " w=" + std::to_string(c.warps_per_sm);
}

// What one cell's profiled launch says: requests, the hottest slice, the L2 clock.
struct CounterReading {
  double requests = 0;          // all slices, of the op's kind (RED or ATOM)
  double hottest_requests = 0;  // at the hottest slice
  double l2_clock_mhz = 0;
  double slices = 0;
  double busy_fraction = 0;
  double cycles_elapsed = 0;  // at the slowest slice: the launch's length in L2 cycles
  double sectors = 0;         // all slices; 0 where the probe did not read them
  double duration_ns = 0;
};

CounterReading read_counters(const L2Counters& k, GlobalAtomicOp op, const std::string& label) {
  // Both request kinds: one of them is zero for a single-op kernel, and the generic ATOM the
  // half-pair adds compile to need not count as the kind its name says.
  CounterReading r;
  r.requests = k.red_requests + k.atom_requests;
  r.hottest_requests = k.red_requests_max + k.atom_requests_max;
  if (!(r.requests > 0 && r.hottest_requests > 0 && k.cycles_elapsed_max > 0 && k.duration_ns > 0))
    throw std::runtime_error(label + ": the L2 counters report no " + enum_name(op) +
                             " requests or no elapsed time (was the launch profiled?)");
  if (k.red_requests > 0 && k.atom_requests > 0)
    spdlog::warn("{}: both RED ({:.0f}) and ATOM ({:.0f}) requests; their sum is the cell's", label,
                 k.red_requests, k.atom_requests);
  r.l2_clock_mhz = k.cycles_elapsed_max / k.duration_ns * 1e3;
  r.slices = k.cycles_elapsed_sum / k.cycles_elapsed_max;
  r.busy_fraction = k.atomic_busy_max / k.cycles_elapsed_max;
  r.cycles_elapsed = k.cycles_elapsed_max;
  r.sectors = k.red_sectors + k.atom_sectors;
  r.duration_ns = k.duration_ns;
  return r;
}

// Service time per request at the hottest slice, per repeat: the elapsed L2 cycles of that
// repeat's profiled launch over the hottest slice's requests. Counting cycles rather than
// scaling event times by one clock reading keeps a clock change between repeats out of S.
L2Cell make_cell(const mb::L2AtomicConfig& config, const mb::L2AtomicLaunch& launch,
                 const std::vector<CounterReading>& repeats) {
  const CounterReading& r = repeats.front();
  L2Cell c;
  c.op = config.op;
  c.spread = config.spread;
  c.warps_per_sm = config.warps_per_sm;
  c.addresses = static_cast<int>(launch.addresses);
  c.hot_addresses = config.hot_addresses;
  c.packed = config.packed;
  c.active_lanes = config.active_lanes;
  c.dependent = config.dependent;
  c.lanes_per_word = config.lanes_per_word;
  // Outstanding requests the grid can hold: one per active lane of every warp (dependent chains).
  c.requests_in_flight = static_cast<double>(launch.threads / 32) * config.active_lanes;
  c.requests_per_instruction = r.requests / static_cast<double>(launch.warp_instructions);
  c.hottest_slice_share = r.hottest_requests / r.requests;
  std::vector<double> cycles, busy, sectors, durations, requests;
  for (const CounterReading& k : repeats) {
    durations.push_back(k.duration_ns);
    requests.push_back(k.requests);
    cycles.push_back(k.cycles_elapsed / k.hottest_requests);
    busy.push_back(k.busy_fraction);
    if (k.sectors > 0) sectors.push_back(k.sectors / k.requests);
  }
  if (!sectors.empty()) c.sectors_per_request = median(sectors);
  const SampleSummary s = summarize(cycles);
  c.cycles_per_request = s.median;
  c.cycles_min = s.min;
  c.cycles_max = s.max;
  c.repeat_spread = (s.max - s.min) / s.median;
  c.busy_fraction = median(busy);
  c.duration_ns = median(durations);
  c.requests = median(requests);
  c.gpu_requests_per_cycle = 1.0 / (c.cycles_per_request * c.hottest_slice_share);
  return c;
}

void log_cell(const std::string& label, const mb::L2AtomicConfig& config, const L2Cell& cell,
              const std::vector<double>& times_ms) {
  std::string times;
  for (double t : times_ms) times += fmt::format(" {:.4f}", t);
  const SampleSummary t = summarize(times_ms);
  spdlog::debug("{}: {} atomics/thread, {:.3f} cycles/request, repeat spread {:.2f}% (event times {:.2f}%), ms:{}",
                label, config.atomics_per_thread, cell.cycles_per_request, 100.0 * cell.repeat_spread,
                100.0 * (t.max - t.min) / t.median, times);
}


// One op's cells: each sized to the target time, then one counter batch of `repeats` rounds
// over them (each launch's own L2 cycles), then each timed.
std::vector<L2Cell> measure_cells(mb::L2AtomicStreamBench& bench, std::vector<mb::L2AtomicConfig> configs,
                                  double target_launch_ms, int repeats, const L2CounterProbe& probe,
                                  const std::function<void(std::string)>& cell_done, std::vector<double>& clocks,
                                  std::vector<double>& slices) {
  for (mb::L2AtomicConfig& cfg : configs) cfg.atomics_per_thread = bench.atomics_per_thread_for(cfg, target_launch_ms);
  const size_t n = configs.size();
  std::vector<mb::L2AtomicLaunch> launches(n * static_cast<size_t>(repeats));
  L2LaunchBatch batch;
  for (size_t i = 0; i < launches.size(); ++i) batch.push_back([&, i] { launches[i] = bench.run(configs[i % n]); });
  const std::vector<L2Counters> counters = probe(batch);
  if (counters.size() != launches.size())
    throw std::runtime_error("the L2 counter probe returned " + std::to_string(counters.size()) + " launches for " +
                             std::to_string(launches.size()));
  std::vector<L2Cell> cells;
  for (size_t i = 0; i < n; ++i) {
    const std::string label = cell_label(configs[i]);
    std::vector<CounterReading> readings;
    for (size_t k = i; k < counters.size(); k += n) {
      readings.push_back(read_counters(counters[k], configs[i].op, label));
      clocks.push_back(readings.back().l2_clock_mhz);
      slices.push_back(readings.back().slices);
    }
    bench.run(configs[i]);  // warm-up: this cell's lines back in L2 after the other launches
    const std::vector<double> times = bench.time_ms(configs[i], repeats);
    cells.push_back(make_cell(configs[i], launches[i], readings));
    log_cell(label, configs[i], cells.back(), times);
    if (cell_done) cell_done(label);
  }
  return cells;
}

// The law sweep's configurations of one op (sweep_plan.hpp): at the most warps per SM, each
// hot-address count one word per line and packed with all lanes, and one per line with one lane;
// for a latency op, dependent chains over the latency warps and lanes: one lane over 4096 lines,
// several lanes over the most lines the bench holds (a few lanes per word at the most warps).
std::vector<mb::L2AtomicConfig> law_configs(const L2SweepPlan& plan, GlobalAtomicOp op) {
  std::vector<mb::L2AtomicConfig> configs;
  if (plan.warps_per_sm.empty()) return configs;
  const int most = plan.warps_per_sm.back();
  for (int h : plan.hot_addresses)
    for (auto [packed, lanes] : {std::pair{false, 32}, std::pair{true, 32}, std::pair{false, 1}}) {
      mb::L2AtomicConfig cfg{op, packed ? AddressSpread::kOneLine : AddressSpread::kManyLines, most,
                             mb::kL2AtomicUnroll};
      cfg.hot_addresses = h;
      cfg.packed = packed;
      cfg.active_lanes = lanes;
      configs.push_back(cfg);
    }
  if (std::find(plan.latency_ops.begin(), plan.latency_ops.end(), op) != plan.latency_ops.end())
    for (int lanes : plan.latency_lanes)
      for (int w : plan.latency_warps) {
        mb::L2AtomicConfig cfg{op, AddressSpread::kManyLines, w, mb::kL2AtomicUnroll};
        cfg.hot_addresses = lanes == 1 ? 4096 : mb::kL2MaxHotAddresses;
        cfg.active_lanes = lanes;
        cfg.dependent = true;
        configs.push_back(cfg);
      }
  return configs;
}

// The word-lane sweep's configurations of one op: all lanes at the most warps per SM, each
// lanes_per_word neighbours on one word, the words one per line and packed.
std::vector<mb::L2AtomicConfig> word_lane_configs(const L2SweepPlan& plan, GlobalAtomicOp op) {
  std::vector<mb::L2AtomicConfig> configs;
  if (plan.warps_per_sm.empty() || plan.word_lane_hot_addresses < 1 ||
      std::find(plan.word_lane_ops.begin(), plan.word_lane_ops.end(), op) == plan.word_lane_ops.end())
    return configs;
  for (bool packed : {false, true})
    for (int k : plan.lanes_per_word) {
      mb::L2AtomicConfig cfg{op, packed ? AddressSpread::kOneLine : AddressSpread::kManyLines,
                             plan.warps_per_sm.back(), mb::kL2AtomicUnroll};
      cfg.hot_addresses = std::min(plan.word_lane_hot_addresses, mb::kL2MaxHotAddresses);
      cfg.packed = packed;
      cfg.lanes_per_word = k;
      configs.push_back(cfg);
    }
  return configs;
}

}  // namespace

L2Section run_l2_sweep(mb::L2AtomicStreamBench& bench, const L2SweepPlan& plan, int repeats,
                       const L2CounterProbe& probe, const std::function<void(std::string)>& cell_done) {
  if (!probe) throw std::invalid_argument("the L2 sweep needs a counter probe");
  if (repeats < 1) throw std::invalid_argument("the L2 sweep needs at least one repeat");
  const auto t_begin = std::chrono::steady_clock::now();
  L2Section section;
  section.ops = plan.ops;
  section.spreads = plan.spreads;
  section.warps_per_sm = plan.warps_per_sm;
  std::vector<double> clocks, slices;
  for (GlobalAtomicOp op : plan.ops) {
    std::vector<mb::L2AtomicConfig> configs;
    for (AddressSpread spread : plan.spreads)
      for (int w : plan.warps_per_sm) configs.push_back(mb::L2AtomicConfig{op, spread, w, mb::kL2AtomicUnroll});
    for (L2Cell& c : measure_cells(bench, configs, plan.target_launch_ms, repeats, probe, cell_done, clocks, slices))
      section.cells.push_back(c);
    const std::vector<mb::L2AtomicConfig> law = law_configs(plan, op);
    if (!law.empty())
      for (L2Cell& c : measure_cells(bench, law, plan.target_launch_ms / 2, plan.law_repeats, probe, cell_done,
                                     clocks, slices))
        section.law_cells.push_back(c);
    const std::vector<mb::L2AtomicConfig> word_lanes = word_lane_configs(plan, op);
    if (!word_lanes.empty())
      for (L2Cell& c : measure_cells(bench, word_lanes, plan.target_launch_ms / 2, plan.law_repeats, probe,
                                     cell_done, clocks, slices))
        section.word_lane_cells.push_back(c);
  }
  section.l2_clock_mhz = median(clocks);
  section.slices = static_cast<int>(std::lround(median(slices)));
  section.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_begin).count();
  return section;
}

}  // namespace atomq::calibration
