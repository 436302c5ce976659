#include "io/MemoryBudget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include <unistd.h>

namespace atrium::io {
namespace {

std::mutex budgetMutex;
std::uint64_t budgetBytes = 0;
std::string budgetName;

} // namespace

std::uint64_t availableMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t value = 0;
    std::string unit;
    while (meminfo >> key >> value) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:") return value * 1024;
    }
    const long pages = sysconf(_SC_AVPHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0) return std::uint64_t(pages) * std::uint64_t(pageSize);
    return std::uint64_t(1) << 30;
}

std::uint64_t memoryBudgetBytes() {
    {
        std::lock_guard lock(budgetMutex);
        if (budgetBytes > 0) return budgetBytes;
    }
    if (const char* env = std::getenv("ATRIUM_MAX_MEMORY"); env != nullptr && env[0] != '\0') {
        try {
            return parseByteSize(env);
        } catch (const std::invalid_argument&) {
            // A broken variable is reported by memoryBudgetSource(); fall back to RAM.
        }
    }
    return availableMemoryBytes();
}

std::string memoryBudgetSource() {
    {
        std::lock_guard lock(budgetMutex);
        if (budgetBytes > 0) return budgetName;
    }
    if (const char* env = std::getenv("ATRIUM_MAX_MEMORY"); env != nullptr && env[0] != '\0') {
        try {
            parseByteSize(env);
            return "ATRIUM_MAX_MEMORY";
        } catch (const std::invalid_argument&) {
            return "the available memory (ATRIUM_MAX_MEMORY='" + std::string(env) + "' is not a size)";
        }
    }
    return "the available memory";
}

void setMemoryBudget(std::uint64_t bytes, const std::string& source) {
    std::lock_guard lock(budgetMutex);
    budgetBytes = bytes;
    budgetName = source;
}

std::uint64_t parseByteSize(const std::string& text) {
    const auto bad = [&](const std::string& why) {
        return std::invalid_argument("'" + text + "' is not a memory size (" + why +
                                     "; e.g. 8G, 512M or a number of bytes)");
    };
    std::size_t used = 0;
    double number = 0.0;
    try {
        number = std::stod(text, &used);
    } catch (const std::exception&) {
        throw bad("no number");
    }
    std::string unit = text.substr(used);
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
    if (unit.size() > 1 && unit.back() == 'b') unit.pop_back();
    if (unit.size() > 1 && unit.back() == 'i') unit.pop_back();
    double scale = 1.0;
    if (unit.empty() || unit == "b") scale = 1.0;
    else if (unit == "k") scale = 1024.0;
    else if (unit == "m") scale = 1024.0 * 1024.0;
    else if (unit == "g") scale = 1024.0 * 1024.0 * 1024.0;
    else if (unit == "t") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
    else throw bad("unknown unit '" + text.substr(used) + "'");
    const double bytes = number * scale;
    if (!std::isfinite(bytes) || !(bytes >= 1.0)) throw bad("must be at least 1 byte");
    if (bytes > std::ldexp(1.0, 62)) throw bad("larger than 2^62 bytes");
    return std::uint64_t(bytes);
}

std::string formatBytes(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    double v = bytes;
    while (std::fabs(v) >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    char text[64];
    if (u == 0) std::snprintf(text, sizeof text, "%.0f B", v);
    else if (v >= 1e4) std::snprintf(text, sizeof text, "%.3g %s", v, units[u]);
    else std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
    return text;
}

bool fitsMemoryBudget(double bytes) { return std::isfinite(bytes) && bytes <= double(memoryBudgetBytes()); }

std::string overBudgetText(double bytes) {
    const std::string source = memoryBudgetSource();
    std::string text = "needs about " + (std::isfinite(bytes) ? formatBytes(bytes) : std::string("unbounded memory")) +
                       ", more than the memory limit of " + formatBytes(double(memoryBudgetBytes())) + " (" + source;
    if (source.rfind("the available memory", 0) == 0) text += "; set a limit with --max-memory";
    return text + ")";
}

} // namespace atrium::io
