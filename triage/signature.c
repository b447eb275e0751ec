/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Crash signatures (signature.h). */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "triage/guilty.h"
#include "triage/signature.h"

/* Locking of PREEMPT_RT kernels, which syzbot also runs, besides
 * tri_symbol_is_shared()'s. */
static int symbol_shared(const char *symbol)
{
	return tri_symbol_is_shared(symbol) || g_str_has_prefix(symbol, "rt_spin_") ||
	       g_str_has_prefix(symbol, "rt_read_") || g_str_has_prefix(symbol, "rt_write_") ||
	       g_str_has_prefix(symbol, "rwbase_");
}

static int frame_shared(const struct tri_frame *f, int mm)
{
	return f->path ? tri_path_is_shared(f->path, mm) || tri_path_is_reporter(f->path)
		       : symbol_shared(f->symbol);
}

/* Functions syzbot never titles a crash by, wherever their file is: the
 * user-copy helpers a KMSAN infoleak is caught in (lib/usercopy.c is no
 * shared path to the matcher), the coverage and sanitizer callbacks its
 * kernels are built with, refcount's and kref's checks.  For a memory
 * leak, also whatever allocates (kmemleak's trace starts in the
 * allocator, and syzbot names the first caller whose name is no
 * allocation: "memory leak in es58x_open", not es58x_alloc_urb). */
static int symbol_skipped(const char *sym, int leak)
{
	static const char *const anywhere[] = { "copy_to_user", "copy_from_user", "copy_to_iter",
						"copy_from_iter", "__sanitizer_", "kmsan_",
						"instrument_copy" };
	static const char *const leaking[] = { "kmemleak", "mmap", "kmem", "slab", "alloc",
					       "create_object", "idr_get", "list_lru_init",
					       "kasprintf", "kvasprintf", "pcpu_create", "strdup",
					       "strndup", "memdup" };

	if (!sym)
		return 0;
	if (g_str_has_prefix(sym, "refcount_") || g_str_has_prefix(sym, "kref_"))
		return 1;
	for (size_t i = 0; i < G_N_ELEMENTS(anywhere); i++)
		if (strstr(sym, anywhere[i]))
			return 1;
	for (size_t i = 0; leak && i < G_N_ELEMENTS(leaking); i++)
		if (strstr(sym, leaking[i]))
			return 1;
	return 0;
}

/* Whether the oops is kmemleak's ("BUG: memory leak"). */
static int oops_is_leak(const struct tri_oops *o)
{
	return o->first_line && strstr(o->first_line, "memory leak");
}

/* The guilty frame as triage/guilty.c chooses it: the first reliable frame
 * that is neither generic nor shared, mm/ shared when a frame is outside
 * it; -1 if none. */
static ssize_t guilty_frame(const struct tri_oops *o)
{
	int leak = oops_is_leak(o);

	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = 0; i < o->nframes; i++) {
			const struct tri_frame *f = &o->frames[i];

			if (f->symbol && !f->unreliable && !tri_symbol_is_generic(f->symbol) &&
			    !frame_shared(f, pass) && !symbol_skipped(f->symbol, leak))
				return (ssize_t)i;
		}
	return -1;
}

/* A symbol without its offset and compiler suffixes; g_free() it. */
static char *clean_symbol(const char *s, size_t n)
{
	static const char *const suffixes[] = { ".isra.", ".constprop.", ".part.", ".cold",
						".llvm.", ".lto_priv." };
	char *out = g_strndup(s, n);
	char *plus = strchr(out, '+');

	if (plus)
		*plus = '\0';
	for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
		char *at = strstr(out, suffixes[i]);

		if (at && at > out)
			*at = '\0';
	}
	return out;
}

static int symbol_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '.';
}

/* The function the first line names after " in " or as its last
 * "sym+0x../0x.." word; g_free() it, NULL if none. */
static char *header_symbol(const char *h)
{
	const char *in = strstr(h, " in "), *plus;

	if (in) {
		const char *s = in + 4, *e = s;

		while (symbol_char(*e))
			e++;
		if (e > s && (*e == '+' || *e == '\0' || *e == ' ') && !g_ascii_isdigit(*s) &&
		    !memchr(s, '/', (size_t)(e - s)))
			return clean_symbol(s, (size_t)(e - s));
	}
	if ((plus = strstr(h, "+0x"))) {
		const char *s = plus;

		while (s > h && symbol_char(s[-1]))
			s--;
		if (s < plus)
			return clean_symbol(s, (size_t)(plus - s));
	}
	return NULL;
}

/* Line number ln (1-based) of text, its length in *n; NULL past the end. */
static const char *text_line(const char *text, size_t len, size_t ln, size_t *n)
{
	const char *p = text, *end = text + len;

	for (size_t i = 1; p && p < end && i < ln; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		p = nl ? nl + 1 : NULL;
	}
	if (!p || p >= end)
		return NULL;
	*n = (size_t)(end - p);
	if (memchr(p, '\n', *n))
		*n = (size_t)((const char *)memchr(p, '\n', *n) - p);
	return p;
}

/* KASAN's access ("Read", "Write") from the lines after the header. */
static const char *kasan_access(const char *text, size_t len, size_t ln)
{
	for (size_t i = 1; text && ln && i <= 3; i++) {
		size_t n;
		const char *l = text_line(text, len, ln + i, &n);

		if (!l)
			break;
		if (g_strstr_len(l, (gssize)n, "Read of size"))
			return "Read";
		if (g_strstr_len(l, (gssize)n, "Write of size"))
			return "Write";
	}
	return NULL;
}

/* A sanitizer's word after "NAME: " ("use-after-free"), g_free() it. */
static char *bug_type(const char *after)
{
	size_t n = strcspn(after, " \t:");

	return n ? g_strndup(after, n) : NULL;
}

/* The line of a report that the reader took a fragment (a call trace
 * without its header) or a WARNING for: a sanitizer's, ODEBUG's or
 * lockdep's line at most 12 lines above the oops's first, from its
 * marker on; g_free() it, NULL if none. */
static char *header_before(const char *text, size_t len, size_t ln)
{
	static const char *const markers[] = { "UBSAN: ", "KMSAN: ", "KCSAN: ", "KASAN: ",
					       "ODEBUG: ", "INFO: trying to register non-static key",
					       "BUG: ", "WARNING: " };

	for (size_t back = 1; text && back <= 12 && back < ln; back++) {
		size_t n;
		const char *l = text_line(text, len, ln - back, &n);

		for (size_t i = 0; l && i < G_N_ELEMENTS(markers); i++) {
			const char *m = g_strstr_len(l, (gssize)n, markers[i]);

			if (m)
				return g_strndup(m, (size_t)(l + n - m));
		}
	}
	return NULL;
}

/* The kind of the oops for the title (*title) and for the key (*key),
 * each g_malloc'd. */
static void oops_kind(const struct tri_oops *o, const char *text, size_t len, char **title,
		      char **key)
{
	const char *h = o->first_line ? o->first_line : "";
	char *before = o->line ? header_before(text, len, o->line) : NULL;
	int odebug = before && g_str_has_prefix(before, "ODEBUG: ");
	const char *p;
	char *type;

	*title = *key = NULL;
	if (o->kind == TRI_OOPS_FRAGMENT && before && !odebug)
		h = before;
	if (g_str_has_prefix(h, "BUG: "))
		h += 5;
	for (const char *const *san = (const char *const[]){ "KASAN: ", "KMSAN: ", "KCSAN: ",
							       "UBSAN: ", NULL }; *san; san++) {
		if (!(p = strstr(h, *san)) || !(type = bug_type(p + strlen(*san))))
			continue;
		const char *acc = !strcmp(*san, "KASAN: ") ? kasan_access(text, len, o->line) : NULL;
		const char *norm = g_str_has_prefix(type, "slab-use-after-free") ? type + 5 : type;

		/* KASAN's "double-free" and "double-free or invalid-free" are
		 * syzbot's "invalid-free", with no access word */
		if (!strcmp(*san, "KASAN: ") && (!strcmp(type, "double-free") ||
						 !strcmp(type, "invalid-free"))) {
			*title = g_strdup_printf("%.5s: %s", *san, type);
			*key = g_strdup("KASAN: invalid-free");
			g_free(type);
			g_free(before);
			return;
		}

		*title = g_strdup_printf("%.5s: %s%s%s", *san, type, acc ? " " : "", acc ? acc : "");
		*key = g_strdup_printf("%.5s: %s%s%s", *san, norm, acc ? " " : "", acc ? acc : "");
		g_free(type);
		g_free(before);
		return;
	}
	if (strstr(h, "circular locking dependency") || strstr(h, "possible recursive locking") ||
	    strstr(h, "inconsistent lock state") || strstr(h, "possible irq lock inversion")) {
		*title = g_strdup("possible deadlock");
	} else if (!strcmp(h, "WARNING") || (g_str_has_prefix(h, "WARNING: ") &&
		   (g_str_has_prefix(h + 9, "CPU:") || strchr(h + 9, '/') || strstr(h, ".c:")))) {
		/* "WARNING: CPU: 0 PID: 1 at path:line" and the newer "WARNING:
		 * path:line at sym, CPU#0: comm/pid"; refcount's own warning
		 * ("refcount_t: underflow; use-after-free.") is syzbot's
		 * "WARNING: refcount bug" */
		*title = g_strdup(odebug ? "WARNING: ODEBUG bug"
				  : o->path && g_str_has_prefix(o->path, "lib/refcount.c")
				  ? "WARNING: refcount bug" : "WARNING");
	} else if (g_str_has_prefix(h, "memory leak")) {
		*title = g_strdup("memory leak");
	} else if (strstr(h, "bad unlock balance detected")) {
		/* lockdep's "WARNING: bad unlock balance detected!" */
		*title = g_strdup("WARNING: bad unlock balance");
	} else if (g_str_has_prefix(h, "kernel BUG")) {
		*title = g_strdup("kernel BUG");
	} else if (strstr(h, "general protection fault")) {
		*title = g_strdup("general protection fault");
	} else if (strstr(h, "NULL pointer dereference")) {
		*title = g_strdup("BUG: kernel NULL pointer dereference");
		*key = g_strdup("NULL pointer dereference");
	} else if (strstr(h, "unable to handle page fault") || strstr(h, "paging request")) {
		*title = g_strdup("BUG: unable to handle kernel paging request");
		*key = g_strdup("paging request");
	} else if (o->kind == TRI_OOPS_HUNG) {
		*title = g_strdup("INFO: task hung");
	} else if (o->kind == TRI_OOPS_STALL) {
		*title = g_strdup("INFO: rcu detected stall");
	} else if (strstr(h, "BUG: soft lockup")) {
		*title = g_strdup("BUG: soft lockup");
	} else if (g_str_has_prefix(h, "sleeping function called from invalid context")) {
		*title = g_strdup("BUG: sleeping function called from invalid context");
	} else if (g_str_has_prefix(h, "scheduling while atomic")) {
		*title = g_strdup("BUG: scheduling while atomic");
	} else if (o->kind == TRI_OOPS_PANIC) {
		*title = g_strdup("kernel panic");
	} else {
		/* the words up to the first detail: a number, ": ", " at ", "," */
		const char *start = o->kind == TRI_OOPS_FRAGMENT && before && !odebug ? before
				    : o->first_line ? o->first_line : tri_oops_kind_str(o->kind);
		size_t n = 0, cut = strlen(start), skip = 0;
		const char *stops[] = { ": ", " at ", ",", " for ", " in ", "[", "(", "!", "." };

		for (const char *const *pre = (const char *const[]){ "BUG: ", "WARNING: ", "INFO: ",
								      NULL }; *pre; pre++)
			if (g_str_has_prefix(start, *pre))
				skip = strlen(*pre);
		for (size_t i = 0; i < G_N_ELEMENTS(stops); i++) {
			const char *s = strstr(start + skip, stops[i]);

			if (s && (size_t)(s - start) < cut)
				cut = (size_t)(s - start);
		}
		while (n < cut && !g_ascii_isdigit(start[n]))
			n++;
		while (n && start[n - 1] == ' ')
			n--;
		*title = g_strndup(start, n ? n : cut);
	}
	if (!*key)
		*key = g_strdup(*title);
	g_free(before);
}

int tri_signature_of(const struct tri_oops *o, const char *text, size_t len,
		     struct tri_signature *out)
{
	const char *sym = NULL, *module = NULL;
	char *frame = NULL, *kind, *key;
	int pc_shared = 0;
	ssize_t g;

	memset(out, 0, sizeof(*out));
	/* KMSAN's header names the function that used the value wherever it
	 * is (syzbot titles "uninit-value in sw842_compress", in lib/842/):
	 * only the helpers symbol_skipped() names send it down the trace */
	int kmsan = o->first_line && strstr(o->first_line, "KMSAN: ");

	for (size_t i = 0; o->pc_symbol && !kmsan && i < o->nframes && !pc_shared; i++)
		pc_shared = o->frames[i].path && !strcmp(o->frames[i].symbol, o->pc_symbol) &&
			    frame_shared(&o->frames[i], 0);
	if (o->pc_symbol && !pc_shared && !tri_symbol_is_generic(o->pc_symbol) &&
	    !symbol_skipped(o->pc_symbol, oops_is_leak(o)) &&
	    (kmsan || (!symbol_shared(o->pc_symbol) &&
		       !(o->path && (tri_path_is_shared(o->path, 0) || tri_path_is_reporter(o->path))))) &&
	    o->kind != TRI_OOPS_HUNG && o->kind != TRI_OOPS_STALL) {
		sym = o->pc_symbol;
		module = o->pc_module;
	} else if ((g = guilty_frame(o)) >= 0) {
		sym = o->frames[g].symbol;
		module = o->frames[g].module;
	} else {
		for (size_t i = 0; i < o->nframes && !sym; i++)
			if (!o->frames[i].unreliable && !tri_symbol_is_generic(o->frames[i].symbol)) {
				sym = o->frames[i].symbol;
				module = o->frames[i].module;
			}
		if (!sym)
			sym = o->pc_symbol, module = o->pc_module;
	}
	frame = sym ? clean_symbol(sym, strlen(sym)) : o->first_line ? header_symbol(o->first_line)
								     : NULL;
	if (o->first_line && strstr(o->first_line, "KCSAN: ") && strstr(o->first_line, " / ")) {
		/* a data race names both sides, as syzbot does */
		char **sides = g_strsplit(strstr(o->first_line, " in ") ? strstr(o->first_line,
										 " in ") + 4 : "",
					  " / ", 2);

		if (sides[0] && sides[1]) {
			char *a = clean_symbol(sides[0], strlen(sides[0]));
			char *b = clean_symbol(sides[1], strlen(sides[1]));

			g_free(frame);
			frame = g_strdup_printf("%s / %s", a, b);
			g_free(a);
			g_free(b);
		}
		g_strfreev(sides);
	}
	if (!frame || !*frame) {
		g_free(frame);
		return -1;
	}
	oops_kind(o, text, len, &kind, &key);
	out->frame = frame;
	out->module = module ? g_strdup(module) : NULL;
	out->title = g_strdup_printf("%s in %s%s%s%s", kind, frame, module ? " [" : "",
				     module ? module : "", module ? "]" : "");
	out->key = g_strdup_printf("%s in %s", key, frame);
	out->line = o->line;
	g_free(kind);
	g_free(key);
	return 0;
}

void tri_signature_clear(struct tri_signature *s)
{
	if (!s)
		return;
	g_free(s->title);
	g_free(s->key);
	g_free(s->frame);
	g_free(s->module);
	memset(s, 0, sizeof(*s));
}

size_t tri_signatures(const struct tri_report *r, const char *text, size_t len,
		      struct tri_signature **out)
{
	struct tri_signature *s = NULL;
	size_t n = 0;

	*out = NULL;
	for (size_t i = 0; r && i < r->noopses && n < TRI_SIG_MAX; i++) {
		struct tri_signature one;
		int seen = 0;

		if (tri_signature_of(&r->oopses[i], text, len, &one))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(s[k].key, one.key);
		if (seen) {
			tri_signature_clear(&one);
			continue;
		}
		if (!s)
			s = g_new0(struct tri_signature, TRI_SIG_MAX);
		s[n++] = one;
	}
	*out = s;
	return n;
}

void tri_signatures_free(struct tri_signature *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		tri_signature_clear(&s[i]);
	g_free(s);
}
