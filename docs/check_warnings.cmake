# cmake -DDOXYGEN=doxygen -DCONFIG=Doxyfile.docs -DLOG=warnings.log -P check_warnings.cmake
# Builds the docs and fails, printing every warning, unless Doxygen wrote none.
file(REMOVE ${LOG})
execute_process(COMMAND ${DOXYGEN} ${CONFIG} RESULT_VARIABLE code)
set(warnings "")
if(EXISTS ${LOG})
  file(STRINGS ${LOG} warnings REGEX "warning:|error:")
endif()
list(LENGTH warnings count)
if(count GREATER 0 OR NOT code EQUAL 0)
  file(READ ${LOG} text)
  message(FATAL_ERROR "${text}\ndoxygen: ${count} warning(s), exit ${code}; every public class, "
                      "function and member needs a /// comment")
endif()
message(STATUS "doxygen: 0 warnings")
