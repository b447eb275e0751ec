/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracker/release.c: kernel versions read and ordered, release commits
 * told from the rest, and the newest release of the watched trees kept. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store.h"
#include "tracker/gitscan.h"
#include "tracker/release.h"
#include "tap.h"

__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* A tree whose history has no release a scan read: release_look_back()
 * finds its newest one in the whole history, once. */
static void look_back(struct store *st, const char *dir)
{
	struct gitscan_options o = { 0 };
	struct gitscan_tree *t = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *newest = NULL;
	char old[] = "old", *only[] = { old, NULL };

	ok(sh("cd '%s' && git init -q -b master old && cd old &&"
	      " git -c user.name=D -c user.email=d@e commit -q --allow-empty -m 'Linux 6.4' &&"
	      " git -c user.name=D -c user.email=d@e commit -q --allow-empty -m 'Linux 6.5' &&"
	      " git -c user.name=D -c user.email=d@e commit -q --allow-empty -m 'Linux 6.6-rc1' &&"
	      " git -c user.name=D -c user.email=d@e commit -q --allow-empty"
	      " -m 'Merge tag x' -m 'Linux 6.7'", dir) == 0, "a tree: 6.5, then a candidate and"
	   " a body line that only look like releases");
	o.name = "old";
	o.path = str_printf("%s/old", dir);
	o.ref = "master";
	ok(gitscan_tree_new(&t, &o, &err) == BB_OK, "its gitscan tree");
	ok(release_look_back(st, t, "old", &err) == BB_OK, "looked back");
	ok(release_newest(st, only, &newest, NULL, &err) == BB_OK, "its newest");
	is_str(newest ? newest : "(null)", "v6.5", "the newest release commit of its history");
	free(newest);
	newest = NULL;
	ok(sh("cd '%s/old' && git -c user.name=D -c user.email=d@e commit -q --allow-empty"
	      " -m 'Linux 6.8'", dir) == 0, "a release after it");
	ok(release_look_back(st, t, "old", &err) == BB_OK, "looked back again");
	ok(release_newest(st, only, &newest, NULL, &err) == BB_OK && newest &&
	   !strcmp(newest, "v6.5"), "not again: the releases after it come from the scans");
	free(newest);
	gitscan_tree_free(t);
	sh("rm -rf '%s/old'", dir);
	free((char *)o.path);
}

static const char *tag_of(const char *text, char *out, size_t size)
{
	struct release_version v;

	if (!release_parse(text, &v))
		return "(none)";
	release_tag(&v, out, size);
	return out;
}

static int cmp(const char *a, const char *b)
{
	struct release_version va, vb;

	if (!release_parse(a, &va) || !release_parse(b, &vb))
		return 99;
	return release_cmp(&va, &vb);
}

int main(void)
{
	char tag[48], dir[] = "/tmp/test-release.XXXXXX", *path, *newest = NULL, *tree = NULL;
	struct release_version v;
	struct store *st = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char stable[] = "stable", *only[] = { stable, NULL };

	is_str(tag_of("6.8", tag, sizeof(tag)), "v6.8", "a release");
	is_str(tag_of("v6.8.1", tag, sizeof(tag)), "v6.8.1", "a stable release");
	is_str(tag_of("6.9-rc2", tag, sizeof(tag)), "v6.9-rc2", "a release candidate");
	is_str(tag_of("6.8.0-rc3-next-20240404", tag, sizeof(tag)), "v6.8-rc3",
	       "linux-next: its base");
	is_str(tag_of("6.6.9-200.fc39.x86_64", tag, sizeof(tag)), "v6.6.9",
	       "a distribution's suffix is not read");
	is_str(tag_of("6.8+", tag, sizeof(tag)), "v6.8", "a local build");
	is_str(tag_of("unspecified", tag, sizeof(tag)), "(none)", "no version");
	is_str(tag_of("6", tag, sizeof(tag)), "(none)", "no minor");
	is_str(tag_of("6.8abc", tag, sizeof(tag)), "(none)", "letters after the numbers");
	is_str(tag_of("6.8.1.2", tag, sizeof(tag)), "(none)", "four numbers");
	is_str(tag_of("123456.1", tag, sizeof(tag)), "(none)", "a number too long");

	ok(cmp("6.8-rc3", "6.8") < 0, "a candidate before its release");
	ok(cmp("6.8", "6.8.1") < 0, "a release before its stable updates");
	ok(cmp("6.8.1", "6.9-rc1") < 0, "a stable update before the next candidate");
	ok(cmp("6.9-rc1", "6.9-rc2") < 0, "candidates in order");
	ok(cmp("6.10", "6.9.12") > 0, "6.10 after 6.9.12 (numbers, not text)");
	ok(cmp("v6.8", "6.8.0") == 0, "v6.8 is 6.8.0");
	ok(cmp("5.19", "6.0") < 0, "majors first");

	ok(release_subject("Linux 6.9", &v) && v.major == 6 && v.minor == 9, "Linux 6.9 is a release");
	ok(release_subject("Linux 6.6.30", &v) && v.patch == 30, "Linux 6.6.30 too");
	ok(!release_subject("Linux 6.10-rc1", &v), "a candidate is not");
	ok(!release_subject("Linux 6.9 is out", &v), "nor a subject that goes on");
	ok(!release_subject("linux 6.9", &v), "nor one in lower case");
	ok(!release_subject("Revert \"Linux 6.9\"", &v), "nor a revert");

	ok(mkdtemp(dir) != NULL, "temp folder");
	path = str_printf("%s/state.db", dir);
	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "a store");
	ok(release_newest(st, NULL, &newest, &tree, &err) == BB_OK && !newest, "no release yet");
	ok(release_seen(st, "mainline", "Linux 6.9", "aaaa", &err) == BB_OK &&
	   release_seen(st, "mainline", "Linux 6.8", "bbbb", &err) == BB_OK &&
	   release_seen(st, "mainline", "wifi: a fix", "cccc", &err) == BB_OK &&
	   release_seen(st, "stable", "Linux 6.6.30", "dddd", &err) == BB_OK, "commits seen");
	ok(release_newest(st, NULL, &newest, &tree, &err) == BB_OK, "the newest");
	is_str(newest ? newest : "(null)", "v6.9", "an older one seen later does not replace it");
	is_str(tree ? tree : "(null)", "mainline", "on mainline");
	free(newest);
	free(tree);
	ok(release_newest(st, only, &newest, NULL, &err) == BB_OK, "of the stable tree only");
	is_str(newest ? newest : "(null)", "v6.6.30", "its own");
	free(newest);
	look_back(st, dir);
	store_close(st);
	for (const char *const *suffix = (const char *const[]){ "", "-wal", "-shm", NULL };
	     *suffix; suffix++) {
		char *file = str_printf("%s%s", path, *suffix);

		unlink(file);
		free(file);
	}
	free(path);
	ok(rmdir(dir) == 0, "cleanup");
	return done_testing();
}
