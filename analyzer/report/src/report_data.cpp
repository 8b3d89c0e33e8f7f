// Building the report: evaluate every recorded profile with the current model, pick the
// comparisons, and take the S(n) curves from the table that was used.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "atomq/model/analysis_json.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/report/report.hpp"

namespace atomq::report {

namespace {

std::string strip_template_arguments(const std::string& name) {
  std::string out;
  int depth = 0;
  for (char ch : name) {
    if (ch == '<') ++depth;
    else if (ch == '>' && depth > 0) --depth;
    else if (depth == 0) out += ch;
  }
  return out;
}

std::filesystem::path absolute_path(const RunDocument& run) {
  std::error_code ec;
  return std::filesystem::absolute(run.path, ec).lexically_normal();
}

// The trailing `depth` folders of a run's path and its label: "before/app" for before/app.json.
std::string label_with_folders(const RunDocument& run, size_t depth) {
  std::filesystem::path folder = absolute_path(run).parent_path();
  std::string label = run.label;
  for (size_t i = 0; i < depth && folder.has_relative_path(); ++i, folder = folder.parent_path())
    label = folder.filename().string() + "/" + label;
  return label;
}

// Runs are told apart by their path, never by the file name alone: runs whose files share a
// name (before/app.json, after/app.json) are labelled with as many trailing folders as tell
// different files apart; one file given twice is "app#1", "app#2". A label names the run
// everywhere in the report.
void make_run_labels_distinct(std::vector<RunDocument*> runs) {
  std::map<std::string, std::vector<RunDocument*>> by_label;
  for (auto* run : runs) by_label[run->label].push_back(run);
  for (auto& [label, group] : by_label) {
    if (group.size() < 2) continue;
    size_t depth = 0;
    for (;; ++depth) {  // deeper while two different files still share a label
      std::map<std::string, std::set<std::string>> files;
      bool deeper = false;
      for (const auto* run : group) {
        files[label_with_folders(*run, depth)].insert(absolute_path(*run).string());
        deeper = deeper || label_with_folders(*run, depth + 1) != label_with_folders(*run, depth);
      }
      const bool apart = std::all_of(files.begin(), files.end(), [](const auto& f) { return f.second.size() == 1; });
      if (apart || !deeper) break;
    }
    std::map<std::string, int> count, nth;
    for (const auto* run : group) ++count[label_with_folders(*run, depth)];
    for (auto* run : group) {
      const std::string longer = label_with_folders(*run, depth);
      run->label = count[longer] == 1 ? longer : longer + "#" + std::to_string(++nth[longer]);
    }
  }
}

// A run's stored analysis of kernel i where it may stand (run::stored_analyses_unusable says
// when), else nullopt: the report evaluates that profile again. A stored analysis this build
// wrote that does not read back is a damaged document: refused, naming the field.
std::optional<model::KernelAnalysis> stored_analysis(const RunDocument& run, std::size_t i, bool usable) {
  if (!usable || i >= run.stored_analyses.size() || run.stored_analyses[i].is_null()) return std::nullopt;
  try {
    return model::analysis_from_json(run.stored_analyses[i], run.path + ": kernels[" + std::to_string(i) + "].analysis");
  } catch (const model::AnalysisJsonError& e) {
    throw ReportError(e.what());
  }
}

// How a run's analyses came to the report, in words: as stored, or evaluated again and why.
struct BuildIdentity {
  std::string version, commit;  // empty: this build
  std::string unusable(const run::RunInfo& info, const std::string& table_digest) const {
    return commit.empty() ? run::stored_analyses_unusable(info, table_digest)
                          : run::stored_analyses_unusable(info, table_digest, version, commit);
  }
};

std::string evaluation_basis(const RunDocument& run, const std::vector<ReportKernel>& kernels,
                             const std::string& table_digest, const BuildIdentity& build) {
  const std::string unusable = build.unusable(run.info, table_digest);
  if (!unusable.empty()) return "analyses evaluated again by this build: " + unusable;
  std::size_t stored = 0, all = 0;
  for (const ReportKernel& k : kernels)
    if (k.run_label == run.label) ++all, stored += k.analysis_stored ? 1 : 0;
  if (stored == all) return "analyses as stored by atomq analyze";
  return fmt::format("{} of {} analyses as stored by atomq analyze, the rest evaluated again (no stored analysis, or "
                     "a GPU's or another board's table)", stored, all);
}

// The tables a report evaluates with: the request's, a GPU's own (by UUID), another board's
// (by GPU name), each model built once.
struct ReportTables {
  struct Entry {
    model::ServiceTimeModel service;
    std::string digest;
  };
  Entry main;
  std::map<std::string, model::ServiceTimeModel> by_device;  // never stored analyses' table
  std::map<std::string, Entry> by_board;

  explicit ReportTables(const ReportRequest& request)
      : main{model::ServiceTimeModel(request.table), calibration::service_table_digest(request.table)} {
    for (const auto& [uuid, table] : request.device_tables) by_device.emplace(uuid, model::ServiceTimeModel(table));
    for (const auto& [gpu, board] : request.board_tables)
      by_board.emplace(gpu, Entry{model::ServiceTimeModel(board.table), calibration::service_table_digest(board.table)});
  }
  // The table of a kernel's board: its GPU's entry in by_board, else the request's.
  const Entry& of_board(const std::string& gpu) const {
    const auto it = by_board.find(gpu);
    return it != by_board.end() ? it->second : main;
  }
  const Entry& of_run(const RunDocument& run) const {
    return run.profiles.empty() ? main : of_board(run.profiles.front().device.name);
  }
};

std::vector<ReportKernel> evaluate_runs(const std::vector<RunDocument>& runs, const ReportTables& tables,
                                        const BuildIdentity& build) {
  std::vector<ReportKernel> kernels;
  for (const auto& run : runs) {
    std::map<std::string, int> seen;  // short name -> launches so far in this run
    for (const auto& profile : run.profiles) ++seen[short_kernel_name(profile.kernel_name)];
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < run.profiles.size(); ++i) {
      const model::KernelProfile& profile = run.profiles[i];
      ReportKernel k;
      const std::string name = short_kernel_name(profile.kernel_name);
      const int nth = ++index[name];
      k.run_label = run.label;
      k.label = run.profiles.size() == 1 && !run.label.empty() ? run.label
                : run.label.empty()                             ? name
                                                                : run.label + "/" + name;
      if (seen[name] > 1) k.label += "#" + std::to_string(nth);
      k.profile = profile;
      const auto own = tables.by_device.find(profile.device.uuid);
      const ReportTables::Entry& board = tables.of_board(profile.device.name);
      const bool usable = own == tables.by_device.end() && build.unusable(run.info, board.digest).empty();
      std::optional<model::KernelAnalysis> stored = stored_analysis(run, i, usable);
      k.analysis_stored = stored.has_value();
      k.analysis = stored ? std::move(*stored)
                          : model::analyze(profile, own != tables.by_device.end() ? own->second : board.service);
      k.duration_ns = profile.counter(model::metric::kDurationNs);
      // The fix to name: the analysis' recommended what-if (model::recommend_what_if), the one
      // every rendering and export shows.
      if (const model::WhatIf* w = k.analysis.recommended_what_if()) k.best_what_if = *w;
      kernels.push_back(std::move(k));
    }
  }
  return kernels;
}

const ReportKernel& find_kernel(const std::vector<ReportKernel>& kernels, const std::string& label) {
  for (const auto& k : kernels)
    if (k.label == label) return k;
  std::string known;
  for (const auto& k : kernels) known += (known.empty() ? "" : ", ") + k.label;
  throw ReportError("no kernel labelled \"" + label + "\" in the report (kernels: " + known + ")");
}

std::vector<ServiceCurve> curves_from_table(const calibration::ServiceTable& table, int lanes) {
  using calibration::OpVariant;
  struct Slice {
    const char* name;
    OpVariant variant;
    int conflict_degree;
    double cas_share;
  };
  const Slice slices[] = {
      {"ATOMS.ADD, distinct banks", OpVariant::kAdd, 1, 0.0},
      {"ATOMS.ADD, 4-way bank conflict", OpVariant::kAdd, 4, 0.0},
      {"ATOMS.ADD, 32-way bank conflict", OpVariant::kAdd, 32, 0.0},
      {"ATOMS.ADD, one address", OpVariant::kAdd, 0, 0.0},
      {"ATOMS.POPC.INC, one address", OpVariant::kPopcInc, 0, 0.0},
      {"ATOMS.CAS (c = 1), distinct banks", OpVariant::kAdd, 1, 1.0},
  };
  std::vector<ServiceCurve> curves;
  for (const auto& slice : slices) {
    ServiceCurve curve;
    curve.name = slice.name;
    for (int n : table.axes.n) {
      const auto* cell = table.find(n, lanes, slice.cas_share, slice.variant,
                                    calibration::Pattern{slice.conflict_degree});
      if (cell) curve.points.emplace_back(n, cell->s);
    }
    // A table without this slice (another grid) simply does not get the curve.
    if (curve.points.size() == table.axes.n.size() && !curve.points.empty()) curves.push_back(std::move(curve));
    else spdlog::debug("report: table has no complete slice for \"{}\"", slice.name);
  }
  return curves;
}

// The model's summary names kernels by their full (often templated) names; the report's
// labels are shorter and tell two launches of one kernel apart.
std::string with_labels(std::string summary, const ReportKernel& a, const ReportKernel& b) {
  std::vector<const ReportKernel*> pending{&a, &b};  // the same name twice: A comes first
  size_t from = 0;
  while (!pending.empty()) {
    size_t best_at = std::string::npos, best = 0;
    for (size_t i = 0; i < pending.size(); ++i) {
      const std::string& name = pending[i]->analysis.kernel_name;
      const auto at = name.empty() ? std::string::npos : summary.find(name, from);
      if (at < best_at) best_at = at, best = i;
    }
    if (best_at == std::string::npos) break;
    summary.replace(best_at, pending[best]->analysis.kernel_name.size(), pending[best]->label);
    from = best_at + pending[best]->label.size();
    pending.erase(pending.begin() + static_cast<long>(best));
  }
  return summary;
}

ReportComparison side_by_side(std::string title, const ReportKernel& a, const ReportKernel& b) {
  ReportComparison c{std::move(title), a.label, b.label, model::compare(a.analysis, b.analysis), a.duration_ns,
                     b.duration_ns};
  c.result.summary = with_labels(c.result.summary, a, b);
  return c;
}

// --compare: the i-th launch of a kernel in the baseline against the i-th in the runs, kernels
// matched by their normalized names; launches beyond the other side's count are noted apart.
void match_baseline(Report& report) {
  std::map<std::string, std::vector<const ReportKernel*>> base, current;
  std::vector<std::string> order;  // first appearance, runs first
  for (const auto& k : report.kernels) {
    const std::string key = normalized_kernel_name(k.profile.kernel_name);
    if (!current.count(key) && !base.count(key)) order.push_back(key);
    current[key].push_back(&k);
  }
  for (const auto& k : report.baseline_kernels) {
    const std::string key = normalized_kernel_name(k.profile.kernel_name);
    if (!current.count(key) && !base.count(key)) order.push_back(key);
    base[key].push_back(&k);
  }
  for (const auto& key : order) {
    const auto& b = base[key];
    const auto& c = current[key];
    for (size_t i = 0; i < std::min(b.size(), c.size()); ++i)
      report.comparisons.push_back(side_by_side("baseline " + b[i]->label + " -> " + c[i]->label, *b[i], *c[i]));
    if (b.empty() || c.empty()) {
      for (const auto* k : c) report.unmatched.push_back(k->label + " (not in the baseline)");
      for (const auto* k : b) report.unmatched.push_back(k->label + " (baseline only)");
    } else if (b.size() != c.size()) {
      report.extra_launches.push_back(fmt::format("{}: {} launch(es) in the baseline, {} here; the first {} compared",
                                                  short_kernel_name(key), b.size(), c.size(),
                                                  std::min(b.size(), c.size())));
    }
  }
}

// A report travels: the bundled table is named by its file alone and the home folder as "~",
// so no path of the machine that wrote the report is in it.
std::string shown_table_path(const std::string& path, const std::string& origin) {
  if (origin == "bundled") return std::filesystem::path(path).filename().string();
  const char* home = std::getenv("HOME");
  if (home && *home && path.rfind(std::string(home) + "/", 0) == 0) return "~" + path.substr(std::strlen(home));
  return path;
}

}  // namespace

std::string normalized_kernel_name(const std::string& full_name) {
  std::string name = full_name;
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  const auto open = name.find('(');
  std::string out = name.substr(0, open);
  if (open != std::string::npos) {
    // Parameters one by one: "const T *" -> "T const*".
    std::string params = name.substr(open + 1), param;
    int depth = 0;
    auto flush = [&](char sep) {
      size_t start = param.find_first_not_of(' ');
      std::string p = start == std::string::npos ? "" : param.substr(start);
      if (p.rfind("const ", 0) == 0) {
        p.erase(0, 6);
        const auto ptr = p.find_first_of("*&");
        p.insert(ptr == std::string::npos ? p.size() : ptr, " const");
      }
      out += p + sep;
      param.clear();
    };
    out += '(';
    for (char ch : params) {
      depth += (ch == '<' || ch == '(') - (ch == '>' || ch == ')');
      if ((ch == ',' && depth == 0) || depth < 0) {
        flush(ch);
        depth = std::max(depth, 0);
      } else {
        param += ch;
      }
    }
    if (!param.empty()) flush(' ');
  }
  out.erase(std::remove(out.begin(), out.end(), ' '), out.end());
  return out;
}

std::string short_kernel_name(const std::string& full_name) {
  // A whole graph launch's profile, "graph(A + B)" (docs/analyzer.md): each kernel shortened.
  const std::string graph = "graph(", separator = " + ";
  if (full_name.rfind(graph, 0) == 0 && full_name.back() == ')' && full_name.find(separator) != std::string::npos) {
    const std::string inner = full_name.substr(graph.size(), full_name.size() - graph.size() - 1);
    std::string out;
    for (size_t from = 0; from <= inner.size();) {
      const size_t at = std::min(inner.find(separator, from), inner.size());
      out += (out.empty() ? "" : "+") + short_kernel_name(inner.substr(from, at - from));
      from = at + separator.size();
    }
    return graph + out + ")";
  }
  std::string name = strip_template_arguments(full_name);
  const std::string anonymous = "(anonymous namespace)::";
  for (auto pos = name.find(anonymous); pos != std::string::npos; pos = name.find(anonymous))
    name.erase(pos, anonymous.size());
  if (const auto paren = name.find('('); paren != std::string::npos) name.resize(paren);
  if (const auto space = name.find_last_of(' '); space != std::string::npos) name = name.substr(space + 1);
  if (const auto scope = name.rfind("::"); scope != std::string::npos) name = name.substr(scope + 2);
  return name.empty() ? full_name : name;
}

Report build_report(const ReportRequest& request) {
  Report report;
  report.title = request.title;
  report.notes = request.notes;
  report.table_path = shown_table_path(request.table_path, request.table_origin);
  report.table_origin = request.table_origin;
  report.table_provenance = request.table.provenance;
  const ReportTables tables(request);

  std::vector<RunDocument> runs = request.runs, baseline_runs = request.baseline_runs;
  std::vector<RunDocument*> all_runs;
  for (auto* list : {&runs, &baseline_runs})
    for (auto& run : *list) all_runs.push_back(&run);
  make_run_labels_distinct(all_runs);
  const BuildIdentity build{request.build_version, request.build_commit};
  report.kernels = evaluate_runs(runs, tables, build);
  report.baseline_kernels = evaluate_runs(baseline_runs, tables, build);
  // Each board's table its kernels used (a GPU's own table comes first), named by file.
  std::map<std::string, int> board_kernels;
  for (const auto* list : {&report.kernels, &report.baseline_kernels})
    for (const ReportKernel& k : *list)
      if (tables.by_board.count(k.profile.device.name) && !tables.by_device.count(k.profile.device.uuid))
        ++board_kernels[k.profile.device.name];
  for (const auto& [gpu, count] : board_kernels) {
    const ReportRequest::BoardTable& board = request.board_tables.at(gpu);
    report.notes.push_back(fmt::format("{} kernel(s) of the {} evaluated with the table chosen for that board, {}",
                                       count, gpu, shown_table_path(board.path, board.origin)));
  }
  if (report.kernels.empty()) throw ReportError("the run documents hold no kernel launch to report on");
  report.summaries = summarize_kernels(report.kernels);
  report.headlines = headline_lines(report.summaries, report.kernels, 3);
  report.ranks = rank_rows(report.kernels);
  report.rank_findings = rank_findings(report.ranks, report.kernels);
  for (const auto& f : report.rank_findings) report.headlines.push_back(f);
  for (const auto* list : {&runs, &baseline_runs})
    for (const auto& run : *list) {
      std::string line = run.label + ": " + run.info.command + " (" + (run.info.source.empty() ? "unknown source" : run.info.source);
      if (!run.info.atomq_commit.empty()) line += ", recorded by atomq " + run.info.atomq_version + " " + run.info.atomq_commit;
      line += list == &baseline_runs ? ", baseline)" : ")";
      line += "; " + evaluation_basis(run, list == &baseline_runs ? report.baseline_kernels : report.kernels,
                                       tables.of_run(run).digest, build);
      const auto& l = run.info.launches;
      if (l.graph_launches_profiled > 0)
        line += fmt::format("; {} CUDA graph launch(es) profiled, each as one range over all its kernel nodes",
                            l.graph_launches_profiled);
      if (l.graph_launches > 0 || l.graph_nodes_not_profiled > 0)
        line += fmt::format("; {} graph launch(es) and {} kernel node(s) NOT profiled: {}", l.graph_launches,
                            l.graph_nodes_not_profiled, l.graph_note);
      report.runs.push_back(line);
    }

  if (!request.baseline_runs.empty()) match_baseline(report);

  auto pairs = request.pairs;
  if (pairs.empty() && request.baseline_runs.empty() && report.kernels.size() >= 2)
    pairs.emplace_back(report.kernels[0].label, report.kernels[1].label);
  for (const auto& [label_a, label_b] : pairs) {
    const auto& a = find_kernel(report.kernels, label_a);
    const auto& b = find_kernel(report.kernels, label_b);
    report.comparisons.push_back(side_by_side(a.label + " vs " + b.label, a, b));
  }

  report.service_curve_lanes = request.table.axes.e.empty() ? 0 : request.table.axes.e.back();
  report.service_curves = curves_from_table(request.table, report.service_curve_lanes);
  spdlog::info("report: {} kernel(s), {} comparison(s), {} S(n) curve(s)", report.kernels.size(),
               report.comparisons.size(), report.service_curves.size());
  return report;
}

}  // namespace atomq::report
