# Behaviour of libcommprof outside the happy path. -D MODE=... plus
# MPIEXEC LIBRARY PROGRAM WORKDIR CHECKER LAUNCHER [MPI=mpich|openmpi]
#   unwritable: the profile cannot be written -> exit status 0, exactly one
#               "commprof: cannot write profile" line on stderr (rank 0)
#   non_mpi:    processes that are not MPI programs run unchanged, write nothing
#   disabled:   COMMPROF_ENABLE=0 -> the job runs, no profile is written
#   enable_mismatch: COMMPROF_ENABLE=1 on one rank, 0 on the other (either
#               order) -> no hang, exit 0, rank 0 says so in one line, no profile
#   usage:      commprof-run --help / --version exit 0 on stdout; usage errors
#               exit 2 with one line on stderr and run nothing
#   launcher:   commprof-run -o FILE -- mpiexec ... writes the same profile
#               (Open MPI: mpirun -n 2 prog : -n 2 prog)
include(${CMAKE_CURRENT_LIST_DIR}/mpi_launch.cmake)
if(NOT MPI)
  set(MPI mpich)
endif()
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})

if(MODE STREQUAL "unwritable")
  commprof_launch_command(launch ${MPI} ${MPIEXEC} 3 LD_PRELOAD=${LIBRARY} COMMPROF_OUTPUT=${WORKDIR}/no/such/dir/x.prof
                          COMMPROF_TEST_EXPECTED=${WORKDIR}/x.expected)
  execute_process(
    COMMAND ${launch} ${PROGRAM}
    WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_VARIABLE out)
  string(REGEX MATCHALL "commprof: cannot write profile[^\n]*" lines "${err}")
  list(LENGTH lines n)
  if(NOT status EQUAL 0 OR NOT n EQUAL 1)
    message(FATAL_ERROR "expected exit 0 and one error line, got exit ${status} and ${n} lines:\n${err}")
  endif()
elseif(MODE STREQUAL "non_mpi")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIBRARY} sh -c "echo hello; exit 7"
    WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(GLOB written ${WORKDIR}/*)
  if(NOT status EQUAL 7 OR NOT out STREQUAL "hello\n" OR NOT err STREQUAL "" OR written)
    message(FATAL_ERROR "non-MPI process affected: exit ${status}, out '${out}', err '${err}', files '${written}'")
  endif()
  # The preload loads no MPI library (nor MPICH's UCX, whose signal handlers
  # printed "Caught signal 11 ... backtrace" for a crashing shell: issue 15),
  # even with every symbol bound at load time. Open MPI's build links libmpi
  # (its handles are libmpi's variables), which loads no UCX.
  set(pattern "libmpi\\|libucs\\|libucp")
  if(MPI STREQUAL "openmpi")
    set(pattern "libucs\\|libucp")
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIBRARY} LD_BIND_NOW=1 sh -c "grep -c '${pattern}' /proc/$$/maps"
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT out STREQUAL "0\n" OR NOT err STREQUAL "")
    message(FATAL_ERROR "the preload loaded MPI into a non-MPI process: ${out} mapped lines, err '${err}'")
  endif()
  # A shell that kills itself with SIGSEGV: only its parent's one-line report.
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIBRARY} sh -c "sh -c 'kill -SEGV $$' 2>&1; echo status $?"
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0 OR NOT out STREQUAL "Segmentation fault\nstatus 139\n")
    message(FATAL_ERROR "a crashing non-MPI process under the preload: exit '${status}', output '${out}'")
  endif()
elseif(MODE STREQUAL "disabled")
  commprof_launch_command(launch ${MPI} ${MPIEXEC} 2 LD_PRELOAD=${LIBRARY} COMMPROF_ENABLE=0 COMMPROF_OUTPUT=${WORKDIR}/x.prof)
  execute_process(
    COMMAND ${launch} ${PROGRAM}
    WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE status)
  if(NOT status EQUAL 0 OR EXISTS ${WORKDIR}/x.prof)
    message(FATAL_ERROR "COMMPROF_ENABLE=0: exit ${status}, profile written: should not be")
  endif()
elseif(MODE STREQUAL "enable_mismatch")
  foreach(order "1;0" "0;1")
    list(GET order 0 first)
    list(GET order 1 second)
    set(common LD_PRELOAD=${LIBRARY} COMMPROF_OUTPUT=${WORKDIR}/x.prof COMMPROF_TEST_EXPECTED=${WORKDIR}/x.expected)
    if(MPI STREQUAL "openmpi")
      # mpirun's -x options hold for their own app context only.
      set(x)
      foreach(item ${common})
        list(APPEND x -x ${item})
      endforeach()
      set(cmd ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${MPIEXEC}
              --oversubscribe --bind-to none ${x} -n 1 -x COMMPROF_ENABLE=${first} ${PROGRAM}
              : ${x} -n 1 -x COMMPROF_ENABLE=${second} ${PROGRAM})
    else()
      set(cmd ${CMAKE_COMMAND} -E env ${common} ${MPIEXEC}
              -n 1 -env COMMPROF_ENABLE ${first} ${PROGRAM} : -n 1 -env COMMPROF_ENABLE ${second} ${PROGRAM})
    endif()
    execute_process(COMMAND ${cmd} WORKING_DIRECTORY ${WORKDIR} TIMEOUT 60
                    RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_VARIABLE out)
    string(REGEX MATCHALL "commprof: COMMPROF_ENABLE differs between ranks \\(1 of 2 enabled\\): no profile written\n" lines "${err}")
    list(LENGTH lines n)
    if(NOT status EQUAL 0 OR NOT n EQUAL 1 OR EXISTS ${WORKDIR}/x.prof)
      message(FATAL_ERROR "COMMPROF_ENABLE ${first} then ${second}: exit '${status}', ${n} mismatch lines, "
                          "profile written: ${WORKDIR}/x.prof\n${err}")
    endif()
  endforeach()
elseif(MODE STREQUAL "usage")
  foreach(ok --help --version)
    execute_process(COMMAND ${LAUNCHER} ${ok} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT status EQUAL 0 OR out STREQUAL "" OR NOT err STREQUAL "")
      message(FATAL_ERROR "commprof-run ${ok}: exit '${status}', out '${out}', err '${err}'")
    endif()
  endforeach()
  execute_process(COMMAND ${LAUNCHER} --version OUTPUT_VARIABLE out)
  if(NOT out MATCHES "^commprof-run \\(rankmap\\) [0-9]+\\.[0-9]+\\.[0-9]+\n$")
    message(FATAL_ERROR "commprof-run --version printed '${out}'")
  endif()
  # Each bad command line: exit 2, exactly one line on stderr, the command not run.
  foreach(bad "--bogus;touch;ran" "--mpi;lam;touch;ran" "--mpi" "-o" "--trace" "")
    execute_process(COMMAND ${LAUNCHER} ${bad} WORKING_DIRECTORY ${WORKDIR}
                    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(REGEX MATCHALL "\n" newlines "${err}")
    list(LENGTH newlines n)
    if(NOT status EQUAL 2 OR NOT n EQUAL 1 OR NOT err MATCHES "^commprof-run: " OR NOT out STREQUAL ""
       OR EXISTS ${WORKDIR}/ran)
      message(FATAL_ERROR "commprof-run '${bad}': exit '${status}', ${n} lines on stderr '${err}', out '${out}'")
    endif()
  endforeach()
elseif(MODE STREQUAL "launcher")
  # Relative -o: the launcher makes it absolute, ranks may start elsewhere.
  # Open MPI: commprof-run finds out from `mpirun --version` and passes the
  # preload with -x itself; more ranks than cores need --oversubscribe.
  # Open MPI: an MPMD command line (two app contexts of 2 ranks), whose
  # contexts each need the preload.
  # The other MPI's library does not exist: choosing it would fail the run.
  set(launcher_env COMMPROF_LIBRARY=${LIBRARY} COMMPROF_OMPI_LIBRARY=${WORKDIR}/no-such-library.so)
  set(mpiexec_args -n 4 ${PROGRAM})
  if(MPI STREQUAL "openmpi")
    set(launcher_env COMMPROF_OMPI_LIBRARY=${LIBRARY} COMMPROF_LIBRARY=${WORKDIR}/no-such-library.so)
    set(mpiexec_args --oversubscribe -n 2 ${PROGRAM} : -n 2 ${PROGRAM})
  endif()
  # Second run: behind `env` the launcher says nothing, so commprof-run goes by
  # the MPI library the program is linked with (ldd).
  foreach(front "" "env;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
    file(REMOVE ${WORKDIR}/app.prof ${WORKDIR}/app.prof.expected)
    execute_process(
      COMMAND ${CMAKE_COMMAND} -E env ${launcher_env} ${LAUNCHER} -o app.prof -- ${front} ${MPIEXEC} ${mpiexec_args}
      WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "commprof-run -- ${front} ${MPIEXEC} exited with ${status}")
    endif()
    execute_process(COMMAND ${CHECKER} ${WORKDIR}/app.prof ${WORKDIR}/app.prof.expected RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "profile written under commprof-run -- ${front} ${MPIEXEC} does not match")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
