/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "triage/block.h"

/* The block being written; failed once any append failed. */
struct block {
	struct buf b;
	int failed;
};

static void addf(struct block *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct block *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (buf_vaddf(&k->b, fmt, ap))
		k->failed = 1;
	va_end(ap);
}

/* A line's label column ("" continues the entry above). */
static void label(struct block *k, const char *name)
{
	addf(k, "  %-12s ", name);
}

static void add_kernel(struct block *k, const struct tri_report *r, const char *field)
{
	const struct tri_kernel *kn = &r->kernel;

	if (field && (!*field || !strcmp(field, "---") || !strcasecmp(field, "unspecified")))
		field = NULL;
	if (kn->version) {
		label(k, "Kernel:");
		addf(k, "%s", kn->version);
		if (kn->kind == TRI_KERNEL_DISTRO)
			addf(k, " (%s build%s%s)", kn->distro ? kn->distro : "a distribution",
			     kn->upstream ? ", based on " : "", kn->upstream ? kn->upstream : "");
		else if (kn->kind != TRI_KERNEL_NONE)
			addf(k, " (%s)", tri_kernel_kind_str(kn->kind));
		addf(k, ", from the logs\n");
		if (field && strcmp(field, kn->version)) {
			label(k, "");
			addf(k, "%s, from the bug's field\n", field);
		}
	} else if (field) {
		label(k, "Kernel:");
		addf(k, "%s, from the bug's field\n", field);
	}
	if (kn->kind == TRI_KERNEL_DISTRO) {
		label(k, "Note:");
		addf(k, "a distribution kernel: the maintainers may ask for a mainline one\n");
	}
}

static void add_taint(struct block *k, unsigned flags)
{
	int first = 1;

	for (size_t i = 0; TRI_TAINT_LETTERS[i]; i++) {
		char letter = TRI_TAINT_LETTERS[i];

		if (!(flags & (1u << i)))
			continue;
		label(k, first ? "Note:" : "");
		addf(k, "%s%c (%s)\n", first ? "tainted: " : "         ", letter,
		     tri_taint_meaning(letter));
		first = 0;
	}
}

static void add_firmware(struct block *k, const struct tri_report *r)
{
	size_t shown = 0, named = 0;

	for (size_t i = 0; i < r->nfirmware; i++) {
		const struct tri_firmware *f = &r->firmware[i];

		if (!f->file && !f->version)
			continue;
		if (++named > 4)
			continue;
		label(k, shown++ ? "" : "Firmware:");
		addf(k, "%s", f->file ? f->file : f->driver ? f->driver : "(unnamed)");
		if (f->version)
			addf(k, " version %s", f->version);
		if (f->failed && f->error)
			addf(k, " (failed to load, error %d)", f->error);
		else if (f->failed)
			addf(k, " (failed to load)");
		addf(k, "\n");
	}
	if (named > shown) {
		label(k, "");
		addf(k, "(and %zu more)\n", named - shown);
	}
}

char *tri_block(const struct tri_report *r, const struct tri_ranking *rk,
		const char *kernel_field, size_t max_sections)
{
	struct block k = { BUF_INIT, 0 };
	size_t head;

	if (!r)
		return NULL;
	addf(&k, "Triage (read from the report by bugbridge; it may be wrong):\n");
	head = k.b.len;
	add_kernel(&k, r, kernel_field);
	add_taint(&k, r->taint_flags);
	if (r->hardware) {
		label(&k, "Machine:");
		addf(&k, "%s\n", r->hardware);
	}
	add_firmware(&k, r);
	if (r->noopses) {
		label(&k, "First oops:");
		addf(&k, "%s\n", r->oopses[0].first_line ? r->oopses[0].first_line
						       : tri_oops_kind_str(r->oopses[0].kind));
		if (r->noopses > 1) {
			label(&k, "");
			addf(&k, "(%zu in all)\n", r->noopses);
		}
	}
	for (size_t i = 0; rk && i < rk->n && i < max_sections; i++) {
		const struct tri_match *m = &rk->matches[i];

		label(&k, i ? "" : "Sections:");
		addf(&k, "%zu. %s\n", i + 1, m->section->name);
		if (m->reason) {
			label(&k, "");
			addf(&k, "   %s\n", m->reason);
		}
	}
	if (k.b.len == head || k.failed) {
		buf_release(&k.b);
		return NULL;
	}
	return buf_detach(&k.b, NULL);
}
