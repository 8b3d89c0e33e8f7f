# Structure checks of the source tree (CPU, label unit):
# - the layering rules on the build's target graph, and proof that the check fails on a
#   deliberately wrong link (one self-test per kind of rule);
# - the size limits of product code (files, functions).
set(_layering ${PROJECT_SOURCE_DIR}/tools/check_layering.py)
set(_work ${CMAKE_CURRENT_BINARY_DIR}/layering)
add_test(NAME layering.rules_hold
  COMMAND ${ATOMQ_PYTHON} ${_layering} --source ${PROJECT_SOURCE_DIR} --work ${_work}/as_built)
foreach(probe model_links_cudart report_links_collector model_links_valijson)
  add_test(NAME layering.refuses_${probe}
    COMMAND ${ATOMQ_PYTHON} ${_layering} --source ${PROJECT_SOURCE_DIR} --work ${_work}/${probe}
            --cmake-arg=-DATOMQ_LAYERING_PROBE=${probe} --expect-violation)
endforeach()
set_tests_properties(layering.rules_hold layering.refuses_model_links_cudart
  layering.refuses_report_links_collector layering.refuses_model_links_valijson
  PROPERTIES LABELS unit RUN_SERIAL TRUE)
add_test(NAME structure.code_size
  COMMAND ${ATOMQ_PYTHON} ${PROJECT_SOURCE_DIR}/tools/check_code_size.py ${PROJECT_SOURCE_DIR})
set_tests_properties(structure.code_size PROPERTIES LABELS unit)
