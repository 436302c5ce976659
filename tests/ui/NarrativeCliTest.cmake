# `atrium --narratives` end to end, with the shipped tour: a screenshot of a narrative
# at a given moment (overlays included) reports the node and the overlays' alpha; a
# short video export writes an MP4; a bad file, a narrative out of range and options
# without --narratives fail with a message naming the culprit.
include(${CMAKE_CURRENT_LIST_DIR}/CliExpect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(TOUR ${SOURCE}/content/narratives/phantom-tour.narratives.json)
set(COMMON --phantom adult --particles 3000 --after-frames 3 --size 480x270 --timeout 240)

# 2.0 s: the first node, its overlays fully shown (fade-in 0.8 s).
expect_output(${OUT}/at2.png out "narrative screenshot"
              ${COMMON} --narratives ${TOUR} --narrative 1 --at 2 --screenshot ${OUT}/at2.png)
string(JSON node GET "${out}" node)
string(JSON alpha GET "${out}" overlay_alpha)
if(NOT node EQUAL 1 OR NOT alpha EQUAL 1)
  message(FATAL_ERROR "at 2 s expected node 1 with its overlays shown, got ${out}")
endif()
# 0.4 s: half way through the first fade-in.
execute_process(COMMAND ${ATRIUM} ${COMMON} --narratives ${TOUR} --narrative 1 --at 0.4 --screenshot ${OUT}/fade.png
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JSON alpha GET "${out}" overlay_alpha)
if(NOT rc EQUAL 0 OR NOT alpha EQUAL 0.5)
  message(FATAL_ERROR "at 0.4 s expected alpha 0.5, got ${out} ${err}")
endif()
# 10 s: in the flight to the second node.
execute_process(COMMAND ${ATRIUM} ${COMMON} --narratives ${TOUR} --narrative 1 --at 10 --screenshot ${OUT}/flight.png
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JSON transition GET "${out}" transition)
string(JSON node GET "${out}" node)
if(NOT rc EQUAL 0 OR NOT transition OR NOT node EQUAL 2)
  message(FATAL_ERROR "at 10 s expected the flight to node 2, got ${out} ${err}")
endif()

# A short export: the tour's first 3 s at 160x90, 4 fps, as a one-node copy of it.
write_short_tour(${TOUR} ${OUT}/short)
execute_process(COMMAND ${ATRIUM} --phantom adult --particles 3000 --after-frames 3 --timeout 240 --size 160x90 --fps 4
                        --narratives ${OUT}/short/short.narratives.json --narrative 1 --export-video ${OUT}/tour.mp4
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT}/tour.mp4)
  message(FATAL_ERROR "export failed (${rc}): ${err}")
endif()
string(JSON frames GET "${out}" frames)
file(SIZE ${OUT}/tour.mp4 bytes)
# 0.8 + 7 + 0.6 = 8.4 s at 4 fps: 35 frames.
if(NOT frames EQUAL 35 OR bytes LESS 1000)
  message(FATAL_ERROR "expected 35 frames in a real file, got ${out}, ${bytes} bytes")
endif()
string(FIND "${err}" "exporting 100 %" done)
if(done EQUAL -1)
  message(FATAL_ERROR "no progress line on stderr: ${err}")
endif()



file(WRITE ${OUT}/bad.narratives.json "{\"format\": \"atrium-narratives\", \"version\": 7, \"narratives\": []}")
expect_failure("/version: unsupported version 7" --narratives ${OUT}/bad.narratives.json --narrative 1 --screenshot ${OUT}/x.png)
expect_failure("has 1 narrative(s), not 3" --narratives ${TOUR} --narrative 3 --screenshot ${OUT}/x.png)
expect_failure("--narratives FILE" --narrative 1 --screenshot ${OUT}/x.png)
expect_failure("--at expects seconds" --narratives ${TOUR} --narrative 1 --at -2 --screenshot ${OUT}/x.png)
if(EXISTS ${OUT}/x.png)
  message(FATAL_ERROR "a failed run left an image behind")
endif()
