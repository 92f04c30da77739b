/*
 * The message catalogue (msg.h) over the data the build makes from the
 * .po files (msg_data.h).
 */
#include "bot/common/msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/msg_data.h"

/* The most placeholders one message may fill. */
#define MSG_ARGS_MAX 16

int msg_lang_count(void)
{
    return msg_nlangs;
}

const char *msg_lang_code(int lang)
{
    return lang >= 0 && lang < msg_nlangs ? msg_langs[lang].code : NULL;
}

/* The entry for id in lang, or NULL. */
static const struct msg_entry *find(int lang, const char *id)
{
    if (lang < 0 || lang >= msg_nlangs)
        return NULL;
    const struct msg_lang *l = &msg_langs[lang];
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(id, l->entries[mid].id);
        if (c == 0)
            return &l->entries[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* The English text of id: after its context, if it has one. */
static const char *english(const char *id)
{
    const char *ctx = strchr(id, '\004');
    return ctx ? ctx + 1 : id;
}

const char *msg_template(int lang, const char *id)
{
    const struct msg_entry *e = lang == MSG_EN ? NULL : find(lang, id);
    return e && e->forms[0][0] ? e->forms[0] : english(id);
}

const char *msg_lang_name(int lang)
{
    if (lang < 0 || lang >= msg_nlangs)
        return NULL;
    return msg_template(lang, MC("the language's name in itself", "English"));
}

int msg_lang_find(const char *word)
{
    for (int i = 0; i < msg_nlangs; i++)
        if (strcasecmp(word, msg_langs[i].code) == 0 ||
            strcasecmp(word, msg_lang_name(i)) == 0)
            return i;
    return -1;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* Appends template t with args filled in. */
static bool fill(struct strbuf *sb, const char *t, const struct msg_arg *args,
                 int nargs)
{
    while (*t) {
        const char *open = strchr(t, '{');
        if (!open)
            return strbuf_addstr(sb, t);
        strbuf_add(sb, t, (size_t)(open - t));
        if (open[1] == '{') {
            strbuf_addc(sb, '{');
            t = open + 2;
            continue;
        }
        const char *end = open + 1;
        while (name_char(*end))
            end++;
        const struct msg_arg *a = NULL;
        if (*end == '}' && end > open + 1)
            for (int i = 0; i < nargs && !a; i++)
                if (strlen(args[i].name) == (size_t)(end - open - 1) &&
                    memcmp(args[i].name, open + 1, (size_t)(end - open - 1)) ==
                        0)
                    a = &args[i];
        if (!a) { /* not a placeholder we fill: as written */
            strbuf_addc(sb, '{');
            t = open + 1;
            continue;
        }
        if (a->s)
            strbuf_addstr(sb, a->s);
        else
            strbuf_addf(sb, "%lld", a->i);
        t = end + 1;
    }
    return !sb->cut;
}

/* The arguments up to MSG_END (at most MSG_ARGS_MAX are used). */
static int collect(va_list ap, struct msg_arg *args)
{
    int n = 0;
    for (;;) {
        struct msg_arg a = va_arg(ap, struct msg_arg);
        if (!a.name)
            return n;
        if (n < MSG_ARGS_MAX)
            args[n++] = a;
    }
}

bool msg_vadd(struct strbuf *sb, int lang, const char *id, va_list ap)
{
    struct msg_arg args[MSG_ARGS_MAX];
    int n = collect(ap, args);
    return fill(sb, msg_template(lang, id), args, n);
}

bool msg_add(struct strbuf *sb, int lang, const char *id, ...)
{
    va_list ap;
    va_start(ap, id);
    bool ok = msg_vadd(sb, lang, id, ap);
    va_end(ap);
    return ok;
}

bool msg_vaddn(struct strbuf *sb, int lang, const char *one, const char *many,
               unsigned long n, va_list ap)
{
    struct msg_arg args[MSG_ARGS_MAX];
    int nargs = collect(ap, args);
    const char *t = n == 1 ? english(one) : many;
    const struct msg_entry *e = lang == MSG_EN ? NULL : find(lang, one);
    if (e && e->plural) {
        unsigned long k = msg_langs[lang].plural(n);
        if (k < (unsigned long)e->nforms && e->forms[k][0])
            t = e->forms[k];
    }
    return fill(sb, t, args, nargs);
}

bool msg_addn(struct strbuf *sb, int lang, const char *one, const char *many,
              unsigned long n, ...)
{
    va_list ap;
    va_start(ap, n);
    bool ok = msg_vaddn(sb, lang, one, many, n, ap);
    va_end(ap);
    return ok;
}
