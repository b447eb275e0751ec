/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for triage/reader.c and triage/match.c: any bytes are a
 * report text.  The reader must not crash or leak, every string it keeps
 * must be valid UTF-8 without control characters and within
 * TRI_MAX_STRING, every list within its cap, every line number within the
 * text, and the kernel kind must agree with tri_kernel_classify() of the
 * version.  The report is then ranked against a small MAINTAINERS (globs,
 * X:, N:, K:): scores positive and descending, reasons printable UTF-8.
 * Build with "make fuzz", run with "make fuzz-run" (seeds in
 * corpus-triage/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "mail/maintainers.h"
#include "triage/match.h"
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

static const char maintainers[] =
	"THE REST\nF:\t*\nF:\t*/\n\n"
	"HID CORE LAYER\nF:\tdrivers/hid/\nF:\tinclude/linux/hid*\nX:\tdrivers/hid/amd-sfh-hid/\n\n"
	"HID LOGITECH DRIVERS\nF:\tdrivers/hid/hid-logitech-*\n\n"
	"INTEL WIRELESS WIFI LINK (iwlwifi)\nF:\tdrivers/net/wireless/intel/iwlwifi/\n\n"
	"RADEON\nF:\tdrivers/gpu/drm/amd/\nF:\tinclude/uapi/drm/amdgpu_drm.h\n\n"
	"KFD\nF:\tdrivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd*.[ch]\n\n"
	"TCP\nF:\tnet/ipv4/tcp*.c\nF:\tarch/x86/kvm/\nF:\tarch/arm64/kvm/\n\n"
	"ATH12K\nN:\tath12k\nK:\t\\b(?:iwl|ath)[a-z_]*\\b\n";

static void expect_printable(const char *s)
{
	if (!s)
		return;
	expect(g_utf8_validate(s, -1, NULL));
	for (const char *p = s; *p; p++)
		expect((unsigned char)*p >= 0x20 && *p != 0x7f);
}

/* A locator that checks what it is asked (plain names, at most
 * TRI_LOCATE_MAX, distinct) and places every name under drivers/. */
static void fuzz_locate(const char *const *names, size_t n, int module, char **paths)
{
	expect(n <= TRI_LOCATE_MAX);
	for (size_t i = 0; i < n; i++) {
		char path[TRI_LOCATE_NAME_MAX + 32];

		expect(tri_locate_name_ok(names[i], module));
		for (size_t j = 0; j < i; j++)
			expect(strcmp(names[i], names[j]));
		/* every module placed, every other symbol: the rest falls back */
		snprintf(path, sizeof(path), module ? "drivers/%s/" : "drivers/net/%s.c", names[i]);
		paths[i] = module || i % 2 ? strdup(path) : NULL;
	}
}

static void fuzz_symbols(void *ctx, const char *const *names, size_t n, const char *arch,
			 char **paths)
{
	(void)ctx;
	(void)arch;
	fuzz_locate(names, n, 0, paths);
}

static void fuzz_modules(void *ctx, const char *const *names, size_t n, const char *arch,
			 char **paths)
{
	(void)ctx;
	(void)arch;
	fuzz_locate(names, n, 1, paths);
}

static void expect_ranking(const struct tri_ranking *rk)
{
	expect(rk->n <= 5);
	for (size_t i = 0; i < rk->n; i++) {
		expect(rk->matches[i].score > 0 && rk->matches[i].section);
		expect(i == 0 || rk->matches[i].score <= rk->matches[i - 1].score);
		expect(rk->matches[i].reason != NULL);
		expect_printable(rk->matches[i].reason);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct tri_locator loc = { fuzz_symbols, fuzz_modules, "fuzz", NULL };
	static struct mnt_file *mf;
	static struct tri_matcher *m;
	struct tri_ranking *rk;
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
	if (!m) {
		struct bb_error err = BB_ERROR_INIT;

		expect(mnt_parse(&mf, maintainers, sizeof(maintainers) - 1, &err) == BB_OK);
		m = tri_matcher_new(mf);
	}
	rk = tri_match(m, r, (const char *)data, size, 5);
	expect_ranking(rk);
	tri_ranking_free(rk);
	rk = tri_match_located(m, r, (const char *)data, size, 5, &loc);
	expect_ranking(rk);
	tri_ranking_free(rk);
	tri_report_free(r);
	return 0;
}
