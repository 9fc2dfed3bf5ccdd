# Run after an exercise (or solution) library is built: fails when its object code calls a
# function of tplab that the exercise may not use, one whose definition lies outside the
# primitives and the lesson's allowed library files. The include path already keeps the
# finished layers' headers out; this catches a declaration written by hand, or a header reached
# by a relative path.
#
#   cmake -DEXERCISE=<archive> -DLIBRARIES=<archives> -DALLOWED=<object names> -DNM=<nm>
#         -DDEMANGLE=<c++filt or empty> -DTARGET=<target> -P check_exercise_links.cmake
#
# ALLOWED names the objects of the allowed sources as the archives name them ("comm.cpp.o").
# Only strong definitions (T, D, B, R) count: an inline function or a template instance is
# defined weakly in every object that uses it.

cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${NM} -A -P --defined-only ${LIBRARIES}
                OUTPUT_VARIABLE defined RESULT_VARIABLE defined_rc ERROR_VARIABLE defined_err)
if(NOT defined_rc EQUAL 0)
  message(FATAL_ERROR "${NM} could not read ${LIBRARIES}: ${defined_err}")
endif()
execute_process(COMMAND ${NM} -P --undefined-only ${EXERCISE}
                OUTPUT_VARIABLE undefined RESULT_VARIABLE undefined_rc ERROR_VARIABLE undefined_err)
if(NOT undefined_rc EQUAL 0)
  message(FATAL_ERROR "${NM} could not read ${EXERCISE}: ${undefined_err}")
endif()

# <out> = `symbol` as C++ writes it, where c++filt is there to say.
function(demangled symbol out)
  set(name "${symbol}")
  if(DEMANGLE)
    execute_process(COMMAND ${DEMANGLE} ${symbol} OUTPUT_VARIABLE name
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  set(${out} "${name}" PARENT_SCOPE)
endfunction()

# "\n<symbol> <object>\n" for every strong definition in an object that is not allowed.
set(forbidden "\n")
string(REPLACE "\n" ";" lines "${defined}")
foreach(line IN LISTS lines)
  if(line MATCHES "\\[([^]]+)\\]: ([^ ]+) [TDBR] ")
    if(NOT CMAKE_MATCH_1 IN_LIST ALLOWED)
      string(APPEND forbidden "${CMAKE_MATCH_2} ${CMAKE_MATCH_1}\n")
    endif()
  endif()
endforeach()

set(calls "")
string(REPLACE "\n" ";" lines "${undefined}")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ]+) U")
    set(symbol "${CMAKE_MATCH_1}")
    string(FIND "${forbidden}" "\n${symbol} " at)
    if(at GREATER -1)
      string(SUBSTRING "${forbidden}" ${at} -1 rest)
      string(REGEX MATCH "^\n[^ ]+ ([^\n]+)" found "${rest}")
      set(object "${CMAKE_MATCH_1}")
      demangled(${symbol} name)
      string(APPEND calls "  ${name}  (defined in ${object})\n")
    endif()
  endif()
endforeach()

# What no exercise needs and a cheat would: a collective behind the counted Comm's back (MPI,
# NCCL, their internals), its own counters written (CommCounters' mutators), files opened (a
# transcript forged, the program's own symbols or the check's memory read through /proc), code
# found at run time (dlsym), processes started or signalled (one left behind to race the
# judge), raw system calls. nm names them as the object calls them, unversioned.
set(system_calls "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ]+) U")
    set(symbol "${CMAKE_MATCH_1}")
    if(symbol MATCHES "^(P?MPI_|ompi_|opal_|mca_|nccl|cuda)"
       OR symbol MATCHES "^_ZN5tplab12CommCounters(6record|5reset|16record_in_flight)"
       OR symbol MATCHES "^(fopen|fopen64|freopen|freopen64|open|open64|openat|openat64|creat|creat64|opendir|fdopendir|readlink|readlinkat|mmap|mmap64|mprotect|dlopen|dlmopen|dlsym|dlvsym|dladdr|dl_iterate_phdr|fork|vfork|clone|clone3|execl|execle|execlp|execv|execve|execvp|execvpe|fexecve|posix_spawn|posix_spawnp|system|popen|setsid|setpgid|daemon|kill|killpg|tgkill|syscall|ptrace|process_vm_readv|process_vm_writev|prctl|getenv|secure_getenv|environ|__environ)$"
       OR symbol MATCHES "basic_(i|o)?fstream|basic_filebuf.*4open|filesystem")
      demangled(${symbol} name)
      string(APPEND system_calls "  ${name}\n")
    endif()
  endif()
endforeach()
if(system_calls)
  message(FATAL_ERROR
          "${TARGET} calls what an exercise may not use (MPI or NCCL behind the Comm, the "
          "counters' writers, files, the environment, processes, signals, system calls):\n"
          "${system_calls}"
          "An exercise computes with the Device operations and communicates through the Comm "
          "collectives only; the check counts every collective it makes.")
endif()

if(calls)
  message(FATAL_ERROR
          "${TARGET} calls the finished library, which an exercise may not use:\n${calls}"
          "Write the step with the Device operations (device/device.hpp) and the Comm "
          "collectives (comm/comm.hpp) instead.")
endif()
