/*
 * catalogue-gen: the message catalogue's C source from compiled gettext
 * catalogues, at build time (docs/translating.md).
 *
 *     catalogue-gen OUT.c en.mo de.mo fr.mo ...
 *
 * Each .mo file is what msgfmt --check made of a language's .po file; its
 * name before ".mo" is the language code. The first is English, the
 * source language: msgen's copy of the template, so it lists every
 * message the sources mark. OUT.c defines `msg_langs` and
 * `msg_nlangs` (bot/common/msg_data.h): per language its code, its plural
 * rule (the .po header's Plural-Forms expression, which becomes a C
 * function after a check that it holds only what such an expression may),
 * and its messages sorted by id for a binary search.
 *
 * The .mo format:
 * https://www.gnu.org/software/gettext/manual/html_node/MO-Files.html (read,
 * not copied). A file that does not parse is an error naming it: the build
 * stops.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A .mo larger than this is refused (the catalogues are tens of KiB). */
#define MO_MAX (16u << 20)
#define MO_MAGIC 0x950412deu
#define MO_MAGIC_SWAPPED 0xde120495u
/* The plural forms a language may have (gettext knows up to 6). */
#define FORMS_MAX 6

struct entry {
    const char *id; /* msgctxt "\004" msgid, or msgid; NUL-terminated */
    size_t idlen;
    const char *str; /* forms separated by NULs */
    size_t strlen;
    bool plural; /* the id has a msgid_plural */
};

struct mo {
    char code[16];
    char *data;
    size_t len;
    struct entry *e;
    size_t n;
    char plural[256]; /* the C expression in n */
    int nplurals;
};

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("catalogue-gen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    char *buf = malloc(MO_MAX + 1);
    if (!buf)
        die("out of memory");
    size_t n = fread(buf, 1, MO_MAX + 1, f);
    if (ferror(f))
        die("%s: read error", path);
    fclose(f);
    if (n > MO_MAX)
        die("%s: larger than %u bytes", path, MO_MAX);
    *len = n;
    return buf;
}

static uint32_t word(const struct mo *m, size_t off, bool swap)
{
    if (off > m->len || m->len - off < 4)
        die("%s.mo: truncated", m->code);
    uint32_t w;
    memcpy(&w, m->data + off, 4);
    if (swap)
        w = (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) |
            (w << 24);
    return w;
}

/* The string of the table at off, entry i: its bytes, NUL-terminated. */
static const char *string_at(const struct mo *m, uint32_t table, size_t i,
                             bool swap, size_t *len)
{
    uint32_t n = word(m, table + 8 * i, swap);
    uint32_t off = word(m, table + 8 * i + 4, swap);
    if (off > m->len || m->len - off <= n || m->data[off + n] != '\0')
        die("%s.mo: string %zu out of the file", m->code, i);
    *len = n;
    return m->data + off;
}

/* Only n, numbers, parentheses, spaces and C operators: the expression is
 * pasted into C. */
static void check_plural(const struct mo *m, const char *expr)
{
    for (const char *p = expr; *p; p++)
        if (!strchr("n0123456789()!=<>&|?:%+-*/ ", *p))
            die("%s.mo: a plural rule may not contain '%c'", m->code, *p);
}

/* The header's "Plural-Forms: nplurals=N; plural=EXPR;". */
static void read_header(struct mo *m, const char *h)
{
    const char *pf = strstr(h, "Plural-Forms:");
    if (!pf)
        die("%s.mo: the header has no Plural-Forms line", m->code);
    const char *np = strstr(pf, "nplurals=");
    const char *pl = strstr(pf, "plural=");
    if (!np || !pl)
        die("%s.mo: Plural-Forms needs nplurals= and plural=", m->code);
    m->nplurals = atoi(np + 9);
    if (m->nplurals < 1 || m->nplurals > FORMS_MAX)
        die("%s.mo: nplurals must be 1 to %d", m->code, FORMS_MAX);
    pl += 7;
    size_t k = strcspn(pl, ";\n");
    if (k == 0 || k >= sizeof m->plural)
        die("%s.mo: the plural rule is empty or too long", m->code);
    memcpy(m->plural, pl, k);
    m->plural[k] = '\0';
    check_plural(m, m->plural);
}

static int by_id(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return strcmp(x->id, y->id);
}

static void load(struct mo *m, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t k = strcspn(base, ".");
    if (k == 0 || k >= sizeof m->code || strcmp(base + k, ".mo") != 0)
        die("%s: the name must be LANG.mo", path);
    memcpy(m->code, base, k);
    m->code[k] = '\0';
    m->data = read_all(path, &m->len);
    uint32_t magic = word(m, 0, false);
    bool swap = magic == MO_MAGIC_SWAPPED;
    if (magic != MO_MAGIC && !swap)
        die("%s: not a .mo file", path);
    if (word(m, 4, swap) >> 16 != 0)
        die("%s: an unknown .mo revision", path);
    uint32_t n = word(m, 8, swap);
    uint32_t orig = word(m, 12, swap), trans = word(m, 16, swap);
    m->e = calloc(n ? n : 1, sizeof *m->e);
    if (!m->e)
        die("out of memory");
    bool header = false;
    for (uint32_t i = 0; i < n; i++) {
        struct entry e = {0};
        e.id = string_at(m, orig, i, swap, &e.idlen);
        e.str = string_at(m, trans, i, swap, &e.strlen);
        e.plural = strlen(e.id) < e.idlen;
        if (e.idlen == 0) {
            read_header(m, e.str);
            header = true;
            continue;
        }
        m->e[m->n++] = e;
    }
    if (!header)
        die("%s: no header entry", path);
    qsort(m->e, m->n, sizeof *m->e, by_id);
    for (size_t i = 1; i < m->n; i++)
        if (strcmp(m->e[i - 1].id, m->e[i].id) == 0)
            die("%s: the message \"%s\" twice", path, m->e[i].id);
}

/* s[0..n) as a C string literal: printable ASCII as is, all else octal. */
static void literal(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f && c != '?')
            fputc(c, out); /* '?' too is escaped: no trigraphs */
        else
            fprintf(out, "\\%03o", c);
    }
    fputc('"', out);
}

/* The forms of e's translation, counted. */
static int forms(const struct entry *e)
{
    int k = 1;
    for (size_t i = 0; i < e->strlen; i++)
        k += e->str[i] == '\0';
    return k;
}

static void emit(FILE *out, const struct mo *m, int li)
{
    fprintf(out, "static unsigned long plural_%d(unsigned long n)\n{\n", li);
    fprintf(out, "    return (unsigned long)(%s);\n}\n\n", m->plural);
    for (size_t i = 0; i < m->n; i++) {
        const struct entry *e = &m->e[i];
        int k = forms(e);
        if (k > FORMS_MAX)
            die("%s.mo: \"%s\" has %d forms", m->code, e->id, k);
        fprintf(out, "static const char *const forms_%d_%zu[] = {", li, i);
        const char *s = e->str;
        for (int f = 0; f < k; f++) {
            size_t len = strlen(s);
            literal(out, s, len);
            fputs(f + 1 < k ? ", " : "};\n", out);
            s += len + 1;
        }
    }
    fprintf(out, "static const struct msg_entry entries_%d[] = {\n", li);
    for (size_t i = 0; i < m->n; i++) {
        const struct entry *e = &m->e[i];
        fputs("    {", out);
        literal(out, e->id, strlen(e->id));
        fprintf(out, ", forms_%d_%zu, %d, %d},\n", li, i, forms(&m->e[i]),
                e->plural);
    }
    if (m->n == 0)
        fputs("    {\"\", 0, 0, 0},\n", out);
    fputs("};\n\n", out);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: catalogue-gen OUT.c en.mo [LANG.mo ...]");
    int nlangs = argc - 2;
    struct mo *m = calloc((size_t)nlangs, sizeof *m);
    if (!m)
        die("out of memory");
    for (int i = 0; i < nlangs; i++)
        load(&m[i], argv[i + 2]);
    if (strcmp(m[0].code, "en") != 0)
        die("the first catalogue must be en.mo (the source language)");
    FILE *out = fopen(argv[1], "w");
    if (!out)
        die("%s: %s", argv[1], strerror(errno));
    fputs(
        "/* Made by tools/catalogue_gen.c from the .po files: do not edit. */\n"
        "#include \"bot/common/msg_data.h\"\n\n",
        out);
    for (int i = 0; i < nlangs; i++)
        emit(out, &m[i], i);
    fputs("const struct msg_lang msg_langs[] = {\n", out);
    for (int i = 0; i < nlangs; i++)
        fprintf(out, "    {\"%s\", plural_%d, %d, entries_%d, %zu},\n",
                m[i].code, i, m[i].nplurals, i, m[i].n);
    fprintf(out, "};\nconst int msg_nlangs = %d;\n", nlangs);
    if (fclose(out))
        die("%s: %s", argv[1], strerror(errno));
    for (int i = 0; i < nlangs; i++) {
        free(m[i].e);
        free(m[i].data);
    }
    free(m);
    return 0;
}
