// Deterministic driver for a libFuzzer-style target, for compilers without libFuzzer
// and for ctest: feeds every file named on the command line (or found in a directory
// named there) through LLVMFuzzerTestOneInput, followed - unless --no-mutations is
// given - by deterministic mutations of each: every truncation, byte substitutions,
// replacements of number and string tokens by awkward values, and line deletions and
// duplications. Any exception escaping the target, and any input that takes more than
// 30 s (a hang: the heart readers' child processes give up after 10 s, and a loaded CI
// machine may make a run take a few seconds), is a failure: the input is written to
// fuzz-failure-N.bin in the current directory and the exit status is 1.
//
// With --max-runs N, an evenly spread sample of about N mutations runs (for targets whose
// runs are slow, such as readers that run in a child process).
//
// usage: <replay> [--no-mutations] [--max-runs N] PATH...

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

struct Replay {
    std::size_t runs = 0;
    std::size_t failures = 0;
    std::size_t offered = 0;  // mutations offered, of which every `stride`-th runs
    std::size_t stride = 1;
    bool countOnly = false;

    /// A mutation: run when it falls on the stride (every one by default).
    void mutation(const std::string& input, const std::string& what) {
        if (offered++ % stride == 0 && !countOnly) run(input, what);
    }

    void run(const std::string& input, const std::string& what) {
        ++runs;
        const auto start = std::chrono::steady_clock::now();
        try {
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
        } catch (const std::exception& e) {
            fail(input, what, e.what());
        } catch (...) {
            fail(input, what, "unknown exception");
        }
        // An input that takes seconds is a hang in the making: a failure too.
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (seconds > kSlowSeconds) fail(input, what, "took " + std::to_string(seconds) + " s");
    }
    static constexpr double kSlowSeconds = 30.0;

    void fail(const std::string& input, const std::string& what, const std::string& message) {
        const std::string file = "fuzz-failure-" + std::to_string(failures++) + ".bin";
        if (failures <= 20) {
            std::ofstream(file, std::ios::binary) << input;
            std::cerr << "FAILED: " << what << "\n  " << message << "\n  input written to " << file << "\n";
        }
    }
};

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool isNumberChar(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

void mutate(Replay& replay, const std::string& input, const std::string& name) {
    const std::size_t n = input.size();
    // Every truncation (large inputs: a bounded number of them).
    const std::size_t cutStride = std::max<std::size_t>(1, n / 4096);
    for (std::size_t len = 0; len < n; len += cutStride) replay.mutation(input.substr(0, len), name + " truncated to " + std::to_string(len));

    // Byte substitutions: at each position, four replacements chosen deterministically.
    static constexpr char kBytes[] = {'\0', '"', '{', '}', '[', ']', ',', ':', '-', '0', '9', 'e', '.', ' ',
                                      '\\', 'n', '\xff', '\x7f', '/', 'x'};
    constexpr std::size_t kCount = sizeof kBytes;
    const std::size_t byteStride = std::max<std::size_t>(1, n / 4096);
    for (std::size_t i = 0; i < n; i += byteStride) {
        for (std::size_t k = 0; k < 4; ++k) {
            std::string m = input;
            m[i] = kBytes[(i * 7 + k * 11) % kCount];
            if (m[i] == input[i]) m[i] = char(input[i] ^ 0x20);
            replay.mutation(m, name + " byte " + std::to_string(i) + " -> " + std::to_string(int(static_cast<unsigned char>(m[i]))));
        }
    }

    // Token replacements: numbers and strings by awkward values.
    static const std::vector<std::string> kValues = {
        "-1", "0", "-0", "2.5", "1e39", "-1e39", "1e400", "1e-45", "1e-400", "3.4028235e38", "18446744073709551616",
        "9223372036854775807", "-9223372036854775809", "1e6", "null", "true", "\"x\"", "[]", "{}", "[1,2]", "[0,0,0]",
        "[1e39,0,0]", "{\"type\":\"box\"}"};
    static const std::vector<std::string> kStrings = {"\"\"", "\"sphere\"", "\"box\"", "\"none\"", "\"one-way\"",
                                                      "\"linear\"", "\"min\"", "\"\\u0000\"", "\"a/b~c\""};
    for (std::size_t i = 0; i < n;) {
        if (input[i] == '"') {
            std::size_t j = i + 1;
            while (j < n && input[j] != '"') j += input[j] == '\\' ? 2 : 1;
            j = std::min(j + 1, n);
            const std::string before = input.substr(0, i), after = input.substr(j);
            for (const auto& s : kStrings) replay.mutation(before + s + after, name + " string at " + std::to_string(i) + " -> " + s);
            if (j - i > 3) { // a typo: drop one character of the string
                std::string typo = input;
                typo.erase(i + 1 + (j - i - 2) / 2, 1);
                replay.mutation(typo, name + " typo at " + std::to_string(i));
            }
            i = j;
        } else if (isNumberChar(input[i]) && input[i] != 'e' && input[i] != 'E') {
            std::size_t j = i;
            while (j < n && isNumberChar(input[j])) ++j;
            const std::string before = input.substr(0, i), after = input.substr(j);
            for (const auto& v : kValues) replay.mutation(before + v + after, name + " number at " + std::to_string(i) + " -> " + v);
            i = j;
        } else {
            ++i;
        }
    }

    // Line deletions and duplications (missing fields, duplicate keys, stray commas).
    std::vector<std::string> lines;
    {
        std::size_t start = 0;
        while (start < n) {
            const std::size_t end = input.find('\n', start);
            const std::size_t stop = end == std::string::npos ? n : end + 1;
            lines.push_back(input.substr(start, stop - start));
            start = stop;
        }
    }
    if (lines.size() <= 2000) {
        for (std::size_t drop = 0; drop < lines.size(); ++drop) {
            std::string deleted, doubled;
            for (std::size_t l = 0; l < lines.size(); ++l) {
                if (l != drop) deleted += lines[l];
                doubled += lines[l];
                if (l == drop) doubled += lines[l];
            }
            replay.mutation(deleted, name + " without line " + std::to_string(drop + 1));
            replay.mutation(doubled, name + " with line " + std::to_string(drop + 1) + " twice");
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    bool mutations = true;
    std::size_t maxRuns = 0;
    std::vector<std::filesystem::path> files;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--no-mutations") { mutations = false; continue; }
        if (arg == "--max-runs" && a + 1 < argc) { maxRuns = std::stoul(argv[++a]); continue; }
        const std::filesystem::path p(arg);
        if (std::filesystem::is_directory(p)) {
            for (const auto& e : std::filesystem::directory_iterator(p))
                if (e.is_regular_file()) files.push_back(e.path());
        } else if (std::filesystem::is_regular_file(p)) {
            files.push_back(p);
        } else {
            std::cerr << "no such file or directory: " << arg << "\n";
            return 2;
        }
    }
    if (files.empty()) {
        std::cerr << "usage: " << (argc > 0 ? argv[0] : "replay") << " [--no-mutations] [--max-runs N] CORPUS_DIR_OR_FILE...\n";
        return 2;
    }
    std::sort(files.begin(), files.end());
    Replay replay;
    if (mutations && maxRuns > 0) {
        // Count the mutations first, then run an evenly spread sample of them.
        Replay counter;
        counter.countOnly = true;
        for (const auto& file : files) mutate(counter, readFile(file), file.filename().string());
        replay.stride = std::max<std::size_t>(1, (counter.offered + maxRuns - 1) / maxRuns);
    }
    for (const auto& file : files) {
        const std::string input = readFile(file);
        const std::string name = file.filename().string();
        replay.run(input, name);
        if (mutations) mutate(replay, input, name);
    }
    std::cout << files.size() << " files, " << replay.runs << " runs, " << replay.failures << " failures\n";
    return replay.failures == 0 ? 0 : 1;
}
