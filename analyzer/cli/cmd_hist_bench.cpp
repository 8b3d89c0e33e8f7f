// atomq hist-bench: the histogram benchmark (all variants x inputs x types in one process),
// printed as Markdown and optionally written as Markdown, CSV and JSON.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "atomq/common/atomic_file.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/common/device_info.hpp"
#include "atomq/common/timestamp.hpp"
#include "atomq/histogram/histogram_bench.hpp"
#include "commands.hpp"

namespace atomq::cli {

namespace {

namespace hg = atomq::histogram;

struct BenchOptions {
  int runs = 21;
  bool quick = false;
  int device = 0;
  std::string markdown_path, csv_path, json_path;
};

const hg::HistBenchRow* best_row(const hg::HistBenchReport& r, hg::SampleType type,
                                 const std::string& input, int bins) {
  const hg::HistBenchRow* best = nullptr;
  for (const auto& row : r.rows) {
    if (row.type != type || row.input != input || row.bins != bins || !row.skipped.empty() ||
        !row.exact || row.variant == hg::HistVariant::kCub)
      continue;
    if (best == nullptr || row.timing.median_ms < best->timing.median_ms) best = &row;
  }
  return best;
}

const hg::HistBenchRow* find_row(const hg::HistBenchReport& r, hg::SampleType type,
                                 const std::string& input, int bins, hg::HistVariant v) {
  for (const auto& row : r.rows)
    if (row.type == type && row.input == input && row.bins == bins && row.variant == v)
      return &row;
  return nullptr;
}

std::string markdown(const hg::HistBenchReport& r, const std::string& command,
                     const std::string& date, const std::string& driver) {
  std::string md;
  md += fmt::format("Date: {}  \nGPU: {}  \nNVIDIA driver: {} (CUDA driver API {}, runtime {})  \n",
                    date, r.device, driver, cuda_version_string(r.driver_api_version),
                    cuda_version_string(r.runtime_version));
  md += fmt::format("Command: `{}`  \n", command);
  md += fmt::format("Timing: CUDA events around each launch sequence (zeroing included), median of {} runs after one warm-up.  \n", r.runs);
  md += "`of input read`: the read-bandwidth probe timed on the same input, its runs alternating with the "
        "variant's (same clocks, data and size); probe median / variant median.  \n";
  md += fmt::format("Measured read bandwidth, 16-byte loads, median of {} runs: **{:.0f} GB/s** reading {} MiB "
                    "(the size of the inputs below; `of read BW` is against this), {:.0f} GB/s reading {} MiB "
                    "(`of large read`).\n\n",
                    r.runs, r.read_bandwidth_gbs, r.read_bandwidth_bytes >> 20, r.large_read_bandwidth_gbs,
                    r.large_read_bandwidth_bytes >> 20);

  md += "## Summary (computed from the table below)\n\n";
  md += "| case | best variant | ms | GB/s | of read BW | of input read | of large read | CUB ms | x CUB |\n|---|---|---|---|---|---|---|---|---|\n";
  auto summary_line = [&](hg::SampleType type, const std::string& input, int bins) {
    const auto* best = best_row(r, type, input, bins);
    const auto* cub = find_row(r, type, input, bins, hg::HistVariant::kCub);
    if (best == nullptr) return;
    md += fmt::format("| {} {} bins, {} | {} | {:.4f} | {:.0f} | {:.1f}% | {:.1f}% | {:.1f}% | {} | {} |\n",
                      enum_name(type), bins, input, enum_name(best->variant),
                      best->timing.median_ms, best->gbs, 100.0 * best->fraction_of_read_bw,
                      100.0 * best->fraction_of_input_read, 100.0 * best->gbs / r.large_read_bandwidth_gbs,
                      cub && cub->skipped.empty() ? fmt::format("{:.4f}", cub->timing.median_ms) : "-",
                      best->speedup_vs_cub > 0 ? fmt::format("{:.2f}", best->speedup_vs_cub) : "-");
  };
  std::vector<std::tuple<hg::SampleType, std::string, int>> keys;
  for (const auto& row : r.rows) {
    auto key = std::make_tuple(row.type, row.input, row.bins);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  for (const auto& [type, input, bins] : keys) summary_line(type, input, bins);

  md += "\n## All rows\n\n";
  md += "| type | input | bins | n | variant | median ms | min ms | max ms | GB/s | of read BW | input read ms | of input read | x CUB | exact |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : r.rows) {
    if (!row.skipped.empty()) {
      md += fmt::format("| {} | {} | {} | {} | {} | - | - | - | - | - | - | - | - | not run: {} |\n",
                        enum_name(row.type), row.input, row.bins, row.n,
                        enum_name(row.variant), row.skipped);
      continue;
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {:.4f} | {:.4f} | {:.4f} | {:.0f} | {:.1f}% | {:.4f} | {:.1f}% | {} | {} |\n",
                      enum_name(row.type), row.input, row.bins, row.n,
                      enum_name(row.variant), row.timing.median_ms, row.timing.min_ms,
                      row.timing.max_ms, row.gbs, 100.0 * row.fraction_of_read_bw,
                      row.input_read.median_ms, 100.0 * row.fraction_of_input_read,
                      row.speedup_vs_cub > 0 ? fmt::format("{:.2f}", row.speedup_vs_cub) : "-",
                      row.exact ? "yes" : "NO");
  }
  return md;
}

std::string csv(const hg::HistBenchReport& r) {
  std::string out = "type,input,bins,n,bytes,variant,median_ms,min_ms,max_ms,runs,gbs,fraction_of_read_bw,input_read_ms,fraction_of_input_read,speedup_vs_cub,exact,skipped\n";
  for (const auto& row : r.rows)
    out += fmt::format("{},\"{}\",{},{},{},{},{:.6f},{:.6f},{:.6f},{},{:.1f},{:.4f},{:.6f},{:.4f},{:.4f},{},\"{}\"\n",
                       enum_name(row.type), row.input, row.bins, row.n, row.bytes,
                       enum_name(row.variant), row.timing.median_ms, row.timing.min_ms,
                       row.timing.max_ms, row.timing.runs, row.gbs, row.fraction_of_read_bw,
                       row.input_read.median_ms, row.fraction_of_input_read,
                       row.speedup_vs_cub, row.skipped.empty() ? (row.exact ? "yes" : "no") : "",
                       row.skipped);
  return out;
}

nlohmann::json to_json(const hg::HistBenchReport& r, const std::string& date,
                       const std::string& driver) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.rows)
    rows.push_back({{"type", enum_name(row.type)}, {"input", row.input}, {"bins", row.bins},
                    {"n", row.n}, {"bytes", row.bytes}, {"variant", enum_name(row.variant)},
                    {"skipped", row.skipped}, {"median_ms", row.timing.median_ms},
                    {"min_ms", row.timing.min_ms}, {"max_ms", row.timing.max_ms},
                    {"runs", row.timing.runs}, {"gbs", row.gbs},
                    {"fraction_of_read_bw", row.fraction_of_read_bw},
                    {"input_read_ms", row.input_read.median_ms},
                    {"fraction_of_input_read", row.fraction_of_input_read},
                    {"speedup_vs_cub", row.speedup_vs_cub}, {"exact", row.exact}});
  return {{"date", date},
          {"device", r.device},
          {"nvidia_driver", driver},
          {"cuda_runtime", cuda_version_string(r.runtime_version)},
          {"read_bandwidth_gbs", r.read_bandwidth_gbs},
          {"read_bandwidth_bytes", r.read_bandwidth_bytes},
          {"large_read_bandwidth_gbs", r.large_read_bandwidth_gbs},
          {"large_read_bandwidth_bytes", r.large_read_bandwidth_bytes},
          {"runs", r.runs},
          {"rows", rows}};
}

int run_bench(const BenchOptions& o, const std::string& command) {
  hg::HistBenchOptions options;
  options.runs = o.runs;
  if (o.quick) {  // a smoke run: small inputs, same plan
    options.u32_samples = options.u8_samples = options.image_pixels =
        options.many_bins_samples = std::size_t{1} << 20;
    options.bandwidth_bytes = std::size_t{4} << 20;
    options.large_bandwidth_bytes = std::size_t{64} << 20;
  }
  hg::HistogramRunner runner(o.device);
  const bool tty = isatty(fileno(stderr));
  const auto report = hg::run_histogram_benchmark(
      runner, options, [tty](int done, int total, const hg::HistBenchRow& row) {
        if (tty) fmt::print(stderr, "\r[{}/{}] {} {} {}          ", done, total,
                            enum_name(row.type), row.input, enum_name(row.variant));
      });
  if (tty) fmt::print(stderr, "\n");
  const std::string date = utc_now_readable();
  const std::string driver = nvidia_driver_release();
  const std::string md = markdown(report, command, date, driver);
  fmt::print("{}", md);
  // Each file appears whole or not at all (temporary file, then rename).
  if (!o.markdown_path.empty()) write_file_atomically(o.markdown_path, md);
  if (!o.csv_path.empty()) write_file_atomically(o.csv_path, csv(report));
  if (!o.json_path.empty())
    write_file_atomically(o.json_path, json_text(to_json(report, date, driver), 2) + "\n");
  for (const auto& row : report.rows)
    if (row.skipped.empty() && !row.exact) return kExitError;
  return kExitOk;
}

}  // namespace

void add_hist_bench_command(CLI::App& app, CommandRunner& selected) {
  auto opts = std::make_shared<BenchOptions>();
  auto* sub = app.add_subcommand(
      "hist-bench", "benchmark every histogram target on every input against CUB and read bandwidth");
  sub->add_option("--runs", opts->runs, "timed runs per case (median; at least 20)")
      ->capture_default_str()
      ->check(CLI::Range(20, 1000));
  sub->add_flag("--quick", opts->quick, "small inputs (a smoke run, not a measurement)");
  sub->add_option("--device", opts->device, "CUDA device ordinal")->capture_default_str();
  sub->add_option("--markdown", opts->markdown_path, "write the Markdown table here");
  sub->add_option("--csv", opts->csv_path, "write CSV here");
  sub->add_option("--json", opts->json_path, "write JSON here");
  sub->callback([&selected, opts] {
    std::string command = "atomq hist-bench";
    if (opts->runs != 21) command += fmt::format(" --runs {}", opts->runs);
    if (opts->quick) command += " --quick";
    selected = [opts, command] { return run_bench(*opts, command); };
  });
}

}  // namespace atomq::cli
