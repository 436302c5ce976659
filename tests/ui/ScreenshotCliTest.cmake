# `atrium --screenshot` end to end: it writes a PNG and exits 0; bad options and a
# heart that cannot be loaded exit non-zero with a message naming the culprit.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})

execute_process(COMMAND ${ATRIUM} --phantom adult --particles 3000 --screenshot ${OUT}/shot.png --after-frames 3
                        --size 480x320 --timeout 240
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "screenshot run failed (${rc}): ${err}")
endif()
if(NOT EXISTS ${OUT}/shot.png)
  message(FATAL_ERROR "no PNG written; stdout: ${out}")
endif()
string(JSON width GET "${out}" width)
string(JSON seconds GET "${out}" seconds_to_first_heart)
string(JSON restarts GET "${out}" restarts)
if(NOT width EQUAL 480)
  message(FATAL_ERROR "expected width 480 in ${out}")
endif()
if(NOT restarts EQUAL 0)
  message(FATAL_ERROR "the blood was restarted ${restarts} times before the screenshot: ${out}")
endif()
message(STATUS "heart shown after ${seconds} s")

include(${CMAKE_CURRENT_LIST_DIR}/CliExpect.cmake)

expect_failure("--size" --screenshot ${OUT}/bad.png --size 0x0)
expect_failure("--size" --screenshot ${OUT}/bad.png --size 99999x10)
expect_failure("nope" --phantom nope --screenshot ${OUT}/bad.png)
expect_failure("--mode" --mode sideways --screenshot ${OUT}/bad.png)
expect_failure("--after-seconds expects" --after-seconds soon --screenshot ${OUT}/bad.png)
expect_failure("--after-seconds goes with" --after-seconds 0.2)
expect_failure("${OUT}/no-such-folder" --meshes ${OUT}/no-such-folder --screenshot ${OUT}/bad.png --timeout 60)
# A display without OpenGL (Xvfb without GLX, imitated by turning Qt's GL integration
# off): a message that says so instead of a crash inside Qt.
expect_no_renderer("no OpenGL context" ${OUT}/bad.png "without OpenGL"
                   ${CMAKE_COMMAND} -E env QT_XCB_GL_INTEGRATION=none ${ATRIUM} --particles 1000 --screenshot ${OUT}/bad.png
                   --timeout 60)
