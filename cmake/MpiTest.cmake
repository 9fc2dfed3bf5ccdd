# tplab_add_mpi_test(NAME target RANKS 1 2 4 [TIMEOUT s] [DEVICE cpu|cuda] [LABELS ...] [ARGS ...])
#
# DEVICE (default cpu) is the test's first label. A cuda test is marked skipped, not passed,
# when its output says the machine has no GPU (TPLAB_NO_GPU_PATTERN).
# Registers one CTest test per world size, each running the whole GoogleTest binary under
# mpiexec. Tests are not discovered with gtest_discover_tests: that would run them without
# mpiexec. The binary's main() (parallel/tests/mpi_test_main.cpp) ends the whole job at the
# first failure on any rank, naming the rank and the test, so that ranks waiting in a
# collective do not hang; the CTest timeout is left for a hang that no assertion catches.

# The environment of every MPI test: Open MPI allowed to run as root (in a container) and to
# start more ranks than cores, its ranks yielding the CPU while they wait.
set(TPLAB_MPI_TEST_ENVIRONMENT
    "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_mpi_yield_when_idle=1")

function(tplab_add_mpi_test name target)
  cmake_parse_arguments(ARG "" "TIMEOUT;DEVICE" "RANKS;LABELS;ARGS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  if(NOT ARG_DEVICE)
    set(ARG_DEVICE cpu)
  endif()
  foreach(ranks IN LISTS ARG_RANKS)
    add_test(NAME ${name}.np${ranks}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:${target}> ${ARG_ARGS} ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${name}.np${ranks} PROPERTIES
      TIMEOUT ${ARG_TIMEOUT}
      LABELS "${ARG_DEVICE};mpi;${ARG_LABELS}"
      PROCESSORS ${ranks}
      ENVIRONMENT "${TPLAB_MPI_TEST_ENVIRONMENT}")
    if(ARG_DEVICE STREQUAL "cuda")
      set_tests_properties(${name}.np${ranks} PROPERTIES SKIP_REGULAR_EXPRESSION "${TPLAB_NO_GPU_PATTERN}")
    endif()
  endforeach()
endfunction()
