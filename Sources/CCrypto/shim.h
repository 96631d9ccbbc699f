// OpenSSL's libcrypto: HMAC-SHA256 for signed URLs, SHA-256 for content keys, and
// CRYPTO_memcmp for constant-time comparison.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
