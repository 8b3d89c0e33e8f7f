// The enum names in docs/schemas/common.schema.json are the C++ name tables (enum_names.hpp):
// same names, same order, none missing. A renamed or added enum value fails here.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "atomq/common/global_atomic.hpp"
#include "atomq/common/shared_atomic.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/atomic_sites.hpp"
#include "atomq/model/inputs.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/l2_queue.hpp"
#include "atomq/model/utilization_class.hpp"
#include "schema_test_util.hpp"

namespace atomq::schema::test {
namespace {

using nlohmann::json;

template <typename E>
std::vector<std::string> names() {
  std::vector<std::string> out;
  for (E v : enum_values<E>()) out.push_back(enum_name(v));
  return out;
}

// Every pattern the table reader accepts, in the order of the calibration grid's axis.
std::vector<std::string> pattern_names() {
  std::vector<std::string> out = {to_string(kDistinct)};
  for (int k = 2; k <= 32; ++k)
    if (valid_pattern(Pattern{k})) out.push_back(to_string(Pattern{k}));
  out.push_back(to_string(kSameAddress));
  return out;
}

std::map<std::string, std::vector<std::string>> cpp_tables() {
  using namespace atomq::model;
  return {{"op_variant", names<OpVariant>()},
          {"latency_op", names<LatencyOp>()},
          {"global_atomic_op", names<GlobalAtomicOp>()},
          {"address_spread", names<AddressSpread>()},
          {"pattern", pattern_names()},
          {"utilization_class", names<UtilizationClass>()},
          {"binding_unit", names<BindingUnit>()},
          {"origin", names<Origin>()},
          {"finding_kind", names<FindingKind>()},
          {"what_if_id", names<WhatIfId>()},
          {"counter_source", names<CounterSource>()},
          {"site_unit", names<SiteUnit>()},
          {"atomic_path", names<AtomicPath>()},
          {"instruction_basis", names<InstructionBasis>()},
          {"l2_service_basis", names<L2ServiceBasis>()},
          {"l2_utilization_basis", names<L2UtilizationBasis>()}};
}

TEST(SchemaEnums, CommonDefinitionsMatchTheCppTables) {
  const json common = load_json_file(schema_path("common"));
  const auto tables = cpp_tables();
  std::map<std::string, std::vector<std::string>> in_schema;
  for (const auto& [name, definition] : common.at("definitions").items())
    if (definition.contains("enum")) in_schema[name] = definition["enum"].get<std::vector<std::string>>();
  for (const auto& [name, values] : tables) {
    ASSERT_TRUE(in_schema.count(name)) << "common.schema.json lacks the enum '" << name << "'";
    EXPECT_EQ(in_schema[name], values) << "definitions/" << name;
  }
  for (const auto& [name, values] : in_schema)
    EXPECT_TRUE(tables.count(name)) << "definitions/" << name << " has no C++ table in this test";
}

}  // namespace
}  // namespace atomq::schema::test
