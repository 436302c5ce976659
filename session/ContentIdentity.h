#pragma once
// The identity of a session's content: a package file named by the BLAKE2b-256 hash of
// its bytes, so that a student can tell whether the package it has is the lecturer's,
// and can download it by hash.

#include "session/Protocol.h"

#include <filesystem>
#include <functional>

namespace atrium::session {

/// Hashes `file` (streamed, so any size); `progress` gets bytes done and total and may
/// return false to cancel (then nullopt). Throws std::runtime_error naming the file when
/// it cannot be read.
std::optional<ContentId> contentIdOf(const std::filesystem::path& file,
                                     const std::function<bool(std::uint64_t, std::uint64_t)>& progress = {});

} // namespace atrium::session
