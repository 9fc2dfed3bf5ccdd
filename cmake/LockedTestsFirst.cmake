# tplab_locked_tests_first(<lock>)
# The tests of this folder that hold the resource lock <lock> run one at a time, one after the
# other; ctest starts the tests of highest COST first, and a clean build has no measured costs
# yet, so without one such a chain would begin only when every other test had ended and run on
# one core while the others stood idle. A high COST starts it first, beside the rest. Call it
# after the folder's last add_test.
function(tplab_locked_tests_first lock)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} RESOURCE_LOCK locks)
    if(lock IN_LIST locks)
      set_tests_properties(${test} PROPERTIES COST 10000)
    endif()
  endforeach()
endfunction()
