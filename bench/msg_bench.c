/*
 * msg-bench: the message catalogue's figures (docs/benchmarks.md): its
 * size per language, and the time to look a message up and fill it, per
 * language. The catalogue is compiled in (docs/translating.md), so there
 * is no loading at start to time: the first lookup costs what any does.
 * A benchmark, not a test: it prints, it asserts nothing about time.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bot/common/msg.h"
#include "bot/common/msg_data.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    printf("%-4s %8s %10s %14s\n", "lang", "messages", "text bytes",
           "ns per message");
    const struct msg_lang *en = &msg_langs[MSG_EN];
    for (int l = 0; l < msg_nlangs; l++) {
        const struct msg_lang *lang = &msg_langs[l];
        size_t bytes = 0;
        for (size_t i = 0; i < lang->n; i++)
            for (int f = 0; f < lang->entries[i].nforms; f++)
                bytes += strlen(lang->entries[i].forms[f]) + 1;
        /* every English message, filled, in this language */
        char buf[2048];
        struct strbuf sb;
        long n = 0;
        double t0 = now();
        for (int round = 0; round < 20000; round++)
            for (size_t i = 0; i < en->n; i++, n++) {
                strbuf_init(&sb, buf, sizeof buf);
                msg_add(&sb, l, en->entries[i].id, MSG_S("language", "Deutsch"),
                        MSG_S("choices", "en, de"), MSG_S("word", "xx"),
                        MSG_S("reason", "the disk is full"), MSG_END);
            }
        double ns = (now() - t0) * 1e9 / (double)n;
        printf("%-4s %8zu %10zu %14.0f\n", lang->code, lang->n, bytes, ns);
    }
    return 0;
}
