# Tests of the bottleneck report and the demo (analyzer/report/), included from
# tests/CMakeLists.txt. Unit: the report from the recorded H200 runs, on the build machine.
# Integration: `atomq report` and `atomq demo` executed, the HTML rendered in headless Chromium.
add_executable(atomq_report_unit_tests
  ${CMAKE_CURRENT_LIST_DIR}/report/run_document_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/process_streams_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/rank_comparison_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/report_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/stored_analysis_test.cpp)
target_link_libraries(atomq_report_unit_tests PRIVATE atomq_report nlohmann_json::nlohmann_json GTest::gtest_main)
# The L2 section and counters built in code, shared with the model tests.
target_include_directories(atomq_report_unit_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/unit/model
  ${CMAKE_CURRENT_LIST_DIR}/unit)
target_compile_definitions(atomq_report_unit_tests PRIVATE
  ATOMQ_BUNDLED_TABLE_DIR="${ATOMQ_BUNDLED_TABLE_DIR}"
  ATOMQ_RECORDED_RUNS_DIR="${PROJECT_SOURCE_DIR}/analyzer/report/recorded"
  ATOMQ_MODEL_FIXTURE_DIR="${CMAKE_CURRENT_LIST_DIR}/unit/model/fixtures")
gtest_discover_tests(atomq_report_unit_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)

set(report_work ${CMAKE_CURRENT_BINARY_DIR}/report_work)
add_test(NAME integration.report_cli
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/integration/check_report.py
          ${ATOMQ_CLI} ${PROJECT_SOURCE_DIR}/analyzer/report/recorded ${report_work}/cli)
set_tests_properties(integration.report_cli PROPERTIES LABELS integration)

# Skips (exit 77, reason printed) only where no Chromium can start; CI installs it.
add_test(NAME integration.report_html_chromium
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/integration/check_report_html.py
          ${ATOMQ_CLI} ${PROJECT_SOURCE_DIR}/analyzer/report/recorded ${report_work}/html)
set_tests_properties(integration.report_html_chromium PROPERTIES LABELS integration
  SKIP_RETURN_CODE 77 TIMEOUT 180)

# The docs' screenshot command (docs/report-demo.png) still works: a PNG of the demo report.
add_test(NAME integration.report_screenshot
  COMMAND ${ATOMQ_PYTHON} ${PROJECT_SOURCE_DIR}/tools/screenshot_report.py ${ATOMQ_CLI} ${report_work}/shot.png)
set_tests_properties(integration.report_screenshot PROPERTIES LABELS integration SKIP_RETURN_CODE 77 TIMEOUT 180)

add_test(NAME integration.demo
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/integration/check_demo.py
          ${ATOMQ_CLI} ${report_work}/demo)
set_tests_properties(integration.demo PROPERTIES LABELS integration TIMEOUT 600)
