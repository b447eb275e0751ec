/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A kernel index: where a kernel source tree defines its functions and
 * builds its modules, read once from a tree or a tarball (issue 34, item 4),
 * so that a deployment without a watched git tree ([tree]) locates a
 * report's symbols and modules as tracker/locate.h's `git grep` does.
 *
 * tri_index_build() reads SOURCE, a folder or a tarball of a kernel tree
 * (any format and compression libarchive reads: Debian's
 * /usr/src/linux-source-6.1.tar.xz; a tarball's leading folder, the one
 * all its paths share, is dropped), once, and writes an SQLite file:
 *   - function definitions, as locate.h's grep finds them: in a '*.c'
 *     file, a line that starts at column 0 with a letter or '_' and does
 *     not end in ';', whose first identifier followed by '(' is the name,
 *     with no ';' or '=' before it and a space or '*' right before it
 *     (`static int foo(`), or the name at column 0 (`foo(` on its own);
 *   - Kbuild's modules: in Makefile and Kbuild files, the objects of the
 *     `obj-... += name.o` lines (the module is that Makefile's folder, with
 *     a trailing '/', when the same Makefile has `name-y`, `name-objs` or
 *     `name-$(CONFIG_...)` lines, else its single file dir/name.c), '-' and
 *     '_' alike, as Kbuild names modules;
 *   - the module names of Kconfig help texts ("the module will be called
 *     foo"), as foo's Kconfig folder: asked only for a module no obj- line
 *     builds.
 * Of the definitions of one name it keeps those that can be the answer
 * for some architecture: the best outside arch/ (in the order of locate.h:
 * outside tools/, samples/, scripts/, Documentation/ and usr/, then the
 * first path in byte order) and the first under each arch/ARCH/.  The
 * file is written under a temporary name and renamed over path: a reader
 * never sees half an index.
 *
 * tri_index_open() opens it read-only; tri_index_locator() is the locator
 * for tri_match_located() (how = "kernel index"), answering as locate.h
 * does (the report's arch first, then outside arch/, then outside tools/
 * and the like, then the first path in byte order).
 *
 * Memory from GLib (aborts when out of memory).  Not thread-safe. */
#ifndef BB_TRIAGE_INDEX_H
#define BB_TRIAGE_INDEX_H

#include <stddef.h>

#include "core/status.h"
#include "triage/match.h"

#define TRI_INDEX_VERSION 1
#define TRI_INDEX_MAX_FILE ((size_t)8 << 20)   /* bytes of one source file read */
#define TRI_INDEX_FILE "triage-index.db"       /* its name in the data folder */

struct tri_index_stats {
	unsigned long files;        /* entries of the source looked at */
	unsigned long sources;      /* .c, Makefile, Kbuild and Kconfig files read */
	unsigned long definitions;  /* definition lines found */
	unsigned long symbols;      /* (name, file) pairs kept */
	unsigned long modules;      /* (module, place) pairs, Kconfig's included */
	unsigned long kconfig;      /* of which from Kconfig help texts */
};

/* Reads source (a folder or a tarball) and writes the index to path
 * (replacing one there).  st (may be NULL) gets the counts. */
enum bb_status tri_index_build(const char *source, const char *path, struct tri_index_stats *st,
			       struct bb_error *err);

/* Whether path is a better place than best (NULL: no best yet) for a
 * name a report on arch ("x86", "arm64", NULL: not known) names: outside
 * arch/ or under the report's own arch, then code that is not tools,
 * samples, scripts or documentation, then a .c file or a folder, then the
 * first by name.  The index and the tree lookups (tracker/locate.c) choose
 * alike. */
int tri_place_better(const char *path, const char *best, const char *arch);

struct tri_index;
/* Opens an index written by tri_index_build(); BB_ERR_NOT_FOUND when path
 * does not exist, BB_ERR_UNSUPPORTED when it is no index of this version. */
enum bb_status tri_index_open(struct tri_index **out, const char *path, struct bb_error *err);
void tri_index_free(struct tri_index *ix);
/* Borrowed from ix (NULL if ix is NULL). */
const struct tri_locator *tri_index_locator(struct tri_index *ix);
/* One name's answer, as the locator gives it (malloc'd; NULL: not known).
 * arch may be NULL. */
char *tri_index_symbol(struct tri_index *ix, const char *name, const char *arch);
char *tri_index_module(struct tri_index *ix, const char *name, const char *arch);
/* A value of its meta table ("source", "built", "symbols", "modules",
 * ...; malloc'd, NULL if absent). */
char *tri_index_meta(struct tri_index *ix, const char *key);

#endif
