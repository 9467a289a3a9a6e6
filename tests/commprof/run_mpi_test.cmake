# Runs one libcommprof integration test: the program under mpiexec with the
# profiler preloaded, then commprof_check on the profile it wrote.
# -D MPIEXEC NP PROGRAM LIBRARY OUTPUT CHECKER [CHECK_ARGS] [ENV] [APP_ARGS]
file(REMOVE ${OUTPUT} ${OUTPUT}.expected)
separate_arguments(check_args UNIX_COMMAND "${CHECK_ARGS}")
separate_arguments(extra_env UNIX_COMMAND "${ENV}")
separate_arguments(app_args UNIX_COMMAND "${APP_ARGS}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIBRARY} COMMPROF_OUTPUT=${OUTPUT} ${extra_env}
          ${MPIEXEC} -n ${NP} ${PROGRAM} ${app_args}
  RESULT_VARIABLE run_status)
if(NOT run_status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} under the profiler exited with ${run_status}")
endif()
if(NOT check_args MATCHES "--ring")
  list(PREPEND check_args ${OUTPUT}.expected)
endif()
execute_process(COMMAND ${CHECKER} ${OUTPUT} ${check_args} RESULT_VARIABLE check_status)
if(NOT check_status EQUAL 0)
  message(FATAL_ERROR "profile ${OUTPUT} does not match the expectation")
endif()
