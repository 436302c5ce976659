#pragma once
// How much memory one input may make Atrium allocate, checked before the allocation.
//
// A file's header (a mesh's point count, a volume's extent, a scene's fluid blocks)
// declares sizes that the reader would allocate; a 200-byte file may declare gigabytes.
// Readers compare the bytes an input would need with the budget and refuse the input,
// naming it, instead of dying in std::bad_alloc or driving the machine into swap.
//
// The budget is the memory the kernel reports available (MemAvailable in /proc/meminfo)
// when it is asked, or the limit the user set (atrium-sim and atrium: --max-memory SIZE;
// or the environment variable ATRIUM_MAX_MEMORY), whichever is set last.

#include <cstdint>
#include <string>

namespace atrium::io {

/// Bytes of memory currently available to this process (MemAvailable; 1 GiB if unknown).
std::uint64_t availableMemoryBytes();

/// The current budget in bytes: the value set by setMemoryBudget, else
/// ATRIUM_MAX_MEMORY, else availableMemoryBytes().
std::uint64_t memoryBudgetBytes();
/// Where the budget comes from, for messages: "--max-memory", "ATRIUM_MAX_MEMORY" or
/// "the available memory".
std::string memoryBudgetSource();

/// Sets the budget (0: back to ATRIUM_MAX_MEMORY or the available memory). `source`
/// names the setting in messages (e.g. "--max-memory").
void setMemoryBudget(std::uint64_t bytes, const std::string& source = "--max-memory");

/// "8G", "512M", "1.5GiB", "64k", "1000000" (bytes) -> bytes; suffixes are powers of
/// 1024, case-insensitive, an optional "B"/"iB". Throws std::invalid_argument naming the
/// text for anything else, for zero and for values above 2^62.
std::uint64_t parseByteSize(const std::string& text);

/// "512 B", "3.2 MiB", "16.0 GiB".
std::string formatBytes(double bytes);

/// True when `bytes` fit the budget.
bool fitsMemoryBudget(double bytes);

/// "needs about 16.0 GiB, more than the memory limit of 7.5 GiB (the available memory;
/// set another with --max-memory)": the tail of a refusal, for the caller to prefix with
/// the input and what it declares.
std::string overBudgetText(double bytes);

} // namespace atrium::io
