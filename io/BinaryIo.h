#pragma once
// Little-endian binary files, written and read back checked: the one reader and writer
// of Atrium's own binary formats (the heart cache, the moving heart mesh, baked beats,
// the results of isolated readers), and FNV-1a 64, their checksum and key hash.
//
// Every value is stored little-endian whatever the host (swapped on a big-endian one).
// A reader never reads past its data: a value or array that is not there throws
// BinaryInputError naming what was being read and where, and a declared count is
// checked against the bytes that remain before anything is allocated, so a damaged or
// hostile file costs no more memory than its own size.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace atrium::io {

// --- FNV-1a 64 ------------------------------------------------------------------------

/// Where an FNV-1a 64 hash starts.
inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;

/// FNV-1a 64 of `n` bytes at `p`, continuing from `hash` (kFnvOffset to start): fast, no
/// dependency, and enough to catch damage (not tampering: packages are signed for that).
inline std::uint64_t fnv1a(std::uint64_t hash, const void* p, std::size_t n) {
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
        hash ^= bytes[i];
        hash *= 1099511628211ull;
    }
    return hash;
}

/// `v` as 16 lower-case hex digits (file names and keys made from a hash).
std::string hex64(std::uint64_t v);

// --- Errors -----------------------------------------------------------------------------

/// Binary input that ends early or declares more than it holds. what() says what was
/// being read, how many bytes it needs and how many remain, and at which byte.
class BinaryInputError : public std::runtime_error {
public:
    BinaryInputError(const std::string& what, std::uint64_t needed, std::uint64_t remaining, std::uint64_t at);
    std::uint64_t at() const noexcept { return at_; }

private:
    std::uint64_t at_;
};

namespace detail {
inline constexpr bool kLittleEndian = std::endian::native == std::endian::little;

/// Reverses each `width`-byte word of a buffer (big-endian hosts only).
inline void swapWords(unsigned char* p, std::size_t bytes, std::size_t width) {
    for (std::size_t i = 0; i + width <= bytes; i += width) std::reverse(p + i, p + i + width);
}

/// A number from its little-endian bytes (modified in place on big-endian hosts).
template <class T>
T fromLittleEndian(unsigned char (&b)[sizeof(T)]) {
    static_assert(std::is_arithmetic_v<T>);
    if constexpr (!kLittleEndian) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
}
} // namespace detail

// --- Writer -----------------------------------------------------------------------------

/// Appends little-endian values to a byte string, hashing what it writes.
class ByteWriter {
public:
    explicit ByteWriter(std::string& out) : out_(out) {}

    /// One number (integer or IEEE float) of its own width.
    template <class T>
    void value(T v) {
        static_assert(std::is_arithmetic_v<T>);
        unsigned char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        if constexpr (!detail::kLittleEndian) std::reverse(b, b + sizeof(T));
        bytes(b, sizeof(T));
    }
    /// The elements of `v`, each made of `Word`s (Vec3: float, a triangle: uint32),
    /// without a count.
    template <class Word, class T>
    void words(std::span<const T> v) {
        static_assert(std::is_arithmetic_v<Word> && sizeof(T) % sizeof(Word) == 0);
        const auto* p = reinterpret_cast<const unsigned char*>(v.data());
        const std::size_t n = v.size_bytes();
        if constexpr (detail::kLittleEndian) {
            bytes(p, n);
        } else {
            std::vector<unsigned char> copy(p, p + n);
            detail::swapWords(copy.data(), n, sizeof(Word));
            bytes(copy.data(), n);
        }
    }
    template <class Word, class T>
    void words(const std::vector<T>& v) { words<Word>(std::span<const T>(v)); }
    /// A uint64 count, then the elements (read back by ByteReader::counted).
    template <class Word, class T>
    void counted(const std::vector<T>& v) {
        value(std::uint64_t(v.size()));
        words<Word>(v);
    }
    /// A uint64 length, then the bytes (read back by ByteReader::text).
    void text(std::string_view s) {
        value(std::uint64_t(s.size()));
        bytes(s.data(), s.size());
    }
    /// Bytes as they are (a magic, a nested blob).
    void bytes(const void* p, std::size_t n) {
        hash_ = fnv1a(hash_, p, n);
        out_.append(static_cast<const char*>(p), n);
    }
    /// FNV-1a 64 of everything written through this writer.
    std::uint64_t hash() const { return hash_; }
    /// Appends hash() as the file's last 8 bytes.
    void checksum() { value(hash_); }

private:
    std::string& out_;
    std::uint64_t hash_ = kFnvOffset;
};

// --- Reader -----------------------------------------------------------------------------

/// Reads little-endian values from bytes in memory, front to back, every read checked.
class ByteReader {
public:
    explicit ByteReader(std::span<const std::byte> data) : data_(data) {}
    explicit ByteReader(std::string_view data)
        : data_(reinterpret_cast<const std::byte*>(data.data()), data.size()) {}

    template <class T>
    T value(const char* what) {
        unsigned char b[sizeof(T)];
        copy(b, sizeof(T), what);
        return detail::fromLittleEndian<T>(b);
    }
    /// The next `n` bytes, in place.
    std::span<const std::byte> bytes(std::uint64_t n, const char* what) {
        need(n, what);
        const auto s = data_.subspan(at_, std::size_t(n));
        at_ += std::size_t(n);
        return s;
    }
    void copy(void* out, std::size_t n, const char* what) {
        const auto s = bytes(n, what);
        if (n > 0) std::memcpy(out, s.data(), n);
    }
    /// `count` elements made of `Word`s; the count is checked against what remains
    /// before the vector is allocated.
    template <class Word, class T>
    std::vector<T> words(std::uint64_t count, const char* what) {
        static_assert(std::is_arithmetic_v<Word> && sizeof(T) % sizeof(Word) == 0);
        static_assert(std::is_trivially_copyable_v<T>);
        need(count, sizeof(T), what);
        std::vector<T> v(static_cast<std::size_t>(count));
        auto* p = reinterpret_cast<unsigned char*>(v.data());
        copy(p, v.size() * sizeof(T), what);
        if constexpr (!detail::kLittleEndian) detail::swapWords(p, v.size() * sizeof(T), sizeof(Word));
        return v;
    }
    /// A uint64 count, then that many elements (ByteWriter::counted).
    template <class Word, class T>
    std::vector<T> counted(const char* what) {
        return words<Word, T>(value<std::uint64_t>(what), what);
    }
    /// A uint64 length, then that many bytes (ByteWriter::text).
    std::string text(const char* what) {
        const auto s = bytes(value<std::uint64_t>(what), what);
        return {reinterpret_cast<const char*>(s.data()), s.size()};
    }

    /// Throws BinaryInputError unless `count` elements of `size` bytes remain.
    void need(std::uint64_t count, std::size_t size, const char* what) const {
        if (size != 0 && count > remaining() / size)
            throw BinaryInputError(what, count > UINT64_MAX / size ? UINT64_MAX : count * size, remaining(), at_);
    }
    void need(std::uint64_t n, const char* what) const { need(n, 1, what); }

    std::size_t position() const { return at_; }
    std::size_t remaining() const { return data_.size() - at_; }
    /// The bytes read so far (what a checksum at the end covers).
    std::span<const std::byte> consumed() const { return data_.first(at_); }

private:
    std::span<const std::byte> data_;
    std::size_t at_ = 0;
};

/// Reads little-endian values from a stream whose length is not known, hashing what it
/// reads. Arrays are filled a chunk at a time, so a damaged count fails on the missing
/// data after allocating at most one chunk more than the stream holds.
class StreamReader {
public:
    explicit StreamReader(std::istream& in) : in_(in) {}

    template <class T>
    T value(const char* what) {
        unsigned char b[sizeof(T)];
        copy(b, sizeof(T), what);
        return detail::fromLittleEndian<T>(b);
    }
    template <class Word, class T>
    void words(std::vector<T>& v, std::uint64_t count, const char* what) {
        static_assert(std::is_arithmetic_v<Word> && sizeof(T) % sizeof(Word) == 0);
        constexpr std::size_t kChunk = std::size_t(1) << 16; // elements
        v.clear();
        std::size_t done = 0;
        while (done < count) {
            const std::size_t n = std::size_t(std::min<std::uint64_t>(count - done, kChunk));
            v.resize(done + n);
            auto* p = reinterpret_cast<unsigned char*>(v.data() + done);
            copy(p, n * sizeof(T), what);
            if constexpr (!detail::kLittleEndian) detail::swapWords(p, n * sizeof(T), sizeof(Word));
            done += n;
        }
    }
    void copy(void* out, std::size_t n, const char* what) {
        in_.read(static_cast<char*>(out), std::streamsize(n));
        const auto got = std::size_t(in_.gcount());
        if (got != n) throw BinaryInputError(what, n, got, at_ + got);
        hash_ = fnv1a(hash_, out, n);
        at_ += n;
    }
    /// FNV-1a 64 of everything read so far.
    std::uint64_t hash() const { return hash_; }

private:
    std::istream& in_;
    std::uint64_t hash_ = kFnvOffset;
    std::uint64_t at_ = 0;
};

/// Writes little-endian values to a stream, hashing them; throws std::runtime_error
/// when the stream fails.
class StreamWriter {
public:
    explicit StreamWriter(std::ostream& out) : out_(out) {}
    template <class T>
    void value(T v) {
        std::string b;
        ByteWriter(b).value(v);
        bytes(b.data(), b.size());
    }
    template <class Word, class T>
    void words(const std::vector<T>& v) {
        if constexpr (detail::kLittleEndian) {
            bytes(v.data(), v.size() * sizeof(T));
        } else {
            std::string b;
            ByteWriter(b).words<Word>(v);
            bytes(b.data(), b.size());
        }
    }
    void bytes(const void* p, std::size_t n);
    std::uint64_t hash() const { return hash_; }

private:
    std::ostream& out_;
    std::uint64_t hash_ = kFnvOffset;
};

} // namespace atrium::io
