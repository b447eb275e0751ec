/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "#bugbridge track" (inbound_track.c): a list thread that belongs to no
 * bug becomes one.  For bridge/inbound.c. */
#ifndef BB_INBOUND_TRACK_H
#define BB_INBOUND_TRACK_H

#include "bridge/inbound.h"
#include "bridge/inbound_mail.h"
#include "bridge/sync.h"
#include "core/status.h"

/* A mail that belongs to no bug but says "#bugbridge track": recorded with
 * the cursor; when its sender may (its verdict: p's, checked here unless
 * the caller did), the thread becomes a bug. */
enum bb_status inbound_handle_track(struct sync_context *sc, const struct inbound_options *opt,
				    struct prepared_mail *p, const char *cursor_name,
				    const char *cursor_value, struct inbound_stats *stats,
				    struct bb_error *err);
/* Threads whose bug was being created when a crash came. */
enum bb_status inbound_resume_tracks(struct sync_context *sc, const struct inbound_options *opt,
				     struct inbound_stats *stats, struct bb_error *err);

#endif
