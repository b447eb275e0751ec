/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <openssl/evp.h>

#include "core/digest.h"

void hex_encode(const unsigned char *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

enum bb_status sha256_init(struct sha256 *h)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	h->ctx = ctx;
	if (!ctx)
		return BB_ERR_NOMEM;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		sha256_release(h);
		return BB_ERR_INTERNAL;
	}
	return BB_OK;
}

void sha256_update(struct sha256 *h, const void *data, size_t len)
{
	/* EVP_DigestUpdate cannot fail for an initialised software digest */
	if (h->ctx && len)
		EVP_DigestUpdate(h->ctx, data, len);
}

enum bb_status sha256_final_hex(struct sha256 *h, char out[SHA256_HEX_LEN + 1])
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	int ok = h->ctx && EVP_DigestFinal_ex(h->ctx, digest, &len) == 1 && len == 32;

	sha256_release(h);
	if (!ok) {
		out[0] = '\0';
		return BB_ERR_INTERNAL;
	}
	hex_encode(digest, 32, out);
	return BB_OK;
}

void sha256_release(struct sha256 *h)
{
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

enum bb_status sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1])
{
	struct sha256 h;
	enum bb_status s = sha256_init(&h);

	if (s)
		return s;
	sha256_update(&h, data, len);
	return sha256_final_hex(&h, out);
}
