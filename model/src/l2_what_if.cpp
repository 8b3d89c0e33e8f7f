// The L2 what-ifs (docs/model.md, "The L2 queue"). Kernel time is split into the non-atomic
// work, which stays (duration minus the hottest slice's busy time, floored by reading DRAM at
// the reachable bandwidth), and the L2 time at the hottest slice, which the change scales:
//   T' = max(non-atomic work, shared-unit time of updates moved to shared memory) + L2 time'.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "atomq/model/l2_law.hpp"
#include "atomq/model/metric_names.hpp"
#include "findings.hpp"
#include "l2_what_if.hpp"

namespace atomq::model::detail {

namespace {

constexpr double kMinimumGain = 1.05;  // a what-if below this is no advice
constexpr double kLineBytes = 128;     // an L2 line
// Expected largest bank load of 32 lanes on random words of 32 banks (balls into bins).
constexpr double kRandomLanesBankConflict = 3.5;

}  // namespace

namespace {

double resident_blocks_per_sm(const KernelProfile& p) {
  if (p.launch.max_active_blocks_per_sm > 0) return p.launch.max_active_blocks_per_sm;
  const double threads = static_cast<double>(p.launch.threads_per_block());
  const double warps = p.device.max_warps_per_sm > 0 ? p.device.max_warps_per_sm : 64;
  return threads > 0 ? std::max(1.0, std::floor(warps * 32 / threads)) : 1.0;
}

// A grid of persistent blocks: every SM's resident blocks, no more than the kernel launches.
double persistent_grid(const KernelProfile& p) {
  const double sms = p.device.sm_count > 0 ? p.device.sm_count : 0;
  return std::min(static_cast<double>(p.launch.blocks()), sms * resident_blocks_per_sm(p));
}

struct SharedCost {
  double ns = 0;
  std::string basis;
};

double resident_warps_per_sm(const KernelProfile& p) {
  return std::min<double>(p.device.max_warps_per_sm > 0 ? p.device.max_warps_per_sm : 64,
                          resident_blocks_per_sm(p) * std::max(1.0, p.launch.threads_per_block() / 32.0));
}

// The SMs that share the shared-memory work and their clock (0: unknown), as both pricings read them.
struct SmClock {
  double sms = 1, mhz = 0;
  double ns(double instructions, double cycles) const {
    return mhz > 0 ? instructions / sms * cycles / mhz * 1000.0 : 0.0;
  }
};
SmClock sm_clock(const KernelProfile& p, const ServiceTimeModel& m) {
  return {p.device.sm_count > 0 ? static_cast<double>(p.device.sm_count) : 1.0,
          p.device.sm_clock_mhz > 0 ? p.device.sm_clock_mhz : m.table().provenance.sm_clock_mhz_end};
}

// A CAS loop in shared memory (ATOMS.CAST.SPIN on sm_90) priced by the table's shared CAS-spin
// cells: SM cycles per warp entry by the lanes of a warp on one word and the warps of a block on
// one word, at the kernel's warps per SM. Each warp instruction touches lanes / per_word of the
// copy's words; the block's warps meet on a word that often (at least 1, at most all of them).
std::optional<SharedCost> spin_cost(const KernelAnalysis& a, const KernelProfile& p, const ServiceTimeModel& m,
                                    const Rules& r, double addresses, double updates, double lanes, double per_word) {
  const calibration::SharedSpinSection& spin = m.table().shared_spin;
  if (!r.uses(ModelTerm::kSharedCasSpin) || spin.empty()) return std::nullopt;
  const double block_warps = std::max(1.0, std::ceil(p.launch.threads_per_block() / 32.0));
  const double touched = std::max(1.0, lanes / per_word);
  const double warps_per_word = std::clamp(block_warps * touched / std::max(1.0, addresses), 1.0, block_warps);
  const double warps = resident_warps_per_sm(p);
  const std::optional<double> cycles =
      spin.cycles_per_entry(traits(a.l2.op).word_bytes, per_word, warps_per_word, warps);
  const SmClock sm = sm_clock(p, m);
  if (!cycles || !(sm.mhz > 0)) return std::nullopt;
  const double entries = updates / lanes;
  SharedCost cost;
  cost.ns = sm.ns(entries, *cycles);
  cost.basis = fmt::format("{:.3g} warp entries of the shared CAS loop at {:.1f} SM cycles each ({:.0f} lanes and "
                           "{:.1f} of the block's warps on a word, {:.0f} warps per SM: the table's CAS-spin cells) "
                           "over {:.0f} SMs",
                           entries, *cycles, per_word, warps_per_word, warps, sm.sms);
  return cost;
}

// The shared unit's busy time for the updates moved into shared memory, from the shared table:
// `lanes` active lanes per warp instruction over the SMs, on `addresses` words. Lanes of one
// word serialize: a native atomic takes one wavefront per lane of the word (k = lanes per word),
// a CAS loop retires one lane per word per round (lanes-per-word rounds, each with half of them
// on average); words enough for every lane conflict ~3.5 ways per bank at random. A CAS loop is
// priced by the table's CAS-spin cells instead where it has them.
SharedCost shared_unit_time(const KernelAnalysis& a, const KernelProfile& p, const ServiceTimeModel& m,
                            const Rules& r, double addresses, double updates, double lanes = 32) {
  const bool cas = traits(a.l2.op).cas_loop_in_shared;  // a float or 64-bit add, any CAS
  const double c = cas ? 1.0 : 0.0;
  lanes = std::clamp(lanes, 1.0, 32.0);
  const double words = std::clamp(std::round(addresses), 1.0, lanes);
  const double per_word = std::ceil(lanes / words);
  if (cas)
    if (std::optional<SharedCost> spin = spin_cost(a, p, m, r, addresses, updates, lanes, per_word)) return *spin;
  double instructions = updates / lanes, active = lanes;
  double serialized = words >= 32 ? kRandomLanesBankConflict : per_word;
  if (cas && per_word > 1) {
    instructions *= per_word;                 // one round per lane of a word
    active = words * (per_word + 1) / 2;      // the lanes still looping, on average
    serialized = (per_word + 1) / 2;
  }
  const double k = serialized * (1 + c);
  const double warps = resident_warps_per_sm(p);
  const ServiceTimeEstimate s = m.at(warps, active, c, k, OpVariant::kAdd);
  const SmClock sm = sm_clock(p, m);
  SharedCost cost;
  cost.ns = sm.ns(instructions, s.cycles);
  cost.basis = fmt::format("{:.3g} shared warp instructions ({}, e {:.1f}, k {:.1f}) at S {:.2f} "
                           "cycles over {:.0f} SMs",
                           instructions, cas ? "CAS loop" : "ATOMS.ADD", active, k, s.cycles, sm.sms);
  return cost;
}

// (a) Privatize into shared memory: a persistent grid, each block merging one request per
// address it touched. The addresses: a hint; else the counters bound them (below), and the
// what-if spans the two ends.
struct PrivatizedAddresses {
  double fewest = 0, most = 0;
  double lanes_at_fewest = 32;  // active lanes per warp instruction at the fewest end (the most: 32)
  bool one_slice = false;       // every address in lines of the hottest slice (a hot address)
  std::string basis;
};

// Requests one lane of a hot word adds to the L2 counters: the op's one_address cell's requests
// per warp instruction over its 32 lanes (1.5 on GH100: a request of the far partition is
// counted at two slices). Lanes of one word go in separate requests, words of one sector share
// one (the law sweep's packed cells: 48, 24, 12, 6 requests per instruction on 1, 2, 4, 8 words).
std::optional<double> requests_per_lane(const L2Queue& q, const calibration::L2Section* section) {
  const calibration::L2Cell* one = section ? section->saturated(q.op, AddressSpread::kOneAddress) : nullptr;
  if (!one || !(one->requests_per_instruction > 0)) return std::nullopt;
  return one->requests_per_instruction / 32.0;
}

// The lanes of a warp instruction on its most used hot word: its requests per instruction over
// one lane's; 1 without them. With the term off (rules' terms_off), a whole warp on the one hot
// word, as the one-address reading was before the lanes were counted.
double lanes_per_hot_word(const L2Queue& q, const calibration::L2Section* section, const Rules& rules) {
  if (!rules.uses(ModelTerm::kHotWordLanes)) return 32.0;
  const std::optional<double> per_lane = requests_per_lane(q, section);
  const std::optional<double> r = q.inputs.requests_per_instruction;
  if (!per_lane || !r || !(*r > 0)) return 1.0;
  return std::clamp(*r / *per_lane, 1.0, 32.0);
}

// On a hot address: at fewest one word, the instruction's lanes all on it (lanes per hot word
// active); at most the words of the hot lines at the hottest slice (the law's share curve), with
// full warps. The counters do not say which.
PrivatizedAddresses hot_words(const L2Queue& q, const calibration::L2Section* section, const Rules& rules) {
  PrivatizedAddresses a{1, 1, lanes_per_hot_word(q, section, rules), true, "one address"};
  if (!section || std::round(a.lanes_at_fewest) >= 32) return a;  // a full warp on one word: one address
  const double words_per_line = kLineBytes / traits(q.op).word_bytes;
  const double lines = std::max(1.0, std::round(l2_law_of(*section)->chains_at_share(q.inputs.hottest_share)));
  a.most = lines * words_per_line;
  a.basis = fmt::format("1 to {:.0f} hot words ({:.3g} requests per warp instruction: {:.1f} lanes on its "
                        "busiest word; at fewest all its lanes on one word, at most full warps over the words "
                        "of the {:.0f} hot line(s) at the slice)",
                        a.most, *q.inputs.requests_per_instruction, a.lanes_at_fewest, lines);
  return a;
}

PrivatizedAddresses privatized_addresses(const L2Queue& q, const calibration::L2Section* section, const Rules& rules) {
  const L2Inputs& in = q.inputs;
  if (in.addresses)
    return {*in.addresses, *in.addresses, 32, q.basis == L2ServiceBasis::kHotAddress,
            fmt::format("{:.0f} distinct addresses (hint)", *in.addresses)};
  if (q.basis == L2ServiceBasis::kHotAddress) return hot_words(q, section, rules);
  const double most = q.addresses_of_spread;
  const double fewest = in.hottest_share > 0 ? std::min(most, std::ceil(1.0 / in.hottest_share)) : most;
  return {fewest, most, 32, false,
          fmt::format("{:.0f} to {:.0f} addresses (at least 1 / the hottest slice's share of the requests; at "
                      "most the calibrated {} cell's words: the counters do not show the bins)",
                      fewest, most, enum_name(q.spread))};
}

// The merge of a privatized copy: every block adds its `words` contiguous words to global memory
// once, a block-strided loop whose warp instruction covers one line. A line of words goes in one
// request (the one_line cell's requests per instruction: 1.5 on GH100, the far partition counted
// twice), served as the L2 law says for its sectors, with the blocks' updates of one line as one
// same-address chain; the hottest slice holds the law sweep's share for that many hot lines, or
// all of them on a hot address's slice. With the term off: one request per word at the kernel's S.
struct MergeTraffic {
  double requests = 0, hottest = 0, service_cycles = 0;
  std::string basis;
};

MergeTraffic merge_traffic(const L2Queue& q, const calibration::L2Section* section, const Rules& r,
                           const PrivatizedAddresses& addresses, double words, double blocks) {
  const L2Inputs& in = q.inputs;
  MergeTraffic m;
  m.requests = words * blocks;
  m.hottest = addresses.one_slice ? m.requests : m.requests * in.hottest_share;
  m.service_cycles = q.service_cycles;
  m.basis = "one merge request per word";
  const std::shared_ptr<const L2Law> law = section ? l2_law_of(*section) : nullptr;
  const calibration::L2Cell* line = section ? section->saturated(q.op, AddressSpread::kOneLine) : nullptr;
  if (!r.uses(ModelTerm::kMergePerLine) || !law || !law->fitted || !line || !(line->requests_per_instruction > 0))
    return m;
  const double word_bytes = traits(q.op).word_bytes;
  const double per_line = kLineBytes / word_bytes;
  const double lines = std::ceil(std::max(1.0, words) / per_line);
  const double sectors = std::clamp(std::ceil(std::min(std::max(1.0, words), per_line) * word_bytes / 32.0), 1.0, 4.0);
  const double share = addresses.one_slice || lines <= 1 ? law->one_line_share : law->share_at_lines(lines);
  const std::optional<double> s = law->service_cycles(q.op, sectors, std::max(1.0, lines * share / law->one_line_share));
  if (!s || !(share > 0)) return m;
  m.requests = lines * blocks * line->requests_per_instruction;
  m.hottest = m.requests * share;
  m.service_cycles = *s;
  m.basis = fmt::format("merged per line: {:.0f} line(s) of {:.0f} sector(s) per block at {:.2f} requests each, "
                        "the hottest slice {:.3f} of them at S {:.2f} cycles (L2 law)",
                        lines, sectors, line->requests_per_instruction, share, *s);
  return m;
}

// Privatizing's least change where the counters do not show the bins: on uneven slices the
// bins may not fit shared memory, and a fix keeps only the hot words there (a graph's hubs):
// the hottest slice's requests above the mean slice move to the shared unit, the rest stays in
// L2, spread, its hottest slice at the mean of what is left, at the many_lines cell's S; the hot
// words' merge as every privatized merge (merge_traffic), in units of that S at the slice.
WhatIf with_hot_words_only(WhatIf w, const KernelAnalysis& a, const KernelProfile& p, const ServiceTimeModel& m,
                           const Rules& r, const TimeSplit& t, const PrivatizedAddresses& addresses, double blocks) {
  const L2Inputs& in = a.l2.inputs;
  if (!r.uses(ModelTerm::kPrivatizeHotWordsOnly) || a.l2.basis != L2ServiceBasis::kHotSlice || in.addresses ||
      in.slices <= 0 || !(in.requests > 0) || !w.predicted_time_ns)
    return w;
  const double hot = std::max(0.0, in.requests_hottest_slice - in.requests / in.slices), rest = in.requests - hot;
  const calibration::L2Cell* spread = m.l2_section() ? m.l2_section()->saturated(a.l2.op, AddressSpread::kManyLines) : nullptr;
  const double s = spread && spread->cycles_per_request > 0 ? spread->cycles_per_request : a.l2.service_cycles;
  const double words = std::max(1.0, addresses.fewest);
  const SharedCost shared = shared_unit_time(a, p, m, r, words, hot * (p.useful_updates ? *p.useful_updates / in.requests : 1.0));
  const MergeTraffic merge = merge_traffic(a.l2, m.l2_section(), r, addresses, words, blocks);
  const WhatIf least = predicted(t, WhatIfId::kPrivatize, w.change, rest + merge.requests,
                                 rest / in.slices + merge.hottest * merge.service_cycles / s, s, shared.ns, "");
  if (*least.predicted_time_ns <= w.least_change_time_ns.value_or(*w.predicted_time_ns)) return w;
  w.least_change_time_ns = least.predicted_time_ns;
  w.basis += fmt::format("; least change, if the bins do not fit shared memory: only the hot words ({:.3g} requests, "
                         "the hottest slice's above the mean slice) move there, {:.3g} stay in L2, the hottest slice "
                         "at their mean {:.3g} at S {:.2f} cycles: predicted {:.1f} us",
                         hot, rest, rest / in.slices, s, *least.predicted_time_ns / 1e3);
  return w;
}

std::optional<WhatIf> privatize(const KernelAnalysis& a, const KernelProfile& p,
                                const ServiceTimeModel& m, const Rules& r, const TimeSplit& t,
                                std::vector<std::string>& details) {
  const L2Queue& q = a.l2;
  const L2Inputs& in = q.inputs;
  const PrivatizedAddresses addresses = privatized_addresses(q, m.l2_section(), r);
  const double word_bytes = traits(q.op).word_bytes;
  if (addresses.most <= 0 || addresses.most * word_bytes > kSharedMemoryBytesPerSm) {
    details.push_back(fmt::format("privatizing into shared memory: {} do not fit", addresses.basis));
    return std::nullopt;
  }
  const double blocks = persistent_grid(p);
  // Without a count of the updates: the warp instructions' active lanes where the ends say them
  // (a hot address), else one per L2 request.
  const bool by_lanes = !p.useful_updates && q.basis == L2ServiceBasis::kHotAddress && in.warp_instructions &&
                        addresses.most > addresses.fewest;
  auto with = [&](double count, double lanes) {
    const double updates = p.useful_updates.value_or(by_lanes ? *in.warp_instructions * lanes : in.requests);
    const MergeTraffic merge = merge_traffic(q, m.l2_section(), r, addresses, count, blocks);
    const double kept = std::min(1.0, in.requests / std::max(1.0, merge.requests));
    const double requests = merge.requests * kept, hottest = merge.hottest * kept;
    const SharedCost shared = shared_unit_time(a, p, m, r, count, updates, lanes);
    return predicted(t, WhatIfId::kPrivatize,
                     fmt::format("privatize into shared memory: L2 requests from {:.3g} to {:.3g}", in.requests,
                                    requests),
                     requests, hottest, merge.service_cycles, shared.ns,
                     fmt::format("{} x {:.0f} persistent blocks merge once ({}); {:.3g} updates{} move to the shared "
                                 "unit: {}", addresses.basis, blocks, merge.basis, updates,
                                 p.useful_updates ? "" : by_lanes ? fmt::format(" ({:.1f} lanes per warp instruction)", lanes)
                                                                  : std::string(" (one per L2 request assumed)"),
                                 shared.basis));
  };
  WhatIf most = with(addresses.most, 32);
  if (addresses.fewest >= addresses.most) return with_hot_words_only(most, a, p, m, r, t, addresses, blocks);
  WhatIf fewest = with(addresses.fewest, addresses.lanes_at_fewest);
  const double fewest_requests = fewest.instructions, most_requests = most.instructions;
  // The larger gain is the what-if's (high end); the other is the least change (low end).
  WhatIf& best = fewest.speedup >= most.speedup ? fewest : most;
  const WhatIf& other = fewest.speedup >= most.speedup ? most : fewest;
  best.least_change_time_ns = other.predicted_time_ns;
  best.change = fmt::format("privatize into shared memory: L2 requests from {:.3g} to {:.3g}-{:.3g}", in.requests,
                            fewest_requests, most_requests);
  return with_hot_words_only(best, a, p, m, r, t, addresses, blocks);
}

// (b) Warp aggregation, measured: the L2 takes a lane's own request for each lane of a word (the
// lanes of one sector on different words go together), and a warp instruction touches the
// atomics' distinct sectors. Merging the lanes of each word in the warp leaves about one request
// per distinct sector: requests / (requests per instruction / sectors per instruction), on every
// slice alike (docs/model.md, "Lanes per sector").
std::optional<WhatIf> aggregate_lanes_per_sector(const KernelAnalysis& a, const TimeSplit& t) {
  const L2Inputs& in = a.l2.inputs;
  const double lanes = *in.requests_per_instruction / *in.sectors_per_instruction;
  if (lanes < 1.5) return std::nullopt;  // about one request per sector already: nothing to merge
  return predicted(t, WhatIfId::kAggregateInWarp,
                   fmt::format("aggregate same-address lanes in the warp: {:.1f} requests per sector become one", lanes),
                   in.requests / lanes, in.requests_hottest_slice / lanes, a.l2.service_cycles, 0,
                   fmt::format("{:.3g} L2 requests per warp instruction on {:.3g} distinct sectors (the atomics' "
                               "sectors: every global instruction's less the loads' and the stores'): requests / "
                               "{:.3g}; the warp reduction's own cost left out",
                               *in.requests_per_instruction, *in.sectors_per_instruction, lanes));
}

// (b') Warp aggregation from the hot words, without the measure: the lanes of an instruction on
// one word merge into one request. After it an instruction makes one lane's requests per word it
// touches: one word at most (its lanes all on the busiest word), at least as many words as full
// warps need at that many lanes per word.
std::optional<WhatIf> aggregate_in_warp(const KernelAnalysis& a, const TimeSplit& t, const calibration::L2Section* section,
                                        const Rules& r) {
  const L2Inputs& in = a.l2.inputs;
  if (r.uses(ModelTerm::kLanesPerSector) && in.sectors_per_instruction && in.requests_per_instruction)
    return aggregate_lanes_per_sector(a, t);
  if (a.l2.basis != L2ServiceBasis::kHotAddress) return std::nullopt;
  const double lanes = lanes_per_hot_word(a.l2, section, r);  // 1 without requests per instruction
  if (lanes < 1.5) return std::nullopt;  // one lane per word already: nothing to merge
  const double fewest_words_factor = lanes;                              // all lanes on one word
  const double most_words_factor = std::max(1.0, lanes * lanes / 32.0);  // full warps, 32 / lanes words
  WhatIf w = predicted(t, WhatIfId::kAggregateInWarp,
                       fmt::format("aggregate same-address lanes in the warp: {:.1f} lanes of a word become one "
                                   "request", lanes),
                       in.requests / fewest_words_factor, in.requests_hottest_slice / fewest_words_factor,
                       a.l2.service_cycles, 0,
                       fmt::format("{:.3g} requests per warp instruction, {:.1f} lanes on its busiest word: requests / "
                                   "{:.3g} (high: its lanes all on that word) to / {:.3g} (low: full warps over 32 / "
                                   "{:.1f} words); the warp reduction's own cost left out",
                                   *in.requests_per_instruction, lanes, fewest_words_factor, most_words_factor, lanes));
  if (most_words_factor < fewest_words_factor) {
    const WhatIf least = predicted(t, WhatIfId::kAggregateInWarp, "", in.requests / most_words_factor,
                                   in.requests_hottest_slice / most_words_factor, a.l2.service_cycles, 0, "");
    w.least_change_time_ns = least.predicted_time_ns;
  }
  return w;
}

// (c) Fewer, persistent blocks for a kernel that already privatizes: merge traffic scales
// with the number of blocks.
std::optional<WhatIf> fewer_blocks(const KernelAnalysis& a, const KernelProfile& p,
                                   const TimeSplit& t) {
  const L2Inputs& in = a.l2.inputs;
  const double blocks = static_cast<double>(p.launch.blocks());
  const double persistent = persistent_grid(p);
  if (persistent <= 0 || blocks < 1.5 * persistent) return std::nullopt;
  const double factor = persistent / blocks;
  return predicted(t, WhatIfId::kPersistentGrid,
                   fmt::format("persistent grid: {:.0f} blocks instead of {:.0f}", persistent, blocks),
                   in.requests * factor, in.requests_hottest_slice * factor, a.l2.service_cycles, 0,
                   "merge requests scale with the blocks (each merges the same addresses)");
}

// (d) Spread the hot counters over copies in lines of different slices, summed at the end. A
// CAS retry loop's copies also split the lanes that contend for each word: its attempts per
// update fall as the retry law says (the what-if); the least change keeps them.
std::optional<WhatIf> spread_copies(const KernelAnalysis& a, const Rules& r, const TimeSplit& t,
                                    const std::optional<CasRetryTotals>& loop, const CasRetryLaw& law,
                                    const L2Law& l2) {
  const L2Inputs& in = a.l2.inputs;
  if (a.l2.basis == L2ServiceBasis::kSpread || in.slices <= 1) return std::nullopt;
  const double copies = std::clamp(r.l2_replication_slices, 1.0, static_cast<double>(in.slices));
  // The copies' lines fall on the slices as the law sweep's hot lines did: the hottest keeps the
  // share the sweep measured for that many lines (a few lines over many slices stay uneven).
  const double lines = l2.lines_at_share(in.hottest_share);
  const double share_after = l2.share_at_lines(lines * copies);
  const bool curve = lines > 0 && share_after > 0;
  const double hottest =
      curve ? in.requests * std::clamp(share_after, 1.0 / in.slices, in.hottest_share)
            : std::max(in.requests_hottest_slice / copies, in.requests / in.slices);
  const std::string basis =
      curve ? fmt::format("the hottest slice's share {:.3f} stands for {:.0f} hot lines on the law sweep's share curve; "
                          "their {:.0f} copies' lines leave it {:.3f}, as the sweep measured for that many",
                          in.hottest_share, lines, lines * copies, share_after)
            : std::string("the hottest slice's requests / copies, no less than the mean slice's");
  WhatIf w = predicted(t, WhatIfId::kSpreadCopies, fmt::format("spread the hot counters over {:.0f} slices", copies),
                       in.requests, hottest, a.l2.service_cycles, 0, basis);
  if (!loop || !law.fitted || !(loop->attempts_per_update > 1.0) || !(in.requests > 0)) return w;
  const double a0 = loop->attempts_per_update;
  const double lanes = law.lanes_at_attempts(a0);
  // High: along the one-word curve; low: along the flattest several-word series (a ~ m^slope).
  const double fast_after = std::min(a0, law.attempts_per_update(std::max(1.0, lanes / copies)));
  const double slow_after = std::clamp(a0 * std::pow(copies, -law.several_words_slope), fast_after, a0);
  auto kept = [&](double after) { return (1.0 - in.cas_share) + in.cas_share * after / a0; };
  const WhatIf slow = predicted(t, WhatIfId::kSpreadCopies, w.change, in.requests * kept(slow_after),
                                hottest * kept(slow_after), a.l2.service_cycles, 0, basis);
  w = predicted(t, WhatIfId::kSpreadCopies, w.change, in.requests * kept(fast_after), hottest * kept(fast_after),
                a.l2.service_cycles, 0,
                fmt::format("{}; the copies split the lanes that contend for a word, so the loop's {:.3g} attempts per "
                            "update fall: high, along the retry law's one-word curve ({:.0f} lanes per word there, "
                            "{:.1f} per copy: {:.3g}); low, along its flattest several-word series (attempts ~ "
                            "lanes^{:.2f}: {:.3g})",
                            basis, a0, lanes, lanes / copies, fast_after, law.several_words_slope, slow_after));
  w.least_change_time_ns = slow.predicted_time_ns;
  return w;
}

}  // namespace

bool looks_privatized(const KernelAnalysis& a, const KernelProfile& p, const Rules& r) {
  const auto shared = p.counter(metric::kSharedAtomInst);
  const double blocks = static_cast<double>(p.launch.blocks());
  return shared && *shared > 0 && blocks > 0 &&
         a.l2.inputs.requests / blocks <= r.privatized_max_requests_per_block;
}

std::vector<WhatIf> l2_what_ifs(const KernelAnalysis& a, const KernelProfile& p,
                                const ServiceTimeModel& m, const Rules& r, bool privatized,
                                std::vector<std::string>& details) {
  const auto t = time_split(a, p, r);
  if (!t) {
    details.push_back("no kernel duration: no what-if predictions");
    return {};
  }
  // A measured global CAS retry loop: merging its updates (in the warp, the block, the hot lanes)
  // leaves CAS loops that still retry, which the retry law prices (the CAS retry finding's
  // combine_before_cas); the law also says how many of its CASes a probe could skip.
  const std::optional<CasRetryTotals> loop =
      r.uses(ModelTerm::kGlobalCasRetry) ? retrying_global_cas(a, r) : std::nullopt;
  RemovableCas removable;
  if (loop) {
    if (const std::optional<ChangingShare> changing = changing_update_share(a, p, *loop, m.cas_retry_law())) {
      removable.most = 1.0 - changing->least;
      removable.least = 1.0 - changing->most;
      removable.basis =
          !changing->beyond_sweep()
              ? fmt::format("by the retry law {:.0f}% of the updates change the word, and a probe cannot skip "
                            "their CASes", 100.0 * changing->least)
              : fmt::format("by the retry law {:.2g}% to {:.2g}% of the updates change the word (its lanes beyond "
                            "the sweep's), and a probe cannot skip their CASes",
                            100.0 * changing->least, 100.0 * changing->most);
    } else {
      removable.least = 0.0;
      removable.basis = "a CAS retry loop over several words: how many of its updates change a word (a probe "
                        "cannot skip those) the retry law does not say there, so the least change keeps every CAS";
    }
  }
  if (loop)
    details.push_back("a global CAS retry loop: merging its updates is priced by the retry law (the CAS retry "
                      "finding), not here");
  // Atomics the SASS shows issued by one lane per warp have no same-address lanes left to merge.
  const bool merged = already_warp_aggregated(p);
  if (merged && !loop)
    details.push_back("no warp aggregation proposed: every global atomic in the SASS is already issued by one "
                      "elected lane per warp (a vote and its population count, or a warp reduction, before a "
                      "predicated atomic)");
  // The atomics' distinct sectors measure the lanes a warp merge folds: the hot-slice estimate of
  // the same merge (aggregate_hot_lanes) gives way to it.
  const bool lanes_measured = r.uses(ModelTerm::kLanesPerSector) && a.l2.inputs.sectors_per_instruction &&
                              a.l2.inputs.requests_per_instruction;
  if (lanes_measured && !loop && !merged)
    details.push_back(fmt::format("lanes per sector measured: {:.3g} L2 requests per warp instruction on {:.3g} "
                                  "distinct sectors",
                                  *a.l2.inputs.requests_per_instruction, *a.l2.inputs.sectors_per_instruction));
  std::vector<std::optional<WhatIf>> candidates = {
      loop || merged ? std::nullopt : aggregate_in_warp(a, *t, m.l2_section(), r),
      privatized ? fewer_blocks(a, p, *t) : loop ? std::nullopt : privatize(a, p, m, r, *t, details),
      privatized || loop || merged || lanes_measured ? std::nullopt : aggregate_hot_lanes(a, p, *t),
      spread_copies(a, r, *t, loop, m.cas_retry_law(), *l2_law_of(m.table().l2)),
      load_before_cas(a, p, r, *t, removable, probe_chain_with_loads(a, p, m.load_section(), r), details),
      lock_free(a, p, r, *t)};
  if (privatized)
    details.push_back("already privatized (shared atomics, few L2 requests per block): no "
                      "privatization proposed");
  std::vector<WhatIf> out;
  for (auto& w : candidates) {
    if (!w) continue;
    if (w->speedup >= kMinimumGain)
      out.push_back(std::move(*w));
    else
      details.push_back(fmt::format("{}: no predicted gain ({:.2f}x)", w->change, w->speedup));
  }
  return out;
}

}  // namespace atomq::model::detail
