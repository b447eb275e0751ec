/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names located by the caller's tree, for the matcher (match.h): which
 * names of a report a locator (struct tri_locator, match.h) is asked, and
 * its answers.  Asked: the pc/lr symbols and modules of the first four
 * oopses, their first six reliable frames that are neither generic nor in
 * a reporting file (guilty.h), the drivers that printed lines (not "usb",
 * "pci"), and the title's words with a digit, '_' or '-' (prose.h), as
 * modules and as functions, at most 8 each; at most TRI_LOCATE_MAX names
 * of each kind, each tri_locate_name_ok(), symbols without their
 * compiler suffixes (".isra.0", ".constprop.0", ".cold", ".part.1").
 */
#ifndef BB_TRIAGE_LOCATED_H
#define BB_TRIAGE_LOCATED_H

#include <stddef.h>

#include <glib.h>

#include "triage/match.h"
#include "triage/reader.h"

/* What the locator found; all zero (as after tri_located_clear()): no
 * locator, nothing found. */
struct tri_located {
	GHashTable *symbol_at, *module_at;  /* name -> malloc'd path */
	const char *how;                    /* the locator's, for reasons */
	GStringChunk *bases;                /* symbols without their compiler suffixes */
};

/* Asks loc about report r's names (text, len bytes: its title's words;
 * arch: the architecture the report ran on, NULL unknown) into lx, which
 * must be all zero. */
void tri_located_ask(struct tri_located *lx, const struct tri_report *r,
		     const struct tri_locator *loc, const char *text, size_t len, const char *arch);
/* The file that defines symbol (its compiler suffixes aside), or NULL. */
const char *tri_located_symbol(struct tri_located *lx, const char *symbol);
/* The folder ('/' at the end) or file that module is built from, or NULL. */
const char *tri_located_module(const struct tri_located *lx, const char *module);
/* Frees what lx holds; lx is all zero after. */
void tri_located_clear(struct tri_located *lx);

#endif
