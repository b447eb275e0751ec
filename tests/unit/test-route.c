/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for bridge/route: which bugs are mirrored and to whom, with
 * configurations read from small INI files and a small MAINTAINERS file
 * that the test writes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bridge/route.h"
#include "core/buf.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/bb-route-XXXXXX";

static const char maintainers_text[] =
	"List of maintainers\n"
	"===================\n"
	"\n"
	"Maintainers List\n"
	"----------------\n"
	"\n"
	"802.11 (including CFG80211/NL80211)\n"
	"M:\tJohannes Berg <johannes@sipsolutions.net>\n"
	"L:\tlinux-wireless@vger.kernel.org\n"
	"S:\tMaintained\n"
	"\n"
	"INTEL WIRELESS WIFI LINK (iwlwifi)\n"
	"M:\tMiri Korenblit <miriam.rachel.korenblit@intel.com>\n"
	"L:\tlinux-wireless@vger.kernel.org\n"
	"S:\tSupported\n"
	"\n"
	"USB SUBSYSTEM\n"
	"M:\tGreg Kroah-Hartman <gregkh@linuxfoundation.org>\n"
	"L:\tlinux-usb@vger.kernel.org\n"
	"S:\tSupported\n"
	"\n"
	"ORPHANED THING\n"
	"S:\tOrphan\n"
	"F:\tdrivers/orphan/\n"
	"\n"
	"NETWORKING DRIVERS\n"
	"M:\tJakub Kicinski <kuba@kernel.org>\n"
	"M:\t\"Kicinski, Jakub\" <KUBA@kernel.org>\n"
	"M:\tPaolo Abeni <pabeni@redhat.com>\n"
	"L:\tnetdev@vger.kernel.org (moderated for non-subscribers)\n"
	"L:\tNETDEV@vger.kernel.org\n"
	"S:\tOdd Fixes\n";

static const char main_conf[] =
	"[bugzilla]\n"
	"subsystem_field = cf_subsystem\n"
	"[routing]\n"
	"maintainers_file = MAINTAINERS\n"
	"default_lists = bugs@example.org\n"
	"default_people = Triage Team <triage@example.org>\n"
	"[route iwlwifi]\n"
	"product = Drivers\n"
	"component = network-wireless-intel\n"
	"maintainers_section = intel wireless wifi link (IWLWIFI)\n"
	"people = johannes@sipsolutions.net, Triage <TRIAGE@example.org>\n"
	"[route wireless]\n"
	"product = drivers\n"
	"component = Network-Wireless\n"
	"maintainers_section = 802.11 (including CFG80211/NL80211)\n"
	"[route usb]\n"
	"subsystem = USB\n"
	"maintainers_section = USB SUBSYSTEM\n"
	"lists = linux-usb@vger.kernel.org, usb-bugs@example.org\n"
	"[route orphan]\n"
	"component = orphan\n"
	"maintainers_section = ORPHANED THING\n"
	"[route net]\n"
	"product = Networking\n"
	"maintainers_section = NETWORKING DRIVERS\n"
	"people = Paolo <PABENI@redhat.com>, netdev@vger.kernel.org\n"
	"[route drivers]\n"
	"product = Drivers\n"
	"lists = drivers@example.org\n"
	"people = Drivers Team <DRIVERS@example.org>, helper@example.org\n";

static char *write_file(const char *name, const char *text)
{
	char *path = str_printf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	chmod(path, 0600);
	return path;
}

static struct bb_config *load_config(const char *name, const char *text)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path = write_file(name, text);

	if (config_load_file(&cfg, path, &err) != BB_OK)
		ok(0, "config %s loads: %s", name, err.message);
	free(path);
	return cfg;
}

/* A bug as a reader makes it: every string malloc'd.  keywords, groups and
 * fields ("name=value; name=value") may be NULL. */
static void make_bug(struct bz_bug *bug, long long id, const char *product,
		     const char *component, const char *status, const char *keywords,
		     const char *groups, const char *fields, time_t changed)
{
	memset(bug, 0, sizeof(*bug));
	bug->id = id;
	bug->summary = strdup("a bug");
	bug->product = strdup(product);
	bug->component = strdup(component);
	bug->status = strdup(status);
	bug->resolution = strdup("");
	bug->keywords = config_list(keywords, NULL);
	bug->groups = config_list(groups, NULL);
	bug->cc = config_list(NULL, NULL);
	bug->last_change_time = changed;
	bug->creation_time = changed;
	for (const char *p = fields; p && *p;) {
		const char *end = strchr(p, ';'), *eq;

		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		bug->fields = realloc(bug->fields, (bug->nfields + 1) * sizeof(*bug->fields));
		bug->fields[bug->nfields].name = strndup(p, (size_t)(eq - p));
		bug->fields[bug->nfields].value = strndup(eq + 1, (size_t)(end - eq - 1));
		bug->nfields++;
		p = *end ? end + 2 : end;
	}
}

static struct mnt_file *maintainers(void)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path = write_file("MAINTAINERS", maintainers_text);

	if (mnt_load(&mf, path, &err) != BB_OK)
		ok(0, "MAINTAINERS loads: %s", err.message);
	free(path);
	return mf;
}

static size_t strv_count(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Routes a bug and compares with the rule and description expected. */
static void expect_route(const struct router *r, const char *label, const char *product,
			 const char *component, const char *fields, const char *rule,
			 const char *describe)
{
	struct bz_bug bug;
	struct route_result res;
	struct bb_error err = BB_ERROR_INIT;
	enum bb_status st;
	char *d;

	make_bug(&bug, 1000, product, component, "NEW", NULL, NULL, fields, 0);
	st = router_route(r, &bug, &res, &err);
	if (!ok(st == BB_OK, "%s: routed (%s)", label, err.message)) {
		bz_bug_release(&bug);
		return;
	}
	is_str(res.rule, rule, "%s: rule", label);
	d = route_result_describe(&res);
	is_str(d, describe, "%s: recipients", label);
	free(d);
	route_result_release(&res);
	bz_bug_release(&bug);
}

static void test_route(void)
{
	struct bb_config *cfg = load_config("main.conf", main_conf);
	struct mnt_file *mf = maintainers();
	struct router *r = NULL;
	struct bb_error err = BB_ERROR_INIT;

	if (!ok(cfg && mf, "config and MAINTAINERS load"))
		return;
	if (!ok(router_new(&r, cfg, mf, &err) == BB_OK, "router_new: %s", err.message))
		return;

	/* first match wins: iwlwifi comes before wireless and drivers */
	expect_route(r, "iwlwifi", "Drivers", "network-wireless-intel", NULL, "iwlwifi",
		     "linux-wireless@vger.kernel.org; Cc: johannes@sipsolutions.net, "
		     "Triage <TRIAGE@example.org>, Miri Korenblit <miriam.rachel.korenblit@intel.com>");
	expect_route(r, "wireless", "Drivers", "network-wireless", NULL, "wireless",
		     "linux-wireless@vger.kernel.org; Cc: Johannes Berg <johannes@sipsolutions.net>");
	/* case-insensitive, surrounding space ignored */
	expect_route(r, "case", "DRIVERS", " NETWORK-WIRELESS ", NULL, "wireless",
		     "linux-wireless@vger.kernel.org; Cc: Johannes Berg <johannes@sipsolutions.net>");
	expect_route(r, "later rule", "drivers", "network-wireless-other", NULL, "drivers",
		     "drivers@example.org; Cc: helper@example.org");
	/* subsystem field, one of several values; rule lists before the
	 * section's, duplicates dropped */
	expect_route(r, "subsystem", "Other", "Other", "cf_subsystem=PCI, usb", "usb",
		     "linux-usb@vger.kernel.org, usb-bugs@example.org; "
		     "Cc: Greg Kroah-Hartman <gregkh@linuxfoundation.org>");
	expect_route(r, "subsystem whole value", "Other", "Other", "cf_subsystem= Usb ", "usb",
		     "linux-usb@vger.kernel.org, usb-bugs@example.org; "
		     "Cc: Greg Kroah-Hartman <gregkh@linuxfoundation.org>");
	expect_route(r, "subsystem prefix is no match", "Other", "Other",
		     "cf_subsystem=USB-serial", "default",
		     "bugs@example.org; Cc: Triage Team <triage@example.org>");
	expect_route(r, "other field is not the subsystem", "Other", "Other",
		     "cf_other=USB", "default",
		     "bugs@example.org; Cc: Triage Team <triage@example.org>");
	/* the orphaned section gives nobody: the rule is passed over */
	expect_route(r, "orphan to default", "Other", "orphan", NULL, "default",
		     "bugs@example.org; Cc: Triage Team <triage@example.org>");
	expect_route(r, "orphan to next rule", "Drivers", "orphan", NULL, "drivers",
		     "drivers@example.org; Cc: helper@example.org");
	/* de-duplication: case-insensitive within to and cc, and an address
	 * in to leaves cc; the first form of a person wins */
	expect_route(r, "dedup", "Networking", "x", NULL, "net",
		     "netdev@vger.kernel.org; Cc: Paolo <PABENI@redhat.com>, "
		     "Jakub Kicinski <kuba@kernel.org>");
	expect_route(r, "default", "Unknown", "x", NULL, "default",
		     "bugs@example.org; Cc: Triage Team <triage@example.org>");
	router_free(r);
	mnt_free(mf);
	config_free(cfg);
}

static void test_not_found(void)
{
	struct bb_config *cfg = load_config("nodefault.conf",
					    "[route only-usb]\ncomponent = USB\n"
					    "lists = linux-usb@vger.kernel.org\n");
	struct router *r = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct route_result res;
	struct bz_bug bug;

	if (!ok(cfg && router_new(&r, cfg, NULL, &err) == BB_OK,
		"rules without sections need no MAINTAINERS: %s", err.message))
		return;
	make_bug(&bug, 4242, "Memory Management", "Slab Allocator", "NEW", NULL, NULL, NULL, 0);
	is_int(router_route(r, &bug, &res, &err), BB_ERR_NOT_FOUND, "no rule, no default: not found");
	ok(strstr(err.message, "bug 4242") && strstr(err.message, "Memory Management") &&
	   strstr(err.message, "Slab Allocator"),
	   "message names bug, product and component: %s", err.message);
	ok(res.to == NULL && res.cc == NULL && res.rule == NULL, "result left empty");
	route_result_release(&res);
	bz_bug_release(&bug);
	make_bug(&bug, 4243, "x", "usb", "NEW", NULL, NULL, NULL, 0);
	ok(router_route(r, &bug, &res, &err) == BB_OK && strv_count(res.to) == 1 &&
	   strv_count(res.cc) == 0, "the rule still routes");
	ok(res.cc && res.cc[0] == NULL, "empty cc is an empty array");
	route_result_release(&res);
	bz_bug_release(&bug);
	router_free(r);
	config_free(cfg);
}

static void expect_new_error(const char *label, const char *conf, int with_mnt,
			     const char *fragment1, const char *fragment2)
{
	struct bb_config *cfg = load_config("bad.conf", conf);
	struct mnt_file *mf = with_mnt ? maintainers() : NULL;
	struct router *r = (struct router *)&r;   /* must be reset */
	struct bb_error err = BB_ERROR_INIT;

	if (!cfg)
		return;
	is_int(router_new(&r, cfg, mf, &err), BB_ERR_CONFIG, "%s: config error", label);
	ok(strstr(err.message, fragment1) && strstr(err.message, fragment2),
	   "%s: message says \"%s\" and \"%s\" (got: %s)", label, fragment1, fragment2, err.message);
	ok(r == NULL, "%s: no router", label);
	mnt_free(mf);
	config_free(cfg);
}

static void test_new_errors(void)
{
	expect_new_error("missing section",
			 "[route ok]\nlists = a@example.org\n"
			 "[route wifi]\nmaintainers_section = IWLWIFI\n", 1,
			 "[route wifi]", "\"IWLWIFI\"");
	expect_new_error("suggestion",
			 "[route wifi]\nmaintainers_section = intel wireless\n", 1,
			 "did you mean", "INTEL WIRELESS WIFI LINK (iwlwifi)");
	expect_new_error("no MAINTAINERS loaded",
			 "[route usb]\nmaintainers_section = USB SUBSYSTEM\n", 0,
			 "[route usb]", "no MAINTAINERS file");
	expect_new_error("subsystem without field",
			 "[route usb]\nsubsystem = USB\nlists = linux-usb@vger.kernel.org\n", 1,
			 "[route usb]", "subsystem_field");
	expect_new_error("list without address",
			 "[route x]\nlists = linux-usb\n", 1, "[route x] lists", "linux-usb");
	expect_new_error("person without address",
			 "[route x]\npeople = Greg\n", 1, "[route x] people", "Greg");
	expect_new_error("default without address",
			 "[routing]\ndefault_lists = bugs@example.org, oops\n", 0,
			 "default_lists", "oops");
}

/* Address settings are address lists: a comma inside a quoted name is
 * part of the name (config_list() split there, and "\"Doe" held no
 * address). */
static void test_address_lists(void)
{
	static const char conf[] =
		"[routing]\n"
		"default_lists = bugs@example.org\n"
		"default_people = \"Team, Triage\" <triage@example.org>\n"
		"[route drivers]\n"
		"product = Drivers\n"
		"lists = \"Drivers, all\" <drivers@example.org>\n"
		"people = \"Doe, John\" <john@example.org>, helper@example.org\n";
	struct bb_config *cfg = load_config("names.conf", conf);
	struct router *r = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char **v;
	size_t n = 0;

	if (!ok(cfg && router_new(&r, cfg, NULL, &err) == BB_OK,
		"a quoted name with a comma is one person: %s", err.message)) {
		config_free(cfg);
		return;
	}
	expect_route(r, "quoted names", "Drivers", "x", NULL, "drivers",
		     "drivers@example.org; "
		     "Cc: \"Doe, John\" <john@example.org>, helper@example.org");
	expect_route(r, "quoted default", "Other", "x", NULL, "default",
		     "bugs@example.org; Cc: \"Team, Triage\" <triage@example.org>");
	router_free(r);
	config_free(cfg);

	v = config_address_list(" a@example.org,, Doe, John <j@example.org> , team: b@example.org,"
				" c@example.org;", &n);
	ok(v && n == 4 && !strcmp(v[0], "a@example.org") &&
	   !strcmp(v[1], "\"Doe, John\" <j@example.org>") && !strcmp(v[2], "b@example.org") &&
	   !strcmp(v[3], "c@example.org") && !v[4],
	   "an address list: empty items skipped, a name's words joined, a group's members");
	config_list_free(v);
	v = config_address_list(NULL, &n);
	ok(v && !v[0] && n == 0, "no setting: an empty list");
	config_list_free(v);
}

static void expect_wants(const struct router *r, const char *label, int want,
			 const char *why, const struct bz_bug *bug, time_t now)
{
	const char *reason = "unset";
	int got = router_wants(r, bug, now, &reason);

	is_int(got, want, "%s: %s", label, want ? "wanted" : "not wanted");
	if (why)
		is_str(reason, why, "%s: reason", label);
	else
		ok(reason == NULL, "%s: no reason", label);
}

static void test_wants(void)
{
	const time_t now = 1764000000;
	struct bb_config *cfg = load_config("wants.conf",
					    "[bugzilla]\nproducts = Drivers, Networking\n"
					    "components = Wireless, USB\n"
					    "statuses = NEW, ASSIGNED\nkeyword = regression\n"
					    "flag = bugbot\n"
					    "max_age = 30d\n"
					    "[routing]\ndefault_lists = bugs@example.org\n");
	struct bb_config *open_cfg = load_config("open.conf",
						 "[routing]\ndefault_lists = bugs@example.org\n");
	struct bb_config *def_cfg = load_config("defaults.conf",
						"[routing]\ndefault_lists = bugs@example.org\n");
	struct router *r = NULL, *open_r = NULL, *def_r = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug bug;

	if (!ok(cfg && open_cfg && def_cfg, "filter configs load"))
		return;
	/* An empty value in the file keeps the default, so a list that names
	 * nothing is set here. */
	free(open_cfg->bz_statuses);
	open_cfg->bz_statuses = strdup(" , ");
	ok(router_new(&r, cfg, NULL, &err) == BB_OK, "router with filters: %s", err.message);
	ok(router_new(&open_r, open_cfg, NULL, &err) == BB_OK, "router without status filter");
	ok(router_new(&def_r, def_cfg, NULL, &err) == BB_OK, "router with default filters");

	make_bug(&bug, 1, "Drivers", "Wireless", "NEW", "regression", NULL, NULL, now - 3600);
	expect_wants(r, "all filters pass", 1, NULL, &bug, now);
	expect_wants(r, "exactly max_age old", 1, NULL, &bug, now + 30 * 86400 - 3600);
	expect_wants(r, "one second too old", 0, "not changed recently", &bug,
		     now + 30 * 86400 - 3600 + 1);
	ok(router_wants(r, &bug, now, NULL), "reason may be NULL");
	bz_bug_release(&bug);

	make_bug(&bug, 2, "Drivers", "Wireless", "NEW", "regression", "security", NULL, now);
	expect_wants(r, "restricted", 0, "restricted to groups", &bug, now);
	expect_wants(open_r, "restricted without filters", 0, "restricted to groups", &bug, now);
	expect_wants(def_r, "restricted with default filters", 0, "restricted to groups", &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 3, "drivers", "usb", "ASSIGNED", "Regression", NULL, NULL, now);
	expect_wants(r, "product, component and keyword ignore case", 1, NULL, &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 4, "Filesystems", "Wireless", "NEW", "regression", NULL, NULL, now);
	expect_wants(r, "other product", 0, "product not mirrored", &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 5, "Drivers", "Sound", "NEW", "regression", NULL, NULL, now);
	expect_wants(r, "other component", 0, "component not mirrored", &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 6, "Drivers", "USB", "new", "regression", NULL, NULL, now);
	expect_wants(r, "status is case-sensitive", 0, "status not mirrored", &bug, now);
	expect_wants(open_r, "empty status list allows all", 1, NULL, &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 7, "Drivers", "USB", "RESOLVED", "regression", NULL, NULL, now);
	expect_wants(r, "closed bug", 0, "status not mirrored", &bug, now);
	expect_wants(def_r, "closed bug, default statuses", 0, "status not mirrored", &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 8, "Drivers", "USB", "NEW", "crash, performance", NULL, NULL, now);
	expect_wants(r, "other keywords", 0, "lacks the keyword or flag", &bug, now);
	bz_bug_release(&bug);

	/* [bugzilla] flag = bugbot: a bare name takes the flag granted or asked */
	make_bug(&bug, 9, "Drivers", "USB", "NEW", NULL, NULL, NULL, now);
	bug.flags = strdup("[{\"name\": \"needinfo\", \"status\": \"?\"},"
			   " {\"name\": \"bugbot\", \"status\": \"+\"}]");
	expect_wants(r, "granted flag", 1, NULL, &bug, now);
	bz_bug_release(&bug);
	make_bug(&bug, 10, "Drivers", "USB", "NEW", NULL, NULL, NULL, now);
	bug.flags = strdup("[{\"name\": \"bugbot\", \"status\": \"?\"}]");
	expect_wants(r, "requested flag", 1, NULL, &bug, now);
	bz_bug_release(&bug);
	make_bug(&bug, 11, "Drivers", "USB", "NEW", NULL, NULL, NULL, now);
	bug.flags = strdup("[{\"name\": \"bugbot\", \"status\": \"-\"}]");
	expect_wants(r, "denied flag", 0, "lacks the keyword or flag", &bug, now);
	bz_bug_release(&bug);
	make_bug(&bug, 12, "Drivers", "USB", "NEW", NULL, NULL, NULL, now);
	bug.flags = strdup("[{\"name\": \"bugbots\", \"status\": \"+\"}]");
	expect_wants(r, "other flag", 0, "lacks the keyword or flag", &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 13, "Networking", "USB", "NEW", "regression", NULL, NULL, (time_t)-1);
	expect_wants(r, "unknown change time with max_age", 0, "not changed recently", &bug, now);
	expect_wants(def_r, "unknown change time, any age", 1, NULL, &bug, now);
	bz_bug_release(&bug);

	make_bug(&bug, 14, "Networking", "USB", "NEW", "regression", NULL, NULL, now + 600);
	expect_wants(r, "change in the future (clock skew)", 1, NULL, &bug, now);
	bz_bug_release(&bug);

	router_free(r);
	router_free(open_r);
	router_free(def_r);
	config_free(cfg);
	config_free(open_cfg);
	config_free(def_cfg);
}

static char **strv(const char *csv)
{
	return config_list(csv, NULL);
}

static void test_describe(void)
{
	struct route_result a = { strv("linux-wireless@vger.kernel.org"),
				  strv("Johannes Berg <johannes@sipsolutions.net>"), "wireless" };
	struct route_result b = { strv("LINUX-WIRELESS@vger.kernel.org"),
				  strv("johannes@SIPSOLUTIONS.net"), "other" };
	struct route_result c = { strv("linux-wireless@vger.kernel.org"),
				  strv("Johannes Berg <johannes@sipsolutions.net>, x@example.org"), "c" };
	struct route_result d = { strv("johannes@sipsolutions.net"),
				  strv("linux-wireless@vger.kernel.org"), "d" };
	struct route_result e = { strv("a@example.org, b@example.org"), strv(""), "e" };
	struct route_result f = { strv("b@example.org, A@example.org"), NULL, "f" };
	struct route_result g = { strv(""), strv("P <p@example.org>"), "g" };
	struct route_result empty = { NULL, NULL, NULL };
	char *s;

	s = route_result_describe(&a);
	is_str(s, "linux-wireless@vger.kernel.org; Cc: Johannes Berg <johannes@sipsolutions.net>",
	       "describe: lists; Cc: people");
	free(s);
	s = route_result_describe(&e);
	is_str(s, "a@example.org, b@example.org", "describe: no Cc part without people");
	free(s);
	s = route_result_describe(&g);
	is_str(s, "Cc: P <p@example.org>", "describe: people only");
	free(s);
	s = route_result_describe(&empty);
	is_str(s, "(nobody)", "describe: nobody");
	free(s);

	ok(router_same_recipients(&a, &a), "same: itself");
	ok(router_same_recipients(&a, &b), "same: case and display names ignored");
	ok(!router_same_recipients(&a, &c), "differs: a person more");
	ok(!router_same_recipients(&c, &a), "differs: a person fewer");
	ok(!router_same_recipients(&a, &d), "differs: to and cc swapped");
	ok(router_same_recipients(&e, &f), "same: order ignored, NULL cc is empty");
	ok(!router_same_recipients(&e, &g), "differs: lists against people");
	ok(router_same_recipients(&empty, &empty), "same: both empty");
	ok(!router_same_recipients(&empty, &g), "differs: empty against someone");

	route_result_release(&a);
	route_result_release(&b);
	route_result_release(&c);
	route_result_release(&d);
	route_result_release(&e);
	route_result_release(&f);
	route_result_release(&g);
	route_result_release(&empty);
	ok(a.to == NULL && a.cc == NULL, "release empties the result");
	route_result_release(&a);
	route_result_release(NULL);
	ok(1, "release twice and of NULL is harmless");
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(dir))
		return 99;
	test_route();
	test_not_found();
	test_new_errors();
	test_address_lists();
	test_wants();
	test_describe();
	cmd = str_printf("rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	return done_testing();
}
