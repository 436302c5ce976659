# Writes a C++ file defining `extern const char SYMBOL[]` with the text of IN.
file(READ ${IN} text)
set(delimiter "ATRIUM_EMBED")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter")
endif()
file(WRITE ${OUT}.tmp "// Generated from ${IN}; do not edit.\nextern const char ${SYMBOL}[];\nconst char ${SYMBOL}[] = R\"${delimiter}(${text})${delimiter}\";\n")
file(RENAME ${OUT}.tmp ${OUT})
