#include "config.h"

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
