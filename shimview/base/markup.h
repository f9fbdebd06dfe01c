/*
 * markup.h -- text made safe for XML and HTML: UTF-8 decoding and escaping.
 *
 * The SVG figures and the HTML report both put strings from the profile (program and tag
 * names) into markup, and a profile is data: any '<', '&' or control byte in a name must
 * come out as text, never as markup. One escaper serves both, since what XML 1.0 requires
 * of character data and attribute values is also safe in HTML: the five specials become
 * entities (&apos; is an HTML5 entity too), and what XML forbids in a document (C0
 * controls but tab, DEL, U+FFFE, U+FFFF, bytes that are not UTF-8) becomes U+FFFD.
 */
#ifndef SHIMVIEW_MARKUP_H
#define SHIMVIEW_MARKUP_H

#include <stddef.h>
#include <stdio.h>

#define MARKUP_REPLACEMENT_CHAR 0xFFFD

/* The code point starting at s (of at most n bytes) and its length in *adv; -1 with
 * *adv = 1 for a byte that does not start a valid, shortest-form sequence. */
long markup_utf8_next(const unsigned char *s, size_t n, size_t *adv);

/* text as character data or attribute content (quotes escaped too); a tab becomes a
 * space. Write errors show in ferror(f). */
void markup_escape(FILE *f, const char *text);

#endif /* SHIMVIEW_MARKUP_H */
