# commprof_launch_command(OUT MPI MPIEXEC NP ENV...): the command that starts
# NP ranks with the environment ENV (NAME=VALUE items) reaching every rank,
# the way each launcher needs it:
#   mpich:   cmake -E env ENV... mpiexec -n NP   (Hydra passes its environment on)
#   openmpi: mpirun -x NAME=VALUE... -n NP, oversubscribed on few cores with
#            yield_when_idle; root allowed through Open MPI's own variables.
function(commprof_launch_command out mpi mpiexec np)
  if(mpi STREQUAL "openmpi")
    set(cmd ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
            ${mpiexec} --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
    foreach(item ${ARGN})
      list(APPEND cmd -x ${item})
    endforeach()
    list(APPEND cmd -n ${np})
  else()
    set(cmd ${CMAKE_COMMAND} -E env ${ARGN} ${mpiexec} -n ${np})
  endif()
  set(${out} ${cmd} PARENT_SCOPE)
endfunction()
