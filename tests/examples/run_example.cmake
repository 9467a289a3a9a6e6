# Runs one example (or two, to compare them) and checks what it printed.
#   -DCOMMAND="a|b|c"        command line, words separated by '|' (a ';' list
#                            does not survive add_test's argument quoting)
#   -DEXPECT_RC=N            expected exit status (default 0)
#   -DEXPECT_REGEX=re        output must match (stdout+stderr)
#   -DCOMPARE_COMMAND="..."  optional second run whose "checksum=" must agree
#                            with the first to 12 significant digits: the two
#                            runs differ only in the order of floating-point
#                            reductions, which moves the last 2-3 digits.
if(NOT DEFINED EXPECT_RC)
  set(EXPECT_RC 0)
endif()

function(run_one cmd out_var)
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  set(all "${out}${err}")
  message("$ ${cmd}\n${all}")
  if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
    message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}")
  endif()
  if(DEFINED EXPECT_REGEX AND NOT all MATCHES "${EXPECT_REGEX}")
    message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'")
  endif()
  set(${out_var} "${all}" PARENT_SCOPE)
endfunction()

function(checksum_of text out_var)
  if(NOT text MATCHES "checksum=([0-9.]+)e([-+][0-9]+)")
    message(FATAL_ERROR "no checksum= in the output")
  endif()
  string(SUBSTRING "${CMAKE_MATCH_1}" 0 13 mantissa)
  set(${out_var} "${mantissa}e${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()

string(REPLACE "|" ";" COMMAND "${COMMAND}")
run_one("${COMMAND}" first)
if(DEFINED COMPARE_COMMAND)
  string(REPLACE "|" ";" COMPARE_COMMAND "${COMPARE_COMMAND}")
  run_one("${COMPARE_COMMAND}" second)
  checksum_of("${first}" a)
  checksum_of("${second}" b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "checksums differ: ${a} vs ${b}")
  endif()
  message("checksums agree: ${a}")
endif()
