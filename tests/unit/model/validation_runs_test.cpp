// The validation suite's recorded runs (tests/fixtures/validation/, docs/validation.md),
// evaluated again with this build's model and the bundled table of the GPU they ran on. For every baseline (and sweep
// point) with an ablation, the ground truth is "atomic-bound" when the ablation is >= 1.25x
// faster; the model agrees when its class is severe or potential exactly then. For every fix, the
// measured gain (baseline time / fix time, from the timings) is inside or outside the interval
// of the baseline's what-if that predicts the fix (the timings' predicted_by_ids). expectations.json records the verdicts of the
// recorded runs: a model change that flips one fails here.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <tuple>
#include <vector>
#include <nlohmann/json.hpp>

#include "atomq/model/analysis.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/table_selection.hpp"
#include "bundled_model.hpp"

namespace atomq::model {
namespace {

constexpr double kAtomicBoundGain = 1.25;
const std::string kDir = ATOMQ_VALIDATION_RUNS_DIR;

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

using test::bundled_model_for;

// variant -> profile, from the run document's source details ("... --variant NAME").
std::map<std::string, KernelProfile> profiles_by_variant(const nlohmann::json& run, const std::string& path) {
  std::map<std::string, KernelProfile> out;
  for (const auto& k : run.at("kernels")) {
    KernelProfile p = kernel_profile_from_json(k.at("profile"), path);
    const auto at = p.source_detail.rfind("--variant ");
    if (at != std::string::npos) out[p.source_detail.substr(at + 10)] = p;
  }
  return out;
}

// The interval of the what-if that `predicts` (the largest if several); none for a fix the model
// has no what-if for (no id, or an empty word).
const GainInterval* interval_where(const KernelAnalysis& a, const std::function<bool(const WhatIf&)>& predicts) {
  const GainInterval* best = nullptr;
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs)
      if (w.interval.evaluated && predicts(w) && (!best || w.interval.high > best->high)) best = &w.interval;
  return best;
}

const GainInterval* fix_interval(const KernelAnalysis& a, const std::vector<WhatIfId>& ids) {
  return interval_where(a, [&](const WhatIf& w) { return std::find(ids.begin(), ids.end(), w.id) != ids.end(); });
}

// The what-if ids that predict a fix, from its timings entry: predicted_by_ids. The committed
// timings were recorded before the ids and name a word of the what-if's change text instead
// (predicted_by): for those documents only, the what-if is matched on its text.
const GainInterval* fix_interval(const KernelAnalysis& a, const nlohmann::json& fix) {
  if (fix.contains("predicted_by_ids")) {
    std::vector<WhatIfId> ids;
    for (const auto& name : fix.at("predicted_by_ids")) {
      const auto id = parse_enum<WhatIfId>(name.get<std::string>());
      EXPECT_TRUE(id) << "unknown what-if id " << name;
      if (id) ids.push_back(*id);
    }
    return fix_interval(a, ids);
  }
  const std::string word = fix.value("predicted_by", "");
  return interval_where(a, [&](const WhatIf& w) { return !word.empty() && w.change.find(word) != std::string::npos; });
}

struct Verdict {
  bool agree = false;
  std::optional<bool> fix_inside;
};

Verdict verdict(const nlohmann::json& timings, const std::string& variant, const KernelAnalysis& a) {
  std::map<std::string, const nlohmann::json*> by_name;
  for (const auto& v : timings.at("variants")) by_name[v.at("name").get<std::string>()] = &v;
  const double t = by_name.at(variant)->at("median_ms").get<double>();
  Verdict out;
  for (const auto& v : timings.at("variants")) {
    if (v.at("compared_with") != variant) continue;
    const double other = v.at("median_ms").get<double>();
    if (v.at("role") == "ablation") {
      const bool truth = t / other >= kAtomicBoundGain;
      const bool bound = a.utilization_class == UtilizationClass::kSevere ||
                         a.utilization_class == UtilizationClass::kPotential;
      out.agree = truth == bound;
    } else if (v.at("role") == "fix") {
      const GainInterval* iv = fix_interval(a, v);
      out.fix_inside = iv && iv->contains(t / other);
    }
  }
  return out;
}

TEST(ValidationRuns, VerdictsOfTheRecordedRunsHold) {
  if (!std::filesystem::exists(kDir + "/expectations.json")) GTEST_SKIP() << "no recorded validation runs";
  const nlohmann::json expectations = read_json(kDir + "/expectations.json");
  ASSERT_TRUE(expectations.contains("provenance"));
  int checked = 0;
  for (const auto& [case_name, variants] : expectations.at("cases").items()) {
    SCOPED_TRACE(case_name);
    const std::string run_path = kDir + "/" + case_name + ".json";
    const auto profiles = profiles_by_variant(read_json(run_path), run_path);
    const nlohmann::json timings = read_json(kDir + "/" + case_name + ".timings.json");
    for (const auto& [variant, expected] : variants.items()) {
      SCOPED_TRACE(variant);
      ASSERT_TRUE(profiles.count(variant)) << "no profile of " << variant;
      const Verdict v = verdict(timings, variant, analyze(profiles.at(variant), bundled_model_for(profiles.at(variant))));
      EXPECT_EQ(v.agree, expected.at("agree").get<bool>());
      if (expected.contains("fix_inside")) {
        ASSERT_TRUE(v.fix_inside.has_value());
        EXPECT_EQ(*v.fix_inside, expected.at("fix_inside").get<bool>());
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}


KernelProfile hist_profile(const std::string& name) {
  const std::string path = kDir + "/hist/" + name + ".json";
  return kernel_profile_from_json(read_json(path).at("kernels").at(0).at("profile"), path);
}

// The bundled table of the GPU the suite's recordings ran on (the set is recorded on one GPU).
const ServiceTimeModel& recordings_model() { return bundled_model_for(hist_profile("hist-u8-lane_replicated-uniform")); }

// A u8 histogram near DRAM bandwidth, profiled live (atomq hist --analyze): the collector's
// peak bandwidth makes the memory finding fire.
TEST(ValidationRuns, LiveU8HistogramNearBandwidthRaisesTheMemoryFinding) {
  const KernelProfile p = hist_profile("hist-u8-lane_replicated-uniform");
  EXPECT_GT(p.device.dram_peak_bytes_per_s, 0.0) << "the profile carries the device's peak bandwidth";
  const KernelAnalysis a = analyze(p, recordings_model());
  const Finding* f = a.find(FindingKind::kHiddenMemoryBottleneck);
  ASSERT_NE(f, nullptr);
  for (const Evidence& e : f->evidence)
    if (e.name == "dram_fraction_of_peak") EXPECT_GT(e.value, 0.6);
}

// rank_shared (one-value u8 input) against its lane-replicated fix, both timed by atomq hist:
// the measured gain lies inside the interval of the replication / no-conflict what-ifs.
TEST(ValidationRuns, RankSharedToLaneReplicatedInsideItsInterval) {
  const KernelAnalysis a = analyze(hist_profile("hist-u8-rank_shared-single"), recordings_model());
  const double base = read_json(kDir + "/hist/hist-u8-rank_shared-single.result.json").at("median_ms");
  const double fixed = read_json(kDir + "/hist/hist-u8-rank_lane_replicated-single.result.json").at("median_ms");
  const GainInterval* iv = fix_interval(a, std::vector{WhatIfId::kNoConflicts});
  ASSERT_NE(iv, nullptr);
  EXPECT_TRUE(iv->contains(base / fixed)) << base / fixed << " not in [" << iv->low << ", " << iv->high << "]";
  EXPECT_LT(iv->low, iv->high);
}

KernelProfile case_profile(const std::string& case_name, const std::string& variant) {
  const std::string path = kDir + "/" + case_name + ".json";
  return profiles_by_variant(read_json(path), path).at(variant);
}

// The fix's measured gain: the baseline's median time over the fix's, from a timings document.
double measured_gain(const std::string& timings_path, const std::string& baseline, const std::string& fix) {
  std::map<std::string, double> ms;
  const nlohmann::json timings = read_json(timings_path);
  for (const auto& v : timings.at("variants")) ms[v.at("name").get<std::string>()] = v.at("median_ms").get<double>();
  return ms.at(baseline) / ms.at(fix);
}

// The image histograms (one wave of 1056 blocks, shared phase then a merge of 1024 bins per
// block): the random-colour one's shared U 58% and L2 U 36% add up to severe; the single-colour
// one's 34% + 13% stay below the mark; the same kernel in two waves is not in sequence.
TEST(ValidationRuns, OneWavePrivatizedHistogramAddsItsTwoUnits) {
  const ServiceTimeModel& model = recordings_model();
  const KernelAnalysis random = analyze(case_profile("image_random_colour", "shared_atomics"), model);
  ASSERT_TRUE(random.units_in_sequence.evaluated);
  EXPECT_NEAR(random.units_in_sequence.utilization, random.utilization.mean + random.l2.utilization, 1e-12);
  EXPECT_TRUE(random.units_in_sequence.sets_class);
  EXPECT_EQ(random.utilization_class, UtilizationClass::kSevere);
  EXPECT_EQ(random.shared_unit_class, UtilizationClass::kNotAtomicBound);
  ASSERT_FALSE(random.findings.empty());
  EXPECT_NE(random.findings.front().title.find("in sequence"), std::string::npos) << random.findings.front().title;

  const KernelAnalysis single = analyze(case_profile("image_single_colour", "shared_atomics"), model);
  EXPECT_TRUE(single.units_in_sequence.evaluated);
  EXPECT_FALSE(single.units_in_sequence.sets_class);
  EXPECT_EQ(single.utilization_class, UtilizationClass::kNotAtomicBound);

  KernelProfile two_waves = case_profile("image_random_colour", "shared_atomics");
  two_waves.launch.grid[0] *= 2;
  EXPECT_FALSE(analyze(two_waves, model).units_in_sequence.evaluated);
}

// particle_binning_clustered: the L2 law puts the hottest slice at U ~ 100% (severe). The
// counters do not bound the bins (the privatize what-if spans at least 1 / the hottest slice's
// share of addresses to the calibrated cell's words per block), and each block merges per line
// of contiguous words: the requests the fix's own run read lie between the what-if's two ends.
// Its slices are uneven, so the low end is the least change of bins that may not fit shared
// memory (only the hot words move); the fix, whose bins all fit, gains more than that and no
// more than the high end.
TEST(ValidationRuns, SaturatedSliceAndUnknownBinsWidenThePrivatizeInterval) {
  const KernelProfile p = case_profile("particle_binning_clustered", "global_atomics");
  const KernelAnalysis a = analyze(p, recordings_model());
  ASSERT_GE(a.l2.utilization, 0.9);
  const GainInterval* iv = fix_interval(a, std::vector{WhatIfId::kPrivatize});
  ASSERT_NE(iv, nullptr);
  const double measured =
      measured_gain(kDir + "/particle_binning_clustered.timings.json", "global_atomics", "block_privatized");
  EXPECT_GT(measured, iv->low) << measured << " against [" << iv->low << ", " << iv->high << "]";
  EXPECT_LT(measured, iv->high) << measured << " against [" << iv->low << ", " << iv->high << "]";
  const KernelProfile fix = case_profile("particle_binning_clustered", "block_privatized");
  const double fix_requests = *fix.counter(metric::kL2RedRequests);
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs)
      if (w.id == WhatIfId::kPrivatize) {
        EXPECT_NE(w.basis.find("merged per line"), std::string::npos) << w.basis;
        const double fewest = std::stod(w.change.substr(w.change.rfind(" to ") + 4));
        const double most = std::stod(w.change.substr(w.change.rfind('-') + 1));
        EXPECT_LT(fewest, fix_requests) << w.change;
        EXPECT_GT(most, fix_requests) << w.change;
        EXPECT_TRUE(w.least_change_time_ns.has_value());
        EXPECT_NE(w.basis.find("if the bins do not fit shared memory"), std::string::npos) << w.basis;
      }
}

// degree_count: a power-law graph's hub counters make the hottest slice 5x the mean slice, and
// its millions of vertices do not fit shared memory: the fix privatizes the hubs only. The
// privatize what-if's least change is that fix: the hot words (the hottest slice's requests above
// the mean slice) move to shared memory and the rest stays in L2. The fix's own run reads what it
// predicts: most requests stay in L2 and its hottest slice falls to about the mean slice's load.
TEST(ValidationRuns, HotWordsOnlyIsThePrivatizeLeastChange) {
  const KernelProfile p = case_profile("degree_count", "global_atomics");
  const KernelAnalysis a = analyze(p, recordings_model());
  ASSERT_EQ(a.l2.basis, L2ServiceBasis::kHotSlice);
  const L2Inputs& in = a.l2.inputs;
  const double kept = in.requests - (in.requests_hottest_slice - in.requests / in.slices);
  const KernelProfile fix = case_profile("degree_count", "hub_privatized");
  const double fix_requests = *fix.counter(metric::kL2RedRequests);
  const double fix_hottest = *fix.counter(metric::kL2RedRequestsMax);
  EXPECT_NEAR(fix_requests / kept, 1.0, 0.30) << fix_requests << " against " << kept;
  EXPECT_NEAR(fix_hottest / (kept / in.slices), 1.0, 0.20) << fix_hottest << " against " << kept / in.slices;
  const GainInterval* iv = fix_interval(a, std::vector{WhatIfId::kPrivatize});
  ASSERT_NE(iv, nullptr);
  const double measured = measured_gain(kDir + "/degree_count.timings.json", "global_atomics", "hub_privatized");
  EXPECT_GT(measured, iv->low) << measured << " against [" << iv->low << ", " << iv->high << "]";
  EXPECT_LT(iv->low, iv->high / 5) << "the least change keeps most of the L2 traffic";
}

// The same two privatize what-ifs on the live H100 run that first measured the hot-words term
// (tests/fixtures/live_runs/2026-12-06-h100-hot-words, the H100's own table): both fixes inside.
TEST(ValidationRuns, HotWordsOnlyHeldOnTheLiveH100Run) {
  const std::string dir = kDir + "/../live_runs/2026-12-06-h100-hot-words";
  const ServiceTimeModel model(calibration::load_service_table(dir + "/table.json"));
  for (const auto& [case_name, fix] : {std::pair{"degree_count", "hub_privatized"},
                                       std::pair{"particle_binning_clustered", "block_privatized"}}) {
    SCOPED_TRACE(case_name);
    const std::string path = dir + "/" + case_name + ".json";
    const auto profiles = profiles_by_variant(read_json(path), path);
    const KernelAnalysis a = analyze(profiles.at("global_atomics"), model);
    const GainInterval* iv = fix_interval(a, std::vector{WhatIfId::kPrivatize});
    ASSERT_NE(iv, nullptr);
    const double measured = measured_gain(dir + "/" + case_name + ".timings.json", "global_atomics", fix);
    EXPECT_GT(measured, iv->low) << measured << " against [" << iv->low << ", " << iv->high << "]";
    EXPECT_LT(measured, iv->high) << measured << " against [" << iv->low << ", " << iv->high << "]";
  }
}

// The five kernels whose class the request port sets on the live H100 run with the port's counters
// (tests/fixtures/live_runs/2026-12-07-h100-saturated-port; re-evaluated on the word-lane run's
// H100 table, as no table travels with it): each ablation at least 1.25x faster, each bound with
// the term and not without it; coo_spmv through the saturated port's share, the rest through the
// port's time held by the atomics.
TEST(ValidationRuns, RequestPortBindsTheFiveKernelsOfTheLiveH100Run) {
  const std::string dir = kDir + "/../live_runs/2026-12-07-h100-saturated-port";
  const ServiceTimeModel model(calibration::load_service_table(kDir + "/../live_runs/2026-12-07-h100-word-lanes/table.json"));
  Rules off = default_rules();
  off.switch_off(ModelTerm::kRequestPort);
  for (const auto& [case_name, baseline, ablation] :
       {std::tuple{"coo_spmv", "global_atomics", "no_atomics"}, std::tuple{"smooth_pixel_hist", "global_atomics", "no_atomics"},
        std::tuple{"sorted_key_count", "global_atomics", "no_atomics"},
        std::tuple{"sorted_particle_deposit", "global_atomics", "no_atomics"},
        std::tuple{"hash_build_load50_skewed", "cas_probe", "no_atomics"}}) {
    SCOPED_TRACE(case_name);
    const std::string path = dir + "/" + case_name + ".json";
    const auto profiles = profiles_by_variant(read_json(path), path);
    EXPECT_GE(measured_gain(dir + "/" + case_name + ".timings.json", baseline, ablation), 1.25);
    const KernelAnalysis with_port = analyze(profiles.at(baseline), model);
    EXPECT_EQ(with_port.binding_unit, BindingUnit::kL2AtomicUnit);
    EXPECT_EQ(with_port.l2.bound_by_port, std::string(case_name) == "coo_spmv");
    EXPECT_EQ(analyze(profiles.at(baseline), model, off).utilization_class, UtilizationClass::kNotAtomicBound);
  }
}

// The image histograms' fix gives each of a block's 8 warps a padded copy (8 x 1025 words):
// 6 blocks stay resident per SM instead of 8, k does not change. The what-if's low end is the
// rest slower by 8/6 plus the merge; its high end the one-wave grid's fewer merges.
TEST(ValidationRuns, OneCopyPerWarpKeepsKAndCostsOccupancy) {
  const KernelProfile p = case_profile("image_random_colour", "shared_atomics");
  const KernelAnalysis a = analyze(p, recordings_model());
  const GainInterval* iv = fix_interval(a, std::vector{WhatIfId::kReplicatePerWarp});
  ASSERT_NE(iv, nullptr);
  const double T = *p.counter(metric::kDurationNs);
  EXPECT_LT(iv->low, 0.75);  // T / (T x 8/6 + merge)
  EXPECT_GT(iv->low, T / (T * 8.0 / 6.0 + 0.1 * T));
  EXPECT_GT(iv->high, 1.0);
  const Finding& headline = a.findings.front();
  const auto copies = std::find_if(headline.what_ifs.begin(), headline.what_ifs.end(),
                                   [](const WhatIf& w) { return w.id == WhatIfId::kReplicatePerWarp; });
  ASSERT_NE(copies, headline.what_ifs.end()) << "the what-if is on the headline";
  EXPECT_NE(copies->basis.find("6 of 8 blocks"), std::string::npos) << copies->basis;
  EXPECT_NE(copies->basis.find("persistent grid merges 25% fewer"), std::string::npos) << copies->basis;
  EXPECT_NE(copies->change.find("k stays 3.2"), std::string::npos) << copies->change;
  // The unit's load stays: the kernel's S, its busy time over the shorter best-case time.
  EXPECT_DOUBLE_EQ(copies->service_cycles, a.utilization.service.cycles);
  EXPECT_NEAR(copies->predicted_utilization, a.utilization.mean * iv->high, 1e-9);

  // Twice the grid: not sized by occupancy, so its blocks and merges stay: no gain even at the
  // high end, a what-if that changes nothing, not proposed.
  KernelProfile twice = p;
  twice.launch.grid[0] *= 2;
  const KernelAnalysis twice_analysis = analyze(twice, recordings_model());
  EXPECT_EQ(fix_interval(twice_analysis, std::vector{WhatIfId::kReplicatePerWarp}), nullptr);
}

// float_histogram with its per-instruction run: the CAS retry loop (2.4 attempts per update)
// classes it; the unit busy half the time, its fix's low end is the full-overlap bound (no
// gain), not the loop's "time proportional to instructions" (2.2x), which the fix (1.72x) beat.
TEST(ValidationRuns, CasLoopFixLowEndIsTheFullOverlapBound) {
  const KernelAnalysis a = analyze(case_profile("float_histogram", "shared_float_atomics"), recordings_model());
  EXPECT_EQ(a.utilization_class, UtilizationClass::kPotential);
  const Finding* f = a.find(FindingKind::kCasRetry);
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->what_ifs.empty());
  const GainInterval& iv = f->what_ifs.front().interval;
  EXPECT_DOUBLE_EQ(iv.low, 1.0);
  EXPECT_GT(iv.high, 2.0);
  EXPECT_NE(iv.basis.find("full-overlap"), std::string::npos) << iv.basis;
}

// The hash probes at load 0.9 (one dependent CAS per probe, 9.3 requests per instruction, about
// 440 in flight per SM): the hottest slice is below the potential mark, yet the warps' time is
// the round trips at that load (docs/model.md, "Round trips"): their U is above the L2's potential
// mark (0.84 and 0.79 on the H100's recordings with its table); their ablations are 7.4x and 3.4x
// faster. The probe-with-loads fixes keep few ATOMs in flight and are not bound by them.
TEST(ValidationRuns, HashProbesAtHighLoadAreBoundByTheirRoundTrips) {
  const ServiceTimeModel& model = recordings_model();
  for (const char* name : {"hash_build_load90_uniform", "hash_build_load90_skewed"}) {
    SCOPED_TRACE(name);
    const KernelAnalysis base = analyze(case_profile(name, "cas_probe"), model);
    ASSERT_TRUE(base.l2.latency.evaluated) << base.l2.latency.not_evaluated_reason;
    EXPECT_LT(base.l2.utilization, 0.7);
    EXPECT_GT(base.l2.latency.in_flight_per_sm, 256);
    EXPECT_GE(base.l2.latency.utilization, Rules{}.l2_potential_utilization);
    EXPECT_TRUE(base.l2.bound_by_round_trips);
    EXPECT_EQ(base.binding_unit, BindingUnit::kL2AtomicUnit);
    EXPECT_NE(base.find(FindingKind::kL2RoundTrip), nullptr);
    const KernelAnalysis fix = analyze(case_profile(name, "load_then_cas"), model);
    ASSERT_TRUE(fix.l2.latency.evaluated);
    EXPECT_LT(fix.l2.latency.utilization, 0.35);
    EXPECT_FALSE(fix.l2.bound_by_round_trips);
  }
}

// docs/model.md, "Probing with loads": the round-trip finding of a probe chain prices its CASes as
// loads. High end: each CAS step's wait becomes the table's L2 load round trip at the probe's lines
// per request and load; low end: the load waits as long as the CAS did, and at most one claim per
// useful update follows it, which can make the kernel slower than it was.
TEST(ValidationRuns, ProbeChainWithLoadsTakesTheLoadRoundTripFromTheTable) {
  const ServiceTimeModel& model = recordings_model();
  const KernelProfile p = case_profile("hash_build_load90_uniform", "cas_probe");
  const KernelAnalysis a = analyze(p, model);
  const Finding* rt = a.find(FindingKind::kL2RoundTrip);
  ASSERT_NE(rt, nullptr);
  ASSERT_EQ(rt->what_ifs.size(), 1u);
  const WhatIf& w = rt->what_ifs.front();
  EXPECT_EQ(w.id, WhatIfId::kLoadBeforeCas);
  ASSERT_TRUE(w.interval.evaluated);
  const L2LatencyEvaluation& l = a.l2.latency;
  const double lines = l.requests_per_instruction;
  const std::optional<double> load_ns = model.load_section()->round_trip_ns(
      calibration::LoadResidency::kL2, lines, l.resident_warps_per_sm * lines);
  ASSERT_TRUE(load_ns);
  EXPECT_LT(*load_ns, l.round_trip_ns);  // an L2 load returns sooner than the contended CAS
  const double u = std::min(1.0, l.utilization);
  const double cas = a.l2.inputs.cas_requests / *p.counter(metric::kL2AtomRequests);
  const double claims = *p.useful_updates / a.l2.inputs.cas_requests;
  const double high = 1.0 / (1.0 - u + u * ((1.0 - cas) + cas * *load_ns / l.round_trip_ns));
  const double low = 1.0 / (1.0 - u + u * ((1.0 - cas) + cas * (1.0 + claims)));
  EXPECT_NEAR(w.interval.high, high, 1e-9 * high);
  EXPECT_NEAR(w.interval.low, low, 1e-9 * low);
  EXPECT_LT(w.interval.low, 1.0);
  EXPECT_GT(w.interval.high, 1.5);
  EXPECT_GT(w.service_cycles, 0.0);  // every output prints S: the slice's, at which the CASes left are served
  // Not a sure gain: never the recommendation.
  EXPECT_TRUE(!a.recommended_what_if() || a.recommended_what_if()->id != WhatIfId::kLoadBeforeCas);
}

}  // namespace
}  // namespace atomq::model

namespace atomq::model {
namespace {

const WhatIf* what_if_with(const KernelAnalysis& a, WhatIfId id) {
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs)
      if (w.id == id) return &w;
  return nullptr;
}

// docs/model.md, "The CAS retry law": the one-word product's loop is a retry loop (no release:
// not a spin lock), its attempts per update come from the per-instruction run, every update
// changes the word (so a probe with loads skips nothing and is not proposed), and the combining
// fix is priced by the law within a factor 3; the float max's running value stops changing, so
// its blocks' CASes barely retry and a probe could skip most of its CASes.
TEST(ValidationRuns, GlobalCasLoopsArePricedByTheRetryLaw) {
  const ServiceTimeModel& model = recordings_model();
  const KernelAnalysis product = analyze(case_profile("cas_product_one_address", "cas_loop"), model);
  ASSERT_TRUE(product.has(FindingKind::kCasRetry));
  for (const Finding& f : product.findings) EXPECT_EQ(f.title.find("spin lock"), std::string::npos) << f.title;
  const CasRetryTotals t = cas_retry_totals(product.sites);
  EXPECT_GT(t.attempts_per_update, 1000.0);
  const WhatIf* combine = what_if_with(product, WhatIfId::kCombineBeforeCas);
  ASSERT_NE(combine, nullptr);
  EXPECT_LE(combine->interval.high / combine->interval.low, 3.0);
  EXPECT_EQ(what_if_with(product, WhatIfId::kLoadBeforeCas), nullptr);
  EXPECT_EQ(what_if_with(product, WhatIfId::kPrivatize), nullptr);  // merging left to the law
  ASSERT_TRUE(product.recommended_what_if());
  EXPECT_EQ(product.recommended_what_if()->id, WhatIfId::kCombineBeforeCas);

  const KernelAnalysis max = analyze(case_profile("cas_float_max_one_address", "cas_loop"), model);
  const WhatIf* max_combine = what_if_with(max, WhatIfId::kCombineBeforeCas);
  ASSERT_NE(max_combine, nullptr);
  // Its 65536 lanes lie beyond the sweep's: the share is bounded from both sides, both near 0.
  EXPECT_NE(max_combine->interval.basis.find("% (low) of this loop's updates change the word"),
            std::string::npos)
      << max_combine->interval.basis;
  EXPECT_NE(what_if_with(max, WhatIfId::kLoadBeforeCas), nullptr);
}

// The live H100 run of 2026-12-07 (tests/fixtures/live_runs/2026-12-07-h100-list-425e6df): the
// one-word product and float add took 4000 and 3920 attempts per update at 65536 contending lanes,
// beyond the sweep's 8192, where the law's a(m) is extrapolated. Read against the extrapolation
// alone, 42% and 41% of their updates changed the word and the combining fix was put above what it
// measured (4891x and 4743x against 8368x-13079x and 9239x-14436x); with the share bounded by the
// sweep's last point as well, each measured fix lies inside its interval.
TEST(ValidationRuns, CasShareBeyondTheSweepBoundsTheCombineInterval) {
  const std::string dir = kDir + "/../live_runs/2026-12-07-h100-list-425e6df";
  for (const char* name : {"cas_product_one_address", "cas_float_add_one_address"}) {
    SCOPED_TRACE(name);
    const std::string path = dir + "/" + name + ".json";
    const KernelProfile p = profiles_by_variant(read_json(path), path).at("cas_loop");
    const KernelAnalysis a = analyze(p, bundled_model_for(p));
    const WhatIf* combine = what_if_with(a, WhatIfId::kCombineBeforeCas);
    ASSERT_NE(combine, nullptr);
    EXPECT_NE(combine->interval.basis.find("extrapolated beyond the sweep's 8192"), std::string::npos)
        << combine->interval.basis;
    const double measured = measured_gain(dir + "/" + name + ".timings.json", "cas_loop", "combined");
    EXPECT_TRUE(combine->interval.contains(measured))
        << measured << " not in [" << combine->interval.low << ", " << combine->interval.high << "]";
  }
}

// Within the sweep's lanes the share is one value, as before the bound: the same loop launched on
// 16 blocks (4096 contending lanes) reads a(m) from the sweep itself, and its basis names no
// extrapolation.
TEST(ValidationRuns, CasShareWithinTheSweepIsOneValue) {
  KernelProfile p = case_profile("cas_product_one_address", "cas_loop");
  p.launch.grid = {16, 1, 1};
  const KernelAnalysis a = analyze(p, bundled_model_for(p));
  const WhatIf* combine = what_if_with(a, WhatIfId::kCombineBeforeCas);
  ASSERT_NE(combine, nullptr);
  EXPECT_EQ(combine->interval.basis.find("extrapolated"), std::string::npos) << combine->interval.basis;
  EXPECT_EQ(combine->interval.basis.find("% (low) of this loop's updates"), std::string::npos)
      << combine->interval.basis;
  EXPECT_NE(combine->interval.basis.find("% of this loop's updates change the word"), std::string::npos)
      << combine->interval.basis;
}

// A busy atomic unit hides the rest of the kernel: the what-ifs' low end (full overlap) keeps at
// least the loads' round trips (the load latency floor) on the L2 what-ifs and the DSMEM one;
// their high end does not (an estimate, not a floor: a kernel with loads in flight runs below it).
TEST(ValidationRuns, WhatIfsKeepTheLoadLatencyFloorAtTheirLowEnd) {
  const ServiceTimeModel& model = recordings_model();
  const std::pair<const char*, WhatIfId> cases[] = {{"upsample_backward", WhatIfId::kPrivatize},
                                                    {"dsmem_histogram", WhatIfId::kBlockLocalBins},
                                                    {"degree_count", WhatIfId::kPrivatize}};
  for (const auto& [name, id] : cases) {
    SCOPED_TRACE(name);
    const KernelProfile p = case_profile(name, std::string(name) == "dsmem_histogram" ? "dsmem_atomics" : "global_atomics");
    const KernelAnalysis a = analyze(p, model);
    ASSERT_TRUE(a.load_latency.floor_ns);
    const WhatIf* w = what_if_with(a, id);
    ASSERT_NE(w, nullptr);
    ASSERT_TRUE(w->interval.evaluated);
    EXPECT_GE(w->interval.time_ns_at_low, *a.load_latency.floor_ns);
    EXPECT_LE(w->interval.time_ns_at_high, w->interval.time_ns_at_low);
  }
}

}  // namespace
}  // namespace atomq::model
