// Files embedded into the binary at build time (embed_assets.cmake), so a report written on a
// machine without the Debian packages still carries its plotting library.
#pragma once

namespace atomq::report::detail {

const char* chart_js_source();   // Chart.js (minified UMD build); nullptr when not embedded
const char* chart_js_version();  // e.g. "3.9.1", "" when not embedded
const char* report_js_source();  // assets/report.js
const char* report_css_source(); // assets/report.css

}  // namespace atomq::report::detail
