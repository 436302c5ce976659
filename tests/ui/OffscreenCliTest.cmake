# The headless commands without a display (issue 26): with DISPLAY and WAYLAND_DISPLAY
# unset, `atrium --screenshot`, `--measure-frames` and a narrative's `--export-video`
# render on an EGL context of their own and write pictures of the size asked for, with
# the heart and the blood in them (measured by ${STATS}, atrium_picture_stats); with
# `--offscreen` a DISPLAY that is set is never opened (here one with no server behind
# it); without any EGL driver the run says so and exits 4 without a picture.
include(${CMAKE_CURRENT_LIST_DIR}/CliExpect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(NO_DISPLAY ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY)
set(COMMON --phantom adult --particles 3000 --after-frames 3 --timeout 240)

# picture_stats(FILE PREFIX): PREFIX_width, PREFIX_height, PREFIX_lit, PREFIX_blood of a
# PNG, or of an MP4's middle frame.
function(picture_stats file prefix)
  execute_process(COMMAND ${STATS} ${file} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${file} could not be measured (${rc}): ${err}")
  endif()
  foreach(key width height lit blood)
    string(JSON value GET "${out}" ${key})
    set(${prefix}_${key} ${value} PARENT_SCOPE)
  endforeach()
  message(STATUS "${file}: ${out}")
endfunction()

# expect_picture(FILE WIDTH HEIGHT): the size asked for, and a scene in it: at least 5 %
# of it drawn over the background and 2 % of it blood red.
function(expect_picture file width height)
  picture_stats(${file} p)
  if(NOT p_width EQUAL ${width} OR NOT p_height EQUAL ${height})
    message(FATAL_ERROR "${file}: expected ${width}x${height}, got ${p_width}x${p_height}")
  endif()
  if(p_lit LESS 0.05 OR p_blood LESS 0.02)
    message(FATAL_ERROR "${file}: blank or without blood (drawn ${p_lit}, blood ${p_blood})")
  endif()
endfunction()

# expect_offscreen(JSON): the run says it rendered offscreen.
function(expect_offscreen json what)
  string(JSON offscreen GET "${json}" offscreen)
  if(NOT offscreen)
    message(FATAL_ERROR "${what} did not render offscreen: ${json}")
  endif()
endfunction()

# 1. A screenshot with no display at all.
set(ATRIUM_DIRECT ${ATRIUM})
set(ATRIUM ${NO_DISPLAY} ${ATRIUM_DIRECT})
expect_output(${OUT}/shot.png out "screenshot without a display" ${COMMON} --screenshot ${OUT}/shot.png --size 480x320)
expect_offscreen("${out}" "a screenshot without a display")
expect_picture(${OUT}/shot.png 480 320)

# 2. Frame times with no display: every frame drawn on the EGL context.
execute_process(COMMAND ${ATRIUM} ${COMMON} --measure-frames 20 --size 320x240
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--measure-frames without a display failed (${rc}): ${err}")
endif()
expect_offscreen("${out}" "--measure-frames without a display")
string(JSON frames GET "${out}" frames)
string(JSON width GET "${out}" width)
string(JSON renderer GET "${out}" gl_renderer)
if(NOT frames EQUAL 20 OR NOT width EQUAL 320 OR renderer STREQUAL "")
  message(FATAL_ERROR "--measure-frames without a display: expected 20 frames at 320 wide on a named renderer, got ${out}")
endif()
message(STATUS "measured offscreen: ${out}")

# 3. A narrative's video with no display: the shipped tour's first node, 160x90 at
# 4 fps, its overlays painted in.
write_short_tour(${SOURCE}/content/narratives/phantom-tour.narratives.json ${OUT}/short)
expect_output(${OUT}/tour.mp4 out "narrative video without a display"
              ${COMMON} --size 160x90 --fps 4 --narratives ${OUT}/short/short.narratives.json --narrative 1
              --export-video ${OUT}/tour.mp4)
expect_offscreen("${out}" "the video export without a display")
string(JSON frames GET "${out}" frames)
if(NOT frames EQUAL 35) # 0.8 + 7 + 0.6 s at 4 fps
  message(FATAL_ERROR "expected 35 frames, got ${out}")
endif()
expect_picture(${OUT}/tour.mp4 160 90)

# 4. --offscreen with DISPLAY set: that display is never opened (none answers at :987).
set(ATRIUM ${CMAKE_COMMAND} -E env --unset=WAYLAND_DISPLAY DISPLAY=:987 ${ATRIUM_DIRECT})
expect_output(${OUT}/forced.png out "--offscreen with DISPLAY set"
              ${COMMON} --offscreen --screenshot ${OUT}/forced.png --size 320x200)
expect_offscreen("${out}" "--offscreen with DISPLAY set")
expect_picture(${OUT}/forced.png 320 200)

# 5. Errors: --offscreen is for the headless commands; without an EGL driver (GLVND
# pointed at a vendor file that does not exist) the run names what failed, exits 4 and
# leaves no picture.
set(ATRIUM ${NO_DISPLAY} ${ATRIUM_DIRECT})
expect_failure("--offscreen goes with --screenshot" --offscreen --phantom adult)
expect_no_renderer("offscreen rendering \\(no DISPLAY\\): no EGL display could be initialised" ${OUT}/none.png "without EGL"
                   ${NO_DISPLAY} __EGL_VENDOR_LIBRARY_FILENAMES=${OUT}/no-such-vendor.json
                   ${ATRIUM_DIRECT} ${COMMON} --screenshot ${OUT}/none.png)
