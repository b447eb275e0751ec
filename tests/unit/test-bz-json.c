/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The REST parsers (bz_parse_bugs/comments/attachments) on the responses a
 * real Bugzilla 5.2 gave ($BUGBRIDGE_SHARED/fixtures/bugzilla-5/), on other
 * projects' recorded REST answers ($BUGBRIDGE_SHARED/corpus/bugzilla/), and
 * on hostile JSON written here. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "bugzilla/bz_json.h"
#include "core/buf.h"
#include "core/log.h"
#include "tests/unit/tap.h"

static char shared[4096];


static char *fixture(const char *name, size_t *len)
{
	char path[8192];
	char *data;

	snprintf(path, sizeof(path), "%s/fixtures/bugzilla-5/%s", shared, name);
	data = tap_slurp(path, len);
	if (!data) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	return data;
}

static char *corpus(const char *name, size_t *len)
{
	char path[8192];
	char *data;

	snprintf(path, sizeof(path), "%s/corpus/bugzilla/%s", shared, name);
	data = tap_slurp(path, len);
	if (!data) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	return data;
}

static time_t when(const char *iso)
{
	return bz_parse_time(iso);
}

static int valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n;
		unsigned cp;

		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((*p & 0xE0) == 0xC0) { n = 1; cp = *p & 0x1F; }
		else if ((*p & 0xF0) == 0xE0) { n = 2; cp = *p & 0x0F; }
		else if ((*p & 0xF8) == 0xF0) { n = 3; cp = *p & 0x07; }
		else return 0;
		p++;
		for (int i = 0; i < n; i++, p++) {
			if ((*p & 0xC0) != 0x80)
				return 0;
			cp = (cp << 6) | (*p & 0x3F);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
	}
	return 1;
}

/* Every string of a bug is valid UTF-8 and not NULL, as bug.h promises. */
static int bug_sane(const struct bz_bug *b)
{
	const char *strings[] = { b->summary, b->product, b->component, b->status, b->resolution,
				  b->severity, b->priority, b->version, b->url, b->creator.login,
				  b->creator.real_name, b->assigned_to.login,
				  b->assigned_to.real_name, b->qa_contact.login,
				  b->qa_contact.real_name, b->target_milestone, b->op_sys,
				  b->platform };

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (!strings[i] || !valid_utf8(strings[i]))
			return 0;
	if (!b->keywords || !b->groups || !b->cc || !b->alias)
		return 0;
	if ((b->ndepends_on && !b->depends_on) || (b->nblocks && !b->blocks))
		return 0;
	for (char **p = b->cc; *p; p++)
		if (!valid_utf8(*p))
			return 0;
	for (size_t i = 0; i < b->nfields; i++)
		if (!b->fields[i].name || !b->fields[i].value || !valid_utf8(b->fields[i].value))
			return 0;
	for (size_t i = 0; i < b->ncomments; i++)
		if (!b->comments[i].text || !valid_utf8(b->comments[i].text) ||
		    !b->comments[i].author.login || !b->comments[i].author.real_name)
			return 0;
	for (size_t i = 0; i < b->nattachments; i++)
		if (!b->attachments[i].file_name || !b->attachments[i].summary ||
		    !b->attachments[i].content_type || !b->attachments[i].creator.login)
			return 0;
	return 1;
}

static size_t list_len(char **list)
{
	size_t n = 0;

	while (list && list[n])
		n++;
	return n;
}

static void free_bugs(struct bz_bug *bugs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
}

static enum bb_status parse_bugs_str(const char *json, struct bz_bug **bugs, size_t *n,
				     struct bb_error *err)
{
	*bugs = NULL;
	*n = 0;
	return bz_parse_bugs(json, strlen(json), "cf_subsystem", bugs, n, err);
}

/* Empty bugs with these ids, for the comment and attachment parsers. */
static struct bz_bug *bugs_with_ids(const long long *ids, size_t n)
{
	struct bz_bug *bugs = calloc(n, sizeof(*bugs));

	for (size_t i = 0; i < n; i++)
		bugs[i].id = ids[i];
	return bugs;
}

static void test_bug_1(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bugs = NULL;
	size_t n = 0, len;
	char *json = fixture("034-bug-1-admin.json", &len);
	enum bb_status st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);

	is_int(st, BB_OK, "034: bug 1 parses (%s)", err.message);
	is_int(n, 1, "034: one bug");
	if (n == 1) {
		struct bz_bug *b = &bugs[0];

		is_int(b->id, 1, "034: id");
		is_str(b->summary, "r8169: NETDEV WATCHDOG: transmit queue 0 timed out after resume "
		       "from suspend (RTL8168h)", "034: summary");
		is_str(b->product, "Drivers", "034: product");
		is_str(b->component, "Network", "034: component");
		is_str(b->status, "IN_PROGRESS", "034: status");
		is_str(b->resolution, "", "034: open bug, empty resolution");
		is_str(b->severity, "major", "034: severity");
		is_str(b->priority, "High", "034: priority");
		is_str(b->version, "unspecified", "034: version");
		is_str(b->url, "https://lore.kernel.org/netdev/20261101.r8169-resume@example.com/",
		       "034: url");
		is_str(b->creator.login, "alice.reporter@example.com", "034: reporter");
		is_str(b->creator.real_name, "Alice Reporter", "034: reporter's name from creator_detail");
		is_str(b->assigned_to.login, "bob.netdev@example.com", "034: assignee");
		is_str(b->assigned_to.real_name, "Bob Netdev", "034: assignee's name");
		is_int(b->creation_time, when("2026-12-03T08:01:55Z"), "034: creation time");
		is_int(b->last_change_time, when("2026-12-03T08:02:29Z"), "034: last change time");
		is_int(list_len(b->keywords), 0, "034: no keywords");
		is_int(list_len(b->groups), 0, "034: public");
		is_int(list_len(b->cc), 2, "034: two in cc");
		is_str(b->cc[0], "dave.user@example.com", "034: first cc");
		is_int(b->dupe_of, 0, "034: not a duplicate (null)");
		is_str(bz_bug_field(b, "cf_regression"), "Yes", "034: cf_regression kept");
		ok(bz_bug_field(b, "whiteboard") == NULL, "034: only cf_* fields are kept");
		is_int(b->ncomments + b->nattachments, 0, "034: no comments, no attachments yet");
		ok(bug_sane(b), "034: model complete");
	}
	free_bugs(bugs, n);
	free(json);

	json = fixture("044-bug-duplicate-18.json", &len);
	bugs = NULL;
	n = 0;
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 1 && bugs[0].id == 18 && bugs[0].dupe_of == 2 &&
	   !strcmp(bugs[0].resolution, "DUPLICATE"), "044: bug 18 is a duplicate of 2");
	free_bugs(bugs, n);
	free(json);
}

/* A list of bug ids as "1,2,3" (into out). */
static const char *ids_text(const long long *ids, size_t n, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%lld", i ? "," : "", ids[i]);
	return out;
}

/* What a migration keeps: depends_on, blocks, alias, qa_contact,
 * target_milestone, op_sys, platform. */
static void test_structure(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bugs = NULL;
	size_t n = 0, len;
	char ids[256];
	char *json = fixture("034-bug-1-admin.json", &len);
	enum bb_status st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);

	ok(st == BB_OK && n == 1, "034: parses");
	if (n == 1) {
		struct bz_bug *b = &bugs[0];

		is_str(ids_text(b->blocks, b->nblocks, ids, sizeof(ids)), "25", "034: blocks 25");
		ok(b->ndepends_on == 0 && !b->depends_on, "034: empty depends_on");
		is_int(list_len(b->alias), 0, "034: empty alias list");
		is_str(b->qa_contact.login, "erin.triage@example.com", "034: qa_contact");
		is_str(b->qa_contact.real_name, "Erin Triage", "034: from qa_contact_detail");
		is_str(b->target_milestone, "---", "034: target_milestone");
		is_str(b->op_sys, "Linux", "034: op_sys");
		is_str(b->platform, "PC", "034: platform");
	}
	free_bugs(bugs, n);
	free(json);

	/* a tracker bug: depends on four */
	json = fixture("046-bug-tracker-25.json", &len);
	bugs = NULL;
	n = 0;
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 1, "046: parses");
	if (n == 1) {
		is_str(ids_text(bugs[0].depends_on, bugs[0].ndepends_on, ids, sizeof(ids)),
		       "1,7,21,29", "046: tracker 25 depends on 1, 7, 21, 29");
		is_int(bugs[0].nblocks, 0, "046: blocks none");
		is_str(bugs[0].platform, "All", "046: platform All");
	}
	free_bugs(bugs, n);
	free(json);

	json = fixture("039-bug-by-alias.json", &len);
	bugs = NULL;
	n = 0;
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 1 && list_len(bugs[0].alias) == 1 &&
	   !strcmp(bugs[0].alias[0], "ext4-dax-stale-data"), "039: bug 4's alias list");
	free_bugs(bugs, n);
	free(json);

	/* include_fields without them: all empty, nothing NULL */
	json = fixture("036-bug-1-include-fields.json", &len);
	bugs = NULL;
	n = 0;
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 1 && bug_sane(&bugs[0]) && !bugs[0].nblocks &&
	   !bugs[0].ndepends_on && !strcmp(bugs[0].op_sys, "") &&
	   !strcmp(bugs[0].qa_contact.login, "") && list_len(bugs[0].alias) == 0,
	   "036: fields not asked for read as empty");
	free_bugs(bugs, n);
	free(json);

	/* Bugzilla 4.4 (perceval): alias null */
	json = corpus("perceval/bugzilla_rest_bugs.json", &len);
	bugs = NULL;
	n = 0;
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n >= 1 && list_len(bugs[0].alias) == 0 && bugs[0].nblocks == 1 &&
	   bugs[0].blocks[0] == 1273436 && !strcmp(bugs[0].op_sys, "Mac OS X") &&
	   !strcmp(bugs[0].qa_contact.login, ""), "perceval: alias null, blocks, no QA contact");
	free_bugs(bugs, n);
	free(json);

	json = corpus("python-bugzilla/test_getbug_rhel.json", &len);
	bugs = NULL;
	n = 0;
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 1 && bugs[0].ndepends_on == 1 && bugs[0].depends_on[0] == 112233 &&
	   bugs[0].nblocks == 1 && bugs[0].blocks[0] == 123456 &&
	   !strcmp(bugs[0].target_milestone, "rc") &&
	   !strcmp(bugs[0].qa_contact.login, "mspqa-list@redhat.com"),
	   "python-bugzilla rhel: depends, blocks, target milestone, QA contact");
	free_bugs(bugs, n);
	free(json);

	st = parse_bugs_str("{\"bugs\": [{\"id\": 5, \"alias\": [\"one\", \"two\"],"
			    " \"depends_on\": [9, \"3\", 9, -1, null, {}, 0],"
			    " \"blocks\": [12, 11], \"qa_contact\": \"\","
			    " \"platform\": \"Other\"},"
			    " {\"id\": 6, \"alias\": \"old-style\", \"depends_on\": \"7\","
			    " \"blocks\": {}}]}", &bugs, &n, &err);
	ok(st == BB_OK && n == 2, "written: two bugs (%s)", err.message);
	if (n == 2) {
		ok(list_len(bugs[0].alias) == 2 && !strcmp(bugs[0].alias[0], "one") &&
		   !strcmp(bugs[0].alias[1], "two"), "written: two aliases");
		is_str(ids_text(bugs[0].depends_on, bugs[0].ndepends_on, ids, sizeof(ids)), "3,9",
		       "written: depends_on sorted, repeats and non-ids left out");
		is_str(ids_text(bugs[0].blocks, bugs[0].nblocks, ids, sizeof(ids)), "11,12",
		       "written: blocks two");
		ok(!strcmp(bugs[0].qa_contact.login, "") && !strcmp(bugs[0].qa_contact.real_name, ""),
		   "written: no QA contact");
		ok(list_len(bugs[1].alias) == 1 && !strcmp(bugs[1].alias[0], "old-style"),
		   "written: a 4.x alias string is one alias");
		ok(!bugs[1].ndepends_on && !bugs[1].nblocks && bug_sane(&bugs[1]),
		   "written: lists that are no arrays read as none");
	}
	free_bugs(bugs, n);
}

static void test_searches(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bugs = NULL;
	size_t n = 0, len, i;
	char *json = fixture("093-search-no-criteria.json", &len);
	enum bb_status st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	int ids_ok = 1, sane = 1;

	is_int(st, BB_OK, "093: search without criteria parses");
	is_int(n, 30, "093: all 30 seeded bugs");
	for (i = 0; i < n; i++) {
		ids_ok &= bugs[i].id == (long long)i + 1;
		sane &= bug_sane(&bugs[i]);
	}
	ok(ids_ok, "093: ids 1..30 in order");
	ok(sane, "093: every bug complete");
	ok(n == 30 && bugs[17].dupe_of == 2, "093: bug 18 duplicates bug 2");
	free(json);

	/* appending: a second page goes after the first */
	json = fixture("155-search-sync-query.json", &len);
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	is_int(st, BB_OK, "155: sync query parses");
	is_int(n, 35, "155: 5 bugs appended to 30");
	ok(n == 35 && bugs[30].id == 25 && bugs[31].id == 31 && bugs[32].id == 1 &&
	   bugs[33].id == 2 && bugs[34].id == 29, "155: in changeddate,bug_id order");
	ok(n == 35 && bugs[34].last_change_time == when("2026-12-03T08:03:09Z") &&
	   !strcmp(bugs[34].summary, ""), "155: include_fields subset, the rest empty");
	free_bugs(bugs, n);
	free(json);

	bugs = NULL;
	n = 0;
	json = fixture("154-search-last-change-time-after-writes-full.json", &len);
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 5, "154: five bugs changed after the writes");
	ok(n == 5 && bugs[4].id == 31 && !strcmp(bz_bug_field(&bugs[4], "cf_regression"), "Yes"),
	   "154: new bug 31, a regression");
	free_bugs(bugs, n);
	free(json);

	bugs = NULL;
	n = 0;
	json = fixture("092-search-unknown-product.json", &len);
	st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 0 && bugs == NULL, "092: unknown product, no bugs");
	free(json);
}

static void test_comments(void)
{
	static const long long ids[] = { 1 };
	static const long long two_four[] = { 2, 4, 7 };
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bug1 = NULL, *bugs;
	size_t n = 0, len;
	char *json;
	enum bb_status st;
	int ok_counts = 1;

	/* bug 1 with its reporter and assignee, so names can be filled in */
	json = fixture("034-bug-1-admin.json", &len);
	bz_parse_bugs(json, len, NULL, &bug1, &n, &err);
	free(json);

	json = fixture("047-bug-1-comments-anon.json", &len);
	st = bz_parse_comments(json, len, bug1, n, &err);
	free(json);
	is_int(st, BB_OK, "047: anonymous comments parse");
	is_int(bug1->ncomments, 9, "047: 9 public comments");
	for (size_t i = 0; i < bug1->ncomments; i++)
		ok_counts &= !bug1->comments[i].is_private && bug1->comments[i].bug_id == 1;
	ok(ok_counts, "047: none private, all of bug 1");

	json = fixture("048-bug-1-comments-admin.json", &len);
	st = bz_parse_comments(json, len, bug1, n, &err);
	free(json);
	is_int(st, BB_OK, "048: insider comments parse into the same bug");
	is_int(bug1->ncomments, 11, "048: merged by id: 9 + 2 private, no duplicates");
	ok_counts = 1;
	for (size_t i = 0; i < bug1->ncomments; i++)
		ok_counts &= bug1->comments[i].count == (int)i;
	ok(ok_counts, "048: sorted by count 0..10");
	ok(bug1->comments[5].id == 6 && bug1->comments[5].is_private &&
	   bug1->comments[8].id == 9 && bug1->comments[8].is_private,
	   "048: comments 6 and 9 are private");
	is_str(bug1->comments[0].author.login, "alice.reporter@example.com", "048: author login");
	is_str(bug1->comments[0].author.real_name, "Alice Reporter",
	       "048: reporter's real name from the bug");
	is_str(bug1->comments[2].author.real_name, "Bob Netdev", "048: assignee's real name");
	is_str(bug1->comments[4].author.real_name, "", "048: others' names stay empty");
	is_int(bug1->comments[0].time, when("2026-12-03T08:01:55Z"), "048: comment time");
	is_int(bug1->comments[1].attachment_id, 1, "048: comment 2 announces attachment 1");
	is_int(bug1->comments[0].attachment_id, 0, "048: null attachment_id is 0");
	ok(!strncmp(bug1->comments[0].text, "Since 6.12-rc3 the onboard RTL8168h", 35),
	   "048: description text");

	json = fixture("050-bug-1-comments-new-since.json", &len);
	st = bz_parse_comments(json, len, bug1, n, &err);
	free(json);
	ok(st == BB_OK && bug1->ncomments == 11, "050: new_since overlap adds nothing twice");

	json = fixture("147-bug-1-comments-new-since-writes-admin.json", &len);
	st = bz_parse_comments(json, len, bug1, n, &err);
	free(json);
	ok(st == BB_OK && bug1->ncomments == 18 && bug1->comments[17].id == 106 &&
	   bug1->comments[17].count == 17, "147: 7 new comments appended in order");
	ok(bug_sane(bug1), "bug 1 with comments complete");
	free_bugs(bug1, n);

	/* comments of several bugs in one answer; bug 7 asked, none came */
	bugs = bugs_with_ids(two_four, 3);
	json = fixture("053-comments-multiple-bugs.json", &len);
	st = bz_parse_comments(json, len, bugs, 3, &err);
	free(json);
	is_int(st, BB_OK, "053: comments of bugs 2 and 4 parse");
	is_int(bugs[0].ncomments, 7, "053: bug 2 has 7");
	is_int(bugs[1].ncomments, 4, "053: bug 4 has 4");
	is_int(bugs[2].ncomments, 0, "053: bug 7 none");
	ok(bugs[0].ncomments == 7 && bugs[0].comments[1].attachment_id == 5 &&
	   bugs[0].comments[6].id == 92, "053: bug 2 comment ids and attachment");
	ok(bugs[0].ncomments == 7 && strstr(bugs[0].comments[5].text, "Jos\xC3\xA9 on the linux-usb"),
	   "053: \\u00e9 decoded to UTF-8");
	free_bugs(bugs, 3);

	/* comment by id: {"comments": {"4": {...}}} */
	bugs = bugs_with_ids(ids, 1);
	json = fixture("055-comment-by-id.json", &len);
	st = bz_parse_comments(json, len, bugs, 1, &err);
	free(json);
	ok(st == BB_OK && bugs[0].ncomments == 1 && bugs[0].comments[0].id == 4 &&
	   bugs[0].comments[0].count == 3, "055: a comment fetched by id lands in its bug");
	free_bugs(bugs, 1);

	/* BMO-style answer (perceval corpus): no count, author and creator */
	{
		static const long long bmo[] = { 1273442, 1273439 };

		bugs = bugs_with_ids(bmo, 2);
		json = corpus("perceval/bugzilla_rest_bugs_comments.json", &len);
		st = bz_parse_comments(json, len, bugs, 2, &err);
		free(json);
		ok(st == BB_OK && bugs[0].ncomments == 7 && bugs[1].ncomments == 0 &&
		   bugs[0].comments[0].id == 11413982 &&
		   !strcmp(bugs[0].comments[2].author.login, "evan@tseng.io"),
		   "perceval: 7 comments, ordered by id when count is missing");
		free_bugs(bugs, 2);
	}
}

static void test_attachments(void)
{
	static const long long one[] = { 1 };
	static const long long three[] = { 9, 1, 2 };
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bugs;
	size_t len;
	char *json;
	enum bb_status st;

	bugs = bugs_with_ids(one, 1);
	json = fixture("061-bug-1-attachments-no-data.json", &len);
	st = bz_parse_attachments(json, len, bugs, 1, &err);
	free(json);
	is_int(st, BB_OK, "061: attachment list parses");
	is_int(bugs[0].nattachments, 4, "061: 4 attachments");
	if (bugs[0].nattachments == 4) {
		struct bz_attachment *a = bugs[0].attachments;

		ok(a[0].id == 1 && a[1].id == 2 && a[2].id == 3 && a[3].id == 4, "061: ids in order");
		is_int(a[1].size, 1048576, "061: 1 MiB dump");
		is_str(a[1].file_name, "rtl8168h-2-fw-dump.bin", "061: file name");
		is_str(a[1].content_type, "application/octet-stream", "061: content type");
		is_str(a[1].summary, "RTL8168h firmware + register dump after resume (1 MiB)",
		       "061: summary");
		is_str(a[1].creator.login, "alice.reporter@example.com", "061: creator");
		is_int(a[1].creation_time, when("2026-12-03T08:02:01Z"), "061: creation time");
		ok(a[2].is_private && !a[0].is_private, "061: attachment 3 private (0/1 ints)");
		ok(a[3].is_patch && !a[3].is_obsolete, "061: attachment 4 a patch");
		is_int(a[0].bug_id, 1, "061: bug id set");
	}
	/* the list after the writes: 2 more, 4 obsolete; merged, not doubled */
	json = fixture("150-bug-1-attachments-after-writes.json", &len);
	st = bz_parse_attachments(json, len, bugs, 1, &err);
	free(json);
	ok(st == BB_OK && bugs[0].nattachments == 6 && bugs[0].attachments[3].is_obsolete &&
	   bugs[0].attachments[4].id == 12 && bugs[0].attachments[4].size == 2548,
	   "150: merged by id, fresh metadata wins");
	free_bugs(bugs, 1);

	/* with base64 data in it (1.4 MB): the data is ignored */
	bugs = bugs_with_ids(one, 1);
	json = fixture("059-bug-1-attachments-admin.json", &len);
	st = bz_parse_attachments(json, len, bugs, 1, &err);
	free(json);
	ok(st == BB_OK && bugs[0].nattachments == 4 && bugs[0].attachments[1].size == 1048576,
	   "059: list with data parses");
	free_bugs(bugs, 1);

	/* {"attachments": {"4": ..., "5": ..., "9": ...}}: spread by bug_id */
	bugs = bugs_with_ids(three, 3);
	json = fixture("067-attachments-by-ids.json", &len);
	st = bz_parse_attachments(json, len, bugs, 3, &err);
	free(json);
	ok(st == BB_OK && bugs[0].nattachments == 1 && bugs[0].attachments[0].id == 9 &&
	   bugs[1].nattachments == 1 && bugs[1].attachments[0].id == 4 &&
	   bugs[2].nattachments == 1 && bugs[2].attachments[0].id == 5,
	   "067: attachments by id go to their bugs");
	free_bugs(bugs, 3);

	/* python-bugzilla (redhat): UTF-8 file name, attachment map */
	{
		static const long long rh[] = { 663674 };

		bugs = bugs_with_ids(rh, 1);
		json = corpus("python-bugzilla/test_attach_get1.json", &len);
		st = bz_parse_attachments(json, len, bugs, 1, &err);
		free(json);
		ok(st == BB_OK && bugs[0].nattachments == 1 &&
		   !strcmp(bugs[0].attachments[0].file_name, "Kl\xC3\xAD\xC4\x8D memorial test file.txt") &&
		   bugs[0].attachments[0].size == 45, "python-bugzilla: UTF-8 file name");
		free_bugs(bugs, 1);
		bugs = bugs_with_ids(rh, 1);
		json = corpus("python-bugzilla/test_attach_get2.json", &len);
		st = bz_parse_attachments(json, len, bugs, 1, &err);
		free(json);
		ok(st == BB_OK && bugs[0].nattachments == 3, "python-bugzilla: three attachments");
		free_bugs(bugs, 1);
	}
	/* perceval: Bugzilla 4 names (attacher, description) */
	{
		static const long long bmo[] = { 1273442 };

		bugs = bugs_with_ids(bmo, 1);
		json = corpus("perceval/bugzilla_rest_bugs_attachments.json", &len);
		st = bz_parse_attachments(json, len, bugs, 1, &err);
		free(json);
		ok(st == BB_OK && bugs[0].nattachments == 1 && bugs[0].attachments[0].id == 8415766 &&
		   !strcmp(bugs[0].attachments[0].content_type, "application/x-zip-compressed"),
		   "perceval: attachment metadata");
		free_bugs(bugs, 1);
	}
}

static void test_errors(void)
{
	static const struct { const char *file; enum bb_status want; const char *text; } cases[] = {
		{ "042-bug-nonexistent.json", BB_ERR_NOT_FOUND, "Bug #99999 does not exist." },
		{ "015-bug-1-bad-api-key.json", BB_ERR_AUTH, "The API key you specified is invalid" },
		{ "056-comment-private-by-id-anon.json", BB_ERR_AUTH, "Comment id 6 is private." },
		{ "064-attachment-3-private-anon.json", BB_ERR_AUTH, "not authorized to access attachment #3" },
		{ "127-add-comment-anon.json", BB_ERR_AUTH, "You must log in" },
		{ "008-resource-not-found.json", BB_ERR_NOT_FOUND, "A REST API resource was not found" },
		{ "020-user-nonexistent.json", BB_ERR_NOT_FOUND, "There is no user named" },
		{ "121-create-bug-malformed-json.json", BB_ERR_INVALID, "Could not parse" },
		{ "083-search-last-change-time-invalid.json", BB_ERR_INVALID, "" },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bugs = NULL;
	size_t n = 0, len;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *json = fixture(cases[i].file, &len);
		enum bb_status st;

		bb_error_clear(&err);
		st = bz_parse_bugs(json, len, NULL, &bugs, &n, &err);
		is_int(st, cases[i].want, "%s folds to %s", cases[i].file, status_str(cases[i].want));
		ok(err.code == cases[i].want && strstr(err.message, cases[i].text) &&
		   strstr(err.message, "Bugzilla error"), "%s: message kept: %s", cases[i].file,
		   err.message);
		ok(n == 0 && bugs == NULL, "%s: no bugs", cases[i].file);
		free(json);
	}
	{
		char *json = corpus("perceval/bugzilla_rest_error.json", &len);
		struct bz_bug one = { .id = 1 };
		enum bb_status st = bz_parse_comments(json, len, &one, 1, &err);

		ok(st == BB_ERR_INVALID && strstr(err.message, "API key authentication is required"),
		   "perceval error object (code 32000) in a comment answer: invalid");
		free(json);
	}
}

static void test_hostile(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	enum bb_status st;

	/* wrong types everywhere */
	st = parse_bugs_str("{\"bugs\": [{\"id\": \"7\", \"summary\": 42, \"product\": null,"
			    " \"component\": [\"x\"], \"status\": {\"a\": 1}, \"keywords\": \"kw\","
			    " \"cc\": [1, null, {\"a\": 1}, \"x\", [2]], \"creation_time\": 5,"
			    " \"last_change_time\": \"yesterday\", \"creator_detail\": \"str\","
			    " \"assigned_to_detail\": {\"real_name\": 3}, \"dupe_of\": \"abc\","
			    " \"cf_x\": [1, \"b\", null], \"cf_obj\": {\"k\": 1}, \"cf_subsystem\": true,"
			    " \"groups\": {\"a\": 1}},"
			    " 17, null, \"bug\", [], {}, {\"id\": -4}, {\"id\": 0}, {\"id\": 1e400},"
			    " {\"id\": 3.7}, {\"id\": true}, {\"id\": 99999999999999999999999}]}",
			    &bugs, &n, &err);
	is_int(st, BB_OK, "wrong types: parses (%s)", err.message);
	is_int(n, 4, "wrong types: bugs without a positive id skipped (kept 7, 3, 1, max)");
	if (n == 4) {
		struct bz_bug *b = &bugs[0];

		is_int(b->id, 7, "wrong types: numeric string id");
		is_str(b->summary, "42", "wrong types: number as text");
		is_str(b->product, "", "wrong types: null is empty");
		is_str(b->component, "", "wrong types: array is empty");
		is_str(b->status, "", "wrong types: object is empty");
		ok(list_len(b->keywords) == 1 && !strcmp(b->keywords[0], "kw"),
		   "wrong types: one keyword as a string");
		ok(list_len(b->cc) == 2 && !strcmp(b->cc[0], "1") && !strcmp(b->cc[1], "x"),
		   "wrong types: scalars of a list kept, the rest skipped");
		is_int(b->creation_time, 0, "wrong types: number as time is 0");
		is_int(b->last_change_time, 0, "wrong types: bad time is 0");
		is_str(b->assigned_to.real_name, "3", "wrong types: detail with a number");
		is_int(b->dupe_of, 0, "wrong types: bad dupe_of is 0");
		is_str(bz_bug_field(b, "cf_x"), "1, b, ", "wrong types: list field joined");
		ok(bz_bug_field(b, "cf_obj") == NULL, "wrong types: object field skipped");
		is_str(bz_bug_field(b, "cf_subsystem"), "true", "wrong types: boolean field as text");
		is_int(list_len(b->groups), 0, "wrong types: groups object ignored");
		ok(bug_sane(b), "wrong types: model complete");
		is_int(bugs[1].id, 3, "3.7 truncates to 3");
		is_int(bugs[2].id, 1, "true reads as 1");
		ok(bugs[3].id > 1000000000000LL, "huge id saturates, no overflow");
	}
	free_bugs(bugs, n);

	/* invalid UTF-8, NUL, control characters, lone surrogates */
	st = parse_bugs_str("{\"bugs\": [{\"id\": 1, \"summary\": \"a\xff\xfe" "b\\u0000c\\u0001d\","
			    " \"product\": \"\\ud800x\", \"component\": \"\xc3\", \"version\": \"\xed\xa0\x80\","
			    " \"cf_\xff\": \"v\"}]}", &bugs, &n, &err);
	is_int(st, BB_OK, "bad UTF-8: parses");
	if (st == BB_OK && n == 1) {
		is_str(bugs[0].summary, "a\xEF\xBF\xBD\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\x01" "d",
		       "bad UTF-8: U+FFFD for bad bytes and NUL, control character kept");
		ok(valid_utf8(bugs[0].product) && valid_utf8(bugs[0].component) &&
		   valid_utf8(bugs[0].version), "bad UTF-8: surrogates and cut sequences repaired");
		ok(bugs[0].nfields == 1 && valid_utf8(bugs[0].fields[0].name),
		   "bad UTF-8: field name repaired");
	}
	free_bugs(bugs, n);

	/* an answer that is empty, cut short or not JSON: temporary (Bugzilla
	 * with its database down, a proxy's error page, a lost connection) */
	{
		static const char *const cut[] = {
			"", "   ", "{", "{\"bugs\": [", "{\"bugs\": [{\"id\": 1}", "<html>login</html>",
			"{\"bugs\": [{\"id\": 1, \"summary\": \"unterminated}]}",
		};

		for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
			st = parse_bugs_str(cut[i], &bugs, &n, &err);
			ok(st == BB_ERR_TEMPORARY && n == 0, "cut or not JSON \"%.20s\": temporary (%s)",
			   cut[i], err.message);
			free_bugs(bugs, n);
		}
	}
	/* JSON of the wrong shape: protocol */
	{
		static const char *const bad[] = {
			"[]", "\"bugs\"", "null", "42", "{\"bugs\": {}}", "{\"bugs\": 1}",
			"{\"faults\": []}", "{\"bugs\": []} trailing", "{\"bugs\": []}{}",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			st = parse_bugs_str(bad[i], &bugs, &n, &err);
			ok(st == BB_ERR_PROTOCOL && n == 0, "malformed \"%.20s\": protocol error (%s)",
			   bad[i], err.message);
			free_bugs(bugs, n);
		}
	}
	st = parse_bugs_str("{\"bugs\": []}\n", &bugs, &n, &err);
	ok(st == BB_OK && n == 0, "trailing newline is fine");

	/* error objects */
	{
		static const struct { const char *json; enum bb_status want; } errs[] = {
			{ "{\"error\": true, \"code\": 101, \"message\": \"gone\"}", BB_ERR_NOT_FOUND },
			{ "{\"error\": true, \"code\": 102, \"message\": \"hidden\"}", BB_ERR_AUTH },
			{ "{\"error\": true, \"code\": 306, \"message\": \"bad key\"}", BB_ERR_AUTH },
			{ "{\"error\": true, \"code\": 410}", BB_ERR_AUTH },
			{ "{\"error\": true, \"code\": -32000, \"message\": \"DBI\"}", BB_ERR_TEMPORARY },
			{ "{\"error\": true, \"code\": 32000, \"message\": \"x\"}", BB_ERR_INVALID },
			/* an anonymous call while the database is down */
			{ "{\"error\": true, \"code\": 100500, \"message\": \"DBI connect\"}",
			  BB_ERR_TEMPORARY },
			{ "{\"error\": true, \"code\": \"oops\", \"message\": [1]}", BB_ERR_INVALID },
			{ "{\"error\": {\"code\": 101, \"message\": \"rpc\"}, \"result\": null}",
			  BB_ERR_NOT_FOUND },
			{ "{\"error\": null, \"bugs\": []}", BB_OK },
			{ "{\"error\": false, \"bugs\": []}", BB_OK },
		};

		for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
			st = parse_bugs_str(errs[i].json, &bugs, &n, &err);
			is_int(st, errs[i].want, "error object %zu folds to %s", i,
			       status_str(errs[i].want));
			free_bugs(bugs, n);
		}
		st = parse_bugs_str("{\"error\": true, \"code\": 1, \"message\": \"a\\nb\\u0000c\xff\"}",
				    &bugs, &n, &err);
		ok(st == BB_ERR_INVALID && !strchr(err.message, '\n') && valid_utf8(err.message),
		   "error message: one line, valid UTF-8 (%s)", err.message);
	}

	/* too deep */
	{
		char deep[600];

		strcpy(deep, "{\"bugs\":");
		memset(deep + 8, '[', 200);
		memset(deep + 208, ']', 200);
		strcpy(deep + 408, "}");
		st = parse_bugs_str(deep, &bugs, &n, &err);
		ok(st == BB_ERR_PROTOCOL, "200 levels of nesting refused (%s)", err.message);
	}

	/* huge arrays */
	{
		struct buf b = BUF_INIT;
		size_t count = 100000;

		buf_addstr(&b, "{\"bugs\": [");
		for (size_t i = 0; i < count; i++)
			buf_addf(&b, "%s{\"id\": %zu, \"summary\": \"s\"}", i ? "," : "", i + 1);
		buf_addstr(&b, "]}");
		st = bz_parse_bugs(b.data, b.len, NULL, &bugs, &n, &err);
		ok(st == BB_OK && n == count && bugs[count - 1].id == (long long)count,
		   "100000 bugs in one answer");
		free_bugs(bugs, n);
		bugs = NULL;
		n = 0;
		buf_release(&b);

		/* 1.5 million empty objects would cost json-c over a gigabyte */
		buf_addstr(&b, "{\"bugs\": [");
		for (size_t i = 0; i < 1500000; i++)
			buf_addstr(&b, i ? ",{}" : "{}");
		buf_addstr(&b, "]}");
		st = bz_parse_bugs(b.data, b.len, NULL, &bugs, &n, &err);
		ok(st == BB_ERR_TOO_LARGE && n == 0, "1.5M empty objects refused before parsing (%s)",
		   err.message);
		buf_release(&b);
	}

	/* comments: duplicates in one answer, unknown bugs, odd shapes */
	{
		static const char odd[] =
			"{\"bugs\": {\"5\": {\"comments\": ["
			"{\"id\": 10, \"count\": 1, \"text\": \"b\"},"
			"{\"id\": 9, \"count\": 0, \"text\": \"a\"},"
			"{\"id\": 10, \"count\": 1, \"text\": \"b\"},"
			"{\"count\": 2}, 7, null]},"
			" \"6\": {\"comments\": [{\"id\": 11}]},"
			" \"x\": [], \"-5\": [] },"
			" \"comments\": {\"12\": {\"id\": 12, \"bug_id\": 5, \"count\": 2},"
			" \"13\": {\"id\": 13, \"bug_id\": \"5\", \"count\": 3},"
			" \"14\": 4}}";
		struct bz_bug bug = { .id = 5 };

		st = bz_parse_comments(odd, strlen(odd), &bug, 1, &err);
		ok(st == BB_OK && bug.ncomments == 4 && bug.comments[0].id == 9 &&
		   bug.comments[1].id == 10 && bug.comments[2].id == 12 && bug.comments[3].id == 13,
		   "comments: duplicates once, no-id skipped, other bugs ignored, by-id map merged");
		ok(bug.ncomments == 4 && !strcmp(bug.comments[2].text, "") &&
		   !strcmp(bug.comments[2].author.login, ""), "comments: missing fields empty");
		bz_bug_release(&bug);
		st = bz_parse_comments("{\"bugs\": []}", 12, &bug, 1, &err);
		ok(st == BB_ERR_PROTOCOL, "comments: bugs must be a map");
		st = bz_parse_comments("{\"bugs\": {}}", 12, NULL, 0, &err);
		ok(st == BB_OK, "comments: no bugs asked, none taken");
	}
	{
		static const char odd[] =
			"{\"bugs\": {\"5\": [{\"id\": 2, \"size\": -3,"
			" \"is_private\": \"1\", \"is_patch\": true},"
			" {\"id\": 1, \"size\": 1e30}, {\"id\": 2, \"size\": 4,"
			" \"is_private\": \"1\", \"is_patch\": true}, \"x\"],"
			" \"5x\": [{\"id\": 3}]}, \"attachments\": []}";
		struct bz_bug bug = { .id = 5 };

		st = bz_parse_attachments(odd, strlen(odd), &bug, 1, &err);
		ok(st == BB_OK && bug.nattachments == 2 && bug.attachments[0].id == 1 &&
		   bug.attachments[0].size == 0 && bug.attachments[1].id == 2 &&
		   bug.attachments[1].is_private && bug.attachments[1].is_patch,
		   "attachments: odd values read safely, one copy per id");
		bz_bug_release(&bug);
	}
}

/* GET /rest/field/bug of a stock 5.2 (fixtures 026, 028). */
static void test_fields(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_fields *f = NULL;
	const struct bz_field_info *fi;
	size_t len;
	char *json = fixture("026-fields-all.json", &len);
	static const char *const prio[] = { "Highest", "High", "Normal", "Low", "Lowest", "---" };
	int same = 1;

	ok(json && bz_parse_fields(json, len, &f, &err) == BB_OK && f && f->n == 60,
	   "026: 60 fields (%s)", err.message);
	free(json);
	if (!f)
		return;
	fi = bz_fields_find(f, "cf_regression");
	ok(fi && fi->is_custom && fi->type == BZ_FIELD_SINGLE_SELECT && fi->nvalues == 3 &&
	   !strcmp(fi->values[2].name, "Yes") && !strcmp(fi->display_name, "Regression"),
	   "cf_regression: custom drop-down ---/No/Yes");
	fi = bz_fields_find(f, "priority");
	for (size_t i = 0; fi && i < 6; i++)
		same &= i < fi->nvalues && !strcmp(fi->values[i].name, prio[i]);
	ok(fi && fi->nvalues == 6 && same, "priorities Highest .. Lowest and ---, no P1-P5");
	ok(bz_fields_find(f, "severity") == bz_fields_find(f, "bug_severity") &&
	   bz_fields_find(f, "severity") != NULL, "REST names find fields: severity");
	ok(bz_fields_find(f, "flags") && !strcmp(bz_fields_find(f, "flags")->name, "flagtypes.name"),
	   "flags is flagtypes.name");
	ok(bz_fields_find(f, "keywords") && bz_fields_find(f, "keywords")->type == BZ_FIELD_KEYWORDS,
	   "keywords");
	ok(!bz_fields_find(f, "cf_kernel_version"), "no cf_kernel_version on a stock 5.2");
	fi = bz_fields_find(f, "status");
	ok(fi && fi->nvalues == 6 && !fi->values[0].name && fi->values[1].name &&
	   !strcmp(fi->values[1].name, "UNCONFIRMED") && fi->values[1].is_open == 1 &&
	   !bz_field_value_find(fi, "REOPENED") && !bz_field_value_find(fi, "NEW") &&
	   bz_field_value_find(fi, "verified") && bz_field_value_find(fi, "VERIFIED")->is_open == 0,
	   "statuses: a new bug's entry, UNCONFIRMED .. VERIFIED, no REOPENED or NEW");
	ok(bz_fields_status_can_change(f, NULL, "CONFIRMED") == 1 &&
	   bz_fields_status_can_change(f, NULL, "RESOLVED") == 0 &&
	   bz_fields_status_can_change(f, "RESOLVED", "CONFIRMED") == 1 &&
	   bz_fields_status_can_change(f, "VERIFIED", "RESOLVED") == 0 &&
	   bz_fields_status_can_change(f, "CONFIRMED", "REOPENED") == 0 &&
	   bz_fields_status_can_change(f, "REOPENED", "CONFIRMED") == -1,
	   "the default workflow from can_change_to");
	fi = bz_fields_find(f, "resolution");
	ok(fi && bz_field_value_find(fi, "DUPLICATE") && bz_field_value_find(fi, "") ,
	   "resolutions, with the empty one");
	bz_fields_free(f);

	json = fixture("028-field-bug_status.json", &len);
	f = NULL;
	ok(json && bz_parse_fields(json, len, &f, &err) == BB_OK && f && f->n == 1 &&
	   bz_fields_status_can_change(f, "IN_PROGRESS", "RESOLVED") == 1,
	   "028: bug_status alone (%s)", err.message);
	free(json);
	bz_fields_free(f);

	json = fixture("032-field-nonexistent.json", &len);
	f = NULL;
	ok(json && bz_parse_fields(json, len, &f, &err) == BB_ERR_NOT_FOUND && !f,
	   "032: an unknown field is Bugzilla's error 51 (%s)", err.message);
	free(json);
	f = NULL;
	ok(bz_parse_fields("{\"fields\": 3}", 13, &f, &err) == BB_ERR_PROTOCOL && !f,
	   "no fields list: protocol error");
	ok(bz_parse_fields("{\"fields\": [1, {\"id\": 3}, {\"name\": \"x\", \"values\": [2,"
			   " {\"name\": null}, {\"name\": \"a\"}]}]}", 87, &f, &err) == BB_OK &&
	   f && f->n == 1 && f->fields[0].nvalues == 1, "odd members are skipped");
	bz_fields_free(f);
}

/* What commands may set: legal values in the server's spelling, the list
 * an answer gives, and the status reopen picks from the workflow. */
static void test_legal_values(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_fields *f = NULL;
	const char *canon = NULL;
	char *list;
	size_t len;
	char *json = fixture("026-fields-all.json", &len);
	/* a Bugzilla that kept the old workflow, as bugzilla.kernel.org */
	static const char old[] =
		"{\"fields\": [{\"name\": \"bug_status\", \"values\": ["
		"{\"name\": null, \"can_change_to\": [{\"name\": \"NEW\"}]},"
		"{\"name\": \"UNCONFIRMED\", \"is_open\": true, \"can_change_to\": [{\"name\": \"NEW\"}]},"
		"{\"name\": \"NEW\", \"is_open\": true, \"can_change_to\": [{\"name\": \"ASSIGNED\"},"
		" {\"name\": \"RESOLVED\"}]},"
		"{\"name\": \"ASSIGNED\", \"is_open\": true, \"can_change_to\": [{\"name\": \"NEW\"}]},"
		"{\"name\": \"REOPENED\", \"is_open\": true, \"can_change_to\": [{\"name\": \"NEW\"}]},"
		"{\"name\": \"RESOLVED\", \"is_open\": false, \"can_change_to\": [{\"name\": \"UNCONFIRMED\"},"
		" {\"name\": \"REOPENED\"}, {\"name\": \"VERIFIED\"}]},"
		"{\"name\": \"VERIFIED\", \"is_open\": false, \"can_change_to\": [{\"name\": \"UNCONFIRMED\"}]},"
		"{\"name\": \"CLOSED\", \"is_open\": false, \"can_change_to\": []}]},"
		"{\"name\": \"priority\", \"values\": [{\"name\": \"P1\"}, {\"name\": \"P2\"},"
		" {\"name\": \"P3\"}]}]}";

	ok(json && bz_parse_fields(json, len, &f, &err) == BB_OK && f, "026 (%s)", err.message);
	free(json);
	if (f) {
		ok(bz_fields_legal_value(f, "priority", "high", &canon) == 1 && canon &&
		   !strcmp(canon, "High"), "5.2: priority high is High");
		ok(bz_fields_legal_value(f, "priority", "P1", &canon) == 0 && !canon,
		   "5.2: no priority P1");
		ok(bz_fields_legal_value(f, "severity", "BLOCKER", &canon) == 1 &&
		   !strcmp(canon, "blocker"), "5.2: severity by its REST name, any case");
		ok(bz_fields_legal_value(f, "resolution", "fixed", &canon) == 1 &&
		   !strcmp(canon, "FIXED") &&
		   bz_fields_legal_value(f, "resolution", "CODE_FIX", NULL) == 0,
		   "5.2: resolutions");
		ok(bz_fields_legal_value(f, "status", "REOPENED", NULL) == 0 &&
		   bz_fields_legal_value(f, "bug_status", "confirmed", &canon) == 1 &&
		   !strcmp(canon, "CONFIRMED"), "5.2: statuses, no REOPENED");
		ok(bz_fields_legal_value(f, "cf_nonesuch", "x", NULL) == -1 &&
		   bz_fields_legal_value(f, "short_desc", "x", NULL) == -1,
		   "a field without values or none at all: the server did not say");
		list = bz_field_values_text(bz_fields_find(f, "priority"));
		is_str(list, "Highest, High, Normal, Low, Lowest, ---", "5.2: the priorities as a list");
		free(list);
		list = bz_field_values_text(bz_fields_find(f, "resolution"));
		ok(list && !strncmp(list, "FIXED, ", 7) && strstr(list, "DUPLICATE"),
		   "the resolutions as a list, without the empty one: %s", list ? list : "");
		free(list);
		list = bz_field_values_text(bz_fields_find(f, "status"));
		is_str(list, "UNCONFIRMED, CONFIRMED, IN_PROGRESS, RESOLVED, VERIFIED",
		       "the statuses as a list, without the new bug's entry");
		free(list);
		is_str(bz_fields_reopen_status(f, "RESOLVED"), "CONFIRMED",
		       "5.2: reopen from RESOLVED is CONFIRMED (UNCONFIRMED comes first, but is last resort)");
		is_str(bz_fields_reopen_status(f, "VERIFIED"), "CONFIRMED", "5.2: and from VERIFIED");
		is_str(bz_fields_reopen_status(f, "IN_PROGRESS"), "CONFIRMED",
		       "5.2: from an open status, what it may go to");
		is_str(bz_fields_reopen_status(f, NULL), "CONFIRMED",
		       "5.2: status not known: the first open one but UNCONFIRMED");
		is_str(bz_fields_reopen_status(f, "REOPENED"), "CONFIRMED",
		       "5.2: a status the server lacks: the same");
		bz_fields_free(f);
	}

	f = NULL;
	ok(bz_parse_fields(old, sizeof(old) - 1, &f, &err) == BB_OK && f, "old workflow (%s)",
	   err.message);
	if (f) {
		is_str(bz_fields_reopen_status(f, "RESOLVED"), "REOPENED", "old: reopen is REOPENED");
		is_str(bz_fields_reopen_status(f, "resolved"), "REOPENED", "old: status in any case");
		is_str(bz_fields_reopen_status(f, "VERIFIED"), "UNCONFIRMED",
		       "old: only UNCONFIRMED allowed: UNCONFIRMED");
		is_str(bz_fields_reopen_status(f, "CLOSED"), "NEW",
		       "old: no open status allowed: the first open one but UNCONFIRMED");
		ok(bz_fields_legal_value(f, "priority", "p1", &canon) == 1 && !strcmp(canon, "P1"),
		   "old: priority p1 is P1");
		bz_fields_free(f);
	}
	ok(bz_fields_reopen_status(NULL, "RESOLVED") == NULL &&
	   bz_fields_legal_value(NULL, "priority", "P1", NULL) == -1,
	   "no fields: nothing said (the caller's fallback)");
	list = bz_field_values_text(NULL);
	is_str(list, "", "no field: an empty list");
	free(list);
}

/* The gate on a bug: keyword or flag ("name+"). */
static void test_gate(void)
{
	struct bz_bug b;
	static char kw[] = "regression";
	char *keywords[] = { kw, NULL };
	static char f1[] = "bugbot+", f2[] = "review", f3[] = "needinfo-";
	char *flags[] = { f1, NULL }, *bare[] = { f2, NULL }, *minus[] = { f3, NULL };

	memset(&b, 0, sizeof(b));
	b.keywords = keywords;
	b.flags = (char *)"[{\"name\":\"bugbot\",\"status\":\"+\"},"
			  "{\"name\":\"review\",\"status\":\"?\"}]";
	ok(bz_bug_in_gate(&b, NULL, NULL), "no gate: every bug");
	ok(bz_bug_in_gate(&b, "Regression", NULL), "the keyword, any case");
	ok(!bz_bug_in_gate(&b, "mirror", NULL), "another keyword: no");
	ok(bz_bug_in_gate(&b, "mirror", flags), "the flag bugbot+ lets it in");
	ok(bz_bug_in_gate(&b, NULL, bare), "a bare name matches ?");
	ok(!bz_bug_in_gate(&b, NULL, minus), "another status: no");
	b.flags = NULL;
	ok(!bz_bug_in_gate(&b, "mirror", flags), "no flags asked: no");
}

/* An API key over plain http is warned about unless the host is this
 * machine, as libcurl reads the host: names that merely start like a
 * loopback address, or a loopback address as the user name, are others. */
static void test_insecure_url(void)
{
	static const struct {
		const char *url;
		int warn;
	} cases[] = {
		{ "http://localhost.attacker.example", 1 },
		{ "http://127.0.0.1@attacker.example", 1 },
		{ "http://localhost@attacker.example/bugzilla", 1 },
		{ "http://127.0.0.1.attacker.example", 1 },
		{ "http://127.0.0.1:8088@attacker.example:80", 1 },
		{ "http://[::2]", 1 },
		{ "http://[::ffff:10.0.0.1]", 1 },
		{ "http://128.0.0.1", 1 },
		{ "http://bugzilla.example", 1 },
		{ "http://localhost", 0 },
		{ "http://LOCALHOST:8080", 0 },
		{ "HTTP://localhost:8080/bugzilla/", 0 },
		{ "http://127.0.0.1:8088", 0 },
		{ "http://127.254.3.9", 0 },
		{ "http://127.1", 0 },
		{ "http://[::1]", 0 },
		{ "http://[::1]:8080/bz", 0 },
		{ "http://[::ffff:127.0.0.1]", 0 },
		{ "https://localhost.attacker.example", 0 },
		{ "https://bugzilla.example", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bz_client_options opt;
		struct bz_client *c = NULL;
		struct bb_error err = BB_ERROR_INIT;
		FILE *sink = tmpfile();
		char text[4096];
		size_t n = 0;
		enum bb_status st;

		if (!sink) {
			ok(0, "a temporary file for the log");
			return;
		}
		memset(&opt, 0, sizeof(opt));
		opt.url = cases[i].url;
		opt.api_key = "KEY-SECRET-0123456789";
		log_setup(sink, LOG_LEVEL_WARN, "bzjson00");
		st = bz_client_new(&c, &opt, &err);
		log_setup(NULL, LOG_LEVEL_WARN, "bzjson00");
		rewind(sink);
		n = fread(text, 1, sizeof(text) - 1, sink);
		text[n] = '\0';
		fclose(sink);
		ok(st == BB_OK && !!strstr(text, "event=bz.insecure") == cases[i].warn &&
		   !strstr(text, "KEY-SECRET"),
		   "%s: %s", cases[i].url,
		   cases[i].warn ? "warned, the key goes over plain http" : "no warning");
		bz_client_free(c);
	}
}

/* bz_jstr(): a member's text only where it is a string, whatever o is */
static void test_jstr(void)
{
	json_object *o = json_tokener_parse("{\"follow\": \"subscribe\", \"n\": 3, \"no\": null,"
					    " \"list\": [\"a\"], \"empty\": \"\"}");
	json_object *arr = json_tokener_parse("[\"follow\"]");
	json_object *str = json_tokener_parse("\"follow\"");

	is_str(bz_jstr(o, "follow"), "subscribe", "bz_jstr: a string member");
	is_str(bz_jstr(o, "empty"), "", "bz_jstr: an empty string is a string");
	ok(!bz_jstr(o, "n") && !bz_jstr(o, "no") && !bz_jstr(o, "list"),
	   "bz_jstr: a number, null or array member is no text");
	ok(!bz_jstr(o, "missing") && !bz_jstr(NULL, "follow"), "bz_jstr: no member, no object");
	ok(!bz_jstr(arr, "follow") && !bz_jstr(str, "follow"),
	   "bz_jstr: an array or a string is no object");
	json_object_put(o);
	json_object_put(arr);
	json_object_put(str);
}

int main(void)
{
	struct stat sb;
	char probe[8192];

	tap_shared_dir(shared, sizeof(shared));
	snprintf(probe, sizeof(probe), "%s/fixtures/bugzilla-5/034-bug-1-admin.json", shared);
	if (stat(probe, &sb)) {
		printf("1..0 # SKIP no Bugzilla fixtures at %s/fixtures/bugzilla-5\n", shared);
		return 0;
	}
	test_bug_1();
	test_structure();
	test_searches();
	test_comments();
	test_attachments();
	test_errors();
	test_hostile();
	test_fields();
	test_legal_values();
	test_gate();
	test_insecure_url();
	test_jstr();
	return done_testing();
}
