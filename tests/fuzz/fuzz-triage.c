/* libFuzzer target for triage/reader.c: any bytes are a report text.  The
 * reader must not crash or leak, every string it keeps must be valid UTF-8
 * without control characters and within TRI_MAX_STRING, every list within
 * its cap, every line number within the text, and the kernel kind must
 * agree with tri_kernel_classify() of the version.  Build with "make
 * fuzz", run with "make fuzz-run" (seeds in corpus-triage/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "triage/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

static void expect_clean(const char *s)
{
	if (!s)
		return;
	expect(g_utf8_validate(s, -1, NULL));
	expect(strlen(s) <= TRI_MAX_STRING);
	for (const char *p = s; *p; p++)
		expect((unsigned char)*p >= 0x20 && *p != 0x7f);
}

static void expect_line(size_t line, const struct tri_report *r)
{
	expect(line >= 1 && line <= r->nlines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tri_report *r = tri_read((const char *)data, size);
	char *up = NULL, *distro = NULL;
	unsigned taint = 0;

	expect(r->nlines <= size + 1);
	if (r->kernel.version) {
		expect_clean(r->kernel.version);
		expect_line(r->kernel.line, r);
		expect(r->kernel.kind == tri_kernel_classify(r->kernel.version, &up, &distro));
		expect(!g_strcmp0(up, r->kernel.upstream) && !g_strcmp0(distro, r->kernel.distro));
		expect(r->kernel.kind != TRI_KERNEL_NONE);
		g_free(up);
		g_free(distro);
	} else {
		expect(r->kernel.kind == TRI_KERNEL_NONE && !r->kernel.upstream);
	}
	expect(r->noopses <= TRI_MAX_OOPSES);
	for (size_t i = 0; i < r->noopses; i++) {
		const struct tri_oops *o = &r->oopses[i];

		expect_clean(o->first_line);
		expect(o->first_line != NULL);
		expect_line(o->line, r);
		expect_clean(o->panic);
		expect_clean(o->taint);
		expect_clean(o->comm);
		expect_clean(o->hardware);
		expect_clean(o->pc_symbol);
		expect_clean(o->pc_module);
		expect_clean(o->lr_symbol);
		expect_clean(o->lr_module);
		expect_clean(o->path);
		expect(!o->pc_module || o->pc_symbol);
		expect(o->nframes <= TRI_MAX_FRAMES);
		expect((unsigned)o->kind <= TRI_OOPS_FRAGMENT);
		for (size_t j = 0; j < o->nframes; j++) {
			expect(o->frames[j].symbol && *o->frames[j].symbol);
			expect_clean(o->frames[j].symbol);
			expect_clean(o->frames[j].module);
			expect_clean(o->frames[j].path);
			expect(o->frames[j].line >= o->line);
			expect_line(o->frames[j].line, r);
		}
		taint |= o->taint_flags;
	}
	expect(taint == r->taint_flags);
	expect_clean(r->hardware);
	expect(r->nmodules <= TRI_MAX_MODULES);
	for (size_t i = 0; i < r->nmodules; i++)
		expect(r->modules[i] && *r->modules[i]);
	expect(!r->modules || !r->modules[r->nmodules]);
	expect(r->nfirmware <= TRI_MAX_ITEMS && r->ndevices <= TRI_MAX_ITEMS &&
	       r->npaths <= TRI_MAX_ITEMS && r->ndrivers <= TRI_MAX_ITEMS);
	for (size_t i = 0; i < r->nfirmware; i++) {
		expect(r->firmware[i].file || r->firmware[i].version);
		expect_clean(r->firmware[i].file);
		expect_clean(r->firmware[i].version);
		expect_line(r->firmware[i].line, r);
	}
	for (size_t i = 0; i < r->ndevices; i++)
		expect(r->devices[i].vendor && r->devices[i].vendor <= 0xffff &&
		       r->devices[i].device <= 0xffff);
	for (size_t i = 0; i < r->npaths; i++) {
		expect_clean(r->paths[i].path);
		expect(!strstr(r->paths[i].path, "/../") && !strstr(r->paths[i].path, "//"));
		for (size_t j = 0; j < i; j++)
			expect(strcmp(r->paths[i].path, r->paths[j].path));
	}
	for (size_t i = 0; i < r->ndrivers; i++) {
		expect_clean(r->drivers[i].name);
		expect(r->drivers[i].count >= 1);
	}
	tri_report_free(r);
	return 0;
}
