/*
 * A data directory as text (datadir.h).
 */
#include "tests/upgrade/datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"

/* A growing text: the strbuf over a heap buffer big enough for any
 * fixture (a few KB). */
#define TEXT_MAX (1 << 20)

char *datadir_table_text(const struct table *t)
{
    char *buf = xmalloc(TEXT_MAX);
    struct strbuf b;
    strbuf_init(&b, buf, TEXT_MAX);
    const struct engine_game *g = &t->game;
    strbuf_addf(&b, "hand %d turn %d plays %d\n", (int)g->hand_no,
                engine_turn(g), (int)g->nplays);
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        strbuf_addf(&b, "seat %d %s %s%s key \"%s\" total %d cards", s,
                    st->nick, st->human ? "person" : "computer",
                    st->away ? " away" : "", st->key, (int)g->totals[s]);
        struct engine_cards h = engine_hand(g, s);
        for (int c = 0; c < 64; c++) {
            if (h.one >> c & 1)
                strbuf_addf(&b, " %s", engine_card_name(c));
            if (h.two >> c & 1)
                strbuf_addf(&b, " %s", engine_card_name(c));
        }
        strbuf_addstr(&b, "\n");
    }
    return buf;
}

char *datadir_boards_text(const struct stats *s)
{
    char *buf = xmalloc(TEXT_MAX);
    struct strbuf b;
    strbuf_init(&b, buf, TEXT_MAX);
    strbuf_addf(&b, "games %lld last %s\n", (long long)s->games,
                s->last.has ? s->last.game : "-");
    for (int i = 0; i < s->nboards; i++) {
        const struct stats_board *bd = &s->boards[i];
        strbuf_addf(&b, "board %s\n", bd->preset);
        for (int j = 0; j < bd->n; j++) {
            const struct stats_player *p = &bd->p[j];
            strbuf_addf(&b,
                        "  %s \"%s\" games %d wins %d hands %d points %lld "
                        "moons %d suns %d queens %d rating %.17g\n",
                        p->key, p->name, p->games, p->wins, p->hands,
                        (long long)p->points, p->moons, p->suns, p->queens,
                        p->rating);
        }
    }
    return buf;
}

static void field(struct strbuf *b, const char *name, const char *value)
{
    strbuf_addf(b, "%s %s\n", name, value ? value : "-");
}

char *datadir_session_text(const struct mx_session *s)
{
    char *buf = xmalloc(TEXT_MAX);
    struct strbuf b;
    strbuf_init(&b, buf, TEXT_MAX);
    field(&b, "homeserver", s->homeserver);
    field(&b, "user_id", s->user_id);
    field(&b, "access_token", s->access_token);
    field(&b, "device_id", s->device_id);
    field(&b, "since", s->since);
    strbuf_addf(&b, "txn_epoch %llu\n", (unsigned long long)s->txn_epoch);
    return buf;
}
