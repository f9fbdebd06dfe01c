/*
 * markup.c -- UTF-8 decoding and XML/HTML escaping (see markup.h).
 *
 * The escaper decodes UTF-8 itself rather than trusting it, so a name that is not valid
 * UTF-8 cannot make a figure ill-formed or a page mis-decode the bytes after it.
 */
#include "shimview/base/markup.h"

#include <string.h>

long markup_utf8_next(const unsigned char *s, size_t n, size_t *adv)
{
    static const long min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len;
    long cp;
    *adv = 1;
    if (s[0] < 0x80) return s[0];
    if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        cp = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        cp = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return -1;
    }
    if (len > n) return -1;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return -1;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min_for_len[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
    *adv = len;
    return cp;
}

static void put_codepoint(FILE *f, long cp)
{
    if (cp < 0x80) {
        fputc((int)cp, f);
    } else if (cp < 0x800) {
        fputc((int)(0xc0 | (cp >> 6)), f);
        fputc((int)(0x80 | (cp & 0x3f)), f);
    } else if (cp < 0x10000) {
        fputc((int)(0xe0 | (cp >> 12)), f);
        fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
        fputc((int)(0x80 | (cp & 0x3f)), f);
    } else {
        fputc((int)(0xf0 | (cp >> 18)), f);
        fputc((int)(0x80 | ((cp >> 12) & 0x3f)), f);
        fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
        fputc((int)(0x80 | (cp & 0x3f)), f);
    }
}

/* markup.h: character data or attribute content. */
void markup_escape(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), adv;
    for (size_t i = 0; i < n; i += adv) {
        long cp = markup_utf8_next(s + i, n - i, &adv);
        if (cp < 0 || (cp < 0x20 && cp != '\t') || cp == 0x7f || cp == 0xfffe || cp == 0xffff)
            cp = MARKUP_REPLACEMENT_CHAR;
        switch (cp) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        case '\t':
            fputc(' ', f);
            break;
        default:
            put_codepoint(f, cp);
        }
    }
}
