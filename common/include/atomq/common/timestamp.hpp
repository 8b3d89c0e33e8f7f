// Wall-clock timestamps for provenance fields and report headers.
#pragma once

#include <string>

namespace atomq {

std::string utc_now_iso8601();   // "2026-11-30T03:03:00Z"
std::string utc_now_readable();  // "2026-11-30 03:03 UTC"

}  // namespace atomq
