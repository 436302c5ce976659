#pragma once
// A self-signed certificate for a classroom's wss:// lecture, made with OpenSSL: an
// ECDSA P-256 key and an X.509 certificate naming this machine's addresses, valid for a
// few days. Students' apps accept it without a certificate authority (ClientOptions::
// allowSelfSigned) and can compare its fingerprint with the one the lecturer shows. For
// a lecture over the internet, give a real certificate instead (ServerOptions::tls).

#include "app/transport/SessionServer.h"

#include <filesystem>
#include <string>
#include <vector>

namespace atrium::transport {

struct SelfSigned {
    TlsFiles files;
    std::string fingerprint; ///< SHA-256 of the certificate (DER), as "AB:CD:..."
};

/// Writes key.pem (mode 0600) and certificate.pem into `folder` (created if needed),
/// the certificate naming `hosts` (IP addresses or names) and valid for `days` days.
/// Throws TransportError naming the file or the OpenSSL step that failed.
SelfSigned makeSelfSignedCertificate(const std::filesystem::path& folder, const std::vector<std::string>& hosts,
                                     int days = 7);

/// A fresh classroom certificate for this machine's addresses (and localhost), kept in
/// $XDG_CACHE_HOME/atrium/classroom-tls (~/.cache when unset).
SelfSigned makeClassroomCertificate();

} // namespace atrium::transport
