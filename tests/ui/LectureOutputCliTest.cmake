# Issue 21 items 3 and 5: a lecture's video ban and largest size bind every output of
# `atrium`, whatever narratives file is played beside it; its author (the key that
# signed it) exports its own narratives; a size beyond the limit is refused before
# anything is rendered. The lecture: an unlocked copy of the sample lecture whose
# author forbade video and allowed 640x400 at most, signed by its author.
include(${CMAKE_CURRENT_LIST_DIR}/CliExpect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(R ${OUT}/r.atrium)
file(COPY_FILE ${LECTURE} ${R})
file(WRITE ${OUT}/password "atrium-demo\n")
file(WRITE ${OUT}/wrong "atrium-dem0\n")
function(pack)
  execute_process(COMMAND ${ATRIUM_PACK} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "atrium-pack ${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()
pack(unlock ${R} --password-file ${OUT}/password)
pack(set-restrictions ${R} --video-export-forbidden yes --max-resolution 640x400 --key ${KEY})
pack(keygen --out ${OUT}/attacker.key)
pack(extract ${R} ${OUT}/rx)
set(COMMON --after-frames 2 --timeout 240 --fps 1)

# expect_refused(NEEDLE ARGS...): exit 3 with NEEDLE in the error, and no x.mp4/x.png.
function(expect_refused needle)
  execute_process(COMMAND ${ATRIUM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "${needle}" at)
  if(NOT rc EQUAL 3 OR at EQUAL -1)
    message(FATAL_ERROR "atrium ${ARGN}: expected exit 3 and '${needle}', got ${rc}: ${err}")
  endif()
  if(EXISTS ${OUT}/x.mp4 OR EXISTS ${OUT}/x.png)
    message(FATAL_ERROR "atrium ${ARGN}: a refused run left a file behind")
  endif()
endfunction()

# The bypass of the report: extracted narratives beside the lecture, at 1280x720.
expect_refused("the author forbids video export"
               ${R} --narratives ${OUT}/rx/narratives.json --narrative 1 --export-video ${OUT}/x.mp4 --size 1280x720 ${COMMON})
# The lecture's own narrative, for its audience.
expect_refused("the author forbids video export" ${R} --narrative 1 --export-video ${OUT}/x.mp4 --size 160x100 ${COMMON})
# Another key is not the author's, nor is a password for a lecture that has no lock.
expect_refused("is not its author's"
               ${R} --key ${OUT}/attacker.key --narrative 1 --export-video ${OUT}/x.mp4 --size 160x100 ${COMMON})
expect_refused("not locked" ${R} --password-file ${OUT}/password --narrative 1 --export-video ${OUT}/x.mp4 ${COMMON})

# Beyond the largest size: refused before the heart is shown. With --after-frames this
# high a run that rendered first would end in --timeout (exit 5) instead.
string(TIMESTAMP start "%s")
expect_refused("the author allows at most 640 x 400"
               ${R} --narrative 1 --at 1 --screenshot ${OUT}/x.png --size 8192x8192 --after-frames 100000 --timeout 60)
expect_refused("the author allows at most 640 x 400" ${R} --screenshot ${OUT}/x.png --size 641x400 --after-frames 100000 --timeout 60)
string(TIMESTAMP end "%s")
math(EXPR seconds "${end} - ${start}")
if(seconds GREATER 50)
  message(FATAL_ERROR "refusing two oversized screenshots took ${seconds} s")
endif()

# Within the limit, for anyone: the lecture's own narrative at a moment.
expect_output(${OUT}/small.png out "a screenshot within the limit"
              ${R} --narrative 1 --at 1 --screenshot ${OUT}/small.png --size 640x400 ${COMMON})
string(JSON node GET "${out}" node)
if(NOT node EQUAL 1)
  message(FATAL_ERROR "expected the lecture's first node, got ${out}")
endif()

# A node that holds the heart (the tour's third, held at phase 0.7 with the blood
# hidden): the picture waits until the beat has gone on to the held phase, as the
# window shows it (before, it caught whatever phase the beat had reached: 0.2).
expect_output(${OUT}/held.png out "a screenshot at a held node"
              ${R} --narrative 1 --at 28 --screenshot ${OUT}/held.png --size 320x200 ${COMMON})
string(JSON node GET "${out}" node)
string(JSON phase GET "${out}" cycle_phase)
if(NOT node EQUAL 3 OR phase LESS 0.68 OR phase GREATER 0.72)
  message(FATAL_ERROR "expected the third node with the heart held at phase 0.7, got ${out}")
endif()

# Its author: larger than the audience's limit, and the video, from the lecture's own narratives.
expect_output(${OUT}/large.png out "the author's screenshot beyond the audience's limit"
              ${R} --key ${KEY} --narrative 1 --at 1 --screenshot ${OUT}/large.png --size 800x500 ${COMMON})
expect_output(${OUT}/author.mp4 out "the author's export of the lecture's narrative"
              ${R} --key ${KEY} --narrative 1 --export-video ${OUT}/author.mp4 --size 160x100 ${COMMON})
string(JSON frames GET "${out}" frames)
if(frames LESS 10)
  message(FATAL_ERROR "expected the whole narrative in the author's video, got ${out}")
endif()

# A locked lecture: its author's password makes the author present as well.
file(COPY_FILE ${LECTURE} ${OUT}/locked.atrium)
pack(set-restrictions ${OUT}/locked.atrium --max-resolution 640x400 --password-file ${OUT}/password)
expect_refused("wrong password" ${OUT}/locked.atrium --password-file ${OUT}/wrong --screenshot ${OUT}/x.png --size 800x500 ${COMMON})
expect_output(${OUT}/locked.png out "the author's password lifting the limit"
              ${OUT}/locked.atrium --password-file ${OUT}/password --screenshot ${OUT}/locked.png --size 800x500 ${COMMON})


expect_failure("goes with a lecture" --key ${KEY} --screenshot ${OUT}/x.png)
expect_failure("has 1 narrative(s), not 4" ${R} --narrative 4 --screenshot ${OUT}/x.png --size 320x200 ${COMMON})
