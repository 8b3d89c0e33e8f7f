// Regression tests for the failures found by fuzzing the readers (tests/fuzz) and by reading
// them for what a fuzzer looks for (docs/reliability.md lists which was which): each input is
// the smallest form of one class of failure, named after the class.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "atomq/analyzer/ncu_csv.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/run_document/run_document.hpp"

namespace atomq {
namespace {

using nlohmann::json;

const char* kCsvHeader =
    "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"CC\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string csv_row(const std::string& id, const std::string& kernel, const std::string& metric,
                    const std::string& unit, const std::string& value) {
  return "\"" + id + "\",\"" + kernel + "\",\"(256, 1, 1)\",\"(264, 1, 1)\",\"9.0\",\"" + metric + "\",\"" + unit +
         "\",\"" + value + "\"\n";
}

std::string csv_error(const std::string& text) {
  try {
    analyzer::parse_ncu_csv(text, "app.csv");
  } catch (const analyzer::NcuCsvError& e) {
    return e.what();
  }
  return "";
}

json recorded_profile() {
  std::ifstream in(std::string(ATOMQ_MODEL_FIXTURE_DIR) + "/multi_kernel_app-popc_distinct.json");
  return json::parse(in)["profile"];
}

json bundled_table() {
  std::ifstream in(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  return json::parse(in);
}

template <typename Error, typename Parse>
std::string error_of(Parse parse) {
  try {
    parse();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A name that is not UTF-8 would be written with U+FFFD and read back as another kernel.
TEST(NcuCsvFuzzRegression, NonUtf8TextIsRefusedNamingTheColumn) {
  const std::string good = csv_row("0", "k", "gpu__time_duration.sum", "ns", "10");
  EXPECT_EQ(csv_error(kCsvHeader + good), "");
  EXPECT_NE(csv_error(kCsvHeader + csv_row("0", "k\xff", "gpu__time_duration.sum", "ns", "10"))
                .find("app.csv:2: column \"Kernel Name\" is not valid UTF-8"),
            std::string::npos);
  EXPECT_NE(csv_error(kCsvHeader + csv_row("0\xc0\xaf", "k", "gpu__time_duration.sum", "ns", "10"))
                .find("column \"ID\" is not valid UTF-8"),
            std::string::npos);
  EXPECT_NE(csv_error(kCsvHeader + good + csv_row("0", "k", "x\xed\xa0\x80.sum", "", "1"))
                .find("app.csv:3: column \"Metric Name\""),
            std::string::npos);
  // Valid multi-byte UTF-8 is read as it is.
  const auto profiles = analyzer::parse_ncu_csv(kCsvHeader + csv_row("0", "k\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
                                                                     "gpu__time_duration.sum", "ns", "10"), "app.csv");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].kernel_name, "k\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(NcuCsvFuzzRegression, MetricWithoutRollupFillsOnlyLaunchFields) {
  const std::string text = std::string(kCsvHeader) + csv_row("0", "k", "gpu__time_duration.sum", "ns", "10") +
                           csv_row("0", "k", "launch__registers_per_thread", "register/thread", "32") +
                           csv_row("0", "k", "launch__occupancy_limit_blocks", "block", "8") +
                           csv_row("0", "k", "device__attribute_multiprocessor_count", "", "132") +
                           csv_row("0", "k", "launch__waves_per_multiprocessor", "", "0.25");
  const auto profiles = analyzer::parse_ncu_csv(text, "app.csv");  // was refused: "needs its rollup"
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].launch.registers_per_thread, 32);
  EXPECT_EQ(profiles[0].launch.max_active_blocks_per_sm, 8);
  EXPECT_EQ(profiles[0].device.sm_count, 132);
  EXPECT_EQ(profiles[0].counters.size(), 1u);
  EXPECT_TRUE(profiles[0].counter("gpu__time_duration.sum"));
}

// nlohmann reads 2^64 - 1 as an unsigned number, and get<long long> wrapped it to -1.
TEST(FuzzRegression, IntegerBeyondInt64IsOutOfRangeNotWrapped) {
  json run = {{"format", "atomq.analysis_run"}, {"version", 1}, {"kernels", json::array()}};
  run["program_exit_code"] = 18446744073709551615ULL;
  const std::string e = error_of<run::RunDocumentError>([&] { run::parse_run_document(run.dump(), "r.json"); });
  EXPECT_NE(e.find("r.json: field 'program_exit_code': must be in -2147483648..2147483647"), std::string::npos) << e;
  json profile = recorded_profile();
  profile["kernel"]["launch"]["shared_mem_bytes_per_block"] = 9223372036854775808ULL;
  const std::string p = error_of<model::ProfileError>([&] { model::parse_kernel_profile(profile.dump(), "p.json"); });
  EXPECT_NE(p.find("field 'kernel.launch.shared_mem_bytes_per_block': must be"), std::string::npos) << p;
}

// An exit status beyond int was narrowed: 4294967297 was read as 1.
TEST(FuzzRegression, RunDocumentExitCodeBeyondIntIsRefused) {
  json run = {{"format", "atomq.analysis_run"}, {"version", 1}, {"kernels", json::array()}};
  for (long long code : {4294967297LL, -2147483649LL}) {
    run["program_exit_code"] = code;
    EXPECT_THROW(run::parse_run_document(run.dump(), "r.json"), run::RunDocumentError) << code;
  }
  run["program_exit_code"] = -2147483647 - 1;
  EXPECT_EQ(run::parse_run_document(run.dump(), "r.json").info.program_exit_code, -2147483647 - 1);
}

// "13.123" was read as the API number 14230 and written back as "14.23".
TEST(FuzzRegression, TableCudaVersionWithLongMinorIsRefused) {
  json table = bundled_table();
  table["provenance"]["driver_version"] = "13.123";
  const std::string e = error_of<calibration::TableError>([&] { calibration::parse_service_table(table.dump(), "t.json"); });
  EXPECT_NE(e.find("field 'provenance.driver_version': expected 'major.minor' (minor below 100)"), std::string::npos) << e;
  table["provenance"]["driver_version"] = "2147483.0";  // major x 1000 overflowed int
  EXPECT_THROW(calibration::parse_service_table(table.dump(), "t.json"), calibration::TableError);
}

// A deeply nested value in a field the error message used to print whole (recursively).
TEST(FuzzRegression, DeeplyNestedValueIsNamedNotPrinted) {
  json table = bundled_table();
  const int depth = 200000;
  std::string nested = std::string(depth, '[') + std::string(depth, ']');
  std::string text = table.dump();
  const std::string pattern = "\"pattern\":\"distinct\"";
  text.replace(text.find(pattern), pattern.size(), "\"pattern\":" + nested);
  const std::string e = error_of<calibration::TableError>([&] { calibration::parse_service_table(text, "t.json"); });
  EXPECT_NE(e.find("unknown address pattern (a array)"), std::string::npos) << e.substr(0, 300);
}

TEST(FuzzRegression, Utf8CheckerAgreesWithTheJsonLibrary) {
  for (const std::string s : {"", "abc", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_TRUE(is_valid_utf8(s)) << s;
    EXPECT_NO_THROW(json::parse("\"" + s + "\""));
  }
  for (const std::string s : {"\xff", "\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                              "\xf5\x80\x80\x80", "a\xe2\x82", "\x80"}) {
    EXPECT_FALSE(is_valid_utf8(s)) << s;
    EXPECT_THROW(json::parse("\"" + s + "\""), json::parse_error);
  }
}

}  // namespace
}  // namespace atomq
