/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/maintainers.h"
#include "tracker/culprit.h"
#include "tracker/gitscan.h"

struct people {
	char **v;
	size_t n;
};

/* Adds entry unless its address is there already or it has none. */
static int people_add(struct people *p, const char *entry)
{
	char *addr = mnt_address(entry), *copy;
	char **grown;

	if (!addr)
		return -1;
	if (!*addr || !strchr(addr, '@') || p->n >= CULPRIT_PEOPLE_MAX) {
		free(addr);
		return 0;
	}
	for (size_t i = 0; i < p->n; i++) {
		char *other = mnt_address(p->v[i]);
		int same = other && !strcasecmp(other, addr);

		free(other);
		if (same) {
			free(addr);
			return 0;
		}
	}
	free(addr);
	if (!(copy = strdup(entry)) || !(grown = realloc(p->v, (p->n + 2) * sizeof(*p->v)))) {
		free(copy);
		return -1;
	}
	p->v = grown;
	p->v[p->n++] = copy;
	p->v[p->n] = NULL;
	return 0;
}

static int signer(const char *key)
{
	static const char *const keys[] = { "Signed-off-by", "Reviewed-by", "Acked-by" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(key, keys[i]))
			return 1;
	return 0;
}

/* The people of one commit's author line and message. */
static enum bb_status people_of(const char *hash, const char *author, const char *message,
				struct people *p, struct bb_error *err)
{
	struct gitscan_parser *parser = gitscan_parser_new(NULL);
	struct gitscan_commit c;
	enum bb_status s;

	if (!parser)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	memset(&c, 0, sizeof(c));
	s = gitscan_parse_message(parser, hash, message, strlen(message), &c);
	if (!s && people_add(p, author))
		s = BB_ERR_NOMEM;
	for (size_t i = 0; !s && i < c.n_trailers; i++)
		if (signer(c.trailers[i].key) && people_add(p, c.trailers[i].value))
			s = BB_ERR_NOMEM;
	gitscan_parser_free(parser);
	return s ? bb_error_set(err, s, "out of memory") : BB_OK;
}

void culprit_tree_options(const struct config_tree *ct, const char *state_dir,
			  struct gitscan_options *o)
{
	memset(o, 0, sizeof(*o));
	o->name = ct->name;
	o->path = ct->path;
	o->url = ct->url;
	o->ref = ct->ref;
	o->state_dir = state_dir;
}

enum bb_status culprit_people(const struct bb_config *cfg, const char *state_dir,
			      const char *commit, char ***people, struct bb_error *err)
{
	struct people p = { NULL, 0 };
	enum bb_status s = BB_OK;
	int found = 0;

	*people = NULL;
	for (size_t i = 0; i < cfg->ntrees && !found && !s; i++) {
		const struct config_tree *ct = &cfg->trees[i];
		struct gitscan_options o;
		struct gitscan_tree *tree = NULL;
		char *author = NULL, *message = NULL;

		culprit_tree_options(ct, state_dir, &o);
		if ((s = gitscan_tree_new(&tree, &o, err)))
			break;
		s = gitscan_show(tree, commit, &author, &message, err);
		if (!s) {
			found = 1;
			s = people_of(commit, author, message, &p, err);
		} else if (s == BB_ERR_NOT_FOUND) {
			/* not in this tree (or not fetched yet): the next one */
			bb_error_clear(err);
			s = BB_OK;
		}
		free(author);
		free(message);
		gitscan_tree_free(tree);
	}
	if (s) {
		config_list_free(p.v);
		return s;
	}
	*people = p.v;
	return BB_OK;
}
