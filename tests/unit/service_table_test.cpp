#include "atomq/calibration/service_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>

#include "table_fixture.hpp"

namespace cal = atomq::calibration;
using nlohmann::json;

namespace {

std::string error_of(const std::string& text) {
  try {
    cal::parse_service_table(text, "bad.json");
  } catch (const cal::TableError& e) {
    return e.what();
  }
  return "";
}

json small_json() { return json::parse(cal::serialize_service_table(atomq::test::make_small_table())); }

}  // namespace

TEST(ServiceTable, RoundTripKeepsEveryField) {
  const cal::ServiceTable t = atomq::test::make_small_table();
  const cal::ServiceTable back = cal::parse_service_table(cal::serialize_service_table(t), "mem");
  ASSERT_EQ(back.cells.size(), t.cells.size());
  ASSERT_EQ(back.controls.size(), t.controls.size());
  EXPECT_EQ(back.provenance.device.name, "Test GPU");
  EXPECT_EQ(back.provenance.device.chip, "GH100");
  EXPECT_EQ(back.provenance.device.compute_capability_major, 9);
  EXPECT_EQ(back.axes.patterns.size(), 3u);
  for (size_t i = 0; i < t.cells.size(); ++i) {
    EXPECT_EQ(back.cells[i].n, t.cells[i].n);
    EXPECT_EQ(back.cells[i].pattern, t.cells[i].pattern);
    EXPECT_DOUBLE_EQ(back.cells[i].s, t.cells[i].s);
  }
  const cal::Cell* c = back.find(64, 32, 1.0, cal::OpVariant::kAdd, cal::Pattern{32});
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->s, 64.0);
  EXPECT_EQ(back.find(63, 32, 1.0, cal::OpVariant::kAdd, cal::Pattern{32}), nullptr);
}

TEST(ServiceTable, PatternNames) {
  EXPECT_EQ(cal::to_string(cal::Pattern{0}), "same");
  EXPECT_EQ(cal::to_string(cal::Pattern{1}), "distinct");
  EXPECT_EQ(cal::to_string(cal::Pattern{8}), "conflict8");
  EXPECT_EQ(cal::pattern_from_string("conflict16")->conflict_degree, 16);
  EXPECT_FALSE(cal::pattern_from_string("conflict3").has_value());
  EXPECT_FALSE(cal::pattern_from_string("conflict").has_value());
  EXPECT_FALSE(cal::pattern_from_string("conflict64").has_value());
}

TEST(ServiceTable, TruncatedFileNamesTheFile) {
  const std::string text = cal::serialize_service_table(atomq::test::make_small_table());
  const std::string err = error_of(text.substr(0, text.size() / 2));
  EXPECT_NE(err.find("bad.json"), std::string::npos) << err;
  EXPECT_NE(err.find("not valid JSON"), std::string::npos) << err;
}

TEST(ServiceTable, WrongVersionIsRejected) {
  json j = small_json();
  j["version"] = 99;
  const std::string err = error_of(j.dump());
  EXPECT_NE(err.find("'version'"), std::string::npos) << err;
  EXPECT_NE(err.find("unsupported version 99"), std::string::npos) << err;
}

TEST(ServiceTable, WrongFormatIsRejected) {
  json j = small_json();
  j["format"] = "something.else";
  EXPECT_NE(error_of(j.dump()).find("'format'"), std::string::npos);
}

TEST(ServiceTable, MissingFieldIsNamed) {
  json j = small_json();
  j["cells"][3].erase("s");
  const std::string err = error_of(j.dump());
  EXPECT_NE(err.find("'cells[3].s': missing"), std::string::npos) << err;
  j = small_json();
  j["provenance"].erase("chip");
  EXPECT_NE(error_of(j.dump()).find("'provenance.chip': missing"), std::string::npos);
}

TEST(ServiceTable, WrongTypesAndValuesAreNamed) {
  json j = small_json();
  j["cells"][0]["s"] = "fast";
  EXPECT_NE(error_of(j.dump()).find("'cells[0].s': expected a number"), std::string::npos);
  j = small_json();
  j["cells"][1]["s"] = -2.0;
  EXPECT_NE(error_of(j.dump()).find("'cells[1].s'"), std::string::npos);
  j = small_json();
  j["cells"][2]["pattern"] = "conflict7";
  EXPECT_NE(error_of(j.dump()).find("'cells[2].pattern': unknown address pattern"), std::string::npos);
  j = small_json();
  j["cells"][2]["n"] = 7;
  EXPECT_NE(error_of(j.dump()).find("'cells[2].n': value 7 is not on axes.n"), std::string::npos);
  j = small_json();
  j["axes"]["e"] = json::array({32, 1});
  EXPECT_NE(error_of(j.dump()).find("'axes.e[1]'"), std::string::npos);
  j = small_json();
  j["provenance"]["compute_capability"] = "nine";
  EXPECT_NE(error_of(j.dump()).find("'provenance.compute_capability'"), std::string::npos);
}

// Values no GPU can measure pass the "finite, positive" checks but not the physical ranges:
// each is refused naming the field.
TEST(ServiceTable, PhysicallyImpossibleValuesAreRefusedNamingTheField) {
  const auto error_with = [](const std::function<void(json&)>& edit) {
    json j = small_json();
    edit(j);
    return error_of(j.dump());
  };
  const auto s_set = [](double v) {
    return [v](json& j) {
      j["cells"][0]["s"] = v;
      j["cells"][0]["s_min"] = v;
      j["cells"][0]["s_max"] = v;
    };
  };
  EXPECT_NE(error_with(s_set(1e-300)).find("'cells[0].s': 1e-300 cycles is physically impossible"), std::string::npos)
      << error_with(s_set(1e-300));
  EXPECT_NE(error_with(s_set(1e300)).find("'cells[0].s': 1e+300 cycles is physically impossible"), std::string::npos);
  for (const char* clock : {"sm_clock_mhz_start", "sm_clock_mhz_end"}) {
    const std::string zero = error_with([clock](json& j) { j["provenance"][clock] = 0; });
    EXPECT_NE(zero.find(std::string("'provenance.") + clock + "': must be positive"), std::string::npos) << zero;
    const std::string huge = error_with([clock](json& j) { j["provenance"][clock] = 1e9; });
    EXPECT_NE(huge.find(std::string("'provenance.") + clock + "': 1e+09 MHz is physically impossible"),
              std::string::npos) << huge;
  }
  EXPECT_EQ(error_with(s_set(1.0)), "");  // the fastest measured cell's time
}

TEST(ServiceTable, IncompleteOrDuplicateGridIsRejected) {
  json j = small_json();
  j["cells"].erase(j["cells"].size() - 1);
  EXPECT_NE(error_of(j.dump()).find("grid incomplete"), std::string::npos);
  j = small_json();
  j["cells"][1] = j["cells"][0];
  EXPECT_NE(error_of(j.dump()).find("'cells[1]': duplicate grid cell"), std::string::npos);
}

TEST(ServiceTable, LatencyCellsAreValidated) {
  const cal::ServiceTable back =
      cal::parse_service_table(cal::serialize_service_table(atomq::test::make_small_table()), "mem");
  ASSERT_NE(back.find_latency(cal::LatencyOp::kCas, cal::Pattern{0}, 32), nullptr);
  EXPECT_DOUBLE_EQ(back.find_latency(cal::LatencyOp::kCas, cal::Pattern{0}, 32)->cycles, 60.0);
  EXPECT_EQ(back.find_latency(cal::LatencyOp::kCas, cal::Pattern{0}, 7), nullptr);
  json j = small_json();
  j["latencies"][2]["op"] = "xor";
  EXPECT_NE(error_of(j.dump()).find("'latencies[2].op'"), std::string::npos);
  j = small_json();
  j["latencies"][0]["cycles"] = 0;
  EXPECT_NE(error_of(j.dump()).find("'latencies[0].cycles'"), std::string::npos);
  j = small_json();
  j.erase("latencies");
  EXPECT_NE(error_of(j.dump()).find("'latencies': missing"), std::string::npos);
}

TEST(ServiceTable, NotAnObjectOrEmpty) {
  EXPECT_NE(error_of("[]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of("").find("not valid JSON"), std::string::npos);
}

TEST(ServiceTable, LoadMissingFileNamesIt) {
  try {
    cal::load_service_table("/nonexistent/dir/t.json");
    FAIL() << "expected TableError";
  } catch (const cal::TableError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/t.json"), std::string::npos);
  }
}

TEST(ServiceTable, SaveIsAtomicAndLeavesNoTempFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("atomq_table_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.json").string();
  {
    std::ofstream old(path);
    old << "previous content";
  }
  cal::save_service_table(atomq::test::make_small_table(), path);
  const cal::ServiceTable back = cal::load_service_table(path);
  EXPECT_EQ(back.cells.size(), atomq::test::make_small_table().cells.size());
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);  // no leftover temp file

  // A table that would not load is never written: the old file stays untouched.
  cal::ServiceTable bad = atomq::test::make_small_table();
  bad.cells.pop_back();
  EXPECT_THROW(cal::save_service_table(bad, path), cal::TableError);
  EXPECT_EQ(cal::load_service_table(path).cells.size(), back.cells.size());
  std::filesystem::remove_all(dir);
}

TEST(ServiceTable, CsvHasOneRowPerCell) {
  const cal::ServiceTable t = atomq::test::make_small_table();
  const std::string csv = cal::service_table_csv(t);
  size_t lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, t.cells.size() + 1);
  EXPECT_EQ(csv.rfind("n,e,c,variant,pattern,s,", 0), 0u);
}

TEST(ServiceTable, BundledTablesLoad) {
  const std::filesystem::path dir(ATOMQ_BUNDLED_TABLE_DIR);
  size_t count = 0;
  if (std::filesystem::exists(dir))
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".json") {
        const cal::ServiceTable t = cal::load_service_table(entry.path().string());
        // CHIP.json, or CHIP.<board>.json (the file name of a board's table: TableSelection's test).
        const std::string stem = entry.path().stem().string();
        EXPECT_TRUE(stem == t.provenance.device.chip || stem.rfind(t.provenance.device.chip + ".", 0) == 0) << stem;
        EXPECT_EQ(t.provenance.grid_name, "full");
        ++count;
      }
  EXPECT_GE(count, 1u) << "the bundled tables are part of the tree: " << dir;
}

// The bundled table survives the reader and the writer unchanged, byte for byte: the typed
// provenance (atomq::DeviceInfo inside) loses nothing the file holds.
TEST(ServiceTable, BundledTableRoundTripsByteForByte) {
  const std::string path = std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(cal::serialize_service_table(cal::parse_service_table(text, path)), text);
}

TEST(ServiceTable, L2SectionRoundTrips) {
  const cal::ServiceTable t = atomq::test::make_small_table();
  const cal::ServiceTable back = cal::parse_service_table(cal::serialize_service_table(t), "mem");
  EXPECT_EQ(back.version, 2);
  EXPECT_EQ(back.l2.slices, t.l2.slices);
  EXPECT_DOUBLE_EQ(back.l2.l2_clock_mhz, t.l2.l2_clock_mhz);
  EXPECT_EQ(back.l2.ops, t.l2.ops);
  EXPECT_EQ(back.l2.spreads, t.l2.spreads);
  EXPECT_EQ(back.l2.warps_per_sm, t.l2.warps_per_sm);
  ASSERT_EQ(back.l2.cells.size(), t.l2.cells.size());
  for (size_t i = 0; i < t.l2.cells.size(); ++i) {
    const cal::L2Cell& a = t.l2.cells[i];
    const cal::L2Cell& b = back.l2.cells[i];
    EXPECT_EQ(b.op, a.op);
    EXPECT_EQ(b.spread, a.spread);
    EXPECT_EQ(b.warps_per_sm, a.warps_per_sm);
    EXPECT_EQ(b.addresses, a.addresses);
    EXPECT_DOUBLE_EQ(b.requests_per_instruction, a.requests_per_instruction);
    EXPECT_DOUBLE_EQ(b.hottest_slice_share, a.hottest_slice_share);
    EXPECT_DOUBLE_EQ(b.cycles_per_request, a.cycles_per_request);
    EXPECT_DOUBLE_EQ(b.cycles_min, a.cycles_min);
    EXPECT_DOUBLE_EQ(b.cycles_max, a.cycles_max);
    EXPECT_DOUBLE_EQ(b.repeat_spread, a.repeat_spread);
    EXPECT_DOUBLE_EQ(b.busy_fraction, a.busy_fraction);
    EXPECT_DOUBLE_EQ(b.gpu_requests_per_cycle, a.gpu_requests_per_cycle);
  }
}

TEST(ServiceTable, WordLaneCellsRoundTripApartFromTheLawCells) {
  cal::ServiceTable t = atomq::test::make_small_table();
  cal::L2Cell c = t.l2.cells.front();
  c.hot_addresses = 65536;
  c.packed = true;
  c.duration_ns = 1e5;
  c.requests = 1e7;
  c.requests_in_flight = 270336;
  c.lanes_per_word = 8;
  t.l2.word_lane_cells.push_back(c);
  const cal::ServiceTable back = cal::parse_service_table(cal::serialize_service_table(t), "mem");
  ASSERT_EQ(back.l2.word_lane_cells.size(), 1u);
  EXPECT_EQ(back.l2.word_lane_cells[0].lanes_per_word, 8);
  EXPECT_EQ(back.l2.word_lane_cells[0].hot_addresses, 65536);
  EXPECT_EQ(back.l2.law_cells.size(), t.l2.law_cells.size());
  json j = json::parse(cal::serialize_service_table(t));
  j["l2"]["word_lane_cells"][0]["lanes_per_word"] = 3;  // 32 lanes do not split into threes
  EXPECT_NE(error_of(j.dump()).find("'l2.word_lane_cells[0].lanes_per_word': does not divide active_lanes"),
            std::string::npos);
}

TEST(ServiceTable, L2LookupsFindTheCellAndTheSaturatedOne) {
  const cal::L2Section l2 = atomq::test::make_synthetic_l2_section();
  const cal::L2Cell* c = l2.find(atomq::GlobalAtomicOp::kRedAddF32, atomq::AddressSpread::kOneAddress, 4);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->warps_per_sm, 4);
  EXPECT_EQ(l2.find(atomq::GlobalAtomicOp::kRedAddF32, atomq::AddressSpread::kOneAddress, 5), nullptr);
  const cal::L2Cell* s = l2.saturated(atomq::GlobalAtomicOp::kAtomCasU64, atomq::AddressSpread::kManyLines);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->warps_per_sm, 64);
  EXPECT_EQ(s->op, atomq::GlobalAtomicOp::kAtomCasU64);
  EXPECT_EQ(s->spread, atomq::AddressSpread::kManyLines);
  EXPECT_EQ(cal::L2Section{}.saturated(atomq::GlobalAtomicOp::kRedAddU32, atomq::AddressSpread::kDistinct),
            nullptr);
}

TEST(ServiceTable, VersionOneIsRefusedWithOneClearMessage) {
  json j = small_json();
  j["version"] = 1;
  j.erase("l2");
  const std::string err = error_of(j.dump());
  EXPECT_EQ(err, "bad.json: table version 1 has no L2 section; this atomq reads version 2: run "
                 "`atomq calibrate`");
}

TEST(ServiceTable, MissingOrBadL2FieldIsNamed) {
  json j = small_json();
  j.erase("l2");
  EXPECT_NE(error_of(j.dump()).find("bad.json: field 'l2': missing"), std::string::npos);
  j = small_json();
  j["l2"]["cells"][5].erase("cycles_per_request");
  EXPECT_NE(error_of(j.dump()).find("'l2.cells[5].cycles_per_request': missing"), std::string::npos);
  j = small_json();
  j["l2"]["cells"][0]["cycles_per_request"] = 0.0;
  EXPECT_NE(error_of(j.dump()).find("'l2.cells[0].cycles_per_request': must be positive"),
            std::string::npos);
  j = small_json();
  j["l2"]["cells"][1]["hottest_slice_share"] = 1.5;
  EXPECT_NE(error_of(j.dump()).find("'l2.cells[1].hottest_slice_share'"), std::string::npos);
  j = small_json();
  j["l2"]["cells"][2]["op"] = "red.xor.u32";
  EXPECT_NE(error_of(j.dump()).find("'l2.cells[2].op': expected one of"), std::string::npos);
  j = small_json();
  j["l2"]["cells"][3]["warps_per_sm"] = 8;
  EXPECT_NE(error_of(j.dump()).find("'l2.cells[3].warps_per_sm': value 8 is not on l2.axes.warps_per_sm"),
            std::string::npos);
  j = small_json();
  j["l2"]["cells"][4]["cycles_max"] = j["l2"]["cells"][4]["cycles_per_request"].get<double>() / 2;
  EXPECT_NE(error_of(j.dump()).find("'l2.cells[4].cycles_min'"), std::string::npos);
  j = small_json();
  j["l2"]["l2_clock_mhz"] = -1;
  EXPECT_NE(error_of(j.dump()).find("'l2.l2_clock_mhz': must be positive"), std::string::npos);
  j = small_json();
  j["l2"]["axes"]["spreads"] = json::array({"one_address", "one_address"});
  EXPECT_NE(error_of(j.dump()).find("'l2.axes.spreads[1]': duplicate"), std::string::npos);
}

TEST(ServiceTable, IncompleteL2GridIsRejected) {
  json j = small_json();
  j["l2"]["cells"].erase(j["l2"]["cells"].size() - 1);
  EXPECT_NE(error_of(j.dump()).find("'l2.cells': grid incomplete"), std::string::npos);
  j = small_json();
  j["l2"]["cells"][1] = j["l2"]["cells"][0];
  EXPECT_NE(error_of(j.dump()).find("'l2.cells[1]': duplicate L2 cell"), std::string::npos);
}

TEST(ServiceTable, L2CsvHasOneRowPerL2Cell) {
  const cal::ServiceTable t = atomq::test::make_small_table();
  const std::string csv = cal::service_table_l2_csv(t);
  size_t lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, t.l2.cells.size() + 1);
  EXPECT_EQ(csv.rfind("op,spread,warps_per_sm,addresses,", 0), 0u);
}

// The DSMEM section is optional (tables before the DSMEM sweep lack it), round-trips when present,
// and a bad field is named.
TEST(ServiceTable, DsmemSectionRoundTripsAndBadFieldsAreNamed) {
  cal::ServiceTable t = atomq::test::make_small_table();
  EXPECT_TRUE(cal::parse_service_table(cal::serialize_service_table(t), "mem").dsmem.empty());
  t.dsmem.wall_seconds = 1.5;
  t.dsmem.created_utc = "2026-12-03T23:48:08Z";
  t.dsmem.atomq_commit = "abc";
  t.dsmem.cells = {{cal::DsmemOp::kAtomicAdd, 256, 2, 64, 2.2e6, 2.5, 2.49, 2.52, 0.012, 0.93, 2.0e6},
                   {cal::DsmemOp::kRedAsync, 1, 2, 64, 2.2e6, 9.0, 8.9, 9.1, 0.022, 0.41, 3.0e6}};
  const cal::ServiceTable back = cal::parse_service_table(cal::serialize_service_table(t), "mem");
  ASSERT_EQ(back.dsmem.cells.size(), 2u);
  EXPECT_DOUBLE_EQ(back.dsmem.wall_seconds, 1.5);
  EXPECT_EQ(back.dsmem.created_utc, "2026-12-03T23:48:08Z");
  EXPECT_EQ(back.dsmem.atomq_commit, "abc");
  const cal::DsmemCell& b = back.dsmem.cells[1];
  EXPECT_EQ(b.op, cal::DsmemOp::kRedAsync);
  EXPECT_EQ(b.bins, 1);
  EXPECT_EQ(b.cluster_size, 2);
  EXPECT_EQ(b.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(b.cycles_per_request, 9.0);
  EXPECT_DOUBLE_EQ(b.busy_fraction, 0.41);
  EXPECT_DOUBLE_EQ(b.repeat_spread, 0.022);
  EXPECT_EQ(back.dsmem.fastest(cal::DsmemOp::kAtomicAdd), &back.dsmem.cells[0]);
  EXPECT_DOUBLE_EQ(back.dsmem.saturated_busy_fraction(cal::DsmemOp::kRedAsync), 0.41);
  json j = json::parse(cal::serialize_service_table(t));
  j["dsmem"]["cells"][1].erase("busy_fraction");
  EXPECT_NE(error_of(j.dump()).find("'dsmem.cells[1].busy_fraction': missing"), std::string::npos);
  j = json::parse(cal::serialize_service_table(t));
  j["dsmem"]["cells"][0]["op"] = "atomic_xor";
  EXPECT_NE(error_of(j.dump()).find("dsmem.cells[0].op"), std::string::npos);
  j = json::parse(cal::serialize_service_table(t));
  j["dsmem"]["cells"][0]["cycles_per_request"] = 3.0;  // above cycles_max
  EXPECT_NE(error_of(j.dump()).find("outside [cycles_min, cycles_max]"), std::string::npos);
}

// The bundled GH100 table's DSMEM section (a live calibration on the H200): both ops, conflict-free
// and one word, every saturated cell within the 2% repeat-spread goal, a conflict-free request
// cheaper than a one-word one, and the path's busy counter below 100% when saturated (why the
// model reads it against its saturated value: docs/model.md, "The DSMEM path").
TEST(ServiceTable, BundledDsmemSectionMeetsTheSpreadGoal) {
  const cal::ServiceTable t = cal::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  ASSERT_FALSE(t.dsmem.empty());
  EXPECT_FALSE(t.dsmem.created_utc.empty());
  for (const cal::DsmemOp op : {cal::DsmemOp::kAtomicAdd, cal::DsmemOp::kRedAsync}) {
    const cal::DsmemCell* fast = t.dsmem.fastest(op);
    ASSERT_NE(fast, nullptr) << atomq::enum_name(op);
    EXPECT_GE(fast->bins, 32) << "the cheapest cell is the conflict-free one";
    EXPECT_GT(t.dsmem.saturated_busy_fraction(op), 0.0);
    EXPECT_LT(t.dsmem.saturated_busy_fraction(op), 1.0);
  }
  for (const cal::DsmemCell& c : t.dsmem.cells) EXPECT_LE(c.repeat_spread, 0.02) << atomq::enum_name(c.op) << " " << c.bins;
}
