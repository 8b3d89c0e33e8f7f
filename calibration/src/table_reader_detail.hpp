// What the service table's reader files share: the field reader and the optional sections'
// readers (service_table_sections_reader.cpp). Private to the table library.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/common/json_fields.hpp"

namespace atomq::calibration::detail {

using Fields = JsonFields<TableError>;

// A positive finite number; a positive int.
double positive(const Fields& r, const nlohmann::json& j, const std::string& path, const char* key);
int positive_int(const Fields& r, const nlohmann::json& j, const std::string& path, const char* key);

DsmemSection read_dsmem_section(const Fields& r, const nlohmann::json& doc);
LoadSection read_load_section(const Fields& r, const nlohmann::json& doc);
SharedSpinSection read_shared_spin_section(const Fields& r, const nlohmann::json& doc);
LaunchSection read_launch_section(const Fields& r, const nlohmann::json& doc);

}  // namespace atomq::calibration::detail
