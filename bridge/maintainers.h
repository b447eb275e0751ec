/* The kernel's MAINTAINERS file: sections with their M: (maintainers),
 * R: (reviewers), L: (lists), S: (status) and F:/N:/K: (files, patterns)
 * entries.
 *
 * Parsing is forgiving (the file is outside input): lines that are neither
 * a section title nor a "X:\t..." entry are skipped; the preamble before the
 * first section is ignored.  Section names are matched case-insensitively,
 * ignoring surrounding space.
 */
#ifndef BB_MAINTAINERS_H
#define BB_MAINTAINERS_H

#include <stddef.h>

#include "core/status.h"

struct mnt_section {
	char *name;               /* as written, e.g. "INTEL WIRELESS WIFI LINK (iwlwifi)" */
	char **maintainers;       /* M: entries, "Name <addr>", NULL-terminated */
	char **reviewers;         /* R: */
	char **lists;             /* L: addresses only ("linux-wireless@vger.kernel.org") */
	char *status;             /* S:, "" if none */
	char **files;             /* F: patterns */
};

struct mnt_file;

enum bb_status mnt_load(struct mnt_file **out, const char *path, struct bb_error *err);
enum bb_status mnt_parse(struct mnt_file **out, const char *text, size_t len,
			 struct bb_error *err);
void mnt_free(struct mnt_file *mf);
size_t mnt_count(const struct mnt_file *mf);
const struct mnt_section *mnt_section_at(const struct mnt_file *mf, size_t i);
/* The section of that name (case-insensitive), or NULL. */
const struct mnt_section *mnt_find(const struct mnt_file *mf, const char *name);
/* The bare address of "Name <addr>" or of "addr (comment)"; malloc'd. */
char *mnt_address(const char *entry);

#endif
