/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "core/http.h"

enum bb_status http_fold_curl(CURLcode rc)
{
	switch (rc) {
	case CURLE_OUT_OF_MEMORY:
		return BB_ERR_NOMEM;
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		return BB_ERR_CONFIG;
	case CURLE_BAD_CONTENT_ENCODING:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_TOO_MANY_REDIRECTS:
		return BB_ERR_PROTOCOL;
	case CURLE_FILESIZE_EXCEEDED:
		return BB_ERR_TOO_LARGE;
	default:
		/* connect, resolve, timeout, reset, nothing received, cut short */
		return BB_ERR_TEMPORARY;
	}
}

time_t http_retry_after(const char *value, long long max_wait)
{
	time_t now = time(NULL), when;
	const char *p = value;
	long long secs = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p >= '0' && *p <= '9') {
		for (; *p >= '0' && *p <= '9'; p++) {
			secs = secs * 10 + (*p - '0');
			if (secs > max_wait)
				secs = max_wait;
		}
		return now + (time_t)secs;
	}
	when = curl_getdate(p, NULL);
	if (when < 0)
		return 0;
	if (when < now)
		return now;
	return when - now > max_wait ? now + (time_t)max_wait : when;
}

void http_header_line(const char *data, size_t len, long long max_wait, time_t *retry_after)
{
	char value[128];
	size_t n;

	if (len >= 5 && !strncasecmp(data, "HTTP/", 5)) {
		*retry_after = 0;
	} else if (len > 12 && !strncasecmp(data, "Retry-After:", 12)) {
		n = len - 12 < sizeof(value) - 1 ? len - 12 : sizeof(value) - 1;
		memcpy(value, data + 12, n);
		value[n] = '\0';
		value[strcspn(value, "\r\n")] = '\0';
		*retry_after = http_retry_after(value, max_wait);
	}
}
