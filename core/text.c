#include "config.h"

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
