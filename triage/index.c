/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel index: definitions, Kbuild's modules and Kconfig's module
 * names of a source tree, in an SQLite file (see index.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib.h>
#include <sqlite3.h>

#include "triage/index.h"

/* ---- choosing among several places (tracker/locate.c too) ---------------- */

/* Lower is better: outside arch/ or under the report's arch, then code
 * that is not tools or samples, then a .c file or a folder. */
static int place_rank(const char *path, const char *arch)
{
	static const char *const aside[] = { "tools/", "samples/", "scripts/", "Documentation/",
					     "usr/" };
	int rank = 0;

	if (g_str_has_prefix(path, "arch/")) {
		size_t n = arch ? strlen(arch) : 0;

		if (!n || strncmp(path + 5, arch, n) || path[5 + n] != '/')
			rank += 4;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(aside); i++)
		if (g_str_has_prefix(path, aside[i]))
			rank += 8;
	if (!g_str_has_suffix(path, ".c") && !g_str_has_suffix(path, "/"))
		rank += 1;
	return rank;
}

int tri_place_better(const char *path, const char *best, const char *arch)
{
	int a, b;

	if (!best)
		return 1;
	a = place_rank(path, arch);
	b = place_rank(best, arch);
	return a < b || (a == b && strcmp(path, best) < 0);
}

/* ---- what the build collects ---------------------------------------------- */

struct module_place {
	char *spelling;   /* the object's name as its obj- line writes it */
	int composite;    /* the same Makefile has name-y, name-objs or name-$(...) */
};

struct build {
	GHashTable *file_ids;     /* path -> id + 1 */
	GPtrArray *paths;         /* id -> path (owned) */
	GHashTable *symbols;      /* name -> GArray of guint file ids */
	GHashTable *places;       /* "name\tdir" -> struct module_place */
	GHashTable *kconfig;      /* "name\tdir/" -> NULL */
	struct tri_index_stats st;
	char *lead;               /* the first component all paths share, "" none */
};

static guint file_id(struct build *b, const char *path)
{
	gpointer v = g_hash_table_lookup(b->file_ids, path);
	char *copy;

	if (v)
		return GPOINTER_TO_UINT(v) - 1;
	copy = g_strdup(path);
	g_ptr_array_add(b->paths, copy);
	g_hash_table_insert(b->file_ids, copy, GUINT_TO_POINTER(b->paths->len));
	return b->paths->len - 1;
}

static void note_lead(struct build *b, const char *path)
{
	const char *slash = strchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : strlen(path);

	if (!b->lead) {
		b->lead = slash ? g_strndup(path, n) : g_strdup("");
		return;
	}
	if (*b->lead && (!slash || strlen(b->lead) != n || strncmp(b->lead, path, n))) {
		g_free(b->lead);
		b->lead = g_strdup("");
	}
}

static int ident_char(char c)
{
	return g_ascii_isalnum(c) || c == '_';
}

/* A definition's line (see index.h): the name, or NULL. */
static const char *definition(const char *l, size_t n, size_t *namelen)
{
	size_t end = n, i = 0;

	if (!n || !(g_ascii_isalpha(l[0]) || l[0] == '_'))
		return NULL;
	while (end > 0 && (l[end - 1] == ' ' || l[end - 1] == '\t' || l[end - 1] == '\r'))
		end--;
	if (end && l[end - 1] == ';')
		return NULL;
	while (i < end) {
		size_t start;

		if (!(g_ascii_isalpha(l[i]) || l[i] == '_')) {
			i++;
			continue;
		}
		start = i;
		while (i < end && ident_char(l[i]))
			i++;
		if (i >= end || l[i] != '(')
			continue;
		if (start) {
			if (l[start - 1] != ' ' && l[start - 1] != '*')
				return NULL;
			for (size_t k = 0; k < start; k++)
				if (l[k] == ';' || l[k] == '=')
					return NULL;
		}
		*namelen = i - start;
		return l + start;
	}
	return NULL;
}

static void read_c(struct build *b, const char *path, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	guint id = G_MAXUINT;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), namelen = 0;
		const char *name = definition(p, n, &namelen);

		if (name && namelen <= TRI_LOCATE_NAME_MAX) {
			char *key = g_strndup(name, namelen);
			GArray *a = g_hash_table_lookup(b->symbols, key);

			if (id == G_MAXUINT)
				id = file_id(b, path);
			if (!a) {
				a = g_array_sized_new(FALSE, FALSE, sizeof(guint), 1);
				g_hash_table_insert(b->symbols, key, a);
			} else {
				g_free(key);
			}
			if (!a->len || g_array_index(a, guint, a->len - 1) != id)
				g_array_append_val(a, id);
			b->st.definitions++;
		}
		p = nl ? nl + 1 : end;
	}
}

/* '-' and '_' alike: Kbuild's module names. */
static char *module_key(const char *name, size_t n, const char *dir)
{
	char *k = g_strdup_printf("%.*s\t%s", (int)n, name, dir);

	for (char *c = k; *c && *c != '\t'; c++)
		if (*c == '-')
			*c = '_';
	return k;
}

static struct module_place *place_of(struct build *b, const char *name, size_t n, const char *dir)
{
	char *key = module_key(name, n, dir);
	struct module_place *p = g_hash_table_lookup(b->places, key);

	if (p) {
		g_free(key);
		return p;
	}
	p = g_new0(struct module_place, 1);
	g_hash_table_insert(b->places, key, p);
	return p;
}

static int module_name_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '-';
}

/* name-y, name-objs, name-$(CONFIG_FOO) followed by [:+]?= */
static int composite_suffix(const char *s, const char *end)
{
	if (s < end && *s == 'y')
		s++;
	else if (end - s >= 4 && !strncmp(s, "objs", 4))
		s += 4;
	else if (end - s >= 10 && !strncmp(s, "$(CONFIG_", 9) && ident_char(s[9])) {
		s += 9;
		while (s < end && ident_char(*s))
			s++;
		if (s >= end || *s != ')')
			return 0;
		s++;
	} else {
		return 0;
	}
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s < end && (*s == ':' || *s == '+'))
		s++;
	return s < end && *s == '=';
}

static void read_makefile(struct build *b, const char *dir, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (le - p > 4 && !strncmp(p, "obj-", 4)) {
			const char *q = memchr(p, '=', (size_t)(le - p));

			while (q && q < le) {
				size_t n;

				while (q < le && (*q == ' ' || *q == '\t' || *q == '=' || *q == '\\'))
					q++;
				n = 0;
				while (q + n < le && q[n] != ' ' && q[n] != '\t' && q[n] != '\\')
					n++;
				if (n > 2 && !strncmp(q + n - 2, ".o", 2) && n - 2 <= TRI_LOCATE_NAME_MAX) {
					struct module_place *mp = place_of(b, q, n - 2, dir);

					if (!mp->spelling)
						mp->spelling = g_strndup(q, n - 2);
				}
				q += n;
			}
		} else {
			for (const char *q = p; q < le && module_name_char(*q); q++)
				if (*q == '-' && q > p && composite_suffix(q + 1, le) &&
				    (size_t)(q - p) <= TRI_LOCATE_NAME_MAX)
					place_of(b, p, (size_t)(q - p), dir)->composite = 1;
		}
		p = nl ? nl + 1 : end;
	}
}

/* "the module will be called foo." in a Kconfig's help texts. */
static void read_kconfig(struct build *b, const char *dir, const char *text, size_t len)
{
	GString *flat = g_string_sized_new(len);
	const char *at;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n' || c == '\t' || c == '\r')
			c = ' ';
		if (c == ' ' && flat->len && flat->str[flat->len - 1] == ' ')
			continue;
		g_string_append_c(flat, c);
	}
	for (at = flat->str; (at = strstr(at, "will be called ")); at++) {
		const char *name = at + strlen("will be called "), *back;
		size_t n = 0;

		/* "module will be called", "modules will be called" */
		back = at - (at - flat->str > 9 ? 9 : at - flat->str);
		if (!g_strstr_len(back, at - back, "module"))
			continue;
		while (module_name_char(name[n]))
			n++;
		while (n && name[n - 1] == '-')
			n--;
		if (n < 2 || n > TRI_LOCATE_NAME_MAX)
			continue;
		g_hash_table_replace(b->kconfig, module_key(name, n, dir), NULL);
	}
	g_string_free(flat, TRUE);
}

enum kind { K_NONE, K_C, K_MAKEFILE, K_KCONFIG };

static enum kind kind_of(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	if (g_str_has_suffix(base, ".c"))
		return K_C;
	if (slash && (!strcmp(base, "Makefile") || !strcmp(base, "Kbuild")))
		return K_MAKEFILE;
	if (slash && g_str_has_prefix(base, "Kconfig"))
		return K_KCONFIG;
	return K_NONE;
}

static void read_source(struct build *b, const char *path, const char *text, size_t len)
{
	enum kind k = kind_of(path);
	char *dir;

	b->st.sources++;
	if (k == K_C) {
		read_c(b, path, text, len);
		return;
	}
	dir = g_path_get_dirname(path);
	if (k == K_MAKEFILE)
		read_makefile(b, dir, text, len);
	else
		read_kconfig(b, dir, text, len);
	g_free(dir);
}

/* ---- reading a folder or a tarball ---------------------------------------- */

static enum bb_status walk(struct build *b, const char *root, const char *rel,
			   struct bb_error *err)
{
	char *full = *rel ? g_build_filename(root, rel, NULL) : g_strdup(root);
	GError *gerr = NULL;
	GDir *d = g_dir_open(full, 0, &gerr);
	const char *name;
	enum bb_status rc = BB_OK;

	if (!d) {
		rc = bb_error_set(err, BB_ERR_IO, "cannot read %s: %s", full, gerr->message);
		g_error_free(gerr);
		g_free(full);
		return rc;
	}
	while (rc == BB_OK && (name = g_dir_read_name(d))) {
		char *r = *rel ? g_strdup_printf("%s/%s", rel, name) : g_strdup(name);
		char *f = g_build_filename(full, name, NULL);
		struct stat sb;

		if (name[0] == '.' || lstat(f, &sb)) {
			/* hidden (.git) or gone: not the tree's */
		} else if (S_ISDIR(sb.st_mode)) {
			rc = walk(b, root, r, err);
		} else if (S_ISREG(sb.st_mode)) {
			b->st.files++;
			if (kind_of(r) != K_NONE && (size_t)sb.st_size <= TRI_INDEX_MAX_FILE) {
				gchar *text = NULL;
				gsize len = 0;

				if (!g_file_get_contents(f, &text, &len, &gerr)) {
					rc = bb_error_set(err, BB_ERR_IO, "%s", gerr->message);
					g_error_free(gerr);
				} else {
					read_source(b, r, text, len);
				}
				g_free(text);
			}
		}
		g_free(f);
		g_free(r);
	}
	g_dir_close(d);
	g_free(full);
	return rc;
}

static enum bb_status read_tarball(struct build *b, const char *path, struct bb_error *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	enum bb_status rc = BB_OK;
	char *buf = g_malloc(TRI_INDEX_MAX_FILE);
	int r;

	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		rc = bb_error_set(err, BB_ERR_UNSUPPORTED, "%s: neither a folder nor a tarball: %s",
				  path, archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(e);
		la_int64_t size = archive_entry_size(e);

		if (!name)
			continue;
		while (name[0] == '.' && name[1] == '/')
			name += 2;
		if (!*name)
			continue;
		note_lead(b, name);
		if (archive_entry_filetype(e) != AE_IFREG)
			continue;
		b->st.files++;
		if (kind_of(name) == K_NONE || size < 0 || (size_t)size > TRI_INDEX_MAX_FILE)
			continue;
		{
			char *copy = g_strdup(name);
			size_t got = 0;
			la_ssize_t n;

			while (got < TRI_INDEX_MAX_FILE &&
			       (n = archive_read_data(a, buf + got, TRI_INDEX_MAX_FILE - got)) > 0)
				got += (size_t)n;
			read_source(b, copy, buf, got);
			g_free(copy);
		}
	}
	if (r != ARCHIVE_EOF)
		rc = bb_error_set(err, BB_ERR_CORRUPT, "%s: %s", path, archive_error_string(a));
out:
	archive_read_free(a);
	g_free(buf);
	return rc;
}

/* ---- writing -------------------------------------------------------------- */

static const char schema[] =
	"PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
	"CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL);"
	"CREATE TABLE symbols(name TEXT NOT NULL, file INTEGER NOT NULL,"
	" PRIMARY KEY(name, file)) WITHOUT ROWID;"
	"CREATE TABLE modules(name TEXT NOT NULL, place TEXT NOT NULL, kconfig INTEGER NOT NULL,"
	" PRIMARY KEY(name, place)) WITHOUT ROWID;"
	"BEGIN;";

/* The path as stored: without the tarball's leading folder. */
static const char *stored(const struct build *b, const char *path)
{
	size_t n = strlen(b->lead);

	return n && !strncmp(path, b->lead, n) && path[n] == '/' ? path + n + 1 : path;
}

static int step_done(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The definitions worth keeping (index.h): the best outside arch/ and the
 * first under each arch/ARCH/. */
static int write_symbol(const struct build *b, sqlite3_stmt *ins, const char *name, GArray *ids,
			unsigned long *kept)
{
	GHashTable *arch_best = g_hash_table_new(g_str_hash, g_str_equal);
	const char *plain = NULL;
	guint plain_id = 0;
	GHashTableIter it;
	gpointer k, v;
	int rc = 0;

	for (guint i = 0; i < ids->len; i++) {
		guint id = g_array_index(ids, guint, i);
		const char *p = stored(b, g_ptr_array_index(b->paths, id));

		if (g_str_has_prefix(p, "arch/")) {
			const char *slash = strchr(p + 5, '/');
			char *arch = slash ? g_strndup(p + 5, (size_t)(slash - p - 5)) : g_strdup("");
			gpointer old = g_hash_table_lookup(arch_best, arch);

			if (!old || strcmp(p, stored(b, g_ptr_array_index(b->paths,
								    GPOINTER_TO_UINT(old) - 1))) < 0)
				g_hash_table_replace(arch_best, (gpointer)g_intern_string(arch),
						     GUINT_TO_POINTER(id + 1));
			g_free(arch);
		} else if (tri_place_better(p, plain, NULL)) {
			plain = p;
			plain_id = id;
		}
	}
	sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC);
	if (plain) {
		sqlite3_bind_int64(ins, 2, plain_id);
		rc |= step_done(ins);
		(*kept)++;
	}
	g_hash_table_iter_init(&it, arch_best);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		sqlite3_bind_int64(ins, 2, GPOINTER_TO_UINT(v) - 1);
		rc |= step_done(ins);
		(*kept)++;
	}
	g_hash_table_destroy(arch_best);
	return rc;
}

static int put_meta(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES(?, ?)", -1, &s, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
		rc = step_done(s) ? SQLITE_ERROR : SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

static int put_meta_ulong(sqlite3 *db, const char *key, unsigned long value)
{
	char v[32];

	snprintf(v, sizeof(v), "%lu", value);
	return put_meta(db, key, v);
}

static enum bb_status write_index(struct build *b, const char *source, const char *path,
				  struct bb_error *err)
{
	char *tmp = g_strdup_printf("%s.tmp%ld", path, (long)getpid());
	sqlite3 *db = NULL;
	sqlite3_stmt *ins_file = NULL, *ins_sym = NULL, *ins_mod = NULL;
	GHashTableIter it;
	gpointer k, v;
	enum bb_status rc = BB_OK;
	int bad = 0;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	unlink(tmp);
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO files VALUES(?, ?)", -1, &ins_file, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO symbols VALUES(?, ?)", -1, &ins_sym,
			       NULL) ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO modules VALUES(?, ?, ?)", -1, &ins_mod,
			       NULL)) {
		rc = bb_error_set(err, BB_ERR_DATABASE, "%s: %s", tmp,
				  db ? sqlite3_errmsg(db) : "cannot open");
		goto out;
	}
	for (guint i = 0; i < b->paths->len; i++) {
		sqlite3_bind_int64(ins_file, 1, i);
		sqlite3_bind_text(ins_file, 2, stored(b, g_ptr_array_index(b->paths, i)), -1,
				  SQLITE_STATIC);
		bad |= step_done(ins_file);
	}
	g_hash_table_iter_init(&it, b->symbols);
	while (!bad && g_hash_table_iter_next(&it, &k, &v))
		bad |= write_symbol(b, ins_sym, k, v, &b->st.symbols);
	g_hash_table_iter_init(&it, b->places);
	while (!bad && g_hash_table_iter_next(&it, &k, &v)) {
		const struct module_place *mp = v;
		const char *tab = strchr(k, '\t');
		char *name = g_strndup(k, (size_t)(tab - (const char *)k)), *place;

		if (mp->spelling) {
			place = mp->composite ? g_strdup_printf("%s/", stored(b, tab + 1))
					      : g_strdup_printf("%s/%s.c", stored(b, tab + 1),
								mp->spelling);
			sqlite3_bind_text(ins_mod, 1, name, -1, SQLITE_STATIC);
			sqlite3_bind_text(ins_mod, 2, place, -1, SQLITE_STATIC);
			sqlite3_bind_int(ins_mod, 3, 0);
			bad |= step_done(ins_mod);
			b->st.modules++;
			g_free(place);
		}
		g_free(name);
	}
	g_hash_table_iter_init(&it, b->kconfig);
	while (!bad && g_hash_table_iter_next(&it, &k, NULL)) {
		const char *tab = strchr(k, '\t');
		char *name = g_strndup(k, (size_t)(tab - (const char *)k));
		char *place = g_strdup_printf("%s/", stored(b, tab + 1));

		sqlite3_bind_text(ins_mod, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins_mod, 2, place, -1, SQLITE_STATIC);
		sqlite3_bind_int(ins_mod, 3, 1);
		bad |= step_done(ins_mod);
		b->st.modules++;
		b->st.kconfig++;
		g_free(place);
		g_free(name);
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	bad |= put_meta_ulong(db, "version", TRI_INDEX_VERSION) != SQLITE_OK;
	bad |= put_meta(db, "source", source) != SQLITE_OK;
	bad |= put_meta(db, "built", when) != SQLITE_OK;
	bad |= put_meta_ulong(db, "files", b->st.files) != SQLITE_OK;
	bad |= put_meta_ulong(db, "symbols", b->st.symbols) != SQLITE_OK;
	bad |= put_meta_ulong(db, "modules", b->st.modules) != SQLITE_OK;
	if (bad || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = bb_error_set(err, BB_ERR_DATABASE, "%s: %s", tmp, sqlite3_errmsg(db));
out:
	sqlite3_finalize(ins_file);
	sqlite3_finalize(ins_sym);
	sqlite3_finalize(ins_mod);
	if (db && sqlite3_close(db) != SQLITE_OK && rc == BB_OK)
		rc = bb_error_set(err, BB_ERR_DATABASE, "%s: cannot close", tmp);
	if (rc == BB_OK && rename(tmp, path))
		rc = bb_error_errno(err, errno, "cannot rename %s to %s", tmp, path);
	if (rc != BB_OK)
		unlink(tmp);
	g_free(tmp);
	return rc;
}

static void place_free(gpointer p)
{
	struct module_place *mp = p;

	g_free(mp->spelling);
	g_free(mp);
}

static void ids_free(gpointer p)
{
	g_array_free(p, TRUE);
}

enum bb_status tri_index_build(const char *source, const char *path, struct tri_index_stats *st,
			       struct bb_error *err)
{
	struct build b;
	struct stat sb;
	enum bb_status rc;

	memset(&b, 0, sizeof(b));
	if (stat(source, &sb))
		return bb_error_errno(err, errno, "%s", source);
	b.file_ids = g_hash_table_new(g_str_hash, g_str_equal);
	b.paths = g_ptr_array_new_with_free_func(g_free);
	b.symbols = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, ids_free);
	b.places = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, place_free);
	b.kconfig = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (S_ISDIR(sb.st_mode)) {
		b.lead = g_strdup("");
		rc = walk(&b, source, "", err);
	} else {
		rc = read_tarball(&b, source, err);
		if (!b.lead)
			b.lead = g_strdup("");
	}
	if (rc == BB_OK && !b.st.sources)
		rc = bb_error_set(err, BB_ERR_INVALID, "%s: no .c, Makefile, Kbuild or Kconfig "
				  "file: not a kernel tree", source);
	if (rc == BB_OK)
		rc = write_index(&b, source, path, err);
	if (st)
		*st = b.st;
	g_hash_table_destroy(b.file_ids);
	g_ptr_array_free(b.paths, TRUE);
	g_hash_table_destroy(b.symbols);
	g_hash_table_destroy(b.places);
	g_hash_table_destroy(b.kconfig);
	g_free(b.lead);
	return rc;
}

/* ---- reading -------------------------------------------------------------- */

struct tri_index {
	sqlite3 *db;
	sqlite3_stmt *sym, *mod, *meta;
	struct tri_locator loc;
};

char *tri_index_symbol(struct tri_index *ix, const char *name, const char *arch)
{
	char *best = NULL;

	if (!ix || !tri_locate_name_ok(name, 0))
		return NULL;
	sqlite3_bind_text(ix->sym, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(ix->sym) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(ix->sym, 0);

		if (p && tri_place_better(p, best, arch)) {
			free(best);
			best = strdup(p);
		}
	}
	sqlite3_reset(ix->sym);
	return best;
}

char *tri_index_module(struct tri_index *ix, const char *name, const char *arch)
{
	char *best = NULL, *key;
	int best_kconfig = 1;

	if (!ix || !tri_locate_name_ok(name, 1))
		return NULL;
	key = g_strdup(name);
	g_strdelimit(key, "-", '_');
	sqlite3_bind_text(ix->mod, 1, key, -1, SQLITE_STATIC);
	while (sqlite3_step(ix->mod) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(ix->mod, 0);
		int kconfig = sqlite3_column_int(ix->mod, 1) != 0;

		/* Kconfig's name only where no obj- line builds the module */
		if (!p || (kconfig && !best_kconfig))
			continue;
		if ((!kconfig && best_kconfig) || tri_place_better(p, best, arch)) {
			free(best);
			best = strdup(p);
			best_kconfig = kconfig;
		}
	}
	sqlite3_reset(ix->mod);
	g_free(key);
	return best;
}

char *tri_index_meta(struct tri_index *ix, const char *key)
{
	char *v = NULL;

	if (!ix)
		return NULL;
	sqlite3_bind_text(ix->meta, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(ix->meta) == SQLITE_ROW && sqlite3_column_text(ix->meta, 0))
		v = strdup((const char *)sqlite3_column_text(ix->meta, 0));
	sqlite3_reset(ix->meta);
	return v;
}

static void locate_symbols(void *ctx, const char *const *names, size_t n, const char *arch,
			   char **paths)
{
	for (size_t i = 0; i < n && i < TRI_LOCATE_MAX; i++)
		paths[i] = tri_index_symbol(ctx, names[i], arch);
}

static void locate_modules(void *ctx, const char *const *names, size_t n, const char *arch,
			   char **paths)
{
	for (size_t i = 0; i < n && i < TRI_LOCATE_MAX; i++)
		paths[i] = tri_index_module(ctx, names[i], arch);
}

enum bb_status tri_index_open(struct tri_index **out, const char *path, struct bb_error *err)
{
	struct tri_index *ix = g_new0(struct tri_index, 1);
	char *version = NULL;
	char *uri;
	enum bb_status rc = BB_OK;

	*out = NULL;
	if (access(path, F_OK))
		rc = bb_error_errno(err, errno, "%s", path);
	uri = rc == BB_OK ? sqlite3_mprintf("file:%q?immutable=1", path) : NULL;
	if (rc == BB_OK &&
	    (sqlite3_open_v2(uri, &ix->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
			     SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(ix->db, "SELECT value FROM meta WHERE key = ?", -1, &ix->meta,
				NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(ix->db, "SELECT f.path FROM symbols s JOIN files f"
				" ON f.id = s.file WHERE s.name = ?", -1, &ix->sym, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(ix->db, "SELECT place, kconfig FROM modules WHERE name = ?", -1,
				&ix->mod, NULL) != SQLITE_OK))
		rc = bb_error_set(err, BB_ERR_UNSUPPORTED, "%s: not a triage index: %s", path,
				  ix->db ? sqlite3_errmsg(ix->db) : "cannot open");
	sqlite3_free(uri);
	if (rc == BB_OK && (!(version = tri_index_meta(ix, "version")) ||
			    atoi(version) != TRI_INDEX_VERSION))
		rc = bb_error_set(err, BB_ERR_UNSUPPORTED, "%s: an index of version %s, not %d: "
				  "build it again", path, version ? version : "(none)",
				  TRI_INDEX_VERSION);
	free(version);
	if (rc != BB_OK) {
		tri_index_free(ix);
		return rc;
	}
	ix->loc.symbols = locate_symbols;
	ix->loc.modules = locate_modules;
	ix->loc.how = "kernel index";
	ix->loc.ctx = ix;
	*out = ix;
	return BB_OK;
}

void tri_index_free(struct tri_index *ix)
{
	if (!ix)
		return;
	sqlite3_finalize(ix->sym);
	sqlite3_finalize(ix->mod);
	sqlite3_finalize(ix->meta);
	sqlite3_close(ix->db);
	g_free(ix);
}

const struct tri_locator *tri_index_locator(struct tri_index *ix)
{
	return ix ? &ix->loc : NULL;
}
