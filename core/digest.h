/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 through OpenSSL's EVP interface, with hex output.
 *
 * struct sha256 h; sha256_init(&h); sha256_update(&h, p, n); ...
 * sha256_final_hex(&h, hex); — final also releases; sha256_release() is
 * for giving up early and is safe to call twice.
 */
#ifndef BB_DIGEST_H
#define BB_DIGEST_H

#include <stddef.h>

#include "core/status.h"

#define SHA256_HEX_LEN 64

struct sha256 {
	void *ctx; /* EVP_MD_CTX */
};

/* BB_ERR_NOMEM or BB_ERR_INTERNAL if OpenSSL cannot set up SHA-256. */
enum bb_status sha256_init(struct sha256 *h);
void sha256_update(struct sha256 *h, const void *data, size_t len);
/* Writes 64 lowercase hex digits and a NUL to out, and releases h. */
enum bb_status sha256_final_hex(struct sha256 *h, char out[SHA256_HEX_LEN + 1]);
void sha256_release(struct sha256 *h);
/* SHA-256 of a buffer in one call. */
enum bb_status sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);

/* Writes 2 * n lowercase hex digits and a NUL to out: the one hex writer
 * (digests, tokens, marks, secrets).  GLib writes hex only for a digest
 * it computes itself (g_checksum_get_string()), and its SHA-256 is plain
 * C where OpenSSL's uses the processor's SHA instructions; random tokens
 * and HMACs it cannot write at all. */
void hex_encode(const unsigned char *bytes, size_t n, char *out);

#endif
