/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the REST client's transport (bz_client.c) gives the field metadata
 * reader (bz_fields.c) beyond bz_client.h: a metadata GET, a path segment
 * escaped for a URL, and the client's cache of the field list.  Included
 * only from those two files. */
#ifndef BB_BZ_TRANSPORT_H
#define BB_BZ_TRANSPORT_H

#include <curl/curl.h>
#include <json-c/json.h>

#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "core/status.h"

/* GET base+path (a fixed path, no query) and its JSON answer, outside
 * bz_client_requests() (asked once per process: /rest/field/bug). */
enum bb_status bz_get_meta_json(struct bz_client *c, const char *path, json_object **out,
				struct bb_error *err);
/* text %-escaped for a URL's path or query (curl_easy_escape(); free with
 * curl_free()), NULL when out of memory. */
char *bz_client_escape(struct bz_client *c, const char *text);
/* The client's field list (bz_fields_get()): NULL until asked; the
 * client frees it. */
struct bz_fields **bz_client_fields_cache(struct bz_client *c);

#endif
