/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names in a report's words (see prose.h): the vendors it names, its
 * title's function and tags, the words of its title and prose.  What the
 * words match in MAINTAINERS is match.c's; this file only reads them.
 */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "triage/match.h"
#include "triage/prose.h"

/* ---- vendors ----------------------------------------------------------- */

/* Vendors, whose folders hold one subfolder per driver (F: "*\/" right
 * under drivers/net/ethernet/intel), with the PCI and USB vendor ids a
 * report's devices carry (0: none). */
static const struct {
	const char *name;
	unsigned pci, pci2, usb;
} vendors[] = {
	{ "intel", 0x8086, 0, 0x8087 }, { "amd", 0x1002, 0x1022, 0 },
	{ "nvidia", 0x10de, 0, 0x0955 }, { "broadcom", 0x14e4, 0, 0x0a5c },
	{ "realtek", 0x10ec, 0, 0x0bda }, { "mediatek", 0x14c3, 0, 0x0e8d },
	{ "mellanox", 0x15b3, 0, 0 }, { "qlogic", 0x1077, 0, 0 },
	{ "marvell", 0x11ab, 0x1b4b, 0 }, { "huawei", 0x19e5, 0, 0x12d1 },
	{ "qualcomm", 0x17cb, 0x168c, 0x0cf3 }, { "microchip", 0x1055, 0, 0x0424 },
};

G_STATIC_ASSERT(G_N_ELEMENTS(vendors) <= 32);

int tri_vendor_index(const char *name, size_t n)
{
	for (size_t i = 0; i < G_N_ELEMENTS(vendors); i++)
		if (strlen(vendors[i].name) == n && !g_ascii_strncasecmp(name, vendors[i].name, n))
			return (int)i;
	return -1;
}

/* The vendors a report names: its devices' PCI and USB vendor ids, and
 * the words of its hardware name ("Intel(R) Client Systems NUC12..."). */
guint32 tri_report_vendors(const struct tri_report *r)
{
	guint32 set = 0;

	for (size_t i = 0; i < r->ndevices; i++)
		for (size_t v = 0; v < G_N_ELEMENTS(vendors); v++) {
			unsigned id = r->devices[i].vendor;

			if (r->devices[i].bus == TRI_BUS_PCI ?
			    id == vendors[v].pci || (vendors[v].pci2 && id == vendors[v].pci2) :
			    vendors[v].usb && id == vendors[v].usb)
				set |= 1u << v;
		}
	for (const char *h = r->hardware; h && *h;) {
		size_t n = 0;
		int v;

		while (h[n] && g_ascii_isalnum(h[n]))
			n++;
		if (n && (v = tri_vendor_index(h, n)) >= 0)
			set |= 1u << v;
		h += n ? n : 1;
	}
	return set;
}

/* ---- the title --------------------------------------------------------- */

/* The length of text's first line, within len (text need not end in a
 * NUL: a report's body is len bytes). */
size_t tri_first_line_len(const char *text, size_t len)
{
	const char *nl = text ? memchr(text, '\n', len) : NULL;

	return text ? (nl ? (size_t)(nl - text) : len) : 0;
}

/* The function a report's title names as where it happened, "KIND in
 * FUNC" as syzbot and KASAN write it ("possible deadlock in
 * ipv6_sock_mc_close (2)"): an identifier with a '_' after the first " in ". */
char *tri_title_function(const char *text, size_t len)
{
	size_t n = tri_first_line_len(text, len);
	const char *at, *p;
	size_t k = 0;

	at = n ? g_strstr_len(text, (gssize)n, " in ") : NULL;
	if (!at)
		return NULL;
	p = at + 4;
	while (p + k < text + n && (g_ascii_isalnum(p[k]) || p[k] == '_'))
		k++;
	if (k < 3 || k > TRI_LOCATE_NAME_MAX || !memchr(p, '_', k) ||
	    (p + k < text + n && p[k] != ' ' && p[k] != '.' && p[k] != '('))
		return NULL;
	return g_strndup(p, k);
}

/* ---- words in prose ---------------------------------------------------- */

/* Words of reports that name no driver, though some F: component or title
 * word is spelt so. */
static const char *const prose_stopwords[] = {
	"about", "actions", "adapter", "after", "again", "against", "all", "also", "and",
	"any", "are", "audio", "base", "battery", "because", "been", "before", "bitmap",
	"board", "boot", "bridge", "buffer", "bug", "bugs", "build", "bus", "but", "cable",
	"cache", "camera", "can", "cannot", "card", "chip", "client", "clock", "close",
	"commit", "common", "compile", "component", "computer", "config", "controller",
	"core", "counter", "cpu", "cpus", "crash", "data", "debug", "desktop", "device",
	"devices", "disk", "display", "does", "drive", "driver", "drivers", "entry",
	"error", "errors", "event", "events", "fail", "failed", "fails", "failure", "fan",
	"fast", "file", "files", "find", "firmware", "fix", "for", "from", "generic",
	"gpu", "hang", "hardware", "has", "have", "hello", "help", "high", "host", "how",
	"hub", "hung", "idle", "include", "interrupt", "issue", "kernel", "key",
	"keyboard", "laptop", "latest", "led", "leds", "line", "link", "linux", "list",
	"load", "lock", "locks", "log", "low", "machine", "main", "memory", "mode",
	"module", "modules", "most", "msi", "namespace", "network", "new", "next", "not",
	"old", "one", "only", "open", "option", "options", "overflow", "page", "pages",
	"panic", "patch", "please", "port", "ports", "power", "probe", "problem",
	"process", "property", "queue", "random", "read", "regression", "release",
	"remove", "report", "reports", "reset", "resume", "screen", "see", "sensor",
	"server", "setting", "settings", "should", "sleep", "slow", "soc", "some", "space",
	"stable", "start", "state", "stop", "support", "switch", "system", "table", "test",
	"tests", "thanks", "that", "the", "then", "there", "this", "time", "timeout",
	"timer", "tools", "touchpad", "two", "unload", "update", "upgrade", "use", "used",
	"user", "users", "using", "value", "values", "version", "via", "video", "wake",
	"warning", "was", "when", "which", "will", "with", "without", "work", "works",
	"write",
};

/* A body line that is a log line, a quote or a trace: its names are read
 * by the reader (drivers, frames, paths), not as prose. */
static int prose_skip_line(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i < n && l[i] == '>')
		return 1;
	/* "[ 12.345678]", "<4>[ 12.34]" */
	if (i + 2 < n && l[i] == '<' && g_ascii_isdigit(l[i + 1]) && l[i + 2] == '>')
		i += 3;
	if (i < n && l[i] == '[') {
		size_t j = i + 1;

		while (j < n && l[j] == ' ')
			j++;
		while (j < n && g_ascii_isdigit(l[j]))
			j++;
		if (j < n && l[j] == '.' && j + 1 < n && g_ascii_isdigit(l[j + 1]))
			return 1;
	}
	return g_strstr_len(l, (gssize)n, "+0x") != NULL;
}

int tri_prose_stopword(const char *w)
{
	size_t lo = 0, hi = G_N_ELEMENTS(prose_stopwords);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(w, prose_stopwords[mid]);

		if (!c)
			return 1;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* The subsystem tags that start a title, as patches' subjects have them
 * ("usb: dwc3: gadget: crash on unbind", "[BUG] i2c: designware: ...")
 * and the bracketed words before them (syzbot's "[syzbot] [input?] [usb?]"
 * guesses; "BUG" and the like are stop words): the bytes they take, 0 if
 * none.  They name the code the writer blames. */
static size_t title_tag(const char *l, size_t n)
{
	size_t i = 0, tag = 0;

	for (;;) {
		while (i < n && l[i] == ' ')
			i++;
		if (i < n && l[i] == '[') {
			const char *close = memchr(l + i, ']', n - i);

			if (!close)
				return tag;
			/* syzbot's guesses, "[syzbot] [input?] [usb?] ...", are tags too */
			i = (size_t)(close - l) + 1;
			tag = i;
			continue;
		}
		break;
	}
	for (;;) {
		/* a crash's kind ("BUG: KASAN: ...") is no subsystem */
		static const char *const kinds[] = {
			"bug", "kasan", "kmsan", "kcsan", "ubsan", "kfence", "warning", "info",
			"oops", "panic", "error", "regression", "question", "re", "fwd", "next",
		};
		size_t k = 0;

		while (i + k < n && l[i + k] != ' ' && l[i + k] != ':')
			k++;
		if (!k || i + k + 1 >= n || l[i + k] != ':' || l[i + k + 1] != ' ' || k > 40)
			return tag;
		for (size_t j = 0; j < G_N_ELEMENTS(kinds); j++)
			if (strlen(kinds[j]) == k && !g_ascii_strncasecmp(l + i, kinds[j], k))
				return tag;
		i += k + 2;
		tag = i;
	}
}

/* A vendor's name and the word after it in the title (l, n bytes after
 * the vendor's and a space) as one name, "vendor_word" ("amd_pmc" of "AMD
 * PMC causes ..."): malloc'd, or NULL when no word of 2 to 30 letters and
 * digits (no other vendor) follows. */
static char *vendor_pair_name(const char *vendor, const char *l, size_t n)
{
	size_t k = 0;
	int letter = 0;
	char *rest, *w;

	while (k < n && (g_ascii_isalnum(l[k]) || l[k] == '_' || l[k] == '-'))
		letter |= g_ascii_isalpha(l[k++]);
	if (k < 2 || k > 30 || !letter || (k < n && l[k] != ' ' && l[k] != ':' && l[k] != ',') ||
	    tri_vendor_index(l, k) >= 0)
		return NULL;
	rest = g_ascii_strdown(l, (gssize)k);
	w = g_strconcat(vendor, "_", rest, NULL);
	g_free(rest);
	return w;
}

/* vendor_pair_name()'s name to sink at the title's weight, once. */
static void vendor_pair(const struct tri_prose_sink *sink, GHashTable *done, const char *vendor,
			const char *l, size_t n, size_t line)
{
	char *w = vendor_pair_name(vendor, l, n);

	if (w && !g_hash_table_contains(done, w)) {
		sink->word(sink->ctx, w, 2.5, line);
		g_hash_table_add(done, w);
	} else {
		g_free(w);
	}
}

/* A Bugzilla mail's "Component: USB" line (bugzilla.kernel.org's new-bug
 * mails list Product, Component, Hardware ... at the top): its component
 * names the subsystem, so the whole line counts as tags (the bytes it
 * takes; 0 for another line). */
static size_t bugzilla_component(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return n - i > 11 && !strncmp(l + i, "Component: ", 11) ? n : 0;
}

/* A title's tags that are paths, as subjects write them for drivers
 * ("platform/x86/intel/pmc:", "drm/amd/display:"), each to sink. */
static void tag_paths(const char *l, size_t tag, double weight, const struct tri_prose_sink *sink)
{
	for (size_t i = 0; i < tag;) {
		size_t k = 0;

		while (i + k < tag && (g_ascii_isalnum(l[i + k]) || strchr("_-./", l[i + k])))
			k++;
		if (k > 2 && k < 100 && memchr(l + i, '/', k) && l[i] != '/')
			sink->tag_path(sink->ctx, l + i, k, weight);
		i += k ? k : 1;
	}
}

/* Whether the n bytes at part are word. */
static int part_is(const char *part, size_t n, const char *word)
{
	return n == strlen(word) && !strncmp(part, word, n);
}

/* The names a sysfs path gives, written anywhere in the text, log lines
 * and shell sessions too: "/sys/bus/iio" and "/sys/class/hwmon" the
 * subsystem, "/sys/bus/platform/drivers/ideapad_acpi" and
 * "/sys/module/psmouse" the driver, "/sys/devices/platform/lg-laptop" and
 * ".../devices/thinkpad_acpi" the device (named as its driver), each
 * once, to sink at weight.  A bus or class every machine has ("platform",
 * "pci", "usb") and device names with ':' or '.' (AMDI0010:00, spi4.0,
 * 0000:02:00.0) say nothing. */
static void sysfs_names(const char *l, size_t n, double weight, size_t line, GHashTable *done,
			const struct tri_prose_sink *sink)
{
	static const char *const generic[] = {
		"platform", "pci", "usb", "cpu", "node", "virtual", "system", "devices", "drivers",
		"block", "net", "input", "misc", "tty", "mem", "firmware", "kernel",
	};
	const char *end = l + n;

	for (const char *p = g_strstr_len(l, (gssize)n, "/sys/"); p;
	     p = g_strstr_len(p + 1, end - p - 1, "/sys/")) {
		const char *c = p + 5;
		const char *parts[5];
		size_t lens[5], k = 0;

		while (c < end && k < G_N_ELEMENTS(parts)) {
			const char *q = c;

			while (q < end && (g_ascii_isalnum(*q) || strchr("_-:.", *q)))
				q++;
			if (q == c)
				break;
			parts[k] = c;
			lens[k++] = (size_t)(q - c);
			if (q >= end || *q != '/')
				break;
			c = q + 1;
		}
		for (size_t i = 1; i < k; i++) {
			size_t at = G_N_ELEMENTS(parts);
			if (i == 1 && (part_is(parts[0], lens[0], "bus") ||
				       part_is(parts[0], lens[0], "class") ||
				       part_is(parts[0], lens[0], "module")))
				at = 1;
			else if (i == 3 && part_is(parts[0], lens[0], "bus") &&
				 (part_is(parts[2], lens[2], "drivers") ||
				  part_is(parts[2], lens[2], "devices")))
				at = 3;
			else if (i == 2 && part_is(parts[0], lens[0], "devices") &&
				 part_is(parts[1], lens[1], "platform"))
				at = 2;
			if (at != i || lens[i] < 3 || lens[i] > 40 || memchr(parts[i], ':', lens[i]) ||
			    memchr(parts[i], '.', lens[i]))
				continue;
			char *w = g_ascii_strdown(parts[i], (gssize)lens[i]);
			int skip = tri_prose_stopword(w) || g_hash_table_contains(done, w);

			for (size_t g = 0; !skip && g < G_N_ELEMENTS(generic); g++)
				skip = !strcmp(w, generic[g]);
			if (skip) {
				g_free(w);
				continue;
			}
			sink->word(sink->ctx, w, weight, line);
			g_hash_table_add(done, w);
		}
	}
}

/* The words, each once at its first place, with their weight: a title tag's
 * the most (syzbot's most of all), then the title's, then the rest. */
/* The subsystem tags of the commits a body cites as kernel developers
 * cite them, abbreviated hash then subject in parentheses ("2ab73c6d8323
 * (\"gpio: Support GPIO controllers without pin-ranges\")"): a bisected
 * culprit's tags name who merged it.  Each tag word to sink at weight,
 * once. */
static void cited_commits(const char *l, size_t n, double weight, size_t line, GHashTable *done,
			  const struct tri_prose_sink *sink)
{
	for (size_t i = 0; i + 12 < n; i++) {
		size_t h = 0, t, tag;

		if (i && g_ascii_isalnum(l[i - 1]))
			continue;
		while (i + h < n && g_ascii_isxdigit(l[i + h]) && !g_ascii_isupper(l[i + h]))
			h++;
		if (line == 1 && !h && l[i] == '"') {
			/* a title quotes the subject alone: Regression in "wifi: mt76: ..." */
			t = i + 1;
		} else if (h < 8 || h > 40 || i + h + 2 >= n || l[i + h] != ' ' ||
			   l[i + h + 1] != '(') {
			i += h;
			continue;
		} else {
			t = i + h + 2;
		}
		if (t < n && l[t] == '"')
			t++;
		tag = title_tag(l + t, n - t);
		tag_paths(l + t, tag, weight, sink);
		for (size_t j = 0; j < tag;) {
			size_t k = 0;

			while (j + k < tag && (g_ascii_isalnum(l[t + j + k]) || l[t + j + k] == '_' ||
					       l[t + j + k] == '-'))
				k++;
			if (k >= 3 && k <= 40 && l[t + j + k] != '/' && (!j || l[t + j - 1] != '/')) {
				char *w = g_ascii_strdown(l + t + j, (gssize)k);

				if (!tri_prose_stopword(w) && !g_hash_table_contains(done, w)) {
					sink->word(sink->ctx, w, weight, line);
					g_hash_table_add(done, w);
				} else {
					g_free(w);
				}
			}
			j += k ? k : 1;
		}
		i = t + tag;
	}
}

/* a sysfs name is the kernel's own name for the driver, as a driver's
 * prefix on its log lines (match.c's "messages of", 2.5) */
#define SYSFS_WEIGHT 2.5
void tri_prose_read(const char *text, size_t len, const struct tri_prose_sink *sink)
{
	GHashTable *done;
	size_t line = 1, words = 0;
	const char *p = text, *end;

	if (!text || !len)
		return;
	if (len > TRI_MATCH_MAX_PROSE)
		len = TRI_MATCH_MAX_PROSE;
	end = text + len;
	done = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	while (p < end && words < TRI_MATCH_MAX_PROSE_WORDS && !sink->full(sink->ctx)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		size_t tag = line == 1 ? title_tag(p, n) : line <= 40 ? bugzilla_component(p, n) : 0;

		if (line == 1 && tag)
			tag_paths(p, tag, 6.0, sink);
		if (memchr(p, '/', n))
			sysfs_names(p, n, SYSFS_WEIGHT, line, done, sink);
		if (memchr(p, '(', n) || (line == 1 && memchr(p, '"', n)))
			cited_commits(p, n, 6.0, line, done, sink);
		/* syzbot's subsystems are those it mailed the report to, and
		 * bugzilla.kernel.org mails a new bug to its component's list */
		double tag_weight = (n > 8 && !g_ascii_strncasecmp(p, "[syzbot]", 8)) ||
				    (line > 1 && tag) ? 20.0 : 6.0;

		if (!prose_skip_line(p, n)) {
			for (size_t i = 0; i < n;) {
				size_t k = 0;
				int letter = 0;

				while (i + k < n && (g_ascii_isalnum(p[i + k]) || p[i + k] == '_' ||
						     p[i + k] == '-'))
					letter |= g_ascii_isalpha(p[i + k++]);
				/* a word, not a part of a path, an address or a number */
				if (k >= 3 && k <= 40 && letter && (i == 0 || (p[i - 1] != '/' &&
				    p[i - 1] != '.' && p[i - 1] != '@')) &&
				    (i + k == n || (p[i + k] != '/' && p[i + k] != '@' &&
				     (p[i + k] != '.' || i + k + 1 == n || p[i + k + 1] == ' ')))) {
					char *w = g_ascii_strdown(p + i, (gssize)k);

					while (*w && strchr("-_", w[strlen(w) - 1]))
						w[strlen(w) - 1] = '\0';
					/* a Bugzilla component counts even when the title
					 * named it first */
					char *key = line > 1 && i < tag ?
						g_strconcat("Component: ", w, NULL) : w;

					/* a vendor's name before a name in the title
					 * ("AMD PMC", "Intel PMT") is the vendor's
					 * folder and that folder under it, as drivers
					 * of several vendors are laid out
					 * (drivers/platform/x86/amd/pmc/) */
					if (line == 1 && i >= tag && tri_vendor_index(w, strlen(w)) >= 0 &&
					    i + k + 1 < n && p[i + k] == ' ')
						vendor_pair(sink, done, w, p + i + k + 1,
							    n - (i + k + 1), line);
					if (strlen(w) >= 3 && !tri_prose_stopword(w) &&
					    tri_vendor_index(w, strlen(w)) < 0 &&
					    !g_hash_table_contains(done, key)) {
						sink->word(sink->ctx, w, i < tag ? tag_weight :
							   line == 1 ? 2.5 : 0.6, line);
						g_hash_table_add(done, key);
						if (key != w)
							g_free(w);
						words++;
					} else {
						if (key != w)
							g_free(key);
						g_free(w);
					}
				}
				i += k ? k : 1;
			}
		}
		line++;
		p += n + 1;
	}
	g_hash_table_destroy(done);
}

void tri_title_names(const char *text, size_t len, size_t max,
		     int (*name)(void *ctx, const char *word), void *ctx)
{
	size_t n = tri_first_line_len(text, len), asked = 0;

	if (n > 512)
		n = 512;
	for (size_t i = 0; i < n && asked < max;) {
		size_t k = 0;
		int letter = 0;

		while (i + k < n && (g_ascii_isalnum(text[i + k]) || text[i + k] == '_' ||
				     text[i + k] == '-'))
			letter |= g_ascii_isalpha(text[i + k++]);
		if (k >= 3 && k <= 40 && letter && (i == 0 || (text[i - 1] != '/' &&
		    text[i - 1] != '.' && text[i - 1] != '@')) &&
		    (i + k == n || (text[i + k] != '/' && text[i + k] != '@' && text[i + k] != '.'))) {
			char *w = g_ascii_strdown(text + i, (gssize)k);

			while (*w && strchr("-_", w[strlen(w) - 1]))
				w[strlen(w) - 1] = '\0';
			if (strlen(w) >= 3 && strpbrk(w, "0123456789_-") && !tri_prose_stopword(w) &&
			    tri_vendor_index(w, strlen(w)) < 0 && name(ctx, w))
				asked++;
			/* "AMD PMF": the module amd_pmf (amd-pmf) */
			if (tri_vendor_index(w, strlen(w)) >= 0 && i + k + 1 < n && text[i + k] == ' ' &&
			    asked < max) {
				char *pair = vendor_pair_name(w, text + i + k + 1, n - (i + k + 1));

				if (pair && name(ctx, pair))
					asked++;
				g_free(pair);
			}
			g_free(w);
		}
		i += k ? k : 1;
	}
}
