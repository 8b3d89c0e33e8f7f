// Where a reader refuses a document, the schema does too: each case breaks one field of a real
// document, and both the reader (kernel_profile.cpp, service_table_reader.cpp) and the schema
// must refuse it. The unbroken documents pass both.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "schema_test_util.hpp"

namespace atomq::schema::test {
namespace {

using nlohmann::json;
using Break = std::pair<std::string, std::function<void(json&)>>;

// A recorded profile with per-instruction counts and hints.
json base_profile() {
  return load_json_file(std::string(ATOMQ_MODEL_FIXTURE_DIR) + "/cas-block_u64-one.json").at("profile");
}

json base_table() { return load_json_file(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json"); }

bool profile_reader_refuses(const json& doc) {
  try {
    model::kernel_profile_from_json(doc, "case");
    return false;
  } catch (const model::ProfileError&) {
    return true;
  }
}

bool table_reader_refuses(const json& doc) {
  try {
    calibration::parse_service_table(doc.dump(), "case");
    return false;
  } catch (const calibration::TableError&) {
    return true;
  }
}

TEST(SchemaReaderParity, BrokenProfilesRefusedByBoth) {
  const std::vector<Break> cases = {
      {"unknown top-level field", [](json& d) { d["extra"] = 1; }},
      {"unknown hint", [](json& d) { d["hints"]["lanes"] = 4; }},
      {"unknown instructions field", [](json& d) { d["instructions"]["extra"] = 1; }},
      {"version 2", [](json& d) { d["version"] = 2; }},
      {"empty kernel name", [](json& d) { d["kernel"]["name"] = ""; }},
      {"grid y above 65535", [](json& d) { d["kernel"]["launch"]["grid"][1] = 65536; }},
      {"block z above 64", [](json& d) { d["kernel"]["launch"]["block"][2] = 65; }},
      {"two grid dimensions", [](json& d) { d["kernel"]["launch"]["grid"].erase(2); }},
      {"registers above 65536", [](json& d) { d["kernel"]["launch"]["registers_per_thread"] = 65537; }},
      {"compute capability without minor", [](json& d) { d["device"]["compute_capability"] = "9"; }},
      {"negative SM clock", [](json& d) { d["device"]["sm_clock_mhz"] = -1.0; }},
      {"unknown source kind", [](json& d) { d["source"]["kind"] = "cupti"; }},
      {"counter without rollup", [](json& d) { d["counters"]["sm__cycles_active"] = 1.0; }},
      {"null counter", [](json& d) { d["counters"]["sm__cycles_active.max"] = nullptr; }},
      {"lane bytes 6", [](json& d) { d["hints"]["shared_atomic_lane_bytes"] = 6; }},
      {"zero useful updates", [](json& d) { d["hints"]["useful_updates"] = 0.0; }},
      {"half a global address", [](json& d) { d["hints"]["global_atomic_addresses"] = 0.5; }},
      {"unknown global op", [](json& d) { d["hints"]["global_atomic_op"] = "red.add.s32"; }},
      {"cas spin as a number", [](json& d) { d["hints"]["shared_cas_spin"] = 1; }},
      {"warp aggregation as a number", [](json& d) { d["hints"]["global_atomic_warp_aggregated"] = 1; }},
      {"exchange as a string", [](json& d) { d["hints"]["global_atomic_exch"] = "yes"; }},
      {"stand-in without its op", [](json& d) {
         d["hints"].erase("global_atomic_op");
         d["hints"]["global_atomic_op_stands_in_for"] = "REDG.E.XOR";
       }},
      {"empty stand-in", [](json& d) {
         d["hints"]["global_atomic_op"] = "red.or.u32";
         d["hints"]["global_atomic_op_stands_in_for"] = "";
       }},
      {"zero launches", [](json& d) { d["instructions"]["launches"] = 0; }},
      {"negative executions", [](json& d) { d["instructions"]["records"][0]["executions"] = -1.0; }},
      {"loop of three", [](json& d) { d["instructions"]["loops"][0].push_back(300); }},
      {"unknown instruction basis", [](json& d) { d["instructions"]["basis"] = "guessed"; }},
      {"negative first launch", [](json& d) { d["instructions"]["first_launch"] = -1; }},
      {"measured counter without rollup", [](json& d) { d["instructions"]["measured_counters"]["lts__t"] = 1.0; }},
      {"negative kernel launch index", [](json& d) { d["kernel"]["symbol_launch"] = -1; }},
  };
  ASSERT_FALSE(profile_reader_refuses(base_profile()));
  ASSERT_TRUE(conforms("kernel_profile", base_profile(), "the base profile"));
  for (const auto& [what, change] : cases) {
    json doc = base_profile();
    change(doc);
    EXPECT_TRUE(profile_reader_refuses(doc)) << what << ": the reader accepts it";
    EXPECT_FALSE(checker("kernel_profile").check(doc).empty()) << what << ": the schema accepts it";
  }
}

TEST(SchemaReaderParity, BrokenTablesRefusedByBoth) {
  const std::vector<Break> cases = {
      {"version 1", [](json& d) { d["version"] = 1; }},
      {"no L2 section", [](json& d) { d.erase("l2"); }},
      {"zero repeats", [](json& d) { d["provenance"]["repeats"] = 0; }},
      {"driver version as a number", [](json& d) { d["provenance"]["driver_version"] = 13.0; }},
      {"empty n axis", [](json& d) { d["axes"]["n"] = json::array(); }},
      {"CAS share above 1", [](json& d) { d["axes"]["c"].push_back(1.5); }},
      {"unknown variant", [](json& d) { d["cells"][0]["variant"] = "cas"; }},
      {"e of 33", [](json& d) { d["cells"][0]["e"] = 33; }},
      {"zero service time", [](json& d) { d["cells"][0]["s"] = 0.0; }},
      {"negative spread", [](json& d) { d["cells"][0]["sm_spread"] = -0.1; }},
      {"no controls", [](json& d) { d["controls"] = json::array(); }},
      {"negative control", [](json& d) { d["controls"][0]["cycles_per_slot"] = -1.0; }},
      {"unknown latency op", [](json& d) { d["latencies"][0]["op"] = "min"; }},
      {"pattern conflict3", [](json& d) { d["latencies"][0]["pattern"] = "conflict3"; }},
      {"zero L2 slices", [](json& d) { d["l2"]["slices"] = 0; }},
      {"unknown L2 spread", [](json& d) { d["l2"]["cells"][0]["spread"] = "two_lines"; }},
      {"hottest share above 1", [](json& d) { d["l2"]["cells"][0]["hottest_slice_share"] = 1.5; }},
      {"negative busy fraction", [](json& d) { d["l2"]["cells"][0]["busy_fraction"] = -0.5; }},
  };
  ASSERT_FALSE(table_reader_refuses(base_table()));
  for (const auto& [what, change] : cases) {
    json doc = base_table();
    change(doc);
    EXPECT_TRUE(table_reader_refuses(doc)) << what << ": the reader accepts it";
    EXPECT_FALSE(checker("service_table").check(doc).empty()) << what << ": the schema accepts it";
  }
}

}  // namespace
}  // namespace atomq::schema::test
