#include "app/transport/SelfSignedCertificate.h"

#include "io/AtomicFile.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace atrium::transport {

namespace {

template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, decltype([](T* p) { Free(p); })>;

[[noreturn]] void fail(const std::string& step) { throw TransportError("cannot make a self-signed certificate: " + step); }

std::string pem(const std::function<int(BIO*)>& write, const char* what) {
    Owned<BIO, BIO_free_all> bio(BIO_new(BIO_s_mem()));
    if (!bio || write(bio.get()) != 1) fail(std::string("writing the ") + what);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, std::size_t(n));
}

} // namespace

SelfSigned makeSelfSignedCertificate(const std::filesystem::path& folder, const std::vector<std::string>& hosts, int days) {
    Owned<EVP_PKEY, EVP_PKEY_free> key(EVP_EC_gen("P-256"));
    if (!key) fail("generating the key");
    Owned<X509, X509_free> cert(X509_new());
    if (!cert) fail("allocating the certificate");
    X509_set_version(cert.get(), 2);
    unsigned char serial[16];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7f;
    Owned<BIGNUM, BN_free> bn(BN_bin2bn(serial, sizeof serial, nullptr));
    BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()));
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), long(days) * 24 * 3600);
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("Atrium"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("Atrium classroom lecture"),
                               -1, -1, 0);
    X509_set_issuer_name(cert.get(), name);
    X509_set_pubkey(cert.get(), key.get());
    // The addresses students connect to, as subjectAltName entries.
    std::string san;
    for (const std::string& h : hosts) {
        in_addr v4{};
        in6_addr v6{};
        const bool ip = inet_pton(AF_INET, h.c_str(), &v4) == 1 || inet_pton(AF_INET6, h.c_str(), &v6) == 1;
        if (!san.empty()) san += ',';
        san += ip ? "IP:" : "DNS:";
        san += h;
    }
    if (!san.empty()) {
        X509V3_CTX ctx;
        X509V3_set_ctx_nodb(&ctx);
        X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
        Owned<X509_EXTENSION, X509_EXTENSION_free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str()));
        if (!ext || X509_add_ext(cert.get(), ext.get(), -1) != 1) fail("naming the addresses " + san);
    }
    if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) fail("signing");

    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    X509_digest(cert.get(), EVP_sha256(), digest, &length);
    std::string fingerprint;
    for (unsigned int i = 0; i < length; ++i) {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%s%02X", i ? ":" : "", digest[i]);
        fingerprint += hex;
    }

    SelfSigned out{{folder / "certificate.pem", folder / "key.pem"}, fingerprint};
    const std::string keyPem = pem(
        [&](BIO* b) { return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr); }, "key");
    const std::string certPem = pem([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); }, "certificate");
    try {
        io::writeFileAtomically(out.files.privateKey, keyPem, {.mode = 0600}); // creates the folder
        io::writeFileAtomically(out.files.certificate, certPem, {.mode = 0644});
    } catch (const std::exception& e) {
        throw TransportError(e.what());
    }
    return out;
}

SelfSigned makeClassroomCertificate() {
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::filesystem::path base = cache && *cache ? std::filesystem::path(cache)
                                                       : std::filesystem::path(home ? home : "/tmp") / ".cache";
    auto hosts = localAddresses();
    hosts.push_back("localhost");
    return makeSelfSignedCertificate(base / "atrium" / "classroom-tls", hosts);
}

} // namespace atrium::transport
