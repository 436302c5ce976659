# For the CLI test scripts: expect_failure(NEEDLE ARGS...) runs ${ATRIUM} ARGS and
# fails the test unless it exits non-zero with NEEDLE in its error output.
function(expect_failure needle)
  execute_process(COMMAND ${ATRIUM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "atrium ${ARGN} should fail but exited 0")
  endif()
  string(FIND "${err}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "atrium ${ARGN}: expected '${needle}' in the error, got: ${err}")
  endif()
endfunction()

# write_short_tour(TOUR DIR): DIR/short.narratives.json, a copy of the narratives file
# TOUR cut to its first narrative's first node (no transition), with the shipped
# narratives' media beside it: a video export of a few seconds.
function(write_short_tour tour dir)
  file(READ ${tour} text)
  string(JSON first GET "${text}" narratives 0 nodes 0)
  string(JSON short SET "${text}" narratives 0 nodes "[${first}]")
  string(JSON short SET "${short}" narratives 0 transitions "[]")
  file(MAKE_DIRECTORY ${dir})
  get_filename_component(folder ${tour} DIRECTORY)
  file(COPY ${folder}/media DESTINATION ${dir})
  file(WRITE ${dir}/short.narratives.json "${short}")
endfunction()

# expect_output(FILE VAR WHAT ARGS...) runs ${ATRIUM} ARGS and fails the test, naming
# WHAT, unless it exits 0 having written FILE; VAR gets its standard output (the JSON).
function(expect_output file var what)
  execute_process(COMMAND ${ATRIUM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${file})
    message(FATAL_ERROR "${what} failed (${rc}): ${err}")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

# expect_no_renderer(PATTERN FILE WHAT COMMAND...) runs COMMAND (an atrium command line
# in a setting without the OpenGL it needs) and fails the test, naming WHAT, unless it
# exits 4 with PATTERN (a regular expression) in its error output and leaves no FILE.
function(expect_no_renderer pattern file what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 4 OR NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: expected exit 4 and '${pattern}', got ${rc}: ${err}")
  endif()
  if(EXISTS ${file})
    message(FATAL_ERROR "${what}: the failed run left ${file} behind")
  endif()
endfunction()
