/*
 * A table's life (life.h): opened, begun, stopped or over, closed.
 */
#include "bot/manager/life.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/manager/announce.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
#include "bot/manager/played.h"
#include "bot/manager/say.h"
#include "bot/manager/slow.h"
#include "storage/record/record.h"

void mgr_table_close(struct table *t)
{
    if (t->closing)
        return;
    mgr_table_cancel_all(t);
    mgr_journal_closed(t);
    t->closing = true;
    t->m->closing++;
}

static void lobby_expired(struct loop *l, void *ctx)
{
    (void)l;
    struct table *t = ctx;
    t->lobby_timer = 0;
    char text[300];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    msg_add(&sb, mgr_lang_room(t->m, t->a, t->room),
            M("The table closes: nobody started a game. !hearts opens "
              "another."),
            MSG_END);
    mgr_table_say(t, text);
    mgr_table_close(t);
}

struct table *mgr_table_open(struct manager *m, struct chat_adapter *a,
                             const char *room, const struct engine_rules *r,
                             const char *rules_text, int turn_timeout,
                             bool hints)
{
    if (m->ntables == m->captables) {
        m->captables = m->captables ? m->captables * 2 : 8;
        m->tables =
            xrealloc(m->tables, sizeof *m->tables * (size_t)m->captables);
    }
    struct table *t = xcalloc(1, sizeof *t);
    t->m = m;
    t->a = a;
    snprintf(t->room, sizeof t->room, "%s", room);
    t->rules = *r;
    snprintf(t->rules_text, sizeof t->rules_text, "%s", rules_text);
    t->capacity = r->players;
    t->opener = -1;
    t->prompted_seat = -1;
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = (uint64_t)loop_now(m->loop) * 2654435761u;
    engine_prng_seed(&t->rng, seed);
    uint64_t id;
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
        id = engine_prng_next(&t->rng);
    snprintf(t->game_id, sizeof t->game_id, "%016llx", (unsigned long long)id);
    t->turn_timeout = turn_timeout;
    t->hints = hints;
    /* a slow game's lobby waits as long as a turn */
    int lobby = m->cfg->lobby_timeout;
    if (mgr_slow(t) && turn_timeout > lobby)
        lobby = turn_timeout;
    t->lobby_timer =
        loop_timer(m->loop, (int64_t)lobby * 1000, lobby_expired, t);
    m->tables[m->ntables++] = t;
    int lost;
    if (mgr_journal_opened(t, &lost))
        mgr_table_journal_lost(t, lost);
    return t;
}

void mgr_table_begin(struct table *t)
{
    struct manager *m = t->m;
    for (int s = 0; s < t->capacity; s++)
        if (!t->seats[s].used)
            mgr_table_add_computer(t, m->ai_level);
    loop_cancel(m->loop, t->lobby_timer);
    t->lobby_timer = 0;
    t->playing = true;
    t->online = true;
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = engine_prng_next(&t->rng);
    int dealer = (int)engine_prng_below(&t->rng, (uint32_t)t->capacity);
    engine_game_init(&t->game, &t->rules, seed, dealer);
    const char *names[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < t->capacity; s++)
        names[s] = t->seats[s].nick;
    t->rec = record_writer_new(&t->rules, names, t->capacity);
    if (!t->rec)
        log_error("table %s: cannot record this game", t->room);
    else
        record_writer_set_hints(t->rec, t->hints);
    t->sink.emit = mgr_announce;
    t->sink.ctx = t;
}

void mgr_table_game_over(struct table *t)
{
    /* !stats of a person finds the key they played under, whatever
     * their nick now */
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && t->seats[s].key[0])
            played_add(t->m->played, t->a, t->seats[s].nick, t->seats[s].id,
                       t->seats[s].key);
    mgr_table_archive(t, true);
    mgr_table_close(t);
}

void mgr_table_stop(struct table *t, const char *why)
{
    mgr_table_say(t, why);
    /* archived unfinished: it counts for nobody; not a game whose
     * journal stays for the next start (a shutdown): it goes on then */
    if (t->playing && !t->closing && !(t->m->keep_journals && t->journal[0]))
        mgr_table_archive(t, false);
    mgr_table_close(t);
}
