# `atrium --meshes` on an open ventricle series, with an outer surface as a shell
# (issue 10), end to end and headless: the openings become valves, so the blood beats
# without being restarted (as --screenshot and --measure-frames report); the shell is
# drawn; a second --shell and a missing one are refused.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT}/lv ${OUT}/shell)

foreach(args "--ventricle;${OUT}/lv/lv_%02d.vtk" "${OUT}/shell/heart_%02d.vtk")
  execute_process(COMMAND ${ATRIUM_SIM} phantom-meshes ${args} --json RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "atrium-sim phantom-meshes ${args} failed (${rc}): ${err}")
  endif()
endforeach()

execute_process(COMMAND ${ATRIUM} --meshes ${OUT}/lv/lv_%02d.vtk --shell ${OUT}/shell/heart_%02d.vtk
                        --particles 1500 --screenshot ${OUT}/shot.png --after-seconds 0.2 --size 320x240 --timeout 240
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "screenshot of the open series failed (${rc}): ${err}")
endif()
string(JSON restarts GET "${out}" restarts)
string(JSON shell GET "${out}" shell_triangles)
string(JSON particles GET "${out}" particles)
string(JSON simulated GET "${out}" simulated_seconds)
if(NOT restarts EQUAL 0)
  message(FATAL_ERROR "the blood was restarted ${restarts} times: ${out}")
endif()
if(NOT shell GREATER 1000)
  message(FATAL_ERROR "expected the shell drawn (thousands of triangles): ${out}")
endif()
if(NOT particles GREATER 500)
  message(FATAL_ERROR "expected blood in the ventricle: ${out}")
endif()
# Into the first systole (after the 0.15 s top-up), where capped openings blew up:
# --after-seconds waits for it however fast the frames come.
if(simulated GREATER_EQUAL 0.2)
else()
  message(FATAL_ERROR "expected the blood simulated into systole (0.2 s) by the screenshot: ${out}")
endif()
message(STATUS "open series: ${out}")

# --measure-frames says as honestly whether the blood was restarted.
execute_process(COMMAND ${ATRIUM} --meshes ${OUT}/lv/lv_%02d.vtk --particles 1500 --measure-frames 5 --after-frames 3
                        --size 320x240 --timeout 240
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--measure-frames on the open series failed (${rc}): ${err}")
endif()
string(JSON restarts GET "${out}" restarts)
string(JSON frames GET "${out}" frames)
if(NOT restarts EQUAL 0 OR NOT frames EQUAL 5)
  message(FATAL_ERROR "expected 5 frames and no restart: ${out}")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/CliExpect.cmake)
expect_failure("--shell is given more than once" --meshes ${OUT}/lv/lv_%02d.vtk --shell ${OUT}/shell/heart_%02d.vtk
               --shell ${OUT}/shell/heart_%02d.vtk --screenshot ${OUT}/bad.png)
expect_failure("${OUT}/no-such-shell" --meshes ${OUT}/lv/lv_%02d.vtk --shell ${OUT}/no-such-shell/s_%02d.vtk
               --screenshot ${OUT}/bad.png --timeout 120)
