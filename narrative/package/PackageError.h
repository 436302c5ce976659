#pragma once
// The one error type of content packages. Its message names the file and the entry or
// field at fault; its kind tells a caller (atrium-pack's exit code, the viewer's dialog)
// what went wrong.

#include <stdexcept>
#include <string>

namespace atrium::package {

class PackageError : public std::runtime_error {
public:
    enum class Kind {
        BadFile,  ///< not a valid package: corrupt zip, bad manifest, unsafe or missing entry, over a limit
        Tampered, ///< the signature does not match the contents
        Refused,  ///< a lock or restriction forbids it, or the password is wrong
        Io,       ///< reading or writing the file system failed
        Cancelled, ///< the user cancelled long work (opening a large package)
    };

    PackageError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

/// Runs `f`, turning a std::runtime_error from the file system (io/AtomicFile's WriteError)
/// into PackageError(Io) with the same message.
template <typename F>
decltype(auto) asPackageIo(F&& f) {
    try {
        return f();
    } catch (const PackageError&) {
        throw;
    } catch (const std::runtime_error& e) {
        throw PackageError(PackageError::Kind::Io, e.what());
    }
}

} // namespace atrium::package
