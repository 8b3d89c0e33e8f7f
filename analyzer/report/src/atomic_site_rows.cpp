#include <fmt/format.h>

#include <algorithm>

#include "atomq/report/report.hpp"

namespace atomq::report {

std::vector<std::string> atomic_site_header() {
  return {"SASS", "source", "instruction", "shared busy", "e", "k", "per launch", "note"};
}

std::vector<std::vector<std::string>> atomic_site_rows(const model::KernelAnalysis& a, std::size_t max_rows) {
  std::vector<const model::AtomicSite*> sites;
  for (const auto& s : a.sites) sites.push_back(&s);
  std::stable_sort(sites.begin(), sites.end(), [](auto* x, auto* y) { return x->busy_share > y->busy_share; });
  if (sites.size() > max_rows) sites.resize(max_rows);
  std::vector<std::vector<std::string>> rows;
  for (const model::AtomicSite* s : sites) {
    std::string note;
    if (s->warp_aggregated) note = "warp-aggregated by the compiler";
    if (s->attempts_per_update) note = fmt::format("CAS loop: {:.1f} attempts per update", *s->attempts_per_update);
    if (!model::is_modelled(s->path))
      note = fmt::format("{} path (not modelled){}", atomq::enum_name(s->path), note.empty() ? "" : "; " + note);
    const bool shared = s->unit == model::SiteUnit::kShared;
    const size_t slash = s->source.rfind('/');
    rows.push_back({fmt::format("0x{:04x}", s->offset),
                    s->source.empty() ? "-" : (slash == std::string::npos ? s->source : s->source.substr(slash + 1)),
                    (s->predicate.empty() ? "" : s->predicate + " ") + s->opcode,
                    shared ? fmt::format("{:.1f}%", 100.0 * s->busy_share) : "-",
                    fmt::format("{:.1f}", s->lanes_per_instruction),
                    shared ? fmt::format("{:.1f}", s->wavefronts_per_instruction) : "-",
                    fmt::format("{:.0f}", s->executions_per_launch), note});
  }
  return rows;
}

}  // namespace atomq::report
