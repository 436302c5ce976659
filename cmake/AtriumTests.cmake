# atrium_discover_tests(TARGET [gtest_discover_tests arguments] [PROPERTIES name value ...])
#
# Registers a gtest binary's tests with ctest, as gtest_discover_tests does, and sets
# PROPERTIES on every one of them with each value whole. gtest_discover_tests passes its
# own PROPERTIES on as one flat list (CMake 3.25): a value that is itself a list
# (LABELS "ui;package", or two ENVIRONMENT entries) shifts every pair after it, and
# RESOURCE_LOCK, FIXTURES_REQUIRED, TIMEOUT and ENVIRONMENT were silently lost for 50
# tests. Here the pairs go into a file that ctest reads after the discovered list, each
# value in a bracket argument. tests/CheckTestProperties.cmake (ctest test_properties)
# checks the result.
function(atrium_discover_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "PROPERTIES")
  gtest_discover_tests(${target} ${arg_UNPARSED_ARGUMENTS} TEST_LIST ${target}_TESTS)
  if(NOT arg_PROPERTIES)
    return()
  endif()
  list(LENGTH arg_PROPERTIES count)
  math(EXPR odd "${count} % 2")
  if(odd)
    message(FATAL_ERROR "atrium_discover_tests(${target}): PROPERTIES needs name value pairs")
  endif()
  set(pairs "")
  set(i 0)
  while(i LESS count)
    list(GET arg_PROPERTIES ${i} name)
    math(EXPR i "${i} + 1")
    list(GET arg_PROPERTIES ${i} value)
    math(EXPR i "${i} + 1")
    string(APPEND pairs "\n    ${name} [==[${value}]==]")
  endwhile()
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${target}_properties.cmake")
  file(WRITE "${file}" "# Written by atrium_discover_tests (cmake/AtriumTests.cmake).\nif(${target}_TESTS)\n  set_tests_properties(\${${target}_TESTS} PROPERTIES${pairs})\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()
