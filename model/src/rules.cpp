#include "atomq/model/rules.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "atomq/common/json_fields.hpp"

namespace atomq::model {

namespace {

// Name -> member: the one list used by the reader and the writer.
const std::map<std::string, double Rules::*>& rule_fields() {
  static const std::map<std::string, double Rules::*> fields = {
      {"severe_utilization", &Rules::severe_utilization},
      {"potential_utilization", &Rules::potential_utilization},
      {"l2_potential_utilization", &Rules::l2_potential_utilization},
      {"atomic_bound_gain", &Rules::atomic_bound_gain},
      {"high_conflict_utilization", &Rules::high_conflict_utilization},
      {"high_conflict_min_k", &Rules::high_conflict_min_k},
      {"replication_factor", &Rules::replication_factor},
      {"low_conflict_utilization", &Rules::low_conflict_utilization},
      {"low_conflict_max_e", &Rules::low_conflict_max_e},
      {"low_conflict_max_k", &Rules::low_conflict_max_k},
      {"cas_heavy_min_c", &Rules::cas_heavy_min_c},
      {"cas_amplification_warn", &Rules::cas_amplification_warn},
      {"cas_retry_min_attempts", &Rules::cas_retry_min_attempts},
      {"cas_retry_bound_loop_share", &Rules::cas_retry_bound_loop_share},
      {"cas_retry_severe_attempts", &Rules::cas_retry_severe_attempts},
      {"memory_busy_fraction", &Rules::memory_busy_fraction},
      {"memory_u_drop", &Rules::memory_u_drop},
      {"memory_traffic_growth", &Rules::memory_traffic_growth},
      {"l2_hot_address_min_share", &Rules::l2_hot_address_min_share},
      {"l2_rate_tolerance", &Rules::l2_rate_tolerance},
      {"l2_hot_slice_min_concentration", &Rules::l2_hot_slice_min_concentration},
      {"l2_replication_slices", &Rules::l2_replication_slices},
      {"privatized_max_requests_per_block", &Rules::privatized_max_requests_per_block},
      {"l2_busy_cross_check_tolerance", &Rules::l2_busy_cross_check_tolerance},
      {"latency_bound_max_r_over_l", &Rules::latency_bound_max_r_over_l},
      {"overlap_saturation_tolerance", &Rules::overlap_saturation_tolerance},
      {"imbalance_ratio", &Rules::imbalance_ratio},
      {"counter_sum_tolerance", &Rules::counter_sum_tolerance},
      {"wavefront_tolerance", &Rules::wavefront_tolerance},
  };
  return fields;
}

}  // namespace

const Rules& default_rules() {
  static const Rules rules;
  return rules;
}

namespace {
struct RulesError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace

std::string apply_rules_json(const std::string& json_text, Rules& rules) {
  const JsonFields<RulesError> r("rules");
  Rules updated = rules;
  try {
    const nlohmann::json doc = r.parse_object(json_text);
    for (const auto& [key, value] : doc.items()) {
      if (key == "terms_off") {
        updated.terms_off = 0;
        for (const auto& name : r.array(value, key, EmptyArray::kAllowed))
          updated.switch_off(r.enumerated<ModelTerm>(name, key));
        continue;
      }
      auto it = rule_fields().find(key);
      if (it == rule_fields().end()) r.fail(key, "unknown rule");
      updated.*(it->second) = r.number(value, key, 0);
    }
    if (updated.potential_utilization > updated.severe_utilization)
      r.fail("potential_utilization", "must not exceed 'severe_utilization'");
    if (updated.l2_potential_utilization > updated.severe_utilization)
      r.fail("l2_potential_utilization", "must not exceed 'severe_utilization'");
    if (updated.replication_factor < 1) r.fail("replication_factor", "must be >= 1");
    if (updated.atomic_bound_gain < 1) r.fail("atomic_bound_gain", "must be >= 1");
  } catch (const RulesError& e) {
    return e.what();
  }
  rules = updated;
  return {};
}

std::string rules_to_json(const Rules& rules) {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [key, member] : rule_fields()) doc[key] = rules.*member;
  if (rules.terms_off != 0) {
    nlohmann::json off = nlohmann::json::array();
    for (ModelTerm t : enum_values<ModelTerm>())
      if (!rules.uses(t)) off.push_back(enum_name(t));
    doc["terms_off"] = off;
  }
  return json_text(doc, 2) + "\n";
}

}  // namespace atomq::model
