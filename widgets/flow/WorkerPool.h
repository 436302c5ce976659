#pragma once
// The threads that long work of the window runs on (loading a heart, baking a flow,
// finishing a video, stopping a simulation): a pool of their own, apart from Qt's global
// one. Qt's raster engine splits the painting of widgets over the global pool and waits
// for it, so long tasks there froze every dialog, the progress dialog included
// (issue 15: File > Synthetic heart > child hung the window for 3.5 s on 2 cores).

class QThreadPool;

namespace atrium::widgets {

/// The pool, created on first use and owned by the application object (which waits
/// for its tasks when it is destroyed). Call from the UI thread.
QThreadPool& workerPool();

} // namespace atrium::widgets
