/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for bridge/maintainers: the real MAINTAINERS file from the
 * shared corpus (skipped with a note when it is absent), then synthetic
 * inputs for every forgiving rule of the parser. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "mail/maintainers.h"
#include "tests/unit/tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static char dir[] = "/tmp/bb-maintainers-XXXXXX";

static size_t strv_count(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *shared_path(const char *rel)
{
	const char *shared = getenv("BUGBRIDGE_SHARED");
	const char *top = getenv("top_srcdir");

	if (shared && *shared)
		return str_printf("%s/%s", shared, rel);
	return str_printf("%s/../shared/%s", top && *top ? top : ABS_SRCDIR, rel);
}

/* Counts, without the parser, the lines that start with "X:\t" after the
 * preamble: what the parser must find in sections. */
static size_t naive_count(const char *path, char letter)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t n = 0;
	int body = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "Maintainers List\n"))
			body = 1;
		if (body && line[0] == letter && line[1] == ':' && line[2] == '\t')
			n++;
	}
	fclose(f);
	return n;
}

static void expect_section(const struct mnt_file *mf, const char *name, const char *m0,
			   size_t nm, const char *l0, size_t nl, const char *status)
{
	const struct mnt_section *s = mnt_find(mf, name);

	if (!ok(s != NULL, "section \"%s\" found", name))
		return;
	is_str(s->name, name, "%s: name as written", name);
	is_int(strv_count(s->maintainers), nm, "%s: %zu M: entries", name, nm);
	if (m0)
		is_str(s->maintainers[0], m0, "%s: first M:", name);
	is_int(strv_count(s->lists), nl, "%s: %zu L: entries", name, nl);
	if (l0)
		is_str(s->lists[0], l0, "%s: first L:", name);
	is_str(s->status, status, "%s: S:", name);
}

static void test_real_file(void)
{
	char *path = shared_path("corpus/maintainers/MAINTAINERS");
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	const struct mnt_section *s;
	double best = 1e9, limit = SANITIZED ? 1000.0 : 50.0;
	size_t n, total_m = 0, total_l = 0, total_r = 0, bad_lists = 0, bad_people = 0;

	if (access(path, R_OK) != 0) {
		printf("ok %d # SKIP real MAINTAINERS not found at %s (set BUGBRIDGE_SHARED)\n",
		       ++tap_count, path);
		free(path);
		return;
	}
	for (int run = 0; run < 3; run++) {
		double t0 = now_ms(), t;
		enum bb_status st;

		mnt_free(mf);
		mf = NULL;
		st = mnt_load(&mf, path, &err);
		t = now_ms() - t0;
		if (st != BB_OK) {
			ok(0, "real MAINTAINERS loads: %s", err.message);
			free(path);
			return;
		}
		if (t < best)
			best = t;
	}
	ok(1, "real MAINTAINERS loads");
	diag("parsed %s in %.2f ms (best of 3)", path, best);
	ok(best < limit, "parse takes under %.0f ms (%.2f ms)", limit, best);

	/* grep -c of titles (a non-entry line after a blank line, after the
	 * preamble) gives 2905 in the corpus as of this writing; the file
	 * grows slowly, so a range. */
	n = mnt_count(mf);
	diag("%zu sections", n);
	ok(n >= 2500 && n <= 4000, "section count %zu is plausible", n);
	is_str(mnt_section_at(mf, 0)->name, "3C59X NETWORK DRIVER", "first section follows the preamble");
	is_str(mnt_section_at(mf, n - 1)->name, "THE REST", "last section");
	ok(mnt_section_at(mf, n) == NULL, "section_at past the end is NULL");
	ok(mnt_find(mf, "Maintainers List") == NULL, "preamble heading is no section");
	ok(mnt_find(mf, "List of maintainers") == NULL, "preamble title is no section");
	ok(mnt_find(mf, ".. note:: When reading this list, please look for the most precise areas") == NULL,
	   "preamble note is no section");

	for (size_t i = 0; i < n; i++) {
		s = mnt_section_at(mf, i);
		total_m += strv_count(s->maintainers);
		total_r += strv_count(s->reviewers);
		total_l += strv_count(s->lists);
		for (char **l = s->lists; *l; l++)
			if (!strchr(*l, '@') || strpbrk(*l, " \t<>()"))
				bad_lists++;
		for (char **m = s->maintainers; *m; m++)
			if (!strchr(*m, '@') || strchr(*m, '\t') || strstr(*m, "  "))
				bad_people++;
	}
	is_int(total_m, naive_count(path, 'M'), "every M: line is in a section");
	is_int(total_r, naive_count(path, 'R'), "every R: line is in a section");
	is_int(total_l, naive_count(path, 'L'), "every L: line is in a section");
	is_int(bad_lists, 0, "every L: is a bare address");
	is_int(bad_people, 0, "every M: is one-spaced and holds an address");

	expect_section(mf, "3C59X NETWORK DRIVER", "Steffen Klassert <klassert@kernel.org>", 1,
		       "netdev@vger.kernel.org", 1, "Odd Fixes");
	expect_section(mf, "802.11 (including CFG80211/NL80211)",
		       "Johannes Berg <johannes@sipsolutions.net>", 1,
		       "linux-wireless@vger.kernel.org", 1, "Maintained");
	s = mnt_find(mf, "802.11 (including CFG80211/NL80211)");
	if (s) {
		is_int(strv_count(s->trees), 2, "802.11: two T: trees");
		is_str(s->trees[0], "git git://git.kernel.org/pub/scm/linux/kernel/git/wireless/wireless.git",
		       "802.11: T: as written");
		is_str(s->web[0], "https://wireless.wiki.kernel.org/", "802.11: W:");
		is_str(s->patchwork[0], "https://patchwork.kernel.org/project/linux-wireless/list/",
		       "802.11: Q:");
		is_str(s->files[strv_count(s->files) - 1], "net/wireless/", "802.11: last F:");
		is_int(strv_count(s->files), 10, "802.11: ten F:");
	}
	expect_section(mf, "INTEL WIRELESS WIFI LINK (iwlwifi)",
		       "Miri Korenblit <miriam.rachel.korenblit@intel.com>", 1,
		       "linux-wireless@vger.kernel.org", 1, "Supported");
	expect_section(mf, "8169 10/100/1000 GIGABIT ETHERNET DRIVER",
		       "Heiner Kallweit <hkallweit1@gmail.com>", 2, "netdev@vger.kernel.org", 1,
		       "Maintained");
	s = mnt_find(mf, "8169 10/100/1000 GIGABIT ETHERNET DRIVER");
	if (s)
		is_str(s->maintainers[1], "nic_swsd@realtek.com", "8169: bare M: address kept");
	expect_section(mf, "53C700 AND 53C700-66 SCSI DRIVER",
		       "\"James E.J. Bottomley\" <James.Bottomley@HansenPartnership.com>", 1,
		       "linux-scsi@vger.kernel.org", 1, "Maintained");
	expect_section(mf, "THE REST", "Linus Torvalds <torvalds@linux-foundation.org>", 1,
		       "linux-kernel@vger.kernel.org", 1, "Buried alive in reporters");
	/* L: as "Name <addr>" and with a note after it */
	expect_section(mf, "ARM/NXP S32G ARCHITECTURE", NULL, 0, "s32@nxp.com", 2, "Maintained");
	s = mnt_find(mf, "ARM/NXP S32G ARCHITECTURE");
	if (s) {
		is_str(s->lists[1], "linux-arm-kernel@lists.infradead.org",
		       "\"(moderated for non-subscribers)\" dropped");
		is_int(strv_count(s->reviewers), 3, "S32G: three R:");
	}
	/* L: separated from its note by a tab */
	expect_section(mf, "PVRUSB2 VIDEO4LINUX DRIVER", "Mike Isely <isely@pobox.com>", 1,
		       "pvrusb2@isely.net", 2, "Maintained");
	/* M: with a tab between name and address */
	expect_section(mf, "PM6764TR DRIVER", "Charles Hsu <hsu.yungteng@gmail.com>", 1,
		       "linux-hwmon@vger.kernel.org", 1, "Maintained");
	/* R: with a note after the address */
	s = mnt_find(mf, "COMMON INTERNET FILE SYSTEM CLIENT (CIFS and SMB3)");
	if (ok(s != NULL, "CIFS section found")) {
		is_str(s->reviewers[0], "Paulo Alcantara <pc@manguebit.com>", "note after R: dropped");
		is_str(s->lists[1], "samba-technical@lists.samba.org", "CIFS: second L:");
	}
	/* out of alphabetical order, just before THE REST */
	expect_section(mf, "SENARYTECH AUDIO CODEC DRIVER", "bo liu <bo.liu@senarytech.com>", 1,
		       NULL, 0, "Maintained");

	/* case-insensitive lookup, white space around the name ignored */
	ok(mnt_find(mf, "the rest") == mnt_find(mf, "THE REST"), "lookup ignores case");
	ok(mnt_find(mf, "  Intel Wireless WiFi Link (IWLWIFI)\t") ==
	   mnt_find(mf, "INTEL WIRELESS WIFI LINK (iwlwifi)"), "lookup ignores case and outer space");
	ok(mnt_find(mf, "INTEL WIRELESS") == NULL, "a prefix is not a match");
	ok(mnt_find(mf, "") == NULL, "empty name matches nothing");
	ok(mnt_find(mf, "NETWORKING DRIVERS (WIRELESS)") != NULL, "the sample config's section exists");
	mnt_free(mf);
	free(path);
}

static void test_address(void)
{
	static const char *const cases[][2] = {
		{ "Johannes Berg <johannes@sipsolutions.net>", "johannes@sipsolutions.net" },
		{ "\"James E.J. Bottomley\" <James.Bottomley@HansenPartnership.com>",
		  "James.Bottomley@HansenPartnership.com" },
		{ "\"Doe, John <not this>\" <john@example.org>", "john@example.org" },
		{ "netdev@vger.kernel.org (moderated for non-subscribers)", "netdev@vger.kernel.org" },
		{ "pvrusb2@isely.net\t(subscribers-only)", "pvrusb2@isely.net" },
		{ "  bare@example.org  ", "bare@example.org" },
		{ "Paulo Alcantara <pc@manguebit.com> (DFS, global name space)", "pc@manguebit.com" },
		{ "Name < spaced@example.org >", "spaced@example.org" },
		{ "(comment with x@y) real@example.org", "real@example.org" },
		{ "John Doe", "" },
		{ "", "" },
		{ "broken <no-closing@example.org", "no-closing@example.org" },
		{ "<>", "" },
		{ "Team <not an address> real@example.org", "real@example.org" },
		{ "\"unterminated <x@example.org>", "x@example.org" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *a = mnt_address(cases[i][0]);

		is_str(a, cases[i][1], "address of \"%s\"", cases[i][0]);
		free(a);
	}
}

static struct mnt_file *parse(const char *text, size_t len)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;

	if (mnt_parse(&mf, text, len, &err) != BB_OK)
		ok(0, "parse failed: %s", err.message);
	return mf;
}

static struct mnt_file *parse_str(const char *text)
{
	return parse(text, strlen(text));
}

static void test_synthetic(void)
{
	struct mnt_file *mf;
	const struct mnt_section *s;
	struct buf b = BUF_INIT;

	/* no preamble, every field */
	mf = parse_str("FIRST\n"
		       "M:\tAna <ana@example.org>\nR:\tRui <rui@example.org>\n"
		       "L:\tlist@example.org\nS:\tSupported\nS:\tObsolete\nW:\thttps://w.example.org/\n"
		       "Q:\thttps://q.example.org/\nB:\tmailto:bugs@example.org\n"
		       "C:\tirc://irc.example.org/chan\nP:\tDocumentation/x.rst\n"
		       "T:\tgit git://example.org/x.git\nF:\tdrivers/x/\nX:\tdrivers/x/y/\n"
		       "N:\t[^a-z]x\nK:\t\\bx_probe\\b\nZ:\tunknown letter\n"
		       "\nSECOND\nS:\tOrphan\n");
	if (ok(mf && mnt_count(mf) == 2, "no preamble: two sections")) {
		s = mnt_section_at(mf, 0);
		is_str(s->name, "FIRST", "title on line 1");
		is_int(s->line, 1, "line number");
		is_str(s->status, "Supported", "first S: kept");
		is_str(s->reviewers[0], "Rui <rui@example.org>", "R:");
		is_str(s->web[0], "https://w.example.org/", "W:");
		is_str(s->patchwork[0], "https://q.example.org/", "Q:");
		is_str(s->bug_urls[0], "mailto:bugs@example.org", "B:");
		is_str(s->chats[0], "irc://irc.example.org/chan", "C:");
		is_str(s->profiles[0], "Documentation/x.rst", "P:");
		is_str(s->trees[0], "git git://example.org/x.git", "T:");
		is_str(s->files[0], "drivers/x/", "F:");
		is_str(s->excluded[0], "drivers/x/y/", "X:");
		is_str(s->file_regexes[0], "[^a-z]x", "N:");
		is_str(s->content_regexes[0], "\\bx_probe\\b", "K:");
		s = mnt_section_at(mf, 1);
		is_str(s->name, "SECOND", "second title");
		is_int(s->line, 19, "second title's line number");
		is_int(strv_count(s->maintainers) + strv_count(s->lists), 0, "orphan: no M:, no L:");
		ok(s->maintainers && s->lists && s->files, "absent fields are empty arrays");
	}
	mnt_free(mf);

	/* CRLF line ends */
	mf = parse_str("List of maintainers\r\n===\r\n\r\nHeading\r\n-------\r\n\r\n"
		       "ALPHA DRIVER\r\nM:\tAna  Alves\t<ana@example.org>\r\n"
		       "L:\talpha@example.org (moderated for non-subscribers)\r\nS:\tMaintained\r\n"
		       "\r\nBETA\r\nL:\tbeta@example.org\r\n");
	if (ok(mf && mnt_count(mf) == 2, "CRLF: two sections")) {
		s = mnt_find(mf, "alpha driver");
		ok(s != NULL, "CRLF: title without CR");
		if (s) {
			is_str(s->name, "ALPHA DRIVER", "CRLF: name");
			is_str(s->maintainers[0], "Ana Alves <ana@example.org>", "CRLF: M: one-spaced");
			is_str(s->lists[0], "alpha@example.org", "CRLF: L: address");
			is_str(s->status, "Maintained", "CRLF: S: without CR");
		}
		ok(mnt_find(mf, "Heading") == NULL, "CRLF: preamble skipped");
		ok(mnt_find(mf, "BETA") != NULL, "CRLF: last section");
	}
	mnt_free(mf);

	/* missing tab: spaces or nothing between letter and value */
	mf = parse_str("GAMMA\nM: Gil <gil@example.org>\nL:gamma@example.org\nS:    Odd Fixes\n"
		       "F:\n");
	if (ok(mf && mnt_count(mf) == 1, "missing tab: one section")) {
		s = mnt_section_at(mf, 0);
		is_str(s->maintainers[0], "Gil <gil@example.org>", "M: with a space");
		is_str(s->lists[0], "gamma@example.org", "L: with nothing");
		is_str(s->status, "Odd Fixes", "S: with spaces");
		is_int(strv_count(s->files), 0, "empty F: dropped");
	}
	mnt_free(mf);

	/* entries before any section, stray lines, sections without entries */
	mf = parse_str("M:\tstray@example.org\nL:\tstray-list@example.org\n\n"
		       "DELTA\nM:\tDina <dina@example.org>\nthis line is junk\nL:\tdelta@example.org\n"
		       "\nEMPTY SECTION\n\nEPSILON\nM:\tEva <eva@example.org>\n"
		       "\n    indented title\nM:\tnobody@example.org\n"
		       "\nDELTA\nM:\tsecond@example.org\n");
	if (ok(mf && mnt_count(mf) == 4, "leading entries dropped; %zu sections",
	       mf ? mnt_count(mf) : 0)) {
		s = mnt_find(mf, "delta");
		is_str(s ? s->maintainers[0] : NULL, "Dina <dina@example.org>", "first DELTA wins");
		is_str(s ? s->lists[0] : NULL, "delta@example.org", "entry after a junk line kept");
		ok(s && strv_count(s->maintainers) == 1, "stray entries not in the first section");
		s = mnt_find(mf, "EMPTY SECTION");
		ok(s && !s->maintainers[0] && !*s->status, "section without entries");
		s = mnt_find(mf, "EPSILON");
		ok(s && strv_count(s->maintainers) == 1,
		   "entries after an indented title are not given to the section before");
		ok(mnt_find(mf, "indented title") == NULL, "indented line is no title");
	}
	mnt_free(mf);

	/* empty input, blank input, only a preamble */
	mf = parse("", 0);
	ok(mf && mnt_count(mf) == 0, "empty file: no sections");
	ok(mnt_find(mf, "x") == NULL && mnt_section_at(mf, 0) == NULL, "empty file: lookups fail");
	mnt_free(mf);
	mf = parse_str("\n\n  \r\n\t\n");
	ok(mf && mnt_count(mf) == 0, "blank file: no sections");
	mnt_free(mf);
	mf = parse_str("List of maintainers\n===\n\n\tM: *Mail* patches to\n\nHeading\n---\n");
	ok(mf && mnt_count(mf) == 0, "only a preamble: no sections");
	mnt_free(mf);
	ok(mnt_count(NULL) == 0 && mnt_find(NULL, "x") == NULL, "NULL file is empty");

	/* a huge title, a huge value, a huge last line without newline */
	buf_addstr(&b, "HUGE ");
	for (int i = 0; i < 200000; i++)
		buf_addstr(&b, "abcde");
	buf_addstr(&b, "\nM:\tHu <hu@example.org>\nF:\t");
	for (int i = 0; i < 200000; i++)
		buf_addstr(&b, "x/y/z");
	buf_addstr(&b, "\n\nLAST\nL:\t");
	for (int i = 0; i < 100000; i++)
		buf_addstr(&b, "<<<<<");
	mf = parse(b.data, b.len);
	if (ok(mf && mnt_count(mf) == 2, "huge lines: two sections")) {
		s = mnt_section_at(mf, 0);
		is_int(strlen(s->name), 5 + 1000000, "huge title kept whole");
		is_int(strlen(s->files[0]), 1000000, "huge F: kept whole");
		is_int(strv_count(mnt_section_at(mf, 1)->lists), 0, "huge junk L: dropped");
	}
	mnt_free(mf);
	buf_release(&b);

	/* NUL bytes */
	{
		static const char text[] =
			"ZETA\nM:\tZe <ze@example.org>\nM:\tbad\0name <bad@example.org>\n"
			"L:\tzeta@example.org\n"
			"\nET\0A\nM:\tnul@example.org\n"
			"\nTHETA\nL:\ttheta@example.org\n\0\n";

		mf = parse(text, sizeof(text) - 1);
		if (ok(mf && mnt_count(mf) == 2, "NUL bytes: %zu sections", mf ? mnt_count(mf) : 0)) {
			s = mnt_find(mf, "ZETA");
			ok(s && strv_count(s->maintainers) == 1, "entry with a NUL dropped");
			ok(s && strv_count(s->lists) == 1, "entries after it kept");
			ok(s && strv_count(s->maintainers) == 1 &&
			   strcmp(s->maintainers[0], "nul@example.org"),
			   "entries of a title with a NUL not given to the section before");
			s = mnt_find(mf, "THETA");
			is_str(s ? s->lists[0] : NULL, "theta@example.org", "section after it parsed");
		}
		mnt_free(mf);
	}
}

static void test_load(void)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path = str_printf("%s/MAINTAINERS", dir), *missing = str_printf("%s/nope", dir);
	FILE *f = fopen(path, "w");

	fputs("ONE\nM:\tOne <one@example.org>\n\nTWO\nL:\ttwo@example.org\n", f);
	fclose(f);
	ok(mnt_load(&mf, path, &err) == BB_OK, "load a small file: %s", err.message);
	ok(mf && mnt_count(mf) == 2, "two sections loaded");
	mnt_free(mf);
	mf = NULL;
	is_int(mnt_load(&mf, missing, &err), BB_ERR_NOT_FOUND, "missing file: not found");
	ok(strstr(err.message, missing) != NULL, "message names the path: %s", err.message);
	ok(mf == NULL, "nothing returned");
	ok(mnt_load(&mf, dir, &err) != BB_OK, "a folder is refused: %s", err.message);
	ok(mf == NULL, "nothing returned for a folder");
	mf = NULL;
	f = fopen(path, "w");
	fclose(f);
	ok(mnt_load(&mf, path, &err) == BB_OK && mnt_count(mf) == 0, "empty file loads");
	mnt_free(mf);
	free(path);
	free(missing);
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(dir))
		return 99;
	test_real_file();
	test_address();
	test_synthetic();
	test_load();
	cmd = str_printf("rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	return done_testing();
}
