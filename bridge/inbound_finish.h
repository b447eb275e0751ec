/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A recorded list mail finished (inbound_finish.c): its comment posted to
 * its bug (once: found again by its Message-ID marker after a crash), its
 * attachments uploaded, its commands done, its answer queued.  For
 * bridge/inbound*.c. */
#ifndef BB_INBOUND_FINISH_H
#define BB_INBOUND_FINISH_H

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "core/status.h"

/* Posts a recorded mail's comment and acts on its commands. */
enum bb_status inbound_finish_mail(struct sync_context *sc, long long row,
				   struct inbound_stats *stats, struct bb_error *err);
/* The round is over: what its bugs' comments held is asked again. */
void inbound_comment_marks_clear(struct sync_context *sc);

#endif
