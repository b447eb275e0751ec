/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"

static const char *const status_names[] = {
	[BB_OK] = "ok",
	[BB_ERR_NOMEM] = "out-of-memory",
	[BB_ERR_IO] = "io-error",
	[BB_ERR_NO_SPACE] = "no-space",
	[BB_ERR_NOT_FOUND] = "not-found",
	[BB_ERR_INVALID] = "invalid",
	[BB_ERR_TOO_LARGE] = "too-large",
	[BB_ERR_CORRUPT] = "corrupt",
	[BB_ERR_AUTH] = "unauthorized",
	[BB_ERR_DATABASE] = "database-error",
	[BB_ERR_CONFIG] = "config-error",
	[BB_ERR_TEMPORARY] = "temporary",
	[BB_ERR_PERMISSION] = "permission-denied",
	[BB_ERR_BUSY] = "busy",
	[BB_ERR_PROTOCOL] = "protocol-error",
	[BB_ERR_UNSUPPORTED] = "unsupported",
	[BB_ERR_INTERRUPTED] = "interrupted",
	[BB_ERR_INTERNAL] = "internal-error",
};

const char *status_str(enum bb_status st)
{
	if ((unsigned)st < sizeof(status_names) / sizeof(status_names[0]) &&
	    status_names[st])
		return status_names[st];
	return "unknown";
}

const char *retry_str(enum bb_retry r)
{
	switch (r) {
	case BB_RETRY_NONE: return "none";
	case BB_RETRY_NOW: return "retry-now";
	case BB_RETRY_LATER: return "retry-later";
	case BB_RETRY_GIVE_UP: return "give-up";
	}
	return "unknown";
}

enum bb_retry status_retry_class(enum bb_status st)
{
	switch (st) {
	case BB_OK:
		return BB_RETRY_NONE;
	case BB_ERR_IO:
	case BB_ERR_BUSY:
	case BB_ERR_INTERRUPTED:
		return BB_RETRY_NOW;
	case BB_ERR_NOMEM:
	case BB_ERR_NO_SPACE:
	case BB_ERR_TEMPORARY:
	case BB_ERR_DATABASE:
		return BB_RETRY_LATER;
	case BB_ERR_NOT_FOUND:
	case BB_ERR_INVALID:
	case BB_ERR_TOO_LARGE:
	case BB_ERR_CORRUPT:
	case BB_ERR_AUTH:
	case BB_ERR_CONFIG:
	case BB_ERR_PERMISSION:
	case BB_ERR_PROTOCOL:
	case BB_ERR_UNSUPPORTED:
	case BB_ERR_INTERNAL:
		return BB_RETRY_GIVE_UP;
	}
	return BB_RETRY_GIVE_UP;
}

enum bb_status status_from_http(long code)
{
	if (code >= 200 && code < 300)
		return BB_OK;
	switch (code) {
	case 401:
	case 403:
		return BB_ERR_AUTH;
	case 404:
	case 410:
		return BB_ERR_NOT_FOUND;
	case 408:
	case 425:
	case 429:
	case 503:
		return BB_ERR_TEMPORARY;
	case 413:
		return BB_ERR_TOO_LARGE;
	case 507:
		return BB_ERR_NO_SPACE;
	}
	if (code >= 500)
		return BB_ERR_TEMPORARY; /* 500, 502, 504: the server may recover */
	if (code >= 400)
		return BB_ERR_INVALID;
	return BB_ERR_PROTOCOL; /* 1xx/3xx where a final answer was expected */
}

enum bb_status status_from_smtp(int code)
{
	if (code >= 200 && code < 400)
		return BB_OK;
	if (code == 452 || code == 552)
		return code == 452 ? BB_ERR_TEMPORARY : BB_ERR_TOO_LARGE;
	if (code >= 400 && code < 500)
		return BB_ERR_TEMPORARY;
	if (code == 530 || code == 535)
		return BB_ERR_AUTH;
	return BB_ERR_PROTOCOL;
}

enum bb_status status_from_errno(int errnum)
{
	switch (errnum) {
	case 0: return BB_OK;
	case ENOMEM: return BB_ERR_NOMEM;
	case ENOSPC:
	case EDQUOT: return BB_ERR_NO_SPACE;
	case ENOENT:
	case ENOTDIR: return BB_ERR_NOT_FOUND;
	case EACCES:
	case EPERM:
	case EROFS: return BB_ERR_PERMISSION;
	case EFBIG: return BB_ERR_TOO_LARGE;
	case EINTR: return BB_ERR_INTERRUPTED;
	case EAGAIN: return BB_ERR_BUSY;
	case EINVAL:
	case EISDIR:
	case ENAMETOOLONG: return BB_ERR_INVALID;
	}
	return BB_ERR_IO;
}

__attribute__((format(printf, 3, 0)))
static void error_vset(struct bb_error *err, enum bb_status code,
		       const char *fmt, va_list ap)
{
	err->code = code;
	err->retry_after = 0;
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
}

enum bb_status bb_error_set(struct bb_error *err, enum bb_status code,
			    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

enum bb_status bb_error_errno(struct bb_error *err, int errnum,
			      const char *fmt, ...)
{
	enum bb_status code = status_from_errno(errnum);
	va_list ap;
	size_t len;

	if (!err)
		return code;
	va_start(ap, fmt);
	error_vset(err, code, fmt, ap);
	va_end(ap);
	len = strlen(err->message);
	snprintf(err->message + len, sizeof(err->message) - len, ": %s",
		 strerror(errnum));
	return code;
}

void bb_error_clear(struct bb_error *err)
{
	if (!err)
		return;
	err->code = BB_OK;
	err->retry_after = 0;
	err->message[0] = '\0';
}
