#pragma once
// The one folder per process where a lecture's files are put on disk when something
// needs a file rather than bytes (Qt Multimedia, a heart series read by path):
// $TMPDIR/atrium-lecture-<pid>-XXXXXX, made on first use, private to the user (0700).
// Everything else of a lecture - its manifest, narratives, branding, baked flow - is
// read from the package in memory and never touches the disk.
//
// The folder goes on every exit path: each lecture removes its own part when it closes,
// and the whole folder is removed at exit (normal return, std::exit, or a terminating
// signal that the viewer turns into an exit). A process that is killed outright cannot
// clean up, so the folder holds a lock (flock on its ".owner" file) for as long as its
// process lives: the next start removes every atrium-lecture-* folder whose lock is free
// (its process is gone), and those of older builds that carry none.

#include <cstddef>
#include <filesystem>

namespace atrium::widgets::scratch {

/// This process's folder, made (and the stale ones removed) on first call. Thread-safe.
/// Throws std::filesystem::filesystem_error when it cannot be made.
std::filesystem::path processFolder();

/// A new, empty folder of its own inside processFolder() (one per open lecture).
std::filesystem::path newFolder(const char* prefix);

/// Removes, from the temporary folder, the atrium-lecture-* folders of this user that no
/// running process owns: their ".owner" lock is free, or (without one) the process their
/// name carries has gone, or they are older builds' and untouched for an hour. Returns how
/// many it removed; never throws.
std::size_t removeStale();

/// Removes this process's folder now (also done at exit). Safe to call more than once;
/// a forked child that exits leaves its parent's folder alone.
void removeProcessFolder();

} // namespace atrium::widgets::scratch
