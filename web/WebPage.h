#pragma once
// The student page, embedded at build time (web/CMakeLists.txt): its HTML, its style
// sheet and its script (web/src bundled by esbuild), served by app/transport on the
// lecture's port. Text, exactly the files' bytes.

#include <string_view>

namespace atrium::webpage {
extern const std::string_view kIndexHtml; ///< web/page/index.html
extern const std::string_view kStyleCss;  ///< web/page/style.css
extern const std::string_view kAppJs;     ///< web/src/main.js and what it imports, bundled and minified
} // namespace atrium::webpage
