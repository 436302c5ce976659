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

} // namespace atrium::package
