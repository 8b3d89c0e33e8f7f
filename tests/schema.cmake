# JSON Schemas of atomq's documents (docs/schemas/), included from tests/CMakeLists.txt; the
# sources are in tests/schema/.
# valijson is used here only: the product libraries never link it.
# - atomq_schema_check: validates files against a schema (a library and a command);
# - unit: the committed example documents and this build's writers' output (report export
#   included) conform, a broken document is refused (also wherever the reader refuses it), the
#   schemas' enum names and the export's columns match the C++ tables;
# - integration: documents the atomq CLI writes on the CPU (and on a GPU) conform.
find_package(valijson REQUIRED)
set(ATOMQ_SCHEMA_DIR ${PROJECT_SOURCE_DIR}/docs/schemas)

add_library(atomq_schema_check STATIC ${CMAKE_CURRENT_LIST_DIR}/schema/schema_check.cpp)
target_include_directories(atomq_schema_check PUBLIC ${CMAKE_CURRENT_LIST_DIR}/schema)
target_link_libraries(atomq_schema_check PUBLIC nlohmann_json::nlohmann_json PRIVATE valijson)

add_executable(atomq_schema_check_cli ${CMAKE_CURRENT_LIST_DIR}/schema/schema_check_main.cpp)
target_link_libraries(atomq_schema_check_cli PRIVATE atomq_schema_check)
set_target_properties(atomq_schema_check_cli PROPERTIES OUTPUT_NAME atomq_schema_check
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

add_executable(atomq_schema_unit_tests
  ${CMAKE_CURRENT_LIST_DIR}/schema/schema_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema/schema_writers_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema/schema_enums_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema/schema_report_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema/schema_reader_parity_test.cpp)
target_link_libraries(atomq_schema_unit_tests PRIVATE atomq_schema_check atomq_report atomq_run_document
  atomq_model atomq_table GTest::gtest_main)
target_compile_definitions(atomq_schema_unit_tests PRIVATE
  ATOMQ_SCHEMA_DIR="${ATOMQ_SCHEMA_DIR}"
  ATOMQ_BUNDLED_TABLE_DIR="${ATOMQ_BUNDLED_TABLE_DIR}"
  ATOMQ_RECORDED_RUNS_DIR="${PROJECT_SOURCE_DIR}/analyzer/report/recorded"
  ATOMQ_MODEL_FIXTURE_DIR="${CMAKE_CURRENT_LIST_DIR}/unit/model/fixtures"
  ATOMQ_VALIDATION_RUNS_DIR="${CMAKE_CURRENT_LIST_DIR}/fixtures/validation")
gtest_discover_tests(atomq_schema_unit_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)

add_test(NAME integration.schema_cli_documents
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/integration/check_schemas.py
          ${ATOMQ_CLI} $<TARGET_FILE:atomq_schema_check_cli> ${ATOMQ_SCHEMA_DIR}
          ${CMAKE_CURRENT_LIST_DIR}/fixtures ${PROJECT_SOURCE_DIR}/analyzer/report/recorded
          ${CMAKE_CURRENT_BINARY_DIR}/integration_work/schemas)
set_tests_properties(integration.schema_cli_documents PROPERTIES LABELS integration)

# The same on a GPU: the service table of `atomq calibrate --quick`, run documents of `atomq hist
# --analyze` and of `atomq analyze` with per-instruction counts. Skips (77) without a GPU; a
# host-only build has none of these commands' GPU paths and no test program.
if(ATOMQ_WITH_CUDA)
  add_test(NAME integration.schema_gpu_documents
    COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/integration/check_schemas_gpu.py
            ${ATOMQ_CLI} $<TARGET_FILE:atomq_schema_check_cli> ${ATOMQ_SCHEMA_DIR}
            $<TARGET_FILE:multi_kernel_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/schemas_gpu)
  set_tests_properties(integration.schema_gpu_documents PROPERTIES LABELS "integration;gpu"
    SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
