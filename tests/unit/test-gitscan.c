/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracker/gitscan: the message parser on its own, then scans, fetches and
 * queries against small repositories made with the real git in a temp
 * folder (mainline, next with a merge, a stable branch with a backport). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/store.h"
#include "tap.h"
#include "tracker/gitscan.h"
#include "tracker/tracker.h"

static char work[256];

/* --- the parser ---------------------------------------------------------- */

static struct gitscan_parser *parser;
static struct gitscan_commit pc;

static void parse(const char *msg)
{
	if (gitscan_parse_message(parser, "0123456789012345678901234567890123456789", msg,
				  strlen(msg), &pc))
		ok(0, "parse: out of memory");
}

/* "Key=value|Key=value" of the last parse. */
static const char *trailers_str(const struct gitscan_commit *c)
{
	static struct buf b = BUF_INIT;

	buf_reset(&b);
	for (size_t i = 0; i < c->n_trailers; i++)
		buf_addf(&b, "%s%s=%s", i ? "|" : "", c->trailers[i].key, c->trailers[i].value);
	return b.data;
}

static void test_parser(void)
{
	parser = gitscan_parser_new("https://bugzilla.kernel.org");
	ok(parser != NULL, "parser made");

	parse("net: foo: fix a crash on resume\n\nThe device is reset twice.\n\n"
	      "Reported-by: Ann <ann@example.org>\n"
	      "Closes: https://lore.kernel.org/all/20261101.1234@example.org/\n"
	      "Fixes: 0123456789ab (\"net: foo: add resume\")\n"
	      "Signed-off-by: Bob <bob@example.org>\n");
	is_str(pc.subject, "net: foo: fix a crash on resume", "subject");
	is_int(pc.n_trailers, 4, "four trailers");
	is_str(trailers_str(&pc),
	       "Reported-by=Ann <ann@example.org>|"
	       "Closes=https://lore.kernel.org/all/20261101.1234@example.org/|"
	       "Fixes=0123456789ab (\"net: foo: add resume\")|Signed-off-by=Bob <bob@example.org>",
	       "trailers in order, values trimmed");
	ok(pc.n_trailers == 4 && pc.trailers[0].kind == GITSCAN_TRAILER_REPORTED_BY &&
		   pc.trailers[1].kind == GITSCAN_TRAILER_CLOSES &&
		   pc.trailers[2].kind == GITSCAN_TRAILER_FIXES &&
		   pc.trailers[3].kind == GITSCAN_TRAILER_OTHER,
	   "kinds from the keys");
	ok(pc.upstream == NULL, "no upstream");
	is_str(pc.trailers[1].message_id, "20261101.1234@example.org", "Closes: lore URL -> Message-ID");
	ok(!pc.trailers[0].message_id && !pc.trailers[2].message_id && !pc.trailers[3].message_id,
	   "no Message-ID for other kinds");

	parse("fix\n\nbody\n\n"
	      "Link: https://patch.msgid.link/20261102.5%40example.org # v2\n"
	      "Closes: https://bugzilla.kernel.org/show_bug.cgi?id=217001#c4\n"
	      "Link: https://bugzilla.redhat.com/show_bug.cgi?id=42\n"
	      "Link: <http://lore.kernel.org/linux-usb/x.y@z.example/T/#u>\n"
	      "Message-ID: <20261103.9@example.org>\n"
	      "Link: https://example.org/not-a-mail\n");
	ok(pc.n_trailers == 6, "six trailers");
	if (pc.n_trailers == 6) {
		is_str(pc.trailers[0].message_id, "20261102.5@example.org",
		       "patch.msgid.link, percent-encoded, with a comment");
		ok(!pc.trailers[1].message_id && pc.trailers[1].bugzilla_id == 217001,
		   "a bug URL of our Bugzilla: its number");
		ok(!pc.trailers[2].message_id && pc.trailers[2].bugzilla_id == 0,
		   "another Bugzilla's bug: nothing");
		is_str(pc.trailers[3].message_id, "x.y@z.example", "lore list URL in <>, /T/#u");
		is_str(pc.trailers[4].message_id, "20261103.9@example.org", "Message-ID: <id>");
		ok(!pc.trailers[5].message_id && !pc.trailers[5].bugzilla_id, "a link to no mail");
	}

	parse("mm: fix\n\nWe saw this in the log, see\n"
	      "Link: https://lore.kernel.org/r/bogus@example.org\n"
	      "which is not a trailer.\n\n"
	      "Link: https://lore.kernel.org/r/real@example.org\n"
	      "Signed-off-by: Bob <bob@example.org>\n");
	is_str(trailers_str(&pc),
	       "Link=https://lore.kernel.org/r/real@example.org|Signed-off-by=Bob <bob@example.org>",
	       "a Link: line in the middle of the body is no trailer");

	parse("Link: https://lore.kernel.org/r/title@example.org\n");
	is_int(pc.n_trailers, 0, "the subject is never a trailer");
	is_str(pc.subject, "Link: https://lore.kernel.org/r/title@example.org", "subject kept");

	parse("subject line\nLink: https://x.example/\n");
	is_int(pc.n_trailers, 0, "no paragraph after the title: no trailers");
	is_str(pc.subject, "subject line Link: https://x.example/", "subject lines joined as %%s");

	parse("fix\n\nbody\n\nFixes: 0123456789ab (\"a very long\n"
	      "  subject that wraps\")\nSigned-off-by: X <x@y>\n");
	is_str(trailers_str(&pc),
	       "Fixes=0123456789ab (\"a very long subject that wraps\")|Signed-off-by=X <x@y>",
	       "continuation lines joined with one space");

	parse("fix\n\nbody\n\nReported-by: A <a@b>\n"
	      "Closes: https://bugzilla.kernel.org/show_bug.cgi?id=217001\n\n"
	      "Signed-off-by: X <x@y>\n");
	is_str(trailers_str(&pc),
	       "Reported-by=A <a@b>|Closes=https://bugzilla.kernel.org/show_bug.cgi?id=217001|"
	       "Signed-off-by=X <x@y>",
	       "kernel leniency: a trailer paragraph before the sign-offs");

	parse("fix\n\nThe oops:\n\nRIP: 0010:foo+0x12/0x40\nCode: 48 89 e5\n\n"
	      "Signed-off-by: X <x@y>\n");
	is_str(trailers_str(&pc), "Signed-off-by=X <x@y>",
	       "a paragraph of Token: lines without a kernel key is not joined");

	parse("fix\n\nbody\n\n[ bp: fixed up context ]\nLink: https://l.example/1\n"
	      "Signed-off-by: X <x@y>\n");
	is_str(trailers_str(&pc), "Link=https://l.example/1|Signed-off-by=X <x@y>",
	       "other lines in a block with kernel keys (25%% rule)");

	parse("fix\n\nbody\n\nNote: this is\nprose that goes on\n");
	is_int(pc.n_trailers, 0, "a mixed paragraph without kernel keys is no block");

	parse("fix\n\nLink: https://l.example/1\n\nAnd a last paragraph of prose.\n");
	is_int(pc.n_trailers, 0, "only the last paragraph can start the block");

	parse("fix\n\nbody\n\nlink : https://l.example/2\nBugLink: https://b.example/3\n"
	      "Message-Id: <m@x>\n");
	ok(pc.n_trailers == 3 && pc.trailers[0].kind == GITSCAN_TRAILER_LINK &&
		   !strcmp(pc.trailers[0].key, "link") &&
		   pc.trailers[1].kind == GITSCAN_TRAILER_OTHER &&
		   pc.trailers[2].kind == GITSCAN_TRAILER_MESSAGE_ID,
	   "keys case-insensitive, space before the colon, BugLink is other");

	parse("fix\r\n\r\nbody\r\n\r\nLink: https://l.example/4\r\nSigned-off-by: X <x@y>\r\n");
	is_str(trailers_str(&pc), "Link=https://l.example/4|Signed-off-by=X <x@y>", "CRLF lines");
	is_str(pc.subject, "fix", "CRLF subject");

	parse("fix\n\nbody\n\nLink: https://l.example/5\n# a comment\nSigned-off-by: X <x@y>");
	is_str(trailers_str(&pc), "Link=https://l.example/5|Signed-off-by=X <x@y>",
	       "comment lines skipped, no final newline");

	parse("");
	ok(pc.n_trailers == 0 && !strcmp(pc.subject, ""), "empty message");
	parse("\n\n  first real line  \nsecond\n\nbody\n");
	is_str(pc.subject, "  first real line second",
	       "leading blank lines skipped in the subject, indentation kept (as %%s)");

	parse("net: fix\n\ncommit 0123456789abcdef0123456789abcdef01234567 upstream.\n\nbody\n\n"
	      "Signed-off-by: X <x@y>\n");
	is_str(pc.upstream, "0123456789abcdef0123456789abcdef01234567", "stable: commit <hex> upstream.");
	parse("net: fix\n\n[ Upstream commit ABCDEF0123456789 ]\n\nbody\n");
	is_str(pc.upstream, "abcdef0123456789", "AUTOSEL: [ Upstream commit <hex> ]");
	parse("net: fix\n\nbody\n\nSigned-off-by: X <x@y>\n"
	      "(cherry picked from commit 89abcdef0123456789abcdef0123456789abcdef)\n");
	is_str(pc.upstream, "89abcdef0123456789abcdef0123456789abcdef", "(cherry picked from commit <hex>)");
	is_int(pc.n_trailers, 1, "the cherry-pick line is no key/value trailer");
	parse("net: fix\n\ncommit message upstream was bad\n");
	ok(pc.upstream == NULL, "no hex: no upstream");

	parse("fix\n\nbody\n\nTested-by:\nCc: stable@vger.kernel.org # 6.1+\n");
	is_str(trailers_str(&pc), "Tested-by=|Cc=stable@vger.kernel.org # 6.1+",
	       "empty value; comment kept raw");

	gitscan_parser_free(parser);
}

/* --- repositories --------------------------------------------------------- */

__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		diag("command failed (%d): %s", rc, cmd);
	return rc;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		diag("cannot write %s", path);
}

static char *rev(const char *repo, const char *name)
{
	char cmd[1024], line[200] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", repo, name);
	p = popen(cmd, "r");
	if (!p || !fgets(line, sizeof(line), p))
		diag("rev-parse %s failed", name);
	if (p)
		pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return strdup(line);
}

/* Commits msg (verbatim) on the branch checked out in repo; its hash. */
static char *commit(const char *repo, const char *msg)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/msg.txt", work);
	write_file(path, msg);
	sh("git -C '%s' commit -q --allow-empty --cleanup=verbatim -F '%s'", repo, path);
	return rev(repo, "HEAD");
}

/* What a scan delivered. */
struct seen {
	size_t n;
	char hash[64][65];
	char subject[64][200];
	char trailers[64][600];
	char upstream[64][65];
	size_t message_len[64];
	size_t stop_after;  /* 0: never stop */
};

static enum bb_status collect(void *ctx, const struct gitscan_commit *c)
{
	struct seen *s = ctx;

	if (s->n < 64) {
		snprintf(s->hash[s->n], sizeof(s->hash[0]), "%s", c->hash);
		snprintf(s->subject[s->n], sizeof(s->subject[0]), "%s", c->subject);
		snprintf(s->trailers[s->n], sizeof(s->trailers[0]), "%s", trailers_str(c));
		snprintf(s->upstream[s->n], sizeof(s->upstream[0]), "%s",
			 c->upstream ? c->upstream : "");
		s->message_len[s->n] = c->message_len;
	}
	s->n++;
	if (s->stop_after && s->n >= s->stop_after)
		return BB_ERR_INTERRUPTED;
	return BB_OK;
}

static int find(const struct seen *s, const char *hash)
{
	for (size_t i = 0; i < s->n && i < 64; i++)
		if (!strcmp(s->hash[i], hash))
			return (int)i;
	return -1;
}

static struct gitscan_tree *tree(const char *name, const char *path, const char *ref,
				 const char *start, unsigned long depth)
{
	struct gitscan_options o = { 0 };
	struct gitscan_tree *t = NULL;
	struct bb_error err = BB_ERROR_INIT;

	o.name = name;
	o.path = path;
	o.ref = ref;
	o.first_scan_start = start;
	o.first_scan_depth = depth;
	if (gitscan_tree_new(&t, &o, &err))
		diag("tree %s: %s", name, err.message);
	return t;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char repo[300];
static char *c_init, *c_fix, *c_fake, *c_bz, *c_bp, *c_n1, *c_s1, *c_merge;

static void make_repos(void)
{
	char msg[1024];

	snprintf(repo, sizeof(repo), "%s/linux", work);
	sh("git init -q -b master '%s'", repo);
	c_init = commit(repo, "Linux 6.0\n");
	sh("git -C '%s' branch linux-6.1.y", repo);
	c_fix = commit(repo,
		       "net: foo: fix a crash on resume\n\nThe device is reset twice.\n\n"
		       "Reported-by: Ann <ann@example.org>\n"
		       "Closes: https://lore.kernel.org/all/20261101.1234@example.org/\n"
		       "Fixes: 0123456789ab (\"net: foo: add resume\")\n"
		       "Signed-off-by: Bob <bob@example.org>\n");
	c_fake = commit(repo,
			"mm: fix a leak\n\nWe saw this in the log, see\n"
			"Link: https://lore.kernel.org/r/bogus@example.org\n"
			"which is not a trailer.\n\n"
			"Link: https://lore.kernel.org/r/real@example.org\n"
			"Signed-off-by: Bob <bob@example.org>\n");
	c_bz = commit(repo,
		      "drm: fix flicker\n\nbody\n\n"
		      "Closes: https://bugzilla.kernel.org/show_bug.cgi?id=217001\n"
		      "Signed-off-by: Bob <bob@example.org>\n");
	sh("git -C '%s' tag v6.1", repo);
	/* next: one commit, and a side branch merged with a merge commit */
	sh("git -C '%s' checkout -q -b next", repo);
	c_n1 = commit(repo,
		      "usb: fix probe\n\nbody\n\nLink: https://patch.msgid.link/20261102.5@example.org\n"
		      "Signed-off-by: Bob <bob@example.org>\n");
	sh("git -C '%s' checkout -q -b side v6.1", repo);
	c_s1 = commit(repo,
		      "pci: fix hang\n\nbody\n\nCloses: https://lore.kernel.org/r/hang@example.org\n"
		      "Signed-off-by: Cid <cid@example.org>\n");
	sh("git -C '%s' checkout -q next && git -C '%s' merge -q --no-ff --no-edit side", repo, repo);
	c_merge = rev(repo, "HEAD");
	/* stable: a backport of c_fix */
	sh("git -C '%s' checkout -q linux-6.1.y", repo);
	snprintf(msg, sizeof(msg),
		 "net: foo: fix a crash on resume\n\ncommit %s upstream.\n\nThe device is reset twice.\n\n"
		 "Reported-by: Ann <ann@example.org>\n"
		 "Closes: https://lore.kernel.org/all/20261101.1234@example.org/\n"
		 "Fixes: 0123456789ab (\"net: foo: add resume\")\n"
		 "Signed-off-by: Bob <bob@example.org>\n"
		 "Signed-off-by: Greg <greg@example.org>\n",
		 c_fix);
	c_bp = commit(repo, msg);
	sh("git -C '%s' checkout -q master", repo);
}

static void test_scan(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct gitscan_tree *t = tree("mainline", repo, "master", NULL, 0);
	struct seen s = { 0 };
	char *cursor = NULL, *cursor2 = NULL, *c_new;
	unsigned long cmds;
	long long t0, ms;
	int i;

	ok(t != NULL, "mainline tree");
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_OK, "first scan");
	is_int(s.n, 4, "first scan: the whole history");
	is_str(cursor, c_bz, "cursor: the tip");
	is_str(s.hash[0], c_bz, "newest first");
	i = find(&s, c_fix);
	ok(i >= 0, "the fix is seen");
	if (i >= 0) {
		is_str(s.subject[i], "net: foo: fix a crash on resume", "its subject");
		is_str(s.trailers[i],
		       "Reported-by=Ann <ann@example.org>|"
		       "Closes=https://lore.kernel.org/all/20261101.1234@example.org/|"
		       "Fixes=0123456789ab (\"net: foo: add resume\")|Signed-off-by=Bob <bob@example.org>",
		       "its trailers");
	}
	i = find(&s, c_fake);
	ok(i >= 0 && !strcmp(s.trailers[i], "Link=https://lore.kernel.org/r/real@example.org|"
					    "Signed-off-by=Bob <bob@example.org>"),
	   "a Link: in the body is no trailer (through git)");
	is_int(gitscan_tree_stats(t)->commits, 4, "stats: commits");
	is_int(gitscan_tree_stats(t)->trailers, 4 + 2 + 2, "stats: trailers");

	/* nothing new: one rev-parse, fast */
	memset(&s, 0, sizeof(s));
	cmds = gitscan_tree_stats(t)->git_commands;
	t0 = now_ms();
	is_int(gitscan_scan(t, cursor, collect, &s, &cursor2, &err), BB_OK, "rescan");
	ms = now_ms() - t0;
	is_int(s.n, 0, "rescan with nothing new: no commits");
	is_int(gitscan_tree_stats(t)->git_commands - cmds, 1, "rescan: one git command");
	ok(ms < 100, "rescan took %lld ms (< 100)", ms);
	is_str(cursor2, cursor, "rescan: same cursor");
	free(cursor2);

	/* one new commit */
	c_new = commit(repo, "fs: fix\n\nbody\n\nLink: https://lore.kernel.org/r/new@example.org\n");
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, cursor, collect, &s, &cursor2, &err), BB_OK, "incremental scan");
	ok(s.n == 1 && !strcmp(s.hash[0], c_new), "only the new commit");
	is_str(cursor2, c_new, "cursor moved");
	free(c_new);
	free(cursor);
	cursor = cursor2;

	/* the handler stops the scan */
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	bb_error_clear(&err);
	cursor2 = (char *)"x";
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor2, &err), BB_ERR_INTERRUPTED,
	       "a stop from the handler is returned");
	ok(cursor2 == NULL, "no cursor after a stop");
	ok(strstr(err.message, "stopped by the commit handler") != NULL, "message: %s", err.message);

	/* a cursor the repository does not have: read again, counted */
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, "00000000000000000000000000000000000deadb", collect, &s, &cursor2,
			    &err),
	       BB_OK, "unknown cursor");
	is_int(s.n, 5, "unknown cursor: a first scan");
	is_int(gitscan_tree_stats(t)->rewinds, 1, "unknown cursor: a rewind");
	free(cursor2);

	is_int(gitscan_scan(t, "not-a-hash", collect, &s, &cursor2, &err), BB_ERR_INVALID,
	       "a cursor that is no hash: invalid");
	free(cursor);
	gitscan_tree_free(t);

	/* first scan depth */
	t = tree("mainline", repo, "master", NULL, 2);
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, NULL, collect, &s, NULL, &err), BB_OK, "first scan with a depth");
	is_int(s.n, 2, "depth 2: two commits");
	gitscan_tree_free(t);

	/* next: from v6.1, a merge */
	t = tree("next", repo, "next", "v6.1", 0);
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_OK, "next: first scan from v6.1");
	is_int(s.n, 3, "next: n1, the side commit and the merge");
	ok(find(&s, c_n1) >= 0 && find(&s, c_s1) >= 0 && find(&s, c_merge) >= 0, "all three");
	i = find(&s, c_merge);
	ok(i >= 0 && !strcmp(s.subject[i], "Merge branch 'side' into next") && !s.trailers[i][0],
	   "the merge commit, without trailers");
	i = find(&s, c_s1);
	ok(i >= 0 && strstr(s.trailers[i], "Closes=https://lore.kernel.org/r/hang@example.org"),
	   "the merged commit's Closes:");
	is_str(cursor, c_merge, "next: cursor");
	free(cursor);
	gitscan_tree_free(t);

	/* stable: the backport with its upstream */
	t = tree("linux-6.1.y", repo, "linux-6.1.y", "v6.1", 0);
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, NULL, collect, &s, NULL, &err), BB_OK, "stable: first scan");
	ok(s.n == 1 && !strcmp(s.hash[0], c_bp), "stable: only the backport");
	is_str(s.upstream[0], c_fix, "the backport names its upstream commit");
	ok(strstr(s.trailers[0], "Closes=https://lore.kernel.org/all/20261101.1234@example.org/") != NULL,
	   "the backport carries the Closes:");
	gitscan_tree_free(t);
}

static void test_queries(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct gitscan_tree *t = tree("mainline", repo, "master", NULL, 0);
	struct gitscan_tree *st = tree("linux-6.1.y", repo, "linux-6.1.y", NULL, 0);
	struct seen s = { 0 };
	char short_hash[13], *h = NULL;
	int in = -1;

	is_int(gitscan_contains(t, c_fix, NULL, &in, &err), BB_OK, "contains");
	is_int(in, 1, "the fix is in mainline");
	gitscan_contains(t, c_fix, "linux-6.1.y", &in, &err);
	is_int(in, 0, "the mainline fix is not in linux-6.1.y");
	gitscan_contains(st, c_bp, NULL, &in, &err);
	is_int(in, 1, "the backport is in linux-6.1.y");
	gitscan_contains(t, c_bp, NULL, &in, &err);
	is_int(in, 0, "the backport is not in mainline");
	gitscan_contains(t, c_fix, "next", &in, &err);
	is_int(in, 1, "the fix is in next");
	gitscan_contains(t, c_n1, NULL, &in, &err);
	is_int(in, 0, "a next commit is not in mainline (fix incoming)");
	snprintf(short_hash, sizeof(short_hash), "%s", c_fix);
	is_int(gitscan_contains(t, short_hash, NULL, &in, &err), BB_OK, "contains, short hash");
	is_int(in, 1, "short hash found");
	is_int(gitscan_contains(t, "0000000000000000000000000000000000000001", NULL, &in, &err),
	       BB_ERR_NOT_FOUND, "contains: unknown commit");
	is_int(gitscan_contains(t, c_fix, "no-such-branch", &in, &err), BB_ERR_NOT_FOUND,
	       "contains: unknown ref");
	is_int(gitscan_contains(t, "--all", NULL, &in, &err), BB_ERR_INVALID,
	       "contains: an option as a commit is refused");

	is_int(gitscan_find_subject(t, "net: foo: fix a crash on resume", NULL, collect, &s, &err),
	       BB_OK, "find subject");
	ok(s.n == 1 && !strcmp(s.hash[0], c_fix), "found the mainline commit");
	memset(&s, 0, sizeof(s));
	gitscan_find_subject(st, "  net: foo: fix a crash on resume ", NULL, collect, &s, &err);
	ok(s.n == 1 && !strcmp(s.hash[0], c_bp), "found the backport on the stable branch");
	memset(&s, 0, sizeof(s));
	gitscan_find_subject(t, "net: foo: fix a crash", NULL, collect, &s, &err);
	is_int(s.n, 0, "a part of a subject does not match");
	memset(&s, 0, sizeof(s));
	gitscan_find_subject(t, "net: foo: fix a crash on resume", "v6.1", collect, &s, &err);
	is_int(s.n, 0, "not after the start");
	is_int(gitscan_find_subject(t, "", NULL, collect, &s, &err), BB_ERR_INVALID, "empty subject");

	memset(&s, 0, sizeof(s));
	is_int(gitscan_find_commit(t, short_hash, collect, &s, &err), BB_OK, "find a commit");
	ok(s.n == 1 && !strcmp(s.hash[0], c_fix), "the commit, parsed, by its short hash");
	memset(&s, 0, sizeof(s));
	is_int(gitscan_find_commit(st, c_fix, collect, &s, &err), BB_OK,
	       "find a commit the tree does not have");
	is_int(s.n, 0, "nothing handed on");
	is_int(gitscan_find_commit(t, "0000000000000000000000000000000000000001", collect, &s, &err),
	       BB_ERR_NOT_FOUND, "find an unknown commit");

	is_int(gitscan_resolve(t, short_hash, &h, &err), BB_OK, "resolve a short hash");
	is_str(h, c_fix, "to the full hash");
	free(h);
	is_int(gitscan_resolve(t, "v6.1", &h, &err), BB_OK, "resolve a tag");
	is_str(h, c_bz, "to its commit");
	free(h);
	is_int(gitscan_resolve(t, "deadbeefdead", &h, &err), BB_ERR_NOT_FOUND, "resolve: unknown");
	ok(h == NULL && strstr(err.message, "not found"), "message: %s", err.message);
	gitscan_tree_free(t);
	gitscan_tree_free(st);
}

static void test_errors(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct gitscan_options o = { 0 };
	struct gitscan_tree *t = NULL;
	struct seen s = { 0 };
	char *cursor = (char *)"x", path[400];

	o.name = "../x";
	o.path = repo;
	o.ref = "master";
	is_int(gitscan_tree_new(&t, &o, &err), BB_ERR_CONFIG, "a bad tree name");
	o.name = "mainline";
	o.ref = "-all";
	is_int(gitscan_tree_new(&t, &o, &err), BB_ERR_CONFIG, "a ref that looks like an option");
	o.ref = "a..b";
	is_int(gitscan_tree_new(&t, &o, &err), BB_ERR_CONFIG, "a range as ref");
	o.ref = "master";
	o.url = "ftp://example.org/linux.git";
	is_int(gitscan_tree_new(&t, &o, &err), BB_ERR_CONFIG, "an ftp url");
	o.url = "https://example.org/linux.git";
	o.path = NULL;
	is_int(gitscan_tree_new(&t, &o, &err), BB_ERR_CONFIG, "a url without path or state folder");
	ok(t == NULL, "no tree on failure");

	snprintf(path, sizeof(path), "%s/missing", work);
	t = tree("gone", path, "master", NULL, 0);
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_ERR_NOT_FOUND, "missing repository");
	ok(strstr(err.message, "no git repository") != NULL, "message: %s", err.message);
	ok(cursor == NULL, "no cursor on failure");
	gitscan_tree_free(t);

	snprintf(path, sizeof(path), "%s/plain", work);
	mkdir(path, 0755);
	t = tree("plain", path, "master", NULL, 0);
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_ERR_NOT_FOUND,
	       "a folder that is no repository (inside none either)");
	diag("%s", err.message);
	gitscan_tree_free(t);

	t = tree("mainline", repo, "no-such-branch", NULL, 0);
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_ERR_NOT_FOUND, "bad ref");
	ok(strstr(err.message, "ref \"no-such-branch\" not found") != NULL, "message: %s", err.message);
	gitscan_tree_free(t);

	t = tree("mainline", repo, "master", "no-such-tag", 0);
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_ERR_NOT_FOUND,
	       "bad first scan start");
	gitscan_tree_free(t);

	o.url = NULL;
	o.path = repo;
	o.git_program = "/nonexistent/git";
	gitscan_tree_new(&t, &o, &err);
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_ERR_CONFIG, "git missing");
	ok(strstr(err.message, "cannot run") != NULL, "message: %s", err.message);
	gitscan_tree_free(t);
}

static void test_fetch(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct gitscan_options o = { 0 };
	struct gitscan_tree *t = NULL, *u = NULL;
	struct seen s = { 0 };
	char url[400], state[400], *cursor = NULL, *old_tip, *n2, *n3;

	snprintf(url, sizeof(url), "file://%s", repo);
	snprintf(state, sizeof(state), "%s/state", work);
	o.name = "next";
	o.url = url;
	o.ref = "next";
	o.state_dir = state;
	is_int(gitscan_tree_new(&t, &o, &err), BB_OK, "a url tree");
	is_str(gitscan_tree_ref(t), "refs/bugbridge/next", "its scanned ref");
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_ERR_NOT_FOUND, "not fetched yet");
	ok(strstr(err.message, "not fetched yet") != NULL, "message: %s", err.message);
	is_int(gitscan_fetch(t, &err), BB_OK, "fetch");
	if (err.code)
		diag("%s", err.message);
	is_int(gitscan_tree_stats(t)->fetches, 1, "one fetch");
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, NULL, collect, &s, &cursor, &err), BB_OK, "scan the mirror");
	is_int(s.n, 7, "the whole of next");
	is_str(cursor, c_merge, "cursor at next's tip");
	is_int(gitscan_fetch(t, &err), BB_OK, "fetch again, nothing new");

	/* a second tree in the same mirror */
	o.name = "linux-6.1.y";
	o.ref = "linux-6.1.y";
	gitscan_tree_new(&u, &o, &err);
	is_int(gitscan_fetch(u, &err), BB_OK, "fetch a second branch into the shared mirror");
	is_str(gitscan_tree_path(u), gitscan_tree_path(t), "one mirror");
	{
		int in = -1;

		is_int(gitscan_contains(t, c_bp, "refs/bugbridge/linux-6.1.y", &in, &err), BB_OK,
		       "contains across trees of one mirror");
		is_int(in, 1, "the backport is in the stable mirror ref");
	}
	gitscan_tree_free(u);

	/* next is rebuilt: the old tip stays in the mirror until pruned */
	old_tip = cursor;
	sh("git -C '%s' checkout -q next && git -C '%s' reset -q --hard '%s'", repo, repo, c_n1);
	n2 = commit(repo, "x86: fix boot\n\nbody\n\nCloses: https://lore.kernel.org/r/boot@example.org\n");
	sh("git -C '%s' checkout -q master", repo);
	is_int(gitscan_fetch(t, &err), BB_OK, "fetch a rebuilt branch");
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, old_tip, collect, &s, &cursor, &err), BB_OK, "scan after the rebuild");
	ok(s.n == 1 && !strcmp(s.hash[0], n2), "only the commit that is new to this tree");
	is_int(gitscan_tree_stats(t)->rewinds, 0, "no rewind while the old tip is there");
	free(cursor);

	/* ... and once it is pruned, the cursor is gone: a rewind */
	sh("git --git-dir='%s' gc -q --prune=now 2>/dev/null", gitscan_tree_path(t));
	sh("git --git-dir='%s' cat-file -e '%s^{commit}' 2>/dev/null || true", gitscan_tree_path(t),
	   old_tip);
	memset(&s, 0, sizeof(s));
	is_int(gitscan_scan(t, old_tip, collect, &s, &cursor, &err), BB_OK, "scan with a pruned cursor");
	is_int(gitscan_tree_stats(t)->rewinds, 1, "a rewind");
	is_int(s.n, 6, "read again from the start");
	free(cursor);
	free(old_tip);
	n3 = commit(repo, "master: one more\n");
	free(n3);
	free(n2);
	gitscan_tree_free(t);

	/* fetch failures */
	o.name = "gone";
	snprintf(url, sizeof(url), "file://%s/no-such-repo", work);
	o.ref = "master";
	gitscan_tree_new(&t, &o, &err);
	is_int(gitscan_fetch(t, &err), BB_ERR_NOT_FOUND, "fetch from a missing repository");
	diag("%s", err.message);
	gitscan_tree_free(t);
	snprintf(url, sizeof(url), "file://%s", repo);
	o.name = "nobranch";
	o.ref = "no-such-branch";
	gitscan_tree_new(&t, &o, &err);
	is_int(gitscan_fetch(t, &err), BB_ERR_NOT_FOUND, "fetch a missing branch");
	diag("%s", err.message);
	gitscan_tree_free(t);
}

/* Messages larger than the scan buffer, and one over the limit. */
static void test_large(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct gitscan_tree *t;
	struct seen s = { 0 };
	char path[400], *big, *huge, *after, *c_big, *c_huge;
	size_t big_len = (size_t)3 << 20, huge_len = GITSCAN_MAX_MESSAGE + 100;

	snprintf(path, sizeof(path), "%s/large", work);
	sh("git init -q -b master '%s'", path);
	big = malloc(big_len + 200);
	huge = malloc(huge_len + 200);
	if (!big || !huge)
		return;
	strcpy(big, "big message\n\n");
	memset(big + strlen(big), 'a', big_len);
	strcpy(big + 13 + big_len, "\n\nLink: https://lore.kernel.org/r/big@example.org\n");
	c_big = commit(path, big);
	strcpy(huge, "huge message\n\n");
	memset(huge + strlen(huge), 'b', huge_len);
	strcpy(huge + 14 + huge_len, "\n");
	c_huge = commit(path, huge);
	after = commit(path, "after\n\nbody\n\nLink: https://lore.kernel.org/r/after@example.org\n");
	t = tree("large", path, "master", NULL, 0);
	is_int(gitscan_scan(t, NULL, collect, &s, NULL, &err), BB_OK, "scan with large messages");
	ok(s.n == 2 && !strcmp(s.hash[0], after) && !strcmp(s.hash[1], c_big),
	   "the huge one skipped, the others whole");
	is_int(s.message_len[1], strlen(big), "a 3 MiB message whole");
	is_str(s.trailers[1], "Link=https://lore.kernel.org/r/big@example.org", "its trailer");
	is_int(gitscan_tree_stats(t)->skipped, 1, "one skipped");
	gitscan_tree_free(t);
	free(big);
	free(huge);
	free(after);
	free(c_big);
	free(c_huge);
}

/* --- ordinary bugs follow their fixes (tracker_commit) ------------------ */

static struct store *notes_db;

static const char *note_rows(void)
{
	static char out[512];
	sqlite3_stmt *st = NULL;
	size_t len = 0;

	out[0] = '\0';
	if (store_prepare(notes_db, &st, "SELECT bug_id, close_fixed, regression FROM reg_push"
				    " ORDER BY id", NULL))
		return "(error)";
	while (sqlite3_step(st) == SQLITE_ROW && len < sizeof(out) - 64)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%lld:%d:%lld", len ? " " : "",
					(long long)sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1),
					(long long)sqlite3_column_int64(st, 2));
	sqlite3_finalize(st);
	return out;
}

static void test_bug_notes(void)
{
	struct tracker_options o;
	struct tracker *t = NULL;
	struct gitscan_parser *p = gitscan_parser_new(NULL);
	struct gitscan_commit c;
	struct bb_error err = BB_ERROR_INIT;
	char path[512], *text = NULL;
	static const char msg[] =
		"usb: fix the port\n\nCloses: https://bz.example.org/show_bug.cgi?id=1\n"
		"Link: https://bz.example.org/show_bug.cgi?id=2 # restricted\n"
		"Closes: https://bz.example.org/show_bug.cgi?id=3\n"
		"Closes: https://bz.example.org/show_bug.cgi?id=4\n"
		"Link: https://bz.example.org/show_bug.cgi?id=5\n"
		"Link: https://other.example.org/show_bug.cgi?id=6\n"
		"Closes: https://bz.example.org/show_bug.cgi?id=7\n"
		"Signed-off-by: Dev <dev@example.org>\n";
	sqlite3_stmt *st = NULL;

	snprintf(path, sizeof(path), "%s/notes.db", work);
	if (!ok(p && store_open(&notes_db, path, STORE_READ_WRITE, &err) == BB_OK,
		"notes: store: %s", err.message))
		return;
	/* 1 open, 2 restricted, 3 not mirrored, 4 a regression's, 5 closed,
	 * 6 of another Bugzilla, 7 unknown */
	ok(store_exec(notes_db,
		      "INSERT INTO bz_bug (id, status, mirrored, restricted) VALUES (1, 'NEW', 1, 0),"
		      " (2, 'NEW', 1, 1), (3, 'NEW', 0, 0), (4, 'NEW', 1, 0), (5, 'RESOLVED', 1, 0),"
		      " (6, 'NEW', 1, 0);"
		      "INSERT INTO reg_regression (title, branch, bug_id, created, updated, last_activity)"
		      " VALUES ('r', 'mainline', 4, 1, 1, 1);", &err) == BB_OK,
	   "notes: bugs: %s", err.message);
	memset(&o, 0, sizeof(o));
	o.bugzilla_url = "https://bz.example.org";
	o.close_on_fix = "linux-6.1.y, mainline";
	ok(tracker_new(&t, notes_db, &o, &err) == BB_OK, "notes: tracker");
	ok(gitscan_parse_message(p, "abcdef0123456789abcdef0123456789abcdef01", msg, strlen(msg),
				 &c) == BB_OK, "notes: parsed");
	ok(tracker_commit(t, "next", NULL, NULL, &c, &err) == BB_OK, "notes: next: %s",
	   err.message);
	is_str(note_rows(), "1:0:0 5:0:0",
	       "next: notes for the open and the closed public bug, none to close");
	ok(tracker_commit(t, "next", NULL, NULL, &c, &err) == BB_OK &&
	   tracker_commit(t, "mainline", NULL, NULL, &c, &err) == BB_OK, "notes: mainline");
	is_str(note_rows(), "1:0:0 5:0:0 4:0:1 1:1:0 5:0:0",
	       "mainline (close_on_fix): the regression's own note for 4, the open bug 1 is to be"
	       " closed, the closed 5 not; next once");
	if (!store_prepare(notes_db, &st, "SELECT text FROM reg_push WHERE bug_id = 1 ORDER BY id"
				      " DESC LIMIT 1", NULL) && sqlite3_step(st) == SQLITE_ROW)
		text = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	is_str(text, "Fixed by commit abcdef012345 (\"usb: fix the port\") in mainline\n\n"
		     "[bugbridge bug 1: fixed by abcdef012345 in mainline]\n", "the note's text");
	free(text);
	tracker_free(t);
	gitscan_parser_free(p);
	store_close(notes_db);
}

/* --- git grep --------------------------------------------------------------- */

struct grep_seen {
	char paths[16][128];
	unsigned long lines[16];
	char texts[16][128];
	size_t n;
};

static enum bb_status grep_collect(void *ctx, const char *path, unsigned long line,
				   const char *text)
{
	struct grep_seen *g = ctx;

	if (g->n < 16) {
		snprintf(g->paths[g->n], sizeof(g->paths[0]), "%s", path);
		snprintf(g->texts[g->n], sizeof(g->texts[0]), "%s", text);
		g->lines[g->n++] = line;
	}
	return BB_OK;
}

static void test_grep(void)
{
	static const char *const c_files[] = { "*.c", NULL };
	struct bb_error err = BB_ERROR_INIT;
	struct gitscan_tree *t, *bare;
	struct grep_seen g;
	char src[300], mirror[320], path[400];
	int cut = -1;

	snprintf(src, sizeof(src), "%s/src", work);
	snprintf(mirror, sizeof(mirror), "%s/src.git", work);
	sh("git init -q -b master '%s' && mkdir -p '%s/drivers/foo' '%s/tools'", src, src, src);
	snprintf(path, sizeof(path), "%s/drivers/foo/core.c", src);
	write_file(path, "#include <x.h>\n\nstatic int foo_probe(void)\n{\n\treturn 0;\n}\n");
	snprintf(path, sizeof(path), "%s/drivers/foo/core.h", src);
	write_file(path, "int foo_probe(void);\n");
	snprintf(path, sizeof(path), "%s/tools/foo.c", src);
	write_file(path, "int foo_probe(void)\n{\n}\n");
	sh("git -C '%s' add -A && git -C '%s' commit -q -m src && git clone -q --bare '%s' '%s'",
	   src, src, src, mirror);
	/* the work tree moves on; the ref is what is searched */
	snprintf(path, sizeof(path), "%s/drivers/foo/new.c", src);
	write_file(path, "int foo_probe(void)\n");
	t = tree("src", src, "master", NULL, 0);
	bare = tree("bare", mirror, "master", NULL, 0);

	memset(&g, 0, sizeof(g));
	is_int(gitscan_grep(bare, "^([A-Za-z_][^;=]*[ *])?(foo_probe)\\(", c_files, 0, grep_collect,
			    &g, &cut, &err), BB_OK, "grep: a bare mirror");
	is_int(g.n, 2, "grep: the two .c definitions, not the header, not the work tree");
	ok(g.n == 2 && !strcmp(g.paths[0], "drivers/foo/core.c") && g.lines[0] == 3 &&
	   !strcmp(g.texts[0], "static int foo_probe(void)") && !strcmp(g.paths[1], "tools/foo.c") &&
	   g.lines[1] == 1, "grep: path, line and text (%s:%lu: %s)", g.paths[0], g.lines[0],
	   g.texts[0]);
	is_int(cut, 0, "grep: not truncated");

	/* the tree's own configuration cannot change what grep prints */
	sh("git -C '%s' config grep.column true && git -C '%s' config grep.patternType fixed",
	   src, src);
	memset(&g, 0, sizeof(g));
	is_int(gitscan_grep(t, "^([A-Za-z_][^;=]*[ *])?(foo_probe)\\(", c_files, 0, grep_collect,
			    &g, &cut, &err), BB_OK, "grep: a tree configured with grep.column");
	ok(g.n == 2 && !strcmp(g.paths[0], "drivers/foo/core.c") && g.lines[0] == 3 &&
	   !strcmp(g.texts[0], "static int foo_probe(void)"),
	   "grep: still path, line and text (%zu: %s:%lu: %s)", g.n, g.paths[0], g.lines[0],
	   g.texts[0]);

	memset(&g, 0, sizeof(g));
	is_int(gitscan_grep(t, "nothing_like_this", NULL, 0, grep_collect, &g, NULL, &err), BB_OK,
	       "grep: no match is no error");
	is_int(g.n, 0, "grep: and nothing handed on");

	memset(&g, 0, sizeof(g));
	is_int(gitscan_grep(t, "foo_probe", NULL, 60, grep_collect, &g, &cut, &err), BB_OK,
	       "grep: capped output");
	ok(cut == 1 && g.n < 3, "grep: truncated, whole lines only (%zu)", g.n);

	is_int(gitscan_grep(t, "(unclosed", NULL, 0, grep_collect, &g, NULL, &err), BB_ERR_IO,
	       "grep: a bad regex is an error");
	gitscan_tree_free(t);
	t = tree("src", src, "no-such-branch", NULL, 0);
	is_int(gitscan_grep(t, "foo", NULL, 0, grep_collect, &g, NULL, &err), BB_ERR_NOT_FOUND,
	       "grep: an unknown ref");
	gitscan_tree_free(t);
	gitscan_tree_free(bare);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(work, sizeof(work), "%s/test-gitscan.XXXXXX", tmp);
	if (!mkdtemp(work))
		return 1;
	/* git for making the repositories: no user or system config */
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "Test", 1);
	setenv("GIT_AUTHOR_EMAIL", "test@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "Test", 1);
	setenv("GIT_COMMITTER_EMAIL", "test@example.org", 1);
	setenv("GIT_CEILING_DIRECTORIES", tmp, 1);

	test_parser();
	make_repos();
	test_scan();
	test_queries();
	test_errors();
	test_fetch();
	test_large();
	test_bug_notes();
	test_grep();
	sh("rm -rf '%s'", work);
	free(c_init);
	free(c_fix);
	free(c_fake);
	free(c_bz);
	free(c_bp);
	free(c_n1);
	free(c_s1);
	free(c_merge);
	return done_testing();
}
