// Every histogram target is exact on every input: distributions, odd sizes (0, 1, not a
// multiple of the 16-byte vector), unaligned base pointers, many bins, and counts near 2^32.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "atomq/histogram/histogram.hpp"
#include "gpu_guard.hpp"

namespace hg = atomq::histogram;

namespace {

hg::InputSpec input(hg::InputKind kind, double zipf_s = 1.1, std::uint64_t seed = 7) {
  hg::InputSpec in;
  in.kind = kind;
  in.zipf_s = zipf_s;
  in.hot_fraction = 0.3;
  in.seed = seed;
  return in;
}

hg::HistCase make_case(hg::SampleType type, const hg::InputSpec& in, std::size_t n, int bins,
                       int misalign_elements) {
  hg::HistCase c;
  c.type = type;
  c.input = in;
  c.n = n;
  c.bins = bins;
  c.misalign_elements = misalign_elements;
  return c;
}

// Exactly one counter holds 2^32 - 1 and every other counter is zero.
void expect_one_full_bin(const hg::HistRunResult& got, const std::string& what) {
  int full = 0, other = 0;
  for (std::uint32_t count : got.counts) {
    if (count == 0xFFFFFFFFu) ++full;
    else if (count != 0u) ++other;
  }
  EXPECT_EQ(full, 1) << what;
  EXPECT_EQ(other, 0) << what;
}

std::string label(const hg::HistCase& c, hg::HistVariant v) {
  return atomq::enum_name(v) + " " + atomq::enum_name(c.type) + " " + hg::describe(c.input) +
         " n=" + std::to_string(c.n) + " bins=" + std::to_string(c.bins) +
         " misalign=" + std::to_string(c.misalign_elements);
}

// Runs each variant on the prepared case and compares all counters with the CPU reference.
void expect_exact(hg::HistogramRunner& runner, const hg::HistCase& c,
                  const std::vector<hg::HistVariant>& variants, int& checked) {
  runner.prepare(c);
  const std::vector<std::uint64_t> expected = runner.reference();
  for (hg::HistVariant v : variants) {
    if (!hg::unsupported_reason(v, c.type, c.bins, c.n).empty()) continue;
    const hg::HistRunResult got = runner.run(v);
    ASSERT_EQ(got.counts.size(), expected.size()) << label(c, v);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) wrong += got.counts[i] != expected[i];
    EXPECT_EQ(wrong, 0u) << label(c, v);
    ++checked;
  }
}

const std::vector<hg::HistVariant> kScalarVariants = {
    hg::HistVariant::kNaiveGlobal,    hg::HistVariant::kBlockPrivate,
    hg::HistVariant::kBlockGridStride, hg::HistVariant::kWarpReplicated,
    hg::HistVariant::kLaneReplicated, hg::HistVariant::kTwoPhase,
    hg::HistVariant::kWarpAggregated, hg::HistVariant::kSortRunLength,
    hg::HistVariant::kManyBins,       hg::HistVariant::kManyBinsPacked,
    hg::HistVariant::kRankShared,     hg::HistVariant::kRankLaneReplicated,
    hg::HistVariant::kCub,            hg::HistVariant::kScatterAddGlobal,
    hg::HistVariant::kScatterAddPrivate, hg::HistVariant::kBlockU64,
    hg::HistVariant::kScatterAddPrivateInt};

}  // namespace

TEST(HistogramGpu, ScalarVariantsExactOnEveryInputSizeAndAlignment) {
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  int checked = 0;
  const std::vector<hg::InputSpec> inputs = {
      input(hg::InputKind::kUniform), input(hg::InputKind::kZipf, 1.1),
      input(hg::InputKind::kZipf, 0.5), input(hg::InputKind::kHotFraction),
      input(hg::InputKind::kSingleValue)};
  const std::vector<std::size_t> sizes = {0, 1, 2, 15, 17, 63, 4099, (std::size_t{1} << 20) + 3};
  for (hg::SampleType type : {hg::SampleType::kU32, hg::SampleType::kU8}) {
    for (int bins : {256, 37, 1}) {
      for (const auto& in : inputs) {
        for (std::size_t n : sizes) {
          for (int misalign : {0, 1, 3}) {
            expect_exact(runner, make_case(type, in, n, bins, misalign), kScalarVariants, checked);
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 2000);
}

TEST(HistogramGpu, LargeInputsExactForEveryVariant) {
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  int checked = 0;
  for (hg::SampleType type : {hg::SampleType::kU32, hg::SampleType::kU8}) {
    for (hg::InputKind kind : {hg::InputKind::kUniform, hg::InputKind::kZipf,
                               hg::InputKind::kHotFraction, hg::InputKind::kSingleValue}) {
      expect_exact(runner, make_case(type, input(kind, 1.1, 11), (std::size_t{32} << 20) + 5, 256, 1),
                   kScalarVariants, checked);
    }
  }
  // many_bins_packed takes u32 only: one fewer variant on the u8 inputs; the three scatter-add
  // variants refuse more than 2^24 samples (float sums stay exact).
  EXPECT_EQ(checked, 4 * (static_cast<int>(kScalarVariants.size()) - 3) +
                         4 * (static_cast<int>(kScalarVariants.size()) - 4));
}

// The scatter-add target at its documented size: 16 Mi unit values into 1024 bins and into one.
TEST(HistogramGpu, ScatterAddExactAt16MiValues) {
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  int checked = 0;
  for (hg::InputKind kind : {hg::InputKind::kUniform, hg::InputKind::kSingleValue})
    expect_exact(runner, make_case(hg::SampleType::kU32, input(kind, 1.1, 5), std::size_t{1} << 24, 1024, 0),
                 {hg::HistVariant::kScatterAddGlobal, hg::HistVariant::kScatterAddPrivate,
                  hg::HistVariant::kScatterAddPrivateInt},
                 checked);
  EXPECT_EQ(checked, 6);
}

TEST(HistogramGpu, ImageVariantsExactOnSingleAndRandomColour) {
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  int checked = 0;
  const std::vector<hg::HistVariant> variants = {hg::HistVariant::kImagePlain,
                                                 hg::HistVariant::kImageInterleaved,
                                                 hg::HistVariant::kImageLaneReplicated,
                                                 hg::HistVariant::kCub};
  for (hg::InputKind kind : {hg::InputKind::kUniform, hg::InputKind::kSingleValue,
                             hg::InputKind::kZipf}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000003}}) {
      for (int misalign : {0, 1}) {
        for (int bins : {256, 200}) {
          expect_exact(runner, make_case(hg::SampleType::kRgba8, input(kind, 1.1, 3), n, bins, misalign),
                       variants, checked);
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * 4 * 2 * 2 * 4);
}

TEST(HistogramGpu, ManyBinsExactIncludingClusterSplits) {
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  int checked = 0;
  for (int bins : {4096, 65536, 100000, 131072}) {
    for (hg::InputKind kind : {hg::InputKind::kUniform, hg::InputKind::kZipf,
                               hg::InputKind::kSingleValue}) {
      expect_exact(runner, make_case(hg::SampleType::kU32, input(kind, 1.1, 5), (std::size_t{4} << 20) + 7, bins, 2),
                   kScalarVariants, checked);
    }
  }
  EXPECT_GE(checked, 4 * 3 * 4);
}

// The packed kernel's 16-bit counters spill 0x8000 to the global bin; on one value every block
// spills many times, and with 2 bins the two counters of one word spill side by side.
TEST(HistogramGpu, PackedCountersSpillExactly) {
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  int checked = 0;
  for (int bins : {2, 3, 65536}) {
    for (hg::InputKind kind : {hg::InputKind::kSingleValue, hg::InputKind::kUniform,
                               hg::InputKind::kHotFraction}) {
      expect_exact(runner, make_case(hg::SampleType::kU32, input(kind, 1.1, 13), (std::size_t{64} << 20) + 3, bins, 3),
                   {hg::HistVariant::kManyBinsPacked}, checked);
    }
  }
  EXPECT_EQ(checked, 9);
}

// 2^32 - 1 samples in one bin: the largest count a 32-bit counter holds, reached exactly.
TEST(HistogramGpu, CountsUpTo2To32MinusOneDoNotWrap) {
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  hg::HistCase c = make_case(hg::SampleType::kU8, input(hg::InputKind::kSingleValue, 1.1, 9),
                             std::size_t{0xFFFFFFFFu}, 256, 0);
  runner.prepare(c);
  for (hg::HistVariant v : {hg::HistVariant::kBlockGridStride, hg::HistVariant::kLaneReplicated,
                            hg::HistVariant::kWarpReplicated, hg::HistVariant::kManyBins,
                            hg::HistVariant::kTwoPhase}) {
    expect_one_full_bin(runner.run(v), atomq::enum_name(v));
  }
  // The packed kernel takes u32 samples: 2^32 - 1 of them (16 GiB) on one of 65536 bins.
  c.type = hg::SampleType::kU32;
  c.bins = 65536;
  runner.prepare(c);
  expect_one_full_bin(runner.run(hg::HistVariant::kManyBinsPacked), "many_bins_packed");
}

TEST(HistogramGpu, RefusesWhatItCannotCountExactly) {
  // 2^32 samples could put 2^32 in one 32-bit bin: refused before anything runs.
  for (hg::HistVariant v : atomq::enum_values<hg::HistVariant>()) {
    EXPECT_FALSE(hg::unsupported_reason(v, hg::SampleType::kU8, 256, std::size_t{1} << 32).empty())
        << atomq::enum_name(v);
  }
  EXPECT_FALSE(hg::unsupported_reason(hg::HistVariant::kLaneReplicated, hg::SampleType::kU32, 4096, 10).empty());
  EXPECT_FALSE(hg::unsupported_reason(hg::HistVariant::kTwoPhase, hg::SampleType::kU32, 257, 10).empty());
  EXPECT_FALSE(hg::unsupported_reason(hg::HistVariant::kNaiveGlobal, hg::SampleType::kU8, 300, 10).empty());
  EXPECT_FALSE(hg::unsupported_reason(hg::HistVariant::kLaneReplicated, hg::SampleType::kRgba8, 256, 10).empty());
  EXPECT_TRUE(hg::unsupported_reason(hg::HistVariant::kManyBins, hg::SampleType::kU32, 65536, 10).empty());
  EXPECT_TRUE(hg::unsupported_reason(hg::HistVariant::kManyBinsPacked, hg::SampleType::kU32, 65536, 10).empty());
  EXPECT_FALSE(hg::unsupported_reason(hg::HistVariant::kManyBinsPacked, hg::SampleType::kU32, 65537, 10).empty());
  EXPECT_FALSE(hg::unsupported_reason(hg::HistVariant::kManyBinsPacked, hg::SampleType::kU8, 256, 10).empty());
  EXPECT_FALSE(hg::unsupported_reason(hg::HistVariant::kImageLaneReplicated, hg::SampleType::kRgba8, 257, 10).empty());
  ATOMQ_REQUIRE_GPU();
  hg::HistogramRunner runner(0);
  hg::HistCase c;
  c.type = hg::SampleType::kU32;
  c.n = 100;
  c.bins = 65536;
  runner.prepare(c);
  EXPECT_THROW(runner.run(hg::HistVariant::kLaneReplicated), hg::HistogramError);
}

// The CPU reference itself, on a hand-made input (values >= bins are dropped).
TEST(HistogramReference, CountsAndDropsOutOfRange) {
  const std::vector<std::uint32_t> s = {0, 3, 3, 9, 2, 3, 4000000000u};
  const auto h = hg::reference_histogram(s.data(), s.size(), hg::SampleType::kU32, 4);
  EXPECT_EQ(h, (std::vector<std::uint64_t>{1, 0, 1, 3}));
  const std::vector<std::uint8_t> px = {1, 2, 3, 4, 1, 0, 3, 9};
  const auto hi = hg::reference_histogram(px.data(), 2, hg::SampleType::kRgba8, 4);
  EXPECT_EQ(hi, (std::vector<std::uint64_t>{0, 2, 0, 0, 1, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0}));
}
