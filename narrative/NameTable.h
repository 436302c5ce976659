#pragma once
// Enumerations and the stable names documents use for them ("label-3d", "web-link"):
// one constexpr table per enumeration, read both ways.

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace atrium::narrative {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

/// The value named `name`, or nullopt for a name not in the table.
template <typename E, std::size_t N>
constexpr std::optional<E> lookup(const NameTable<E, N>& table, std::string_view name) {
    for (const auto& [e, n] : table)
        if (n == name) return e;
    return std::nullopt;
}

/// The name of `value` ("?" for a value not in the table).
template <typename E, std::size_t N>
constexpr std::string_view nameOf(const NameTable<E, N>& table, E value) {
    for (const auto& [e, n] : table)
        if (e == value) return n;
    return "?";
}

} // namespace atrium::narrative
