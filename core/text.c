/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/text.h"

int text_is_format_char(uint32_t c)
{
	/* the common ones without a table look-up */
	if (c < 0xad)
		return 0;
	if (c == 0xad || c == 0x61c || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff)
		return 1;
	return c <= 0x10ffff && g_unichar_type((gunichar)c) == G_UNICODE_FORMAT;
}

/* How rare each byte is in list mail: the printable bytes (letters of
 * either case as one) from the most to the least common in 4,000 mails of
 * a list archive (platform-driver-x86) rank 1, 2, ...; a byte not listed
 * ranks above all. */
static unsigned char byte_rank[256];
static pthread_once_t byte_rank_once = PTHREAD_ONCE_INIT;

static void byte_rank_init(void)
{
	static const char by_frequency[] = "eiartsondcmlg0upf.-hbv1_2>wyxk4:+5638=qz/j97,;()@<*\"?"
					   "[]{}#&|\\'%!`~$^";

	memset(byte_rank, sizeof(by_frequency) + 1, sizeof(byte_rank));
	for (size_t i = 0; by_frequency[i]; i++) {
		byte_rank[(unsigned char)by_frequency[i]] = (unsigned char)(i + 1);
		byte_rank[(unsigned char)g_ascii_toupper(by_frequency[i])] = (unsigned char)(i + 1);
	}
}

const char *text_find_ci(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle), at = 0, next;
	unsigned rank = 0;
	const char *p, *end, *lo = NULL, *up = NULL;
	char c_lo, c_up, n_lo, n_up;

	if (!n)
		return hay;
	if (len < n)
		return NULL;
	/* the candidates are where the needle's rarest byte is, not its
	 * first: the first stopped at every "1" of a mail for the host
	 * "127.0.0.1" and at every "f" for "fixes:" */
	pthread_once(&byte_rank_once, byte_rank_init);
	for (size_t i = 0; i < n; i++)
		if (byte_rank[(unsigned char)needle[i]] > rank) {
			at = i;
			rank = byte_rank[(unsigned char)needle[i]];
		}
	c_lo = g_ascii_tolower(needle[at]);
	c_up = g_ascii_toupper(needle[at]);
	/* a byte beside it is looked at before the whole needle: most
	 * candidates ("\n" for "\n---") differ there */
	next = at + 1 < n ? at + 1 : at - (at > 0);
	n_lo = g_ascii_tolower(needle[next]);
	n_up = g_ascii_toupper(needle[next]);
	/* that byte's place in a match lies from hay + at to end */
	for (p = hay + at, end = hay + len - (n - at - 1); p < end;) {
		const char *q;

		/* the next candidate in either case (each found once) */
		if (!lo || lo < p)
			lo = (lo = memchr(p, c_lo, (size_t)(end - p))) ? lo : end;
		if (c_up != c_lo && (!up || up < p))
			up = (up = memchr(p, c_up, (size_t)(end - p))) ? up : end;
		q = c_up != c_lo && up < lo ? up : lo;
		if (q >= end)
			return NULL;
		if (((q - at)[next] == n_lo || (q - at)[next] == n_up) &&
		    !g_ascii_strncasecmp(q - at, needle, n))
			return q - at;
		p = q + 1;
	}
	return NULL;
}

int text_is_control_char(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029;
}

char *text_user_published(const char *login, const char *real_name, int show_addresses)
{
	const char *name = real_name ? real_name : "", *addr = login ? login : "";
	size_t len;
	char *out;

	/* a "name" that is an address is no name */
	if (strchr(name, '@'))
		name = "";
	if (show_addresses && *name && *addr) {
		len = strlen(name) + strlen(addr) + 4;
		if ((out = malloc(len)))
			snprintf(out, len, "%s <%s>", name, addr);
		return out;
	}
	if (*name)
		return strdup(name);
	if (show_addresses)
		return strdup(addr);
	return strndup(addr, strcspn(addr, "@"));
}

char *text_person_published(const char *person, int show_addresses)
{
	const char *p = person ? person : "", *lt = strrchr(p, '<');
	char *name, *addr, *out;
	size_t n;

	if (show_addresses)
		return strdup(p);
	if (!lt || !strchr(lt, '>'))   /* a bare address or a bare name */
		return strchr(p, '@') ? text_user_published(p, "", 0) : strdup(p);
	n = (size_t)(lt - p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		p++;
		n -= 2;
	}
	name = strndup(p, n);
	addr = strndup(lt + 1, strcspn(lt + 1, ">"));
	out = name && addr ? text_user_published(addr, name, 0) : NULL;
	free(name);
	free(addr);
	return out;
}

static int address_char(char c, int domain)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || (!domain && (c == '_' || c == '+' || c == '%'));
}

char *text_hide_addresses(const char *text)
{
	size_t len = text ? strlen(text) : 0, o = 0;
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		if (text[i] == '@' && o > 0 && address_char(out[o - 1], 0)) {
			size_t j = i + 1, dots = 0;

			while (j < len && address_char(text[j], 1))
				dots += text[j++] == '.';
			if (j > i + 1 && dots > 0 && text[j - 1] != '.') {
				i = j;     /* the domain goes */
				continue;
			}
		}
		out[o++] = text[i++];
	}
	out[o] = '\0';
	return out;
}

/* Optimal string alignment distance (Levenshtein plus swapped neighbours,
 * "sycn" is one step from "sync"), three rows of the dynamic programme.
 * Words longer than 63 are not words a user typed for a key or command, and
 * get no suggestion. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), pp[64], prev[64], cur[64];

	if (la >= 64 || lb >= 64)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = pp[j] = j;
	for (size_t i = 1; i <= la; i++) {
		int ai = tolower((unsigned char)a[i - 1]);

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int bj = tolower((unsigned char)b[j - 1]);
			size_t sub = prev[j - 1] + (ai != bj), del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t d = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);

			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			cur[j] = d;
		}
		memcpy(pp, prev, (lb + 1) * sizeof(pp[0]));
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

const char *text_closest(const char *word, const char *const *candidates, size_t n)
{
	size_t len = strlen(word), limit = len / 3, best = (size_t)-1;
	const char *found = NULL;

	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, candidates[i]);

		if (d <= limit && d < best) {
			best = d;
			found = candidates[i];
		}
	}
	return found;
}
