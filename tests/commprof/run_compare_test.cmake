# Cross-checks of libcommprof-ompi. -D MODE=same_p2p|monitoring plus
#   same_p2p:   MPIEXEC MPICH_PROGRAM MPICH_LIBRARY OMPI_MPIRUN OMPI_PROGRAM OMPI_LIBRARY NP WORKDIR CHECKER
#               one program built for each MPI, run under each with its profiler:
#               the p2p records must be identical.
#   monitoring: OMPI_MPIRUN OMPI_PROGRAM OMPI_LIBRARY NP WORKDIR CHECKER
#               one Open MPI run under both libcommprof-ompi and Open MPI's pml
#               monitoring (--mca pml_monitoring_enable 2): our p2p records must
#               equal monitoring's external messages between distinct ranks.
include(${CMAKE_CURRENT_LIST_DIR}/mpi_launch.cmake)
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})

function(run_profiled mpi mpiexec program library output)
  commprof_launch_command(launch ${mpi} ${mpiexec} ${NP} LD_PRELOAD=${library} COMMPROF_OUTPUT=${output})
  execute_process(COMMAND ${launch} ${ARGN} ${program} WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${program} under ${mpi} exited with ${status}")
  endif()
endfunction()

if(MODE STREQUAL "same_p2p")
  run_profiled(mpich ${MPIEXEC} ${MPICH_PROGRAM} ${MPICH_LIBRARY} ${WORKDIR}/mpich.prof)
  run_profiled(openmpi ${OMPI_MPIRUN} ${OMPI_PROGRAM} ${OMPI_LIBRARY} ${WORKDIR}/openmpi.prof)
  execute_process(COMMAND ${CHECKER} --same-p2p ${WORKDIR}/openmpi.prof ${WORKDIR}/mpich.prof RESULT_VARIABLE status)
elseif(MODE STREQUAL "monitoring")
  run_profiled(openmpi ${OMPI_MPIRUN} ${OMPI_PROGRAM} ${OMPI_LIBRARY} ${WORKDIR}/openmpi.prof
               --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
               --mca pml_monitoring_filename ${WORKDIR}/monitoring)
  execute_process(COMMAND ${CHECKER} --monitoring ${WORKDIR}/openmpi.prof ${WORKDIR}/monitoring RESULT_VARIABLE status)
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${MODE}: the profiles differ (see above)")
endif()
