#include "atomq/analyzer/ncu_csv.hpp"

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace an = atomq::analyzer;

namespace {

const char* kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
    "\"Metric Value\"\n";

std::string row(const std::string& id, const std::string& kernel, const std::string& metric,
                const std::string& unit, const std::string& value) {
  return "\"" + id + "\",\"77\",\"app\",\"host\",\"" + kernel +
         "\",\"1\",\"7\",\"(256, 1, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" +
         metric + "\",\"" + unit + "\",\"" + value + "\"\n";
}

std::string error_of(const std::string& text) {
  try {
    an::parse_ncu_csv(text, "app.csv");
  } catch (const an::NcuCsvError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(NcuCsv, SplitsQuotedFields) {
  bool ok = false;
  auto f = an::split_csv_record("\"a,b\",\"c\"\"d\",e", &ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], "a,b");
  EXPECT_EQ(f[1], "c\"d");
  EXPECT_EQ(f[2], "e");
  an::split_csv_record("\"open", &ok);
  EXPECT_FALSE(ok);
}

TEST(NcuCsv, GroupsRowsByResultAndScalesUnits) {
  const std::string text = std::string("==PROF== Connected to process\nprogram output\n") + kHeader +
                           row("0", "k1(int*)", "smsp__inst_executed_op_shared_atom.sum", "inst", "135,168") +
                           row("0", "k1(int*)", "gpu__time_duration.sum", "usecond", "2.5") +
                           row("0", "k1(int*)", "dram__bytes_read.sum", "Kbyte", "3.07") +
                           row("1", "k2()", "smsp__inst_executed_op_shared_atom.sum", "inst", "0") +
                           row("1", "k2()", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "24.5");
  const auto profiles = an::parse_ncu_csv(text, "app.csv");
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[0].kernel_name, "k1(int*)");
  EXPECT_EQ(profiles[0].launch.grid[0], 264);
  EXPECT_EQ(profiles[0].launch.block[0], 256);
  EXPECT_EQ(profiles[0].device.chip, "GH100");
  EXPECT_DOUBLE_EQ(*profiles[0].counter("smsp__inst_executed_op_shared_atom.sum"), 135168.0);
  EXPECT_DOUBLE_EQ(*profiles[0].counter("gpu__time_duration.sum"), 2500.0);
  EXPECT_DOUBLE_EQ(*profiles[0].counter("dram__bytes_read.sum"), 3070.0);
  EXPECT_DOUBLE_EQ(*profiles[1].counter("sm__warps_active.avg.pct_of_peak_sustained_active"), 24.5);
  EXPECT_EQ(profiles[1].source, atomq::model::CounterSource::kNcuCsv);
}

TEST(NcuCsv, BadInputNamesTheLine) {
  EXPECT_NE(error_of("no header here\n").find("no ncu CSV header"), std::string::npos);
  const std::string good = std::string(kHeader) + row("0", "k", "gpu__time_duration.sum", "nsecond", "10");
  // Truncated in the middle of the second data line (line 3).
  const std::string truncated = good + good.substr(std::string(kHeader).size(), 40);
  EXPECT_NE(error_of(truncated).find("app.csv:3:"), std::string::npos) << error_of(truncated);
  EXPECT_NE(error_of(std::string(kHeader) + row("0", "k", "x.sum", "inst", "12abc")).find("app.csv:2: metric x.sum"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row("0", "k", "x.sum", "furlong", "1")).find("unknown unit"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader).find("no kernel results"), std::string::npos);
  EXPECT_NE(error_of("\"ID\",\"Kernel Name\"\n").find("lacks the column"), std::string::npos);
}

TEST(NcuCsv, RecordedExportsLoad) {
  const std::filesystem::path dir(ATOMQ_FIXTURE_DIR);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".csv") {
      const auto profiles = an::load_ncu_csv(e.path().string());
      EXPECT_FALSE(profiles.empty()) << e.path();
      ++files;
    }
  ASSERT_GT(files, 0) << "no recorded ncu export in " << dir;
  // The committed export of the multi-kernel test program: seven launches (no_atomics twice).
  EXPECT_EQ(an::load_ncu_csv((dir / "multi_kernel_app.ncu.csv").string()).size(), 7u);
  // A details page of an AtomicQueue report of the same program (names printed): the same seven
  // launches, each with every counter atomq reads that its long-form export holds.
  const auto details = an::load_ncu_csv((dir / "multi_kernel_app.details.csv").string());
  const auto long_form = an::load_ncu_csv((dir / "multi_kernel_app.ncu.csv").string());
  ASSERT_EQ(details.size(), 7u);
  for (size_t i = 0; i < details.size(); ++i) {
    EXPECT_EQ(details[i].kernel_name, long_form[i].kernel_name);
    for (const auto& [name, value] : long_form[i].counters) EXPECT_TRUE(details[i].counter(name)) << name;
  }
}

// Exports that used to crash or read wrong numbers are refused with the line and the reason.
TEST(NcuCsv, RepeatedColumnsTwoKernelsPerIdAndCommasAreRefused) {
  const std::string head(kHeader);
  const std::string repeated = head.substr(0, head.size() - 1) + ",\"Metric Value\"\n";
  const std::string e1 = error_of(repeated + row("0", "k", "sm__cycles_active.sum", "cycle", "1"));
  EXPECT_NE(e1.find("repeats the column \"Metric Value\" (columns 15 and 16)"), std::string::npos) << e1;

  const std::string e2 = error_of(head + row("0", "a", "sm__cycles_active.sum", "cycle", "1") +
                                  row("0", "b", "sm__cycles_active.max", "cycle", "1"));
  EXPECT_NE(e2.find("result ID 0 names two kernels"), std::string::npos) << e2;
  EXPECT_NE(e2.find("app.csv:3"), std::string::npos) << e2;

  for (const char* bad : {"1,5", "1 234", "12,3456", "1,234,56", "1.5,0"}) {
    const std::string e = error_of(head + row("0", "k", "sm__cycles_active.sum", "cycle", bad));
    EXPECT_NE(e.find("is not a number"), std::string::npos) << bad << ": " << e;
  }
  const auto profiles =
      an::parse_ncu_csv(head + row("0", "k", "sm__cycles_active.sum", "cycle", "1,234,567.5") +
                            row("0", "k", "sm__cycles_active.max", "cycle", "1,234"),
                        "app.csv");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_DOUBLE_EQ(profiles[0].counters.at("sm__cycles_active.sum"), 1234567.5);
  EXPECT_DOUBLE_EQ(profiles[0].counters.at("sm__cycles_active.max"), 1234);
}

TEST(NcuCsv, GridJunkAndRateUnitsOfCountsAreRefused) {
  const std::string head(kHeader);
  std::string good = row("0", "k", "sm__cycles_active.sum", "cycle", "1");
  for (const char* grid : {"(264, 1, 1)x", "(0x10, 1, 1)", "(1 234, 1, 1)", "(264, 1)", "(264, 65536, 1)"}) {
    std::string bad = good;
    bad.replace(bad.find("(264, 1, 1)"), 11, grid);
    const std::string e = error_of(head + bad);
    EXPECT_NE(e.find("bad \"Grid Size\""), std::string::npos) << grid << ": " << e;
  }
  const std::string e = error_of(head + row("0", "k", "sm__cycles_active.sum", "cycle/second", "1"));
  EXPECT_NE(e.find("is a rate"), std::string::npos) << e;
  // A rate is fine for a metric atomq does not read.
  EXPECT_EQ(error_of(head + good + row("0", "k", "dram__throughput.avg", "byte/second", "5")), "");
}

// Exports that are valid but were refused: the program's own "ID," line before the table, a
// trailing ==WARNING== line, a byte order mark, reordered columns, a multi-line quoted field.
TEST(NcuCsv, ProgramIdLineTrailingWarningBomReorderedColumnsAndMultilineFieldsAreRead) {
  const std::string body = row("0", "k", "gpu__time_duration.sum", "nsecond", "10");
  const auto time_of = [](const std::string& text) {
    const auto profiles = an::parse_ncu_csv(text, "app.csv");
    EXPECT_EQ(profiles.size(), 1u);
    return profiles.empty() ? -1.0 : profiles[0].counter("gpu__time_duration.sum").value_or(-1.0);
  };
  EXPECT_EQ(time_of("ID,name,score\n1,run,3\n" + std::string(kHeader) + body), 10.0);
  EXPECT_EQ(time_of(std::string(kHeader) + body + "==WARNING== something after the table\n"), 10.0);
  EXPECT_EQ(time_of("\xEF\xBB\xBF" + std::string(kHeader) + body), 10.0);
  const std::string reordered =
      "\"Kernel Name\",\"ID\",\"CC\",\"Grid Size\",\"Block Size\",\"Metric Value\",\"Metric Unit\",\"Metric Name\"\n"
      "\"k\",\"0\",\"9.0\",\"(264, 1, 1)\",\"(256, 1, 1)\",\"10\",\"nsecond\",\"gpu__time_duration.sum\"\n";
  EXPECT_EQ(time_of(reordered), 10.0);
  const auto profiles = an::parse_ncu_csv(std::string(kHeader) + row("0", "k<\nline two>", "gpu__time_duration.sum",
                                                                     "nsecond", "10"), "app.csv");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].kernel_name, "k<\nline two>");
  // Still refused: a header that lacks a column, a quote never closed, counts beyond int.
  EXPECT_NE(error_of("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n").find("header lacks the column"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + "\"0\",\"k\n").find("unterminated quote"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row("0", "k", "launch__registers_per_thread", "register/thread", "4294967296"))
                .find("not a whole number from 0 to 255"),
            std::string::npos);
}

// What analyze writes, report must read: a kernel without a name is refused at the import,
// naming the result, instead of being written into a run document report refuses.
TEST(NcuCsv, EmptyKernelNameIsRefusedAtTheImport) {
  const std::string e = error_of(std::string(kHeader) + row("3", "", "gpu__time_duration.sum", "ns", "10"));
  EXPECT_NE(e.find("app.csv result ID 3: field 'kernel.name': empty"), std::string::npos) << e;
}

namespace {

// The error of an export, checked to name the file, the line and (when given) the field.
void expect_refused(const std::string& text, const std::string& line, const std::string& field,
                    const std::string& reason) {
  const std::string e = error_of(text);
  EXPECT_NE(e.find("app.csv:" + line + ":"), std::string::npos) << reason << ": " << e;
  EXPECT_NE(e.find(field), std::string::npos) << reason << ": " << e;
  EXPECT_NE(e.find(reason), std::string::npos) << reason << ": " << e;
}

std::string repeated_rows(size_t bytes) {
  std::string text = kHeader;
  for (int id = 0; text.size() < bytes; ++id)
    for (const char* m : {"gpu__time_duration.sum", "sm__cycles_active.sum", "smsp__inst_executed_op_shared_atom.sum"})
      text += row(std::to_string(id), "k(int*)", m, m[0] == 'g' ? "nsecond" : m[0] == 's' && m[1] == 'm' && m[2] == '_' ? "cycle" : "inst", "10");
  return text;
}

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

}  // namespace

// One stray quote made the reader re-split the growing record at every line (32 s for a
// 2.2 MB export). One pass now: refused at once, naming the line where the quote opened, in a
// time per byte that does not grow with the input (measured in one run: 4 times the input, the
// same time per byte for a linear reader, 4 times for a quadratic one).
TEST(NcuCsvStream, StrayQuoteIsReadInLinearTimeAndRefusedAtItsLine) {
  const std::string opened = repeated_rows(1000) + "\"0\",\"k(int*)\n";  // a quote never closed
  const std::string line = std::to_string(std::count(opened.begin(), opened.end(), '\n'));
  double ms_per_byte[2] = {0, 0};
  const size_t sizes[2] = {550000, 2200000};
  for (int i = 0; i < 2; ++i) {
    std::string text = opened;
    while (text.size() < sizes[i]) text += "0,k,256,264,9.0,m,inst,10\n";
    const double start = thread_cpu_ms();
    const std::string e = error_of(text);
    ms_per_byte[i] = (thread_cpu_ms() - start) / static_cast<double>(text.size());
    EXPECT_NE(e.find("app.csv:" + line + ": unterminated quoted field"), std::string::npos) << e.substr(0, 200);
  }
  EXPECT_LT(ms_per_byte[1] / ms_per_byte[0], 2.0) << "time per byte, 2.2 MB over 550 KB";
}

TEST(NcuCsvStream, OversizedRowsAndEndlessInputAreRefusedNamingTheLimit) {
  an::NcuCsvLimits limits;
  limits.max_record_bytes = 1000;
  std::istringstream in(std::string(kHeader) + row("0", std::string(2000, 'k'), "gpu__time_duration.sum", "ns", "1"));
  try {
    an::read_ncu_csv(in, "app.csv", {}, limits);
    FAIL() << "a row above the limit is read";
  } catch (const an::NcuCsvError& e) {
    EXPECT_NE(std::string(e.what()).find("app.csv:2: row longer than 1000 bytes"), std::string::npos) << e.what();
  }
  // /dev/zero: no line break ever; refused after one record's limit, not read until memory runs out.
  try {
    an::load_ncu_csv("/dev/zero");
    FAIL() << "/dev/zero is read";
  } catch (const an::NcuCsvError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero:1: line longer than 4 MiB"), std::string::npos) << e.what();
  }
}

// Of each launch only what the model reads is kept; the launches kept are capped, and the
// selector (analyze's -k, -s, -c) chooses them while the export streams in.
TEST(NcuCsvStream, KeepsOnlyReadCountersSelectedLaunchesAndRefusesBeyondTheCap) {
  const std::string text = std::string(kHeader) + row("0", "a", "gpu__time_duration.sum", "ns", "1") +
                           row("0", "a", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "5") +
                           row("1", "b", "gpu__time_duration.sum", "ns", "2") +
                           row("2", "c", "gpu__time_duration.sum", "ns", "3");
  std::istringstream all(text);
  const auto everything = an::read_ncu_csv(all, "app.csv");
  ASSERT_EQ(everything.profiles.size(), 3u);
  EXPECT_EQ(everything.profiles[0].counters.size(), 1u);  // the throughput is checked, not kept
  std::istringstream some(text);
  const auto b = an::read_ncu_csv(some, "app.csv", [](const atomq::model::KernelProfile& p) { return p.kernel_name == "b"; });
  EXPECT_EQ(b.launches_seen, 3);
  ASSERT_EQ(b.profiles.size(), 1u);
  EXPECT_EQ(*b.profiles[0].counter("gpu__time_duration.sum"), 2.0);
  an::NcuCsvLimits limits;
  limits.max_launches_kept = 2;
  std::istringstream capped(text);
  try {
    an::read_ncu_csv(capped, "app.csv", {}, limits);
    FAIL() << "a third launch is kept";
  } catch (const an::NcuCsvError& e) {
    EXPECT_NE(std::string(e.what()).find("app.csv:5: more than 2 launches to analyze"), std::string::npos) << e.what();
  }
}

// A unit of another dimension was scaled silently (10^3 to 10^9), a count in "%" accepted.
TEST(NcuCsvUnits, UnitsAreCheckedAgainstTheMetricsDimension) {
  const std::string head(kHeader);
  const struct { const char* metric; const char* unit; } wrong[] = {
      {"gpu__time_duration.sum", "Kbyte"}, {"gpu__time_duration.sum", "Mcycle"},
      {"smsp__inst_executed_op_shared_atom.sum", "msecond"}, {"smsp__inst_executed_op_shared_atom.sum", "%"},
      {"smsp__inst_executed_op_shared_atom.sum", "block"}, {"sm__cycles_active.sum", "byte"},
      {"dram__bytes_read.sum", "cycle"}, {"sm__warps_active.avg.pct_of_peak_sustained_active", "inst"}};
  for (const auto& w : wrong)
    expect_refused(head + row("0", "k", w.metric, w.unit, "1"), "2", "column \"Metric Unit\"",
                   std::string("unit '") + w.unit + "' is not");
  const auto p = an::parse_ncu_csv(head + row("0", "k", "gpu__time_duration.sum", "usecond", "2") +
                                       row("0", "k", "sm__cycles_active.sum", "Kcycle", "3") +
                                       row("0", "k", "dram__bytes_read.sum", "Mbyte", "4") +
                                       row("0", "k", "lts__t_requests_op_atom.sum", "request", "5"),
                                   "app.csv");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(*p[0].counter("gpu__time_duration.sum"), 2000.0);
  EXPECT_EQ(*p[0].counter("sm__cycles_active.sum"), 3000.0);
  EXPECT_EQ(*p[0].counter("dram__bytes_read.sum"), 4e6);
  EXPECT_EQ(*p[0].counter("lts__t_requests_op_atom.sum"), 5.0);
}

TEST(NcuCsvValues, HexNegativeAndUnderflowingValuesAreRefused) {
  const std::string head(kHeader);
  for (const char* v : {"0x10", "0x1p4", "inf", "nan", "1e", ".", "--1"})
    expect_refused(head + row("0", "k", "sm__cycles_active.sum", "cycle", v), "2", "metric sm__cycles_active.sum",
                   "is not a number");
  expect_refused(head + row("0", "k", "gpu__time_duration.sum", "ns", "-5"), "2", "column \"Metric Value\"",
                 "is negative");
  expect_refused(head + row("0", "k", "smsp__inst_executed_op_shared_atom.sum", "inst", "-1"), "2",
                 "column \"Metric Value\"", "is negative");
  expect_refused(head + row("0", "k", "sm__cycles_active.sum", "cycle", "1e-400"), "2", "metric sm__cycles_active.sum",
                 "underflows");
  expect_refused(head + row("0", "k", "sm__cycles_active.sum", "cycle", "1e400"), "2", "metric sm__cycles_active.sum",
                 "out of range");
  EXPECT_EQ(error_of(head + row("0", "k", "sm__cycles_active.sum", "cycle", "1.5e3") +
                     row("0", "k", "gpu__time_duration.sum", "ns", "0e-400")),
            "");
}

// A second export appended (with or without its header), one launch ID used twice, a metric
// given twice with two values, rows of one launch that disagree: refused, never merged.
TEST(NcuCsvLaunches, AppendedExportsReusedIdsRepeatedMetricsAndDisagreeingRowsAreRefused) {
  const std::string head(kHeader);
  const std::string first = row("0", "k", "gpu__time_duration.sum", "ns", "1") + row("1", "j", "gpu__time_duration.sum", "ns", "2");
  expect_refused(head + first + row("0", "k", "gpu__time_duration.sum", "ns", "7"), "4", "column \"ID\"",
                 "result ID 0 appears again");
  expect_refused(head + first + head + row("0", "k", "gpu__time_duration.sum", "ns", "7"), "4", "header",
                 "a second ncu header");
  expect_refused(head + row("0", "k", "gpu__time_duration.sum", "ns", "1") + row("0", "k", "gpu__time_duration.sum", "ns", "2"),
                 "3", "column \"Metric Value\"", "metric gpu__time_duration.sum given twice with different values");
  EXPECT_EQ(error_of(head + row("0", "k", "gpu__time_duration.sum", "ns", "1") +
                     row("0", "k", "gpu__time_duration.sum", "nsecond", "1")),
            "");  // the same value twice (two sections list it) is fine
  std::string other_grid = row("0", "k", "sm__cycles_active.sum", "cycle", "1");
  other_grid.replace(other_grid.find("(264, 1, 1)"), 11, "(132, 1, 1)");
  expect_refused(head + row("0", "k", "gpu__time_duration.sum", "ns", "1") + other_grid, "3", "column \"Grid Size\"",
                 "rows of one launch disagree");
  std::string other_cc = row("0", "k", "sm__cycles_active.sum", "cycle", "1");
  other_cc.replace(other_cc.find("\"9.0\""), 5, "\"8.0\"");
  expect_refused(head + row("0", "k", "gpu__time_duration.sum", "ns", "1") + other_cc, "3", "column \"CC\"",
                 "rows of one launch disagree");
}

// ncu may end its header with two empty columns: it was refused as a repeated column "".
TEST(NcuCsvHeader, HeaderEndingInTwoEmptyColumnsIsRead) {
  std::string head(kHeader);
  head.insert(head.size() - 1, ",,");
  std::string body = row("0", "k", "gpu__time_duration.sum", "ns", "10");
  std::string padded = body;
  padded.insert(padded.size() - 1, ",,");
  for (const std::string& r : {body, padded}) {
    const auto p = an::parse_ncu_csv(head + r, "app.csv");
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(*p[0].counter("gpu__time_duration.sum"), 10.0);
  }
}

// A raw page (`ncu --import R --csv --page raw --print-units base`): one row per launch, a column
// per metric and their units on the line after the header. It reads as the long form of the same
// launches does; text columns and metrics atomq does not read are passed over.
TEST(NcuCsv, ARawPageReadsAsTheLongFormOfTheSameLaunches) {
  const std::string raw =
      "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
      "\"device__attribute_display_name\",\"gpu__time_duration.sum\",\"smsp__inst_executed_op_shared_atom.sum\","
      "\"dram__bytes_read.sum\",\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"launch__func_cache_config\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"inst\",\"Kbyte\",\"%\",\"\"\n"
      "\"0\",\"77\",\"k1(int*)\",\"(256, 1, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"NVIDIA H200\",\"2.5\",\"135,168\","
      "\"3.07\",\"n/a\",\"CachePreferNone\"\n"
      "\"1\",\"77\",\"k2()\",\"(256, 1, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"NVIDIA H200\",\"1\",\"0\",\"0\",\"24.5\","
      "\"CachePreferNone\"\n";
  const std::string text = std::string(kHeader) +
                           row("0", "k1(int*)", "smsp__inst_executed_op_shared_atom.sum", "inst", "135,168") +
                           row("0", "k1(int*)", "gpu__time_duration.sum", "usecond", "2.5") +
                           row("0", "k1(int*)", "dram__bytes_read.sum", "Kbyte", "3.07") +
                           row("1", "k2()", "smsp__inst_executed_op_shared_atom.sum", "inst", "0") +
                           row("1", "k2()", "gpu__time_duration.sum", "usecond", "1") +
                           row("1", "k2()", "dram__bytes_read.sum", "Kbyte", "0") +
                           row("1", "k2()", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "24.5");
  const auto wide = an::parse_ncu_csv(raw, "raw.csv");
  const auto longform = an::parse_ncu_csv(text, "app.csv");
  ASSERT_EQ(wide.size(), 2u);
  ASSERT_EQ(longform.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(wide[i].kernel_name, longform[i].kernel_name);
    EXPECT_EQ(wide[i].launch.grid, longform[i].launch.grid);
    EXPECT_EQ(wide[i].launch.block, longform[i].launch.block);
    EXPECT_EQ(wide[i].counters, longform[i].counters) << "launch " << i;
  }
  EXPECT_DOUBLE_EQ(wide[0].counters.at("dram__bytes_read.sum"), 3070.0);
  EXPECT_EQ(wide[0].counters.count("sm__warps_active.avg.pct_of_peak_sustained_active"), 0u);  // n/a
}

// A raw page without its units line, or with a bad number in a metric atomq reads, is refused
// naming the line and the metric.
TEST(NcuCsv, ARawPageWithoutUnitsOrWithABadValueIsRefused) {
  const std::string header =
      "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"CC\",\"gpu__time_duration.sum\"\n";
  EXPECT_NE(error_of(header).find("units line"), std::string::npos) << error_of(header);
  const std::string bad = header + "\"\",\"\",\"\",\"\",\"\",\"usecond\"\n" +
                          "\"0\",\"k()\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"9.0\",\"fast\"\n";
  const std::string e = error_of(bad);
  EXPECT_NE(e.find("app.csv:3"), std::string::npos) << e;
  EXPECT_NE(e.find("gpu__time_duration.sum"), std::string::npos) << e;
}

// A details page (`ncu --import R --csv --page details`), as ncu 2025.3 writes it: the header ends
// with five rule columns, a metric row stops after "Metric Value" (and a trailing comma), a rule
// row leaves the metric columns empty; rows named by a section's label carry their own base units
// and text values. Metrics named by their names (--print-metric-name name) are read.
TEST(NcuCsv, ADetailsPageWithRuleRowsAndLabelledRowsIsRead) {
  const std::string header =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule "
      "Name\",\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n";
  const std::string launch = "\"0\",\"493\",\"app\",\"host\",\"k(unsigned int *)\",\"1\",\"7\",\"(256, 1, 1)\","
                             "\"(264, 1, 1)\",\"0\",\"9.0\",";
  auto metric_row = [&](const std::string& name, const std::string& unit, const std::string& value) {
    return launch + "\"AtomicQueue\",\"" + name + "\",\"" + unit + "\",\"" + value + "\",\n";
  };
  const std::string text =
      header + metric_row("SM Frequency", "hz", "1,497,026,139.53") +
      metric_row("Cluster Scheduling Policy", "", "PolicySpread") +
      metric_row("gpu__time_duration.sum", "ns", "2,500") +
      metric_row("smsp__inst_executed_op_shared_atom.sum", "inst", "135,168") +
      launch + "\"SpeedOfLight\",\"\",\"\",\"\",\"SOLBottleneck\",\"INF\",\"This workload is utilizing ...\",\"\",\"\"\n";
  const auto profiles = an::parse_ncu_csv(text, "details.csv");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_DOUBLE_EQ(*profiles[0].counter("gpu__time_duration.sum"), 2500.0);
  EXPECT_DOUBLE_EQ(*profiles[0].counter("smsp__inst_executed_op_shared_atom.sum"), 135168.0);
  // A metric row cut before its value is still a truncated file.
  EXPECT_NE(error_of(header + launch + "\"AtomicQueue\",\"gpu__time_duration.sum\"\n").find("app.csv:2:"),
            std::string::npos);
}
