#pragma once
// Internal to sim/heart's file readers (MeshFileReaders.cpp, LegacyVtkReader.cpp): a
// bounds-checked cursor over a file's bytes, with lines, whitespace-separated tokens and
// binary values of either byte order. Nothing here reads past the end of the bytes.

#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::heart::meshtext {

enum class Encoding { Ascii, LittleEndian, BigEndian };
enum class Type { None, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

inline std::size_t typeSize(Type t) {
    switch (t) {
    case Type::I8:
    case Type::U8: return 1;
    case Type::I16:
    case Type::U16: return 2;
    case Type::I32:
    case Type::U32:
    case Type::F32: return 4;
    case Type::I64:
    case Type::U64:
    case Type::F64: return 8;
    case Type::None: break;
    }
    return 0;
}
inline bool isFloat(Type t) { return t == Type::F32 || t == Type::F64; }

template <class T> T byteSwapped(T v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof v);
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    std::memcpy(&v, b, sizeof v);
    return v;
}

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

inline bool equalsNoCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

inline std::vector<std::string_view> split(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isSpace(line[i])) ++i;
        const std::size_t start = i;
        while (i < line.size() && !isSpace(line[i])) ++i;
        if (i > start) words.push_back(line.substr(start, i - start));
    }
    return words;
}

/// The whole of `text` as a number (any of from_chars' forms, nan and inf included).
inline bool parseNumber(std::string_view text, double& out) {
    if (text.empty()) return false;
    if (text.front() == '+') text.remove_prefix(1);
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

/// The whole of `text` as a decimal integer (an optional sign).
inline bool integerText(std::string_view text, long long& out) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    if (text.empty()) return false;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

/// A non-negative decimal count below 2^62.
inline bool parseCount(std::string_view text, std::uint64_t& out) {
    if (text.empty() || text.size() > 19) return false;
    for (const char c : text)
        if (c < '0' || c > '9') return false;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && out < (std::uint64_t(1) << 62);
}

inline std::string numberText(double v) {
    char text[32];
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) std::snprintf(text, sizeof text, "%.0f", v);
    else std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

class Cursor {
public:
    explicit Cursor(std::string_view bytes) : bytes_(bytes) {}

    bool atEnd() const { return pos_ >= bytes_.size(); }
    std::size_t remaining() const { return bytes_.size() - pos_; }
    std::size_t position() const { return pos_; }

    /// The rest of the current line without its "\r\n" or "\n"; moves past it.
    std::string_view line() {
        const std::size_t start = pos_;
        const std::size_t end = bytes_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? bytes_.size() : end + 1;
        std::string_view l = bytes_.substr(start, (end == std::string_view::npos ? bytes_.size() : end) - start);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        return l;
    }
    /// The next whitespace-separated token; empty at the end.
    std::string_view token() {
        while (pos_ < bytes_.size() && isSpace(bytes_[pos_])) ++pos_;
        const std::size_t start = pos_;
        while (pos_ < bytes_.size() && !isSpace(bytes_[pos_])) ++pos_;
        return bytes_.substr(start, pos_ - start);
    }
    /// The next token without moving.
    std::string_view peekToken() {
        const std::size_t keep = pos_;
        const std::string_view t = token();
        pos_ = keep;
        return t;
    }
    /// Skips spaces and tabs, then one line end if there is one (binary data start after it).
    void endLine() {
        while (pos_ < bytes_.size() && (bytes_[pos_] == ' ' || bytes_[pos_] == '\t' || bytes_[pos_] == '\r')) ++pos_;
        if (pos_ < bytes_.size() && bytes_[pos_] == '\n') ++pos_;
    }
    /// `n` raw bytes, or null when fewer remain (the cursor does not move then).
    const char* take(std::size_t n) {
        if (n > remaining()) return nullptr;
        const char* p = bytes_.data() + pos_;
        pos_ += n;
        return p;
    }

private:
    std::string_view bytes_;
    std::size_t pos_ = 0;
};

/// Values of a given type, as text tokens or binary of either byte order.
class ValueReader {
public:
    ValueReader(Cursor& cursor, Encoding encoding) : c_(cursor), encoding_(encoding) {}
    void setEncoding(Encoding encoding) { encoding_ = encoding; }

    /// False at the end of the data or for a token that is no number (ASCII: integer
    /// types must be integral).
    bool value(Type type, double& out) {
        if (encoding_ == Encoding::Ascii) {
            if (!parseNumber(c_.token(), out)) return false;
            return isFloat(type) || (std::isfinite(out) && out == std::floor(out));
        }
        const char* p = c_.take(typeSize(type));
        if (p == nullptr) return false;
        const bool swap = (encoding_ == Encoding::BigEndian) != (std::endian::native == std::endian::big);
        switch (type) {
        case Type::I8: out = read<std::int8_t>(p, swap); break;
        case Type::U8: out = read<std::uint8_t>(p, swap); break;
        case Type::I16: out = read<std::int16_t>(p, swap); break;
        case Type::U16: out = read<std::uint16_t>(p, swap); break;
        case Type::I32: out = read<std::int32_t>(p, swap); break;
        case Type::U32: out = read<std::uint32_t>(p, swap); break;
        case Type::I64: out = double(read<std::int64_t>(p, swap)); break;
        case Type::U64: out = double(read<std::uint64_t>(p, swap)); break;
        case Type::F32: out = read<float>(p, swap); break;
        case Type::F64: out = read<double>(p, swap); break;
        case Type::None: return false;
        }
        return true;
    }

private:
    template <class T> static T read(const char* p, bool swap) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return swap ? byteSwapped(v) : v;
    }
    Cursor& c_;
    Encoding encoding_;
};

} // namespace atrium::heart::meshtext
