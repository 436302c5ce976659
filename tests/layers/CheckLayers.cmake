# The layer rule of docs/architecture.md, checked on every source file: a folder includes
# only the folders its layer may. Run as
#   cmake -DROOT=<source tree> -P CheckLayers.cmake
# Fails (exit code 1) listing each include that breaks the rule, with file and line.
#
#   io        -> io
#   sim       -> io, sim            (sim/heart -> sim/sph, never back; widgets and app
#                                    reach the solver only through its public headers)
#   narrative -> io, narrative
#   session   -> io, narrative, session
#   widgets   -> io, sim, narrative, session, widgets
#   app       -> everything above
# and io, sim, narrative and session include no Qt, OSG or libwebsockets.
cmake_minimum_required(VERSION 3.20)
if(NOT ROOT)
  message(FATAL_ERROR "CheckLayers.cmake: pass -DROOT=<source tree>")
endif()

set(allowed_io io)
set(allowed_sim io sim)
set(allowed_narrative io narrative)
set(allowed_session io narrative session)
set(allowed_widgets io sim narrative session widgets)
set(allowed_app io sim narrative session widgets app)
set(layers io sim narrative session widgets app)
# Headers of a layer that only the layer itself may include (internal seams).
set(internal_sim_sph sim/sph/Backend.h)

set(violations "")
set(checked 0)
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE sources LIST_DIRECTORIES false
       "${ROOT}/${layer}/*.h" "${ROOT}/${layer}/*.hpp" "${ROOT}/${layer}/*.cpp" "${ROOT}/${layer}/*.cu" "${ROOT}/${layer}/*.cuh")
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH rel "${ROOT}" "${source}")
    math(EXPR checked "${checked} + 1")
    file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS lines)
      if(line MATCHES "#[ \t]*include[ \t]*\"([A-Za-z_]+)/([^\"]*)\"")
        set(top "${CMAKE_MATCH_1}")
        set(target "${CMAKE_MATCH_1}/${CMAKE_MATCH_2}")
        list(FIND layers "${top}" known)
        if(known LESS 0)
          continue() # a header beside the file, or a third-party one in quotes
        endif()
        list(FIND allowed_${layer} "${top}" ok)
        if(ok LESS 0)
          list(APPEND violations "${rel}: ${layer}/ may not include ${target}")
        elseif(rel MATCHES "^sim/sph/" AND target MATCHES "^sim/heart/")
          list(APPEND violations "${rel}: sim/sph/ may not include ${target} (the heart hands the solver its boundary, not back)")
        elseif(NOT rel MATCHES "^sim/sph/")
          list(FIND internal_sim_sph "${target}" internal)
          if(internal GREATER_EQUAL 0)
            list(APPEND violations "${rel}: ${target} is internal to sim/sph/ (include sim/sph/Solver.h)")
          endif()
        endif()
      elseif(line MATCHES "#[ \t]*include[ \t]*<((Q[A-Za-z]+)|(osg[A-Za-z]*/[^>]*)|(libwebsockets[^>]*))>")
        if(layer MATCHES "^(io|sim|narrative|session)$")
          list(APPEND violations "${rel}: ${layer}/ holds no Qt, OSG or sockets, but includes <${CMAKE_MATCH_1}>")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "CheckLayers.cmake: no sources under ${ROOT}")
endif()
list(LENGTH violations count)
if(count GREATER 0)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "${count} include(s) break the layers of docs/architecture.md:\n  ${text}")
endif()
message(STATUS "layers: ${checked} files, every include within its layer")
