/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report reader (see reader.h for the contract).
 *
 * One pass over the lines.  Each line loses its log prefix (timestamp,
 * caller id, journal header) and is then offered to a few small readers:
 * the kernel version, the oops state machine (a header opens an oops; its
 * CPU line, RIP/pc, call trace and end marker fill it), the hardware line,
 * the module list, firmware messages, device ids, source paths and the
 * driver that printed it.  Cheap substring tests guard every regular
 * expression, and every list is capped, so the work stays linear.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "triage/reader.h"

static const char *const taint_meanings[] = {
	"proprietary module was loaded",
	"module was force loaded",
	"kernel running on an out of specification system",
	"module was force unloaded",
	"processor reported a Machine Check Exception (MCE)",
	"bad page referenced or some unexpected page flags",
	"taint requested by userspace application",
	"kernel died recently, i.e. there was an OOPS or BUG",
	"ACPI table overridden by user",
	"kernel issued warning",
	"staging driver was loaded",
	"workaround for bug in platform firmware applied",
	"externally-built (\"out-of-tree\") module was loaded",
	"unsigned module was loaded",
	"soft lockup occurred",
	"kernel has been live patched",
	"auxiliary taint, defined for and used by distros",
	"kernel was built with the struct randomization plugin",
	"an in-kernel test has been run",
};

const char *tri_taint_meaning(char letter)
{
	const char *p = letter ? strchr(TRI_TAINT_LETTERS, letter) : NULL;

	return p ? taint_meanings[p - TRI_TAINT_LETTERS] : NULL;
}

char *tri_taint_letters(unsigned flags, char *out)
{
	size_t n = 0;

	for (size_t i = 0; TRI_TAINT_LETTERS[i]; i++)
		if (flags & (1u << i))
			out[n++] = TRI_TAINT_LETTERS[i];
	out[n] = '\0';
	return out;
}

const char *tri_oops_kind_str(enum tri_oops_kind kind)
{
	switch (kind) {
	case TRI_OOPS_BUG: return "bug";
	case TRI_OOPS_WARNING: return "warning";
	case TRI_OOPS_OOPS: return "oops";
	case TRI_OOPS_PANIC: return "panic";
	case TRI_OOPS_HUNG: return "hung-task";
	case TRI_OOPS_STALL: return "rcu-stall";
	case TRI_OOPS_FRAGMENT: return "fragment";
	}
	return "unknown";
}

const char *tri_kernel_kind_str(enum tri_kernel_kind kind)
{
	switch (kind) {
	case TRI_KERNEL_NONE: return "none";
	case TRI_KERNEL_MAINLINE: return "mainline";
	case TRI_KERNEL_STABLE: return "stable";
	case TRI_KERNEL_NEXT: return "linux-next";
	case TRI_KERNEL_DISTRO: return "distribution";
	case TRI_KERNEL_LOCAL: return "local build";
	}
	return "unknown";
}

/* ---- strings ------------------------------------------------------------ */

/* A copy of n bytes of s fit to keep: at most TRI_MAX_STRING bytes, valid
 * UTF-8, controls made '?', white space at the ends dropped. */
static char *keep(const char *s, size_t n)
{
	char *raw, *valid;

	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n > TRI_MAX_STRING)
		n = TRI_MAX_STRING;
	raw = g_strndup(s, n);
	for (char *p = raw; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	valid = g_utf8_make_valid(raw, -1);
	g_free(raw);
	/* cutting at TRI_MAX_STRING may have split a character, which
	 * g_utf8_make_valid() replaced by a longer sequence: cut again on a
	 * character boundary */
	if (strlen(valid) > TRI_MAX_STRING) {
		const char *end = g_utf8_find_prev_char(valid, valid + TRI_MAX_STRING + 1);

		while (end && (size_t)(end - valid) > TRI_MAX_STRING)
			end = g_utf8_find_prev_char(valid, end);
		valid[end ? end - valid : 0] = '\0';
	}
	return valid;
}

static char *keep_str(const char *s)
{
	return keep(s, strlen(s));
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int is_symbol_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static int is_module_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Whether s is a module's build ID and its ']' ("5eeccc5bad4c...]"). */
static int build_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n >= 16 && n <= 64 && s[n] == ']';
}

/* "sym+0x12/0x340 [module]" at s: the symbol and module (either may be
 * left NULL), *end past what was read.  The "+0x" offset is required, so
 * hex addresses and words are not symbols. */
static int parse_symbol(const char *s, char **sym, char **mod, const char **end)
{
	const char *p = s, *q;

	while (is_symbol_char(*p) && p - s < TRI_MAX_STRING)
		p++;
	if (p == s || !starts(p, "+0x"))
		return 0;
	q = p + 3;
	while (isxdigit((unsigned char)*q))
		q++;
	if (*q == '/') {
		q++;
		if (starts(q, "0x"))
			q += 2;
		while (isxdigit((unsigned char)*q))
			q++;
	}
	*sym = keep(s, (size_t)(p - s));
	*mod = NULL;
	if (q[0] == ' ' && q[1] == '[' && is_module_char(q[2])) {
		const char *m = q + 2, *e = m;

		while (is_module_char(*e) && e - m < 64)
			e++;
		if (*e == ']') {
			*mod = keep(m, (size_t)(e - m));
			q = e + 1;
		} else if (*e == ' ' && build_id(e + 1)) {
			/* "[bluetooth 5eeccc5b...]": CONFIG_STACKTRACE_BUILD_ID */
			*mod = keep(m, (size_t)(e - m));
			q = e + 1 + strspn(e + 1, "0123456789abcdef") + 1;
		}
	}
	if (end)
		*end = q;
	return 1;
}

/* ---- source paths ------------------------------------------------------- */

static const char *const top_dirs[] = {
	"arch/", "block/", "certs/", "crypto/", "drivers/", "fs/", "include/", "init/",
	"io_uring/", "ipc/", "kernel/", "lib/", "mm/", "net/", "rust/", "samples/",
	"security/", "sound/", "tools/", "virt/", NULL
};

static int is_path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '/' || c == '-' ||
		c == '+' || c == ',';
}

/* The source path starting at s (the caller checked the boundary before
 * it), "dir/../" folded, ":line" and trailing punctuation dropped; NULL if
 * there is none.  *end past it. */
static char *path_at(const char *s, const char **end)
{
	const char *p = s;
	size_t n;
	char *copy, **parts, *out;
	GPtrArray *kept;
	int top = 0;

	for (size_t i = 0; top_dirs[i]; i++)
		if (starts(s, top_dirs[i])) {
			top = 1;
			break;
		}
	if (!top)
		return NULL;
	while (is_path_char(*p) && p - s < TRI_MAX_STRING)
		p++;
	*end = p;
	n = (size_t)(p - s);
	while (n && strchr(".,-/", s[n - 1]))
		n--;
	if (!memchr(s, '/', n) || n < 4 || s[n - 1] == '/')
		return NULL;
	copy = g_strndup(s, n);
	parts = g_strsplit(copy, "/", 0);   /* every part: a cap would leave "/../" in the last */
	kept = g_ptr_array_new();
	for (char **c = parts; *c; c++) {
		if (!strcmp(*c, "..")) {
			if (kept->len)
				g_ptr_array_remove_index(kept, kept->len - 1);
		} else if (**c && strcmp(*c, ".")) {
			g_ptr_array_add(kept, *c);
		}
	}
	g_ptr_array_add(kept, NULL);
	out = kept->len > 2 ? g_strjoinv("/", (char **)kept->pdata) : NULL;
	g_ptr_array_free(kept, TRUE);
	g_strfreev(parts);
	g_free(copy);
	return out;
}

/* The last source path of the words in s up to its ')' (decoded trace
 * lines list a frame's inlined callees' files first, its own last); NULL
 * if there is none. */
static char *last_path_in(const char *s)
{
	char *last = NULL;
	const char *p = s, *end;

	while (*p && *p != ')' && p - s < 4 * TRI_MAX_STRING) {
		char *path = path_at(p, &end);

		if (path) {
			g_free(last);
			last = path;
			p = end;
		}
		while (*p && *p != ' ' && *p != ')')
			p++;
		while (*p == ' ' || *p == '(')
			p++;
	}
	return last;
}

/* ---- the compiled patterns ---------------------------------------------- */

struct patterns {
	GRegex *driver_prefix;   /* "iwlwifi 0000:00:14.3: ...", "usb 3-2: ..." */
	GRegex *driver_colon;    /* "thinkpad_acpi: ..." */
	GRegex *fw[8];
	GRegex *pci, *usb_id, *lsusb;
	GRegex *version_token;
	GRegex *uname;
};

static const char *const fw_patterns[8] = {
	/* 0: file, error */
	"Direct firmware load for (\\S+) failed with error (-?\\d+)",
	/* 1: file */
	"firmware: direct-loading firmware (\\S+)",
	/* 2: file, error (failed) */
	"(?i)\\bfailed to load (?:[\\w-]+ )*?firmware(?: file)? ([^\\s(]+)(?: \\((-?\\w+)\\))?",
	/* 3: file, error (failed) */
	"(?i)\\bfirmware (\\S+\\.\\w+): fetch failed(?: (-?\\w+))?",
	/* 4: version, optional file */
	"(?i)\\bloaded firmware version:?\\s+(\\S+)(?:\\s+(\\S+\\.(?:ucode|bin|fw|sfi|ri|pnvm)))?",
	/* 5: file */
	"(?i)\\bloaded firmware ([\\w.-]+/[\\w./-]+|[\\w.-]+\\.(?:bin|ucode|fw|sfi|ri|pnvm))",
	/* 6: version */
	"(?i)\\b(?:firmware|fw) (?:version|ver)[:=]?\\s+(\\S+)",
	/* 7: version */
	"\\bfw_version (\\S+)",
};

static struct patterns *patterns_get(void)
{
	static gsize once;
	static struct patterns pat;

	if (g_once_init_enter(&once)) {
		GRegexCompileFlags flags = G_REGEX_OPTIMIZE | G_REGEX_RAW;

		pat.driver_prefix = g_regex_new(
			"^([A-Za-z0-9_][A-Za-z0-9_.-]{0,40}) (?:[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]|"
			"\\d+-[\\d.]+(?::\\d+\\.\\d+)?|[A-Z0-9]{4,8}:\\d{2}|hdaudioC\\d+D\\d+|virtio\\d+|"
			"hci\\d+|nvme\\d+|phy\\d+)[: ]", flags, 0, NULL);
		pat.driver_colon = g_regex_new("^([a-z][a-z0-9]*_[a-z0-9_]+): ", flags, 0, NULL);
		for (size_t i = 0; i < G_N_ELEMENTS(fw_patterns); i++)
			pat.fw[i] = g_regex_new(fw_patterns[i], flags, 0, NULL);
		pat.pci = g_regex_new("\\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\\]", flags, 0, NULL);
		pat.usb_id = g_regex_new("idVendor=([0-9a-fA-F]{4}), idProduct=([0-9a-fA-F]{4})",
					 flags, 0, NULL);
		pat.lsusb = g_regex_new("\\bID ([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\\b", flags, 0, NULL);
		pat.version_token = g_regex_new(
			"(?<![\\w.])([2-7]\\.\\d{1,2}(?:\\.\\d{1,3})?(?!\\d)(?:[-+.~_][A-Za-z0-9][A-Za-z0-9._+~-]*)?)",
			flags, 0, NULL);
		pat.uname = g_regex_new("\\bLinux [\\w.-]+ ([2-7]\\.\\d+\\S*) #\\d", flags, 0, NULL);
		g_once_init_leave(&once, 1);
	}
	return &pat;
}

/* Capture group i of a match, g_malloc'd through keep(), NULL if unset. */
static char *group(GMatchInfo *mi, int i)
{
	int a, b;

	if (!g_match_info_fetch_pos(mi, i, &a, &b) || a < 0 || b <= a)
		return NULL;
	return keep(g_match_info_get_string(mi) + a, (size_t)(b - a));
}

static int match(GRegex *re, const char *s, GMatchInfo **mi)
{
	if (g_regex_match(re, s, 0, mi))
		return 1;
	g_match_info_free(*mi);
	*mi = NULL;
	return 0;
}

/* ---- kernel versions ---------------------------------------------------- */

struct distro_suffix {
	const char *needle;
	const char *distro;
};

/* Looked for in the part after the numeric version; first match wins. */
static const struct distro_suffix distro_suffixes[] = {
	{ "-MANJARO", "Manjaro" },
	{ "-arch", "Arch Linux" },
	{ "-lts", "Arch Linux" },
	{ "-zen", "Arch Linux" },
	{ "-hardened", "Arch Linux" },
	{ "-mainline", "Arch Linux (AUR mainline)" },
	{ ".fc", "Fedora" },
	{ ".el", "Red Hat Enterprise Linux or a rebuild" },
	{ ".amzn", "Amazon Linux" },
	{ "-pve", "Proxmox VE" },
	{ "-generic", "Ubuntu" },
	{ "-lowlatency", "Ubuntu" },
	{ "-raspi", "Ubuntu" },
	{ "-aws", "Ubuntu" },
	{ "-azure", "Ubuntu" },
	{ "-gcp", "Ubuntu" },
	{ "-oracle", "Ubuntu" },
	{ "-oem", "Ubuntu" },
	{ "+deb", "Debian" },
	{ ".deb", "Debian" },
	{ "~bpo", "Debian" },
	{ "-amd64", "Debian" },
	{ "-arm64", "Debian" },
	{ "-686", "Debian" },
	{ "-cloud-", "Debian" },
	{ "+rpt", "Raspberry Pi OS" },
	{ "-default", "SUSE or openSUSE" },
	{ "-lp15", "SUSE or openSUSE" },
	{ "-gentoo", "Gentoo" },
	{ "-android", "Android" },
	{ "-microsoft-standard", "WSL" },
	{ "-Microsoft", "WSL" },
	{ ".x86_64", "an RPM-based distribution" },
	{ ".aarch64", "an RPM-based distribution" },
	{ ".ppc64le", "an RPM-based distribution" },
	{ "-rpi", "Raspberry Pi OS" },
	{ NULL, NULL }
};

enum tri_kernel_kind tri_kernel_classify(const char *version, char **upstream, char **distro)
{
	unsigned long x, y, z = 0;
	int have_z = 0;
	const char *p = version;
	char *e;
	enum tri_kernel_kind kind;
	unsigned long rc = 0;

	if (upstream)
		*upstream = NULL;
	if (distro)
		*distro = NULL;
	if (!version || !isdigit((unsigned char)*p))
		return TRI_KERNEL_NONE;
	x = strtoul(p, &e, 10);
	if (*e != '.' || !isdigit((unsigned char)e[1]) || x > 99)
		return TRI_KERNEL_NONE;
	y = strtoul(e + 1, &e, 10);
	if (y > 999)
		return TRI_KERNEL_NONE;
	if (*e == '.' && isdigit((unsigned char)e[1])) {
		z = strtoul(e + 1, &e, 10);
		have_z = 1;
		if (z > 999)
			return TRI_KERNEL_NONE;   /* a date or a BIOS version */
	}
	p = e;     /* the suffix */
	if (starts(p, "-rc") && isdigit((unsigned char)p[3]))
		rc = strtoul(p + 3, &e, 10);
	if (!*p || (rc && !*e)) {
		kind = have_z && z ? TRI_KERNEL_STABLE : TRI_KERNEL_MAINLINE;
	} else {
		kind = TRI_KERNEL_LOCAL;
		for (const struct distro_suffix *d = distro_suffixes; d->needle; d++)
			if (strstr(p, d->needle)) {
				kind = TRI_KERNEL_DISTRO;
				if (distro)
					*distro = g_strdup(d->distro);
				break;
			}
		if (kind == TRI_KERNEL_LOCAL && strstr(p, "-next-"))
			kind = TRI_KERNEL_NEXT;
	}
	if (upstream) {
		if (rc)
			*upstream = g_strdup_printf("v%lu.%lu-rc%lu", x, y, rc);
		else if (z)
			*upstream = g_strdup_printf("v%lu.%lu.%lu", x, y, z);
		else
			*upstream = g_strdup_printf("v%lu.%lu", x, y);
	}
	return kind;
}

static void set_version(struct tri_report *r, const char *v, size_t n,
			enum tri_version_source source, size_t line)
{
	struct tri_kernel *k = &r->kernel;
	char *version;

	if (source <= k->source)
		return;
	while (n && strchr(".,;:)", v[n - 1]))
		n--;
	version = keep(v, n);
	if (tri_kernel_classify(version, NULL, NULL) == TRI_KERNEL_NONE) {
		g_free(version);
		return;
	}
	g_free(k->version);
	g_free(k->upstream);
	g_free(k->distro);
	k->version = version;
	k->kind = tri_kernel_classify(version, &k->upstream, &k->distro);
	k->source = source;
	k->line = line;
}

static void read_version(struct tri_report *r, const struct patterns *pat, const char *s,
			 const char *lower, size_t line)
{
	const char *p;
	GMatchInfo *mi = NULL;

	if ((p = strstr(s, "Linux version "))) {
		p += strlen("Linux version ");
		set_version(r, p, strcspn(p, " "), TRI_FROM_LINUX_VERSION, line);
		return;
	}
	if ((p = strstr(s, "Not tainted ")) || (p = strstr(s, "Tainted: "))) {
		p += *p == 'N' ? strlen("Not tainted ") : strlen("Tainted: ");
		if (*p == '[') {
			/* "Tainted: [W]=WARN, [O]=OOT_MODULE" prints no version */
		} else {
			while (*p && (isupper((unsigned char)*p) || *p == ' '))
				p++;
			if (isdigit((unsigned char)*p)) {
				set_version(r, p, strcspn(p, " "), TRI_FROM_OOPS, line);
				return;
			}
		}
	}
	if (r->kernel.source >= TRI_FROM_UNAME)
		return;
	if (strstr(s, "Linux ") && match(pat->uname, s, &mi)) {
		int a, b;

		g_match_info_fetch_pos(mi, 1, &a, &b);
		set_version(r, s + a, (size_t)(b - a), TRI_FROM_UNAME, line);
		g_match_info_free(mi);
		return;
	}
	if (r->kernel.source >= TRI_FROM_UNAME)
		return;
	/* free text: the first version after "kernel", "linux" or "uname"
	 * ("uname -r: 6.7.4-arch1-1" counts as uname) */
	{
		const char *kw = NULL;
		static const char *const words[] = { "uname", "kernel", "linux" };

		for (size_t i = 0; i < G_N_ELEMENTS(words); i++) {
			const char *w = strstr(lower, words[i]);

			if (w && (!kw || w < kw))
				kw = w;
		}
		if (kw && g_regex_match_full(pat->version_token, s, -1, (int)(kw - lower), 0, &mi,
					     NULL)) {
			int a, b;

			g_match_info_fetch_pos(mi, 1, &a, &b);
			set_version(r, s + a, (size_t)(b - a),
				    strstr(lower, "uname") ? TRI_FROM_UNAME : TRI_FROM_TEXT, line);
		}
		g_match_info_free(mi);
	}
}

/* ---- oopses ------------------------------------------------------------- */

struct state {
	struct tri_report *r;
	const struct patterns *pat;
	GArray *oopses, *frames, *firmware, *devices, *paths, *drivers;
	struct tri_oops *open;     /* the oops being read, in oopses */
	size_t open_index;
	size_t opened_at;          /* its first line */
	int in_trace;
	int resume_trace;          /* a trace stopped at a "RIP:" amid it */
	int saw_cpu_line;
	size_t closed_at;          /* the line its end marker was on (0: none) */
	size_t closed_index;
};

static struct tri_oops *oops_at(struct state *st, size_t i)
{
	return &g_array_index(st->oopses, struct tri_oops, i);
}

static void close_oops(struct state *st, size_t line)
{
	struct tri_oops *o;

	if (!st->open)
		return;
	o = oops_at(st, st->open_index);
	o->nframes = st->frames->len;
	o->frames = (struct tri_frame *)(void *)g_array_free(st->frames, FALSE);
	st->frames = g_array_new(FALSE, TRUE, sizeof(struct tri_frame));
	st->open = NULL;
	st->in_trace = st->resume_trace = 0;
	st->closed_at = line;
	st->closed_index = st->open_index;
}

static struct tri_oops *open_oops(struct state *st, enum tri_oops_kind kind, const char *s,
				  size_t line)
{
	struct tri_oops o = { 0 };

	close_oops(st, line);
	st->closed_at = 0;
	if (st->oopses->len >= TRI_MAX_OOPSES)
		return NULL;
	o.kind = kind;
	o.first_line = keep_str(s);
	o.line = line;
	g_array_append_val(st->oopses, o);
	st->open_index = st->oopses->len - 1;
	st->open = oops_at(st, st->open_index);
	st->opened_at = line;
	st->saw_cpu_line = 0;
	st->in_trace = st->resume_trace = 0;
	return st->open;
}

/* A header seen while the open oops has only its header lines so far is
 * part of it ("BUG: kernel NULL pointer dereference" then "Oops: 0000"). */
static int still_header(const struct state *st)
{
	return st->open && !st->saw_cpu_line && !st->open->pc_symbol && !st->frames->len &&
		st->open->kind != TRI_OOPS_FRAGMENT;
}

static void set_path_from(struct tri_oops *o, const char *s, size_t line)
{
	const char *end;

	if (o->path)
		return;
	for (const char *p = s; *p; p++) {
		if (p == s || p[-1] == ' ' || p[-1] == '(') {
			char *path = path_at(p, &end);

			if (path) {
				o->path = keep_str(path);
				o->path_line = line;
				g_free(path);
				return;
			}
		}
	}
}

static void set_symbol(char **sym, char **mod, const char *s, size_t *line_out, size_t line)
{
	char *a, *b;

	if (*sym)
		return;
	while (*s == ' ')
		s++;
	if (starts(s, "0010:") || starts(s, "0033:"))
		s += 5;
	if (*s == '[') {               /* powerpc "NIP [c0080...] sym+0x..", arm "[<...>]" */
		const char *close = strchr(s, ']');

		if (!close)
			return;
		s = close + 1;
		while (*s == ' ')
			s++;
	}
	if (!parse_symbol(s, &a, &b, NULL))
		return;
	*sym = a;
	*mod = b;
	if (line_out)
		*line_out = line;
}

static void read_taint(struct tri_oops *o, const char *s)
{
	const char *p = strstr(s, "Tainted: ");
	GString *t;

	if (!p)
		return;
	p += strlen("Tainted: ");
	t = g_string_new(NULL);
	if (*p == '[') {
		/* the newer form: "[W]=WARN, [O]=OOT_MODULE" */
		for (; *p == '[' && p[1] && p[2] == ']'; ) {
			const char *m = tri_taint_meaning(p[1]);

			if (m)
				o->taint_flags |= 1u << (strchr(TRI_TAINT_LETTERS, p[1]) - TRI_TAINT_LETTERS);
			if (t->len)
				g_string_append_c(t, ' ');
			g_string_append_c(t, p[1]);
			p += 3;
			while (*p && *p != ',' && *p != ' ')
				p++;
			while (*p == ',' || *p == ' ')
				p++;
		}
	} else {
		for (; *p && (isupper((unsigned char)*p) || *p == ' '); p++) {
			if (*p == ' ') {
				if (t->len && t->str[t->len - 1] != ' ')
					g_string_append_c(t, ' ');
				continue;
			}
			if (tri_taint_meaning(*p))
				o->taint_flags |= 1u << (strchr(TRI_TAINT_LETTERS, *p) - TRI_TAINT_LETTERS);
			g_string_append_c(t, *p);
		}
	}
	while (t->len && t->str[t->len - 1] == ' ')
		g_string_truncate(t, t->len - 1);
	if (t->len && !o->taint)
		o->taint = keep(t->str, t->len);
	g_string_free(t, TRUE);
}

static void add_frame(struct state *st, struct tri_frame *f)
{
	if (st->frames->len < TRI_MAX_FRAMES) {
		g_array_append_val(st->frames, *f);
	} else {
		g_free(f->symbol);
		g_free(f->module);
		g_free(f->path);
	}
}

/* Whether s is one of the lines 32-bit ARM prints between the frames of
 * its backtrace: the registers the unwinder saved ("r7:80647b48
 * r6:00000009"), "Exception stack(0x.. to 0x..)" and its words
 * ("9f60: 00000000 c0a3f000 ..."). */
static int arm_trace_noise(const char *p)
{
	const char *q = p;

	if (p[0] == 'r' && isdigit((unsigned char)p[1])) {
		q = p + 1;
		while (isdigit((unsigned char)*q))
			q++;
		return *q == ':' && isxdigit((unsigned char)q[1]);
	}
	if (starts(p, "Exception stack("))
		return 1;
	while (isxdigit((unsigned char)*q))
		q++;
	if (q - p < 3 || q[0] != ':' || q[1] != ' ')
		return 0;
	q++;
	while (*q == ' ')
		q++;
	return isxdigit((unsigned char)*q);
}

/* A 32-bit ARM backtrace line, "callee from caller+0x20/0x24 [mod]" (since
 * Linux 5.17) or "[<c0106b10>] (callee) from [<c010294c>] (caller+0x10/0x14)":
 * the callee (when the trace has not just read it as the caller of the
 * line above) and the caller are frames.  Returns 1 if s was one. */
static int read_arm_frame(struct state *st, const char *p, size_t line)
{
	const char *from = strstr(p, " from "), *q = p, *c;
	struct tri_frame callee = { 0 }, caller = { 0 };

	if (!from)
		return 0;
	if (*q == '[') {                /* "[<c0106b10>] (" */
		if (!(q = strchr(q, ']')))
			return 0;
		q++;
		while (*q == ' ')
			q++;
	}
	if (*q == '(')
		q++;
	c = q;
	while (is_symbol_char(*c) && c - q < TRI_MAX_STRING)
		c++;
	if (c == q)
		return 0;
	callee.symbol = keep(q, (size_t)(c - q));
	q = from + strlen(" from ");
	if (*q == '[' && (q = strchr(q, ']'))) {
		q++;
		while (*q == ' ')
			q++;
	}
	if (q && *q == '(')
		q++;
	if (!q || !parse_symbol(q, &caller.symbol, &caller.module, NULL)) {
		g_free(callee.symbol);
		return 0;
	}
	callee.line = caller.line = line;
	if (st->frames->len &&
	    !strcmp(g_array_index(st->frames, struct tri_frame, st->frames->len - 1).symbol,
		    callee.symbol))
		g_free(callee.symbol);
	else
		add_frame(st, &callee);
	add_frame(st, &caller);
	return 1;
}

/* x86's marks around the stacks of a dump: "<TASK>", "</IRQ>"... */
static int stack_marker(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '<' && (starts(s, "<TASK>") || starts(s, "</TASK>") || starts(s, "<IRQ>") ||
			     starts(s, "</IRQ>") || starts(s, "<NMI>") || starts(s, "</NMI>") ||
			     starts(s, "<SOFTIRQ>") || starts(s, "</SOFTIRQ>"));
}

/* The end of the frame above on a line of its own, where a mail client
 * wrapped a long one: "[thinkpad_acpi]" (its module), "[inline]", or
 * "drivers/media/usb/usbvision/usbvision-video.c:1530" (its file).
 * Whether p was one. */
static int wrapped_frame_end(struct state *st, const char *p)
{
	struct tri_frame *last = &g_array_index(st->frames, struct tri_frame, st->frames->len - 1);
	const char *e = p + 1;
	char *path;

	if (*p == '[' && is_module_char(p[1])) {
		while (is_module_char(*e) && e - p < 64)
			e++;
		if (*e != ']' || e[1 + strspn(e + 1, " \t")])
			return 0;
		if (!last->module && !starts(p, "[inline]"))
			last->module = keep(p + 1, (size_t)(e - p - 1));
		return 1;
	}
	if (last->path || !(path = path_at(p, &e)))
		return 0;
	if (*e == ':')
		e += 1 + strspn(e + 1, "0123456789");
	e += strspn(e, " \t");
	if (*e && !starts(e, "[inline]")) {
		g_free(path);
		return 0;
	}
	last->path = keep_str(path);
	g_free(path);
	return 1;
}

/* One call trace line: "  ? sym+0x1/0x2 [mod]", "[<ffff>] sym+...",
 * "[c000..] [c008..] sym+... [xfs] (unreliable)", " sym path.c:12 [inline]",
 * 32-bit ARM's "sym from sym+0x1/0x2".
 * Returns 1 if it was a frame (added unless the oops has its fill), 0 if
 * the line ends the trace, -1 for a marker (<TASK>, <IRQ>) to skip. */
static int read_frame(struct state *st, const char *s, size_t line)
{
	struct tri_frame f = { 0 };
	const char *p = s, *end = NULL;

	if (stack_marker(s))
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (arm_trace_noise(p))
		return -1;
	if (read_arm_frame(st, p, line))
		return 1;
	if (st->frames->len && wrapped_frame_end(st, p))
		return 1;
	for (int i = 0; i < 2 && *p == '['; i++) {      /* addresses before the symbol */
		const char *close = strchr(p, ']');

		if (!close || close - p > 24)
			return 0;
		p = close + 1;
		while (*p == ' ')
			p++;
	}
	if (starts(p, "? ")) {
		f.unreliable = 1;
		p += 2;
	}
	if (!parse_symbol(p, &f.symbol, &f.module, &end)) {
		/* syzbot's inlined frames: "sym path/file.c:123 [inline]";
		 * decode_stacktrace.sh's (the kernel test robot's traces):
		 * "sym (path/a.h:202 path/b.c:162)", inlined callees first */
		const char *q = p;
		char *path;

		while (is_symbol_char(*q) && q - p < TRI_MAX_STRING)
			q++;
		if (q == p || *q != ' ')
			return 0;
		if (q[1] == '(')
			path = last_path_in(q + 2);
		else
			path = path_at(q + 1, &end);
		if (!path)
			return 0;
		f.symbol = keep(p, (size_t)(q - p));
		f.path = keep_str(path);
		g_free(path);
	} else {
		while (*end == ' ')
			end++;
		if (starts(end, "(unreliable)"))
			f.unreliable = 1;
		else if (*end) {
			char *path = path_at(end, &end);

			if (path) {
				f.path = keep_str(path);
				g_free(path);
			}
		}
	}
	f.line = line;
	add_frame(st, &f);
	return 1;
}

static void read_cpu_line(struct state *st, struct tri_oops *o, const char *s)
{
	const char *comm = strstr(s, "Comm: ");

	st->saw_cpu_line = 1;
	if (comm && !o->comm) {
		const char *p = comm + strlen("Comm: "), *e;

		/* the command ends before "Not tainted"/"Tainted:" */
		e = strstr(p, " Not tainted");
		if (!e)
			e = strstr(p, " Tainted:");
		if (!e)
			e = p + strcspn(p, " ");
		o->comm = keep(p, (size_t)(e - p));
	}
	read_taint(o, s);
}

/* Is s the first line of an oops?  Its kind, or -1. */
static int oops_header(const char *s)
{
	if (starts(s, "BUG: ") || strstr(s, "BUG: soft lockup") || starts(s, "kernel BUG at "))
		return TRI_OOPS_BUG;
	if (starts(s, "WARNING: ") || starts(s, "WARNING: at "))
		return TRI_OOPS_WARNING;
	if (starts(s, "Oops: ") || starts(s, "Oops [#") || starts(s, "Internal error: ") ||
	    starts(s, "general protection fault") || starts(s, "Unable to handle kernel ") ||
	    starts(s, "Oops - "))
		return TRI_OOPS_OOPS;
	if (starts(s, "Kernel panic - not syncing"))
		return TRI_OOPS_PANIC;
	if (starts(s, "INFO: task ") && strstr(s, " blocked for more than "))
		return TRI_OOPS_HUNG;
	if ((starts(s, "rcu: INFO: ") || starts(s, "INFO: rcu")) && strstr(s, "detected stall"))
		return TRI_OOPS_STALL;
	return -1;
}

/* kmemleak's trace of where a leaked object was allocated: "  backtrace:"
 * or, since 6.7, "  backtrace (crc 3c8ba6a5):" (not "stack backtrace:",
 * which lockdep prints before its own "Call Trace:"). */
static int kmemleak_trace(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return starts(s, "backtrace:") || starts(s, "backtrace (crc ");
}

/* KCSAN prints each side of a data race as "write to 0x... of 8 bytes by
 * task 16090 on cpu 1:" ("read", "read-write", "(marked)", "by interrupt",
 * "race at unknown origin, with read to ...") and its stack right under
 * it, with no "Call Trace:". */
static int kcsan_access(const char *s)
{
	const char *to = strstr(s, " to 0x");

	if (!to || !(starts(s, "read") || starts(s, "write") || starts(s, "race at ")))
		return 0;
	return (strstr(to, " bytes by task ") || strstr(to, " bytes by interrupt ")) &&
		s[strlen(s) - 1] == ':';
}

static void read_oops_line(struct state *st, const char *s, size_t line)
{
	int kind = oops_header(s);
	struct tri_oops *o;
	const char *p;

	if (st->open && line - st->opened_at > TRI_MAX_OOPS_LINES)
		close_oops(st, line);
	if (kind == TRI_OOPS_PANIC) {
		p = s + strlen("Kernel panic - not syncing");
		while (*p == ':' || *p == ' ')
			p++;
		if (st->open && !st->open->panic) {
			st->open->panic = keep_str(p);
			return;
		}
		if (!st->open && st->closed_at && line - st->closed_at < 60 &&
		    !oops_at(st, st->closed_index)->panic) {
			oops_at(st, st->closed_index)->panic = keep_str(p);
			return;
		}
	}
	if (kind >= 0) {
		if (still_header(st)) {
			o = st->open;
		} else {
			o = open_oops(st, (enum tri_oops_kind)kind, s, line);
			if (!o)
				return;
		}
		if (kind == TRI_OOPS_PANIC && !o->panic) {
			p = s + strlen("Kernel panic - not syncing");
			while (*p == ':' || *p == ' ')
				p++;
			o->panic = keep_str(p);
		}
		if (kind == TRI_OOPS_WARNING || kind == TRI_OOPS_BUG) {
			/* "WARNING: CPU: 2 PID: 1 at path:line sym+0x../0x.. [mod]",
			 * "kernel BUG at path:line!", "BUG: KASAN: ... in sym path:line" */
			p = strstr(s, " at ");
			if (kind == TRI_OOPS_WARNING && p) {
				const char *sym;

				set_path_from(o, p + 4, line);
				sym = strchr(p + 4, ' ');
				if (sym)
					set_symbol(&o->pc_symbol, &o->pc_module, sym, &o->pc_line, line);
			} else {
				set_path_from(o, s, line);
				/* "BUG: KASAN: use-after-free in sym+0x3d1/0x410 path" */
				if ((p = strstr(s, " in ")))
					set_symbol(&o->pc_symbol, &o->pc_module, p + 4, &o->pc_line, line);
			}
		}
		/* KMSAN prints its trace right under its header lines, with
		 * no "Call Trace:" */
		if (strstr(s, "KMSAN: "))
			st->in_trace = 1;
		return;
	}

	/* a fragment: a RIP or a trace without its header */
	if (!st->open && (!st->closed_at || line - st->closed_at > 40) &&
	    (starts(s, "RIP: ") || starts(s, "pc : ") || starts(s, "Call Trace:") ||
	     starts(s, "Call trace:") || starts(s, "NIP [") || starts(s, "epc : "))) {
		if (!open_oops(st, TRI_OOPS_FRAGMENT, s, line))
			return;
	}
	o = st->open;
	if (!o) {
		if (st->closed_at && starts(s, "Modules linked in:"))
			return;
		return;
	}

	if (st->in_trace) {
		int f = read_frame(st, s, line);

		if (f)
			return;
		st->in_trace = 0;
		/* the trace goes on after the registers of the frame it was
		 * interrupted in (an exception's "RIP: ..." block amid the
		 * frames, as x86 printed a WARNING's until 5.8) */
		st->resume_trace = starts(s, "RIP: ");
	} else if (st->resume_trace) {
		if (!*s)
			st->resume_trace = 0;
		else if (read_frame(st, s, line) > 0) {
			st->in_trace = 1;
			st->resume_trace = 0;
			return;
		}
	}
	if (starts(s, "---[ end trace") || starts(s, "---[ end Kernel panic")) {
		close_oops(st, line);
		return;
	}
	if (starts(s, "Call Trace:") || starts(s, "Call trace:") || starts(s, "Backtrace:") ||
	    kmemleak_trace(s)) {
		st->in_trace = 1;
		return;
	}
	/* x86 opens each stack of a dump with "<TASK>" (or "<IRQ>"...);
	 * a hung task's or an excerpt's may come without "Call Trace:" */
	if (stack_marker(s) || kcsan_access(s)) {
		st->in_trace = 1;
		return;
	}
	if (starts(s, "CPU: ") && (strstr(s, "PID: ") || strstr(s, "Comm: "))) {
		read_cpu_line(st, o, s);
		return;
	}
	if (strstr(s, "Not tainted") || strstr(s, "Tainted: ")) {
		read_taint(o, s);
		return;
	}
	if (starts(s, "Hardware name: ")) {
		if (!o->hardware)
			o->hardware = keep_str(s + strlen("Hardware name: "));
		return;
	}
	if (starts(s, "RIP: "))
		set_symbol(&o->pc_symbol, &o->pc_module, s + 5, &o->pc_line, line);
	else if (starts(s, "pc : "))
		set_symbol(&o->pc_symbol, &o->pc_module, s + 5, &o->pc_line, line);
	else if (starts(s, "epc : "))
		set_symbol(&o->pc_symbol, &o->pc_module, s + 6, &o->pc_line, line);
	else if (starts(s, "NIP ["))
		set_symbol(&o->pc_symbol, &o->pc_module, s + 4, &o->pc_line, line);
	else if (starts(s, "lr : "))
		set_symbol(&o->lr_symbol, &o->lr_module, s + 5, NULL, line);
	else if (starts(s, " ra : ") || starts(s, "ra : "))
		set_symbol(&o->lr_symbol, &o->lr_module, strchr(s, ':') + 1, NULL, line);
	else if (starts(s, "LR ["))
		set_symbol(&o->lr_symbol, &o->lr_module, s + 3, NULL, line);
	else if (o->kind == TRI_OOPS_FRAGMENT && !st->frames->len)
		return;
	/* riscv prints its trace as "[<ffffffff80a1b3c2>] sym+0x../0x.." with
	 * no "Call Trace:" line before it */
	else if (starts(s, "[<") && read_frame(st, s, line) > 0)
		st->in_trace = 1;
}

/* ---- the other readers -------------------------------------------------- */

static void read_modules(struct tri_report *r, const char *s, size_t line)
{
	const char *p = strstr(s, "Modules linked in:");
	GPtrArray *mods;

	if (!p || r->modules)
		return;
	p += strlen("Modules linked in:");
	mods = g_ptr_array_new();
	while (*p && mods->len < TRI_MAX_MODULES) {
		const char *e;

		while (*p == ' ')
			p++;
		if (*p == '[' || !*p)
			break;            /* "[last unloaded: x]" */
		e = p;
		while (is_module_char(*e))
			e++;
		if (e > p)
			g_ptr_array_add(mods, keep(p, (size_t)(e - p)));
		while (*e && *e != ' ')   /* "(OE)", "(+)" */
			e++;
		if (e == p)
			break;
		p = e;
	}
	r->nmodules = mods->len;
	g_ptr_array_add(mods, NULL);
	r->modules = (char **)g_ptr_array_free(mods, FALSE);
	r->modules_line = line;
}

static int error_number(const char *e)
{
	static const struct { const char *name; int value; } names[] = {
		{ "-ENOENT", -2 }, { "-EIO", -5 }, { "-ENOMEM", -12 }, { "-EINVAL", -22 },
		{ "-ETIMEDOUT", -110 }, { "-EAGAIN", -11 }, { "-ENODEV", -19 },
	};

	if (!e)
		return 0;
	if (*e == '-' && isdigit((unsigned char)e[1]))
		return atoi(e);
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		if (!strcmp(e, names[i].name))
			return names[i].value;
	return 0;
}

static void trim_punct(char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	while (n && strchr(",.;:)", s[n - 1]))
		s[--n] = '\0';
}

static int same_str(const char *a, const char *b)
{
	return a ? b && !strcmp(a, b) : !b;
}

static void read_firmware(struct state *st, const char *s, const char *driver, size_t line)
{
	struct tri_firmware fw = { 0 };
	GMatchInfo *mi = NULL;
	int which = -1;

	if (!strstr(s, "irmware") && !strstr(s, "IRMWARE") && !strstr(s, "fw_version") &&
	    !strstr(s, "FW "))
		return;
	for (int i = 0; i < (int)G_N_ELEMENTS(fw_patterns) && which < 0; i++)
		if (st->pat->fw[i] && match(st->pat->fw[i], s, &mi))
			which = i;
	if (which < 0)
		return;
	switch (which) {
	case 0:
		fw.file = group(mi, 1);
		fw.failed = 1;
		{
			char *e = group(mi, 2);

			fw.error = error_number(e);
			g_free(e);
		}
		break;
	case 1:
	case 5:
		fw.file = group(mi, 1);
		break;
	case 2:
	case 3: {
		char *e = group(mi, 2);

		fw.file = group(mi, 1);
		fw.failed = 1;
		fw.error = error_number(e);
		g_free(e);
		break;
	}
	case 4:
		fw.version = group(mi, 1);
		fw.file = group(mi, 2);
		break;
	default:
		fw.version = group(mi, 1);
		break;
	}
	g_match_info_free(mi);
	trim_punct(fw.file);
	trim_punct(fw.version);
	/* a file is a name with a dot or a slash ("failed to load DSP firmware
	 * -2" names none) */
	if (fw.file && (fw.file[0] == '-' || !strpbrk(fw.file, "./"))) {
		g_free(fw.file);
		fw.file = NULL;
	}
	if (fw.file && !*fw.file) {
		g_free(fw.file);
		fw.file = NULL;
	}
	if (fw.version && !*fw.version) {
		g_free(fw.version);
		fw.version = NULL;
	}
	for (guint i = 0; i < st->firmware->len; i++) {
		struct tri_firmware *o = &g_array_index(st->firmware, struct tri_firmware, i);

		if (same_str(o->file, fw.file) && same_str(o->version, fw.version) &&
		    o->failed == fw.failed)
			goto drop;
	}
	if ((!fw.file && !fw.version) || st->firmware->len >= TRI_MAX_ITEMS)
		goto drop;
	fw.driver = driver ? g_strdup(driver) : NULL;
	fw.line = line;
	g_array_append_val(st->firmware, fw);
	return;
drop:
	g_free(fw.file);
	g_free(fw.version);
}

static void add_device(struct state *st, enum tri_bus bus, GMatchInfo *mi, size_t line)
{
	char *v = group(mi, 1), *d = group(mi, 2);
	struct tri_device dev = { bus, 0, 0, line };

	if (v && d) {
		dev.vendor = (unsigned)strtoul(v, NULL, 16);
		dev.device = (unsigned)strtoul(d, NULL, 16);
	}
	g_free(v);
	g_free(d);
	if (!dev.vendor || dev.vendor == 0xffff || st->devices->len >= TRI_MAX_ITEMS)
		return;
	for (guint i = 0; i < st->devices->len; i++) {
		struct tri_device *o = &g_array_index(st->devices, struct tri_device, i);

		if (o->bus == bus && o->vendor == dev.vendor && o->device == dev.device)
			return;
	}
	g_array_append_val(st->devices, dev);
}

static void read_devices(struct state *st, const char *s, size_t line)
{
	GMatchInfo *mi = NULL;

	if (strstr(s, "idVendor=") && match(st->pat->usb_id, s, &mi)) {
		add_device(st, TRI_BUS_USB, mi, line);
		g_match_info_free(mi);
		return;
	}
	if (strstr(s, "ID ") && (strstr(s, "Bus ") || strstr(s, "lsusb")) &&
	    match(st->pat->lsusb, s, &mi)) {
		add_device(st, TRI_BUS_USB, mi, line);
		g_match_info_free(mi);
		return;
	}
	if (strchr(s, '[') && strchr(s, ':') && g_regex_match(st->pat->pci, s, 0, &mi)) {
		/* a few per line at most: lspci -nn prints the class, then the id */
		for (int n = 0; n < 4 && g_match_info_matches(mi); n++) {
			add_device(st, TRI_BUS_PCI, mi, line);
			g_match_info_next(mi, NULL);
		}
	}
	g_match_info_free(mi);
}

static void read_paths(struct state *st, const char *s, size_t line)
{
	for (const char *p = s; *p; ) {
		const char *end = NULL;
		char *path = NULL;

		if ((p == s || strchr(" \t([\"'=,", p[-1])) && strchr("abcdfiklmnrstv", *p))
			path = path_at(p, &end);
		if (!path) {
			p++;
			continue;
		}
		p = end;
		if (st->paths->len < TRI_MAX_ITEMS) {
			int seen = 0;

			for (guint i = 0; i < st->paths->len && !seen; i++)
				seen = !strcmp(g_array_index(st->paths, struct tri_path, i).path, path);
			if (!seen) {
				struct tri_path tp = { keep_str(path), line };

				g_array_append_val(st->paths, tp);
			}
		}
		g_free(path);
	}
}

/* Upper-case prefixes of subsystems that print no device. */
static const struct { const char *prefix, *name; } subsystem_prefixes[] = {
	{ "BTRFS", "btrfs" }, { "EXT4-fs", "ext4" }, { "XFS ", "xfs" }, { "XFS:", "xfs" },
	{ "F2FS-fs", "f2fs" }, { "CIFS:", "cifs" }, { "NFS:", "nfs" }, { "Bluetooth:", "bluetooth" },
	{ "ACPI", "acpi" }, { "DMAR", "dmar" }, { "JBD2", "jbd2" }, { "SQUASHFS", "squashfs" },
	{ "md/raid1", "raid1" }, { "md/raid10", "raid10" }, { "md/raid456", "raid456" },
	{ "EXT4", "ext4" }, { "OCFS2", "ocfs2" }, { "ntfs3", "ntfs3" }, { "bcachefs", "bcachefs" },
	{ NULL, NULL }
};

/* The driver that printed s, g_malloc'd lower case, or NULL; *device
 * is set when it printed a device's name after its own (dev_printk). */
static char *line_driver(const struct patterns *pat, const char *s, int *device)
{
	GMatchInfo *mi = NULL;
	char *name = NULL;
	const char *p;

	if ((*device = match(pat->driver_prefix, s, &mi)) || match(pat->driver_colon, s, &mi)) {
		name = group(mi, 1);
		g_match_info_free(mi);
		if (name && (!strcmp(name, "page_type") || !strcmp(name, "last_unloaded"))) {
			g_free(name);
			name = NULL;
		}
	} else if ((p = strstr(s, "NETDEV WATCHDOG: ")) && (p = strchr(p, '('))) {
		size_t n = strcspn(p + 1, ")");

		if (p[1 + n] == ')' && n < 40) {
			name = keep(p + 1, n);
			*device = 1;    /* the driver of the interface named before it */
		}
	} else if (starts(s, "ata") && isdigit((unsigned char)s[3])) {
		name = g_strdup("libata");
	} else {
		for (size_t i = 0; subsystem_prefixes[i].prefix; i++)
			if (starts(s, subsystem_prefixes[i].prefix)) {
				name = g_strdup(subsystem_prefixes[i].name);
				break;
			}
	}
	if (name) {
		char *lower = g_ascii_strdown(name, -1);

		g_free(name);
		name = lower;
	}
	return name;
}

static void add_driver(struct state *st, const char *name, int device, size_t line)
{
	struct tri_driver d;

	for (guint i = 0; i < st->drivers->len; i++) {
		struct tri_driver *o = &g_array_index(st->drivers, struct tri_driver, i);

		if (!strcmp(o->name, name)) {
			o->count++;
			o->device |= device;
			return;
		}
	}
	if (st->drivers->len >= TRI_MAX_ITEMS)
		return;
	d.name = g_strdup(name);
	d.line = line;
	d.count = 1;
	d.device = device;
	g_array_append_val(st->drivers, d);
}

/* ---- lines -------------------------------------------------------------- */

/* s without its log prefix: "[  12.345678] ", "[T123] ", "<4>",
 * "Mar 01 10:00:00 host kernel: ". */
static const char *strip_prefix(const char *s)
{
	const char *p = s, *k;

	if (*p == '<' && isdigit((unsigned char)p[1]) && p[2] == '>')
		p += 3;
	/* a log pasted indented by spaces or tabs */
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		const char *q = p + 1;

		while (*q == ' ')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == '.') {
				q++;
				while (isdigit((unsigned char)*q))
					q++;
				if (*q == ']') {
					p = q + 1;
					if (*p == ' ')
						p++;
				}
			}
		}
	}
	/* a caller id: "[    T1] ", "[  C3] " */
	if (*p == '[') {
		const char *q = p + 1;

		while (*q == ' ')
			q++;
		if ((*q == 'T' || *q == 'C') && isdigit((unsigned char)q[1])) {
			q++;
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ']') {
				p = q + 1;
				if (*p == ' ')
					p++;
			}
		}
	}
	/* journalctl: "Mar 01 10:00:00 host kernel: " within the first 64 bytes */
	k = strstr(p, " kernel: ");
	if (k && k - p < 64 && isupper((unsigned char)*p) && isdigit((unsigned char)p[4]))
		p = k + strlen(" kernel: ");
	return p;
}

static void read_line(struct state *st, const char *raw, size_t line)
{
	struct tri_report *r = st->r;
	const char *s = strip_prefix(raw);
	char *lower = g_ascii_strdown(s, -1);
	char *driver;
	const char *p;
	int device;

	/* journalctl's line whose message a mail client wrapped onto the
	 * next line ("Mar 29 17:43:16 host kernel:"): a trace goes on */
	if (st->in_trace && g_str_has_suffix(s, " kernel:") && isupper((unsigned char)*s) &&
	    isdigit((unsigned char)s[4])) {
		g_free(lower);
		return;
	}
	read_version(r, st->pat, s, lower, line);
	read_oops_line(st, s, line);
	if (!r->hardware) {
		if ((p = strstr(s, "Hardware name: ")))
			r->hardware = keep_str(p + strlen("Hardware name: "));
		else if ((p = strstr(s, "DMI: ")) && p[5])
			r->hardware = keep_str(p + strlen("DMI: "));
		if (r->hardware)
			r->hardware_line = line;
	}
	read_modules(r, s, line);
	driver = line_driver(st->pat, s, &device);
	if (driver)
		add_driver(st, driver, device, line);
	read_firmware(st, s, driver, line);
	read_devices(st, s, line);
	read_paths(st, s, line);
	g_free(driver);
	g_free(lower);
}

#define ARRAY_TAKE(arr, type, out, n) do {                  \
	(n) = (arr)->len;                                       \
	(out) = (type *)(void *)g_array_free((arr), FALSE);     \
} while (0)

struct tri_report *tri_read(const char *text, size_t len)
{
	struct tri_report *r = g_new0(struct tri_report, 1);
	struct state st = { 0 };
	char linebuf[TRI_MAX_LINE + 1];
	size_t pos = 0, line = 0;

	if (!text)
		len = 0;
	if (len > TRI_MAX_INPUT) {
		len = TRI_MAX_INPUT;
		r->truncated = 1;
	}
	st.r = r;
	st.pat = patterns_get();
	st.oopses = g_array_new(FALSE, TRUE, sizeof(struct tri_oops));
	st.frames = g_array_new(FALSE, TRUE, sizeof(struct tri_frame));
	st.firmware = g_array_new(FALSE, TRUE, sizeof(struct tri_firmware));
	st.devices = g_array_new(FALSE, TRUE, sizeof(struct tri_device));
	st.paths = g_array_new(FALSE, TRUE, sizeof(struct tri_path));
	st.drivers = g_array_new(FALSE, TRUE, sizeof(struct tri_driver));
	while (pos < len) {
		size_t n = 0, start = pos;

		while (pos < len && text[pos] != '\n' && text[pos] != '\0')
			pos++;
		n = pos - start;
		if (pos < len)
			pos++;     /* the newline or NUL */
		if (n > TRI_MAX_LINE)
			n = TRI_MAX_LINE;
		memcpy(linebuf, text + start, n);
		while (n && linebuf[n - 1] == '\r')
			n--;
		linebuf[n] = '\0';
		read_line(&st, linebuf, ++line);
	}
	close_oops(&st, line);
	r->nlines = line;
	g_array_free(st.frames, TRUE);
	ARRAY_TAKE(st.oopses, struct tri_oops, r->oopses, r->noopses);
	ARRAY_TAKE(st.firmware, struct tri_firmware, r->firmware, r->nfirmware);
	ARRAY_TAKE(st.devices, struct tri_device, r->devices, r->ndevices);
	ARRAY_TAKE(st.paths, struct tri_path, r->paths, r->npaths);
	ARRAY_TAKE(st.drivers, struct tri_driver, r->drivers, r->ndrivers);
	for (size_t i = 0; i < r->noopses; i++)
		r->taint_flags |= r->oopses[i].taint_flags;
	return r;
}

void tri_report_free(struct tri_report *r)
{
	if (!r)
		return;
	g_free(r->kernel.version);
	g_free(r->kernel.upstream);
	g_free(r->kernel.distro);
	for (size_t i = 0; i < r->noopses; i++) {
		struct tri_oops *o = &r->oopses[i];

		g_free(o->first_line);
		g_free(o->panic);
		g_free(o->taint);
		g_free(o->comm);
		g_free(o->hardware);
		g_free(o->pc_symbol);
		g_free(o->pc_module);
		g_free(o->lr_symbol);
		g_free(o->lr_module);
		g_free(o->path);
		for (size_t j = 0; j < o->nframes; j++) {
			g_free(o->frames[j].symbol);
			g_free(o->frames[j].module);
			g_free(o->frames[j].path);
		}
		g_free(o->frames);
	}
	g_free(r->oopses);
	g_free(r->hardware);
	g_strfreev(r->modules);
	for (size_t i = 0; i < r->nfirmware; i++) {
		g_free(r->firmware[i].file);
		g_free(r->firmware[i].version);
		g_free(r->firmware[i].driver);
	}
	g_free(r->firmware);
	g_free(r->devices);
	for (size_t i = 0; i < r->npaths; i++)
		g_free(r->paths[i].path);
	g_free(r->paths);
	for (size_t i = 0; i < r->ndrivers; i++)
		g_free(r->drivers[i].name);
	g_free(r->drivers);
	g_free(r);
}
