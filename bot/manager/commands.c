/*
 * What people type, and what the bot answers (shared/spec/chat.md): the
 * channel commands (prefix configurable), the private ones, the events of
 * people coming and going and changing nicks, and the wording of every
 * refusal. A refused command gets one short private reply and changes
 * nothing; everything secret goes only to its owner.
 */
#include "bot/manager/journal.h"
#include "bot/manager/manager.h"
#include "bot/manager/table.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "engine/ai/ai.h"
#include "bot/manager/limit.h"
#include "bot/manager/played.h"
#include "bot/manager/records.h"
#include "bot/common/log.h"
#include "bot/manager/render.h"

#define MAX_WORDS 16

/* One command being handled. */
struct cmd {
    struct manager *m;
    struct chat_adapter *a;
    const char *room; /* NULL when private */
    const struct chat_user *u;
    int nwords;
    char *words[MAX_WORDS];
    const char *rest;              /* the text after the command word */
    char shown[RENDER_SHOWN_SIZE]; /* the caller's display name or nick,
                                      cleaned */
    bool game; /* a seated player's game action: never limited */
    char storage[512];
};

/* Splits text into words (blank-separated) into c->storage. */
static void split_words(struct cmd *c, const char *text)
{
    snprintf(c->storage, sizeof c->storage, "%s", text);
    c->nwords = 0;
    char *p = c->storage;
    while (*p && c->nwords < MAX_WORDS) {
        while (*p && isspace((unsigned char)*p))
            *p++ = '\0';
        if (!*p)
            break;
        c->words[c->nwords++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
}

static void reply(const struct cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void reply(const struct cmd *c, const char *fmt, ...)
{
    char text[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* chatter waits behind the game's own lines */
    c->a->ops->tell(c->a, c->u->nick, text, c->game ? CHAT_NORMAL : CHAT_LOW);
}

static const char *prefix(const struct manager *m)
{
    return m->cfg->command_prefix;
}

/* The caller as the subject of a line in the room, and the verb to match:
 * "alice opens", or "You open" for one person at a terminal. */
static const char *subject(const struct cmd *c)
{
    return c->a->solo ? "You" : c->shown;
}

static const char *verb(const struct cmd *c, const char *third,
                        const char *second)
{
    return c->a->solo ? second : third;
}

/* ---- Who may do what -------------------------------------------------- */

/* Glob match, * and ?, case-insensitive (hostmasks). */
static bool glob(const char *p, const char *s)
{
    for (; *p; p++, s++) {
        if (*p == '*') {
            while (p[1] == '*')
                p++;
            if (!p[1])
                return true;
            for (; *s; s++)
                if (glob(p + 1, s))
                    return true;
            return false;
        }
        if (!*s)
            return false;
        if (*p != '?' &&
            tolower((unsigned char)*p) != tolower((unsigned char)*s))
            return false;
    }
    return !*s;
}

static bool is_admin(const struct manager *m, const struct chat_user *u)
{
    char mask[300];
    snprintf(mask, sizeof mask, "%s!%s", u->nick, u->id);
    for (int i = 0; i < m->cfg->nadmins; i++) {
        const char *a = m->cfg->admins[i];
        if (strncmp(a, "account:", 8) == 0) {
            if (u->account && strcasecmp(a + 8, u->account) == 0)
                return true;
        } else if (glob(a, mask) || strcmp(a, u->id) == 0) {
            return true;
        }
    }
    return false;
}

/* The seat this person holds at t, or -1. */
static int seat_of(const struct table *t, const struct chat_user *u)
{
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && same_person(t, s, u))
            return s;
    return -1;
}

/* The caller is named as their seat shows them (unique at the table). */
static void shown_as_seat(struct cmd *c, const struct table *t, int s)
{
    if (s >= 0)
        snprintf(c->shown, sizeof c->shown, "%s", seat_name(t, s));
}

/* ---- Rules text ------------------------------------------------------- */

/* The default rules of a room: its own from the config, else the bot's. */
static const char *room_rules(const struct manager *m,
                              const struct chat_adapter *a, const char *room)
{
    const char *rules = config_room_rules(m->cfg, a, room);
    return rules ? rules : m->cfg->default_rules;
}

/* What differs from the preset, after `lead` and before `end`: " with
 * target=50 hands=1"; nothing if nothing differs. */
static void rules_changes(struct sbuf *sb, const struct engine_rules *r,
                          const char *lead, const char *end)
{
    bool first = true;
    for (int o = 0; o < engine_option_count(); o++) {
        if (!engine_rules_differs(r, o) ||
            strcmp(engine_option_name(o), "players") == 0)
            continue;
        char v[ENGINE_OPTION_TEXT_MAX];
        engine_rules_get(r, o, v, sizeof v);
        sb_printf(sb, "%s %s=%s", first ? lead : "", engine_option_name(o), v);
        first = false;
    }
    if (!first)
        sb_printf(sb, "%s", end);
}

/* The rules in a few words, for one-line announcements: "standard for 4
 * with target=50". */
static void rules_short(struct sbuf *sb, const struct engine_rules *r)
{
    sb_printf(sb, "%s for %d", engine_preset_name(r->preset), r->players);
    rules_changes(sb, r, " with", "");
}

/* The full rules, for !rules: at most two IRC lines. */
static void describe_rules(struct sbuf *sb, const struct engine_rules *r)
{
    sb_printf(sb, "%s for %d players: %s.", engine_preset_name(r->preset),
              r->players, engine_preset_summary(r->preset));
    rules_changes(sb, r, " Changed here:", ".");
    sb_printf(sb, " Plays against the rules are refused, so the rules' "
                  "penalties never arise.");
}

/* The people seated: "alice, bob, bot1". */
static void seated_names(struct sbuf *sb, const struct table *t)
{
    bool first = true;
    for (int s = 0; s < t->capacity; s++) {
        if (!t->seats[s].used)
            continue;
        sb_printf(sb, "%s%s", first ? "" : ", ", seat_name(t, s));
        first = false;
    }
}

/* ---- Channel commands ------------------------------------------------- */

static void cmd_hearts(struct cmd *c)
{
    struct table *t = table_find(c->m, c->a, c->room);
    if (t) {
        struct sbuf sb = {.len = 0};
        sb_printf(&sb,
                  "%s here: ", t->playing ? "A game is on" : "A table is open");
        rules_short(&sb, &t->rules);
        sb_printf(&sb, "; ");
        seated_names(&sb, t);
        if (t->playing)
            sb_printf(&sb, ". %srules for the rules.", prefix(c->m));
        else
            sb_printf(&sb, " (%d/%d). %sjoin to sit down.", table_seated(t),
                      t->capacity, prefix(c->m));
        reply(c, "%s", sb.buf);
        return;
    }
    int seat;
    struct table *other = table_of_person(c->m, c->a, c->u->nick, &seat);
    if (other) {
        char label[256];
        reply(c,
              "You sit at the table in %s already; one table at a time "
              "on a network (!leave there first).",
              room_label(c->a, other->room, label, sizeof label));
        return;
    }
    const char *base = room_rules(c->m, c->a, c->room);
    char text[600];
    const char *args = c->rest;
    if (!*args)
        snprintf(text, sizeof text, "%s", base);
    else if (c->nwords > 1 && strchr(c->words[1], '=')) {
        /* the options typed replace the channel's of the same name */
        if (engine_rules_over(base, args, text, sizeof text)) {
            reply(c, "Those rules won't do: too many options.");
            return;
        }
    } else
        snprintf(text, sizeof text, "%s", args);
    struct engine_rules r;
    char err[300];
    if (engine_rules_parse(&r, text, 0, err, sizeof err)) {
        reply(c, "Those rules won't do: %s. !presets lists the presets.", err);
        return;
    }
    t = table_open(c->m, c->a, c->room, &r, text);
    table_sit(t, c->u);
    struct sbuf sb = {.len = 0};
    sb_printf(&sb, "%s %s a Hearts table: ", subject(c),
              verb(c, "opens", "open"));
    rules_short(&sb, &r);
    if (c->a->solo)
        sb_printf(&sb, ". Computer players take the other seats.");
    else
        sb_printf(&sb,
                  ". %sjoin to sit down, %sstart to deal (computers fill "
                  "empty seats).",
                  prefix(c->m), prefix(c->m));
    table_say(t, sb.buf);
    table_storage_ok(t, false);
}

static struct table *need_table(struct cmd *c)
{
    struct table *t = table_find(c->m, c->a, c->room);
    if (!t)
        reply(c, "No table here. %shearts opens one.", prefix(c->m));
    return t;
}

static void cmd_join(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (seat_of(t, c->u) >= 0) {
        reply(c, "You are seated here already.");
        return;
    }
    if (t->playing) {
        reply(c, "A game is in progress here; you can watch, or join the "
                 "next one.");
        return;
    }
    int seat;
    struct table *other = table_of_person(c->m, c->a, c->u->nick, &seat);
    if (other) {
        char label[256];
        reply(c,
              "You sit at the table in %s already; one table at a time "
              "on a network (!leave there first).",
              room_label(c->a, other->room, label, sizeof label));
        return;
    }
    int sat = table_sit(t, c->u);
    if (sat < 0) {
        reply(c, "The table is full (%d seats).", t->capacity);
        return;
    }
    shown_as_seat(c, t, sat);
    char text[800];
    snprintf(text, sizeof text, "%s %s down (%d/%d).%s", subject(c),
             verb(c, "sits", "sit"), table_seated(t), t->capacity,
             table_seated(t) == t->capacity ? " The table is full: !start."
                                            : "");
    table_say(t, text);
}

static void cmd_leave(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    int s = seat_of(t, c->u);
    if (s < 0) {
        reply(c, "You are not seated here.");
        return;
    }
    shown_as_seat(c, t, s);
    char text[800];
    if (!t->playing) {
        table_stand(t, s);
        snprintf(text, sizeof text, "%s %s up (%d/%d).", subject(c),
                 verb(c, "stands", "stand"), table_seated(t), t->capacity);
        table_say(t, text);
        if (table_humans(t) == 0) {
            table_say(t, "Nobody is left at the table; it closes.");
            table_close(t);
        }
        return;
    }
    /* leaving a running game: a computer player takes the seat for good */
    struct seat *st = &t->seats[s];
    st->human = false;
    st->level = t->m->ai_level;
    snprintf(text, sizeof text,
             "%s %s the game; a computer player takes the seat.", subject(c),
             verb(c, "leaves", "leave"));
    table_say(t, text);
    if (table_humans(t) == 0) {
        table_stop(t, "Nobody is left at the table: the game ends "
                      "unscored.");
        return;
    }
    table_resume(t);
}

static void cmd_bot(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (seat_of(t, c->u) < 0) {
        reply(c, "Sit down first (!join) to add computer players.");
        return;
    }
    if (t->playing) {
        reply(c, "The game has begun; computer players fill seats at "
                 "!start.");
        return;
    }
    int count = 1, level = c->m->ai_level;
    for (int i = 1; i < c->nwords; i++) {
        const char *w = c->words[i];
        if (isdigit((unsigned char)w[0])) {
            long v = strtol(w, NULL, 10);
            if (v < 1 || v > ENGINE_MAX_PLAYERS) {
                reply(c, "How many? 1 to %d.", t->capacity);
                return;
            }
            count = (int)v;
        } else if ((level = ai_level_find(w)) < 0) {
            reply(c, "Unknown level '%s': random, easy, normal or hard.", w);
            return;
        }
    }
    if (count > t->capacity - table_seated(t)) {
        reply(c, "Only %d seat%s free.", t->capacity - table_seated(t),
              t->capacity - table_seated(t) == 1 ? " is" : "s are");
        return;
    }
    for (int i = 0; i < count; i++)
        table_add_computer(t, level);
    char text[800];
    snprintf(text, sizeof text, "%d computer player%s (%s) sit%s down (%d/%d).",
             count, count == 1 ? "" : "s", ai_level_name(level),
             count == 1 ? "s" : "", table_seated(t), t->capacity);
    table_say(t, text);
}

static void cmd_start(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (t->playing) {
        reply(c, "The game is already running.");
        return;
    }
    int s = seat_of(t, c->u);
    if (s < 0) {
        reply(c, "Sit down first (!join).");
        return;
    }
    if (s != t->opener && table_seated(t) < t->capacity) {
        reply(c,
              "Only %s, who opened the table, can start it before every "
              "seat is taken.",
              seat_name(t, t->opener));
        return;
    }
    table_start(t);
}

static void cmd_stop(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    int s = seat_of(t, c->u);
    shown_as_seat(c, t, s);
    bool admin = is_admin(c->m, c->u);
    if (admin || (s >= 0 && s == t->opener)) {
        char text[800];
        snprintf(text, sizeof text, "%s %s the %s.", subject(c),
                 verb(c, "stops", "stop"),
                 t->playing ? "game: it ends unscored" : "table");
        table_stop(t, text);
        return;
    }
    if (s < 0 || !t->playing) {
        reply(c, "Only the opener, most of the players, or an admin can "
                 "stop it.");
        return;
    }
    t->seats[s].stop_vote = true;
    int votes = 0, humans = 0;
    for (int i = 0; i < t->capacity; i++) {
        if (t->seats[i].used && t->seats[i].human && !t->seats[i].away) {
            humans++;
            votes += t->seats[i].stop_vote;
        }
    }
    if (votes * 2 > humans) {
        table_stop(t, "Most players voted to stop: the game ends unscored.");
        return;
    }
    char text[800];
    snprintf(text, sizeof text, "%s votes to stop the game (%d of %d).",
             c->shown, votes, humans);
    table_say(t, text);
}

static void status_text(struct sbuf *sb, struct table *t)
{
    char label[256];
    sb_printf(sb, "Table at %s: %s. ",
              room_label(t->a, t->room, label, sizeof label), t->rules_text);
    if (!t->playing) {
        sb_printf(sb, "Waiting to start (%d/%d):", table_seated(t),
                  t->capacity);
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used)
                sb_printf(sb, " %s", seat_name(t, s));
        sb_printf(sb, ".");
        return;
    }
    const struct engine_game *g = &t->game;
    sb_printf(sb, "Hand %d, trick %d. Scores: ", g->hand_no, g->trick_no + 1);
    table_scoreline(t, sb);
    int turn = engine_turn(g);
    if (engine_phase(g) == ENGINE_PHASE_PASS) {
        sb_printf(sb, ". Passing; waiting for:");
        for (int s = 0; s < g->n; s++) {
            if (engine_may_act(g, s)) {
                sb_printf(sb, " ");
                sb_seat(sb, t, s, false);
            }
        }
    } else if (turn >= 0) {
        sb_printf(sb, ". ");
        sb_seat(sb, t, turn, false);
        sb_printf(sb, " to play");
        if (g->trick_len) {
            sb_printf(sb, "; on the trick:");
            for (int i = 0; i < g->trick_len; i++) {
                sb_printf(sb, " ");
                sb_card(sb, t, g->trick[i]);
            }
        }
    }
    sb_printf(sb, ".");
}

/* Where the answer to !status or !scores goes. */
enum echo { ECHO_ROOM, ECHO_PRIVATE, ECHO_NONE };
enum { ECHO_STATUS, ECHO_SCORES };

/* A channel !status or !scores said in the room within channel_repeat
 * seconds is not said there again: the asker is told privately, or, if
 * they asked last time, not at all. Twenty !status would otherwise be
 * twenty channel lines naming every player. */
static enum echo echo_at(struct cmd *c, int64_t *at, char *by, size_t bylen)
{
    if (!c->room)
        return ECHO_PRIVATE;
    int64_t now = loop_now(c->m->loop);
    int64_t window = c->m->cfg->channel_repeat * 1000LL;
    if (*at && now - *at < window)
        return strcmp(by, c->u->id) == 0 ? ECHO_NONE : ECHO_PRIVATE;
    *at = now;
    snprintf(by, bylen, "%s", c->u->id);
    return ECHO_ROOM;
}

static enum echo echo(struct cmd *c, struct table *t, int which)
{
    return echo_at(c, &t->echo_at[which], t->echo_by[which],
                   sizeof t->echo_by[which]);
}

static void last_sheet(struct cmd *c);

static void cmd_status(struct cmd *c)
{
    struct table *t = c->room ? table_find(c->m, c->a, c->room) : NULL;
    int seat;
    if (!t && !c->room)
        t = table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t) {
        reply(c, "No table here. %shearts opens one.", prefix(c->m));
        return;
    }
    enum echo where = echo(c, t, ECHO_STATUS);
    if (where == ECHO_NONE)
        return;
    struct sbuf sb = {.len = 0};
    status_text(&sb, t);
    if (where == ECHO_ROOM)
        table_say(t, sb.buf);
    else
        reply(c, "%s", sb.buf);
}

static void cmd_scores(struct cmd *c)
{
    struct table *t = c->room ? table_find(c->m, c->a, c->room) : NULL;
    int seat;
    if (!t && !c->room)
        t = table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !t->playing) {
        last_sheet(c);
        return;
    }
    enum echo where = echo(c, t, ECHO_SCORES);
    if (where == ECHO_NONE)
        return;
    table_send_scores(t, where == ECHO_ROOM ? NULL : c->u->nick);
}

static void cmd_rules(struct cmd *c)
{
    struct sbuf sb = {.len = 0};
    if (c->nwords > 1) {
        struct engine_rules r;
        char err[300];
        if (engine_rules_parse(&r, c->words[1], 0, err, sizeof err)) {
            reply(c, "%s", err);
            return;
        }
        describe_rules(&sb, &r);
    } else {
        struct table *t = c->room ? table_find(c->m, c->a, c->room) : NULL;
        int seat;
        if (!t && !c->room)
            t = table_of_person(c->m, c->a, c->u->nick, &seat);
        struct engine_rules r;
        char err[300];
        if (t)
            r = t->rules;
        else if (engine_rules_parse(&r,
                                    c->room ? room_rules(c->m, c->a, c->room)
                                            : c->m->cfg->default_rules,
                                    0, err, sizeof err))
            return;
        describe_rules(&sb, &r);
    }
    reply(c, "%s", sb.buf);
}

static void cmd_presets(struct cmd *c)
{
    struct sbuf sb = {.len = 0};
    sb_printf(&sb, "Presets:");
    for (int p = 0; p < engine_preset_count(); p++) {
        int lo, hi;
        engine_preset_players(p, &lo, &hi);
        if (lo == hi)
            sb_printf(&sb, "%s %s (%d)", p ? "," : "", engine_preset_name(p),
                      lo);
        else
            sb_printf(&sb, "%s %s (%d-%d)", p ? "," : "", engine_preset_name(p),
                      lo, hi);
    }
    sb_printf(&sb,
              ". %srules NAME tells one; %shearts NAME KEY=VALUE opens "
              "a table.",
              prefix(c->m), prefix(c->m));
    reply(c, "%s", sb.buf);
}

/* ---- Leaderboards (records.h) ---------------------------------------- */

/* The room a leaderboard command is about: the channel, or privately the
 * one where the asker sits; NULL after a reply. */
static struct records_room *asked_room(struct cmd *c)
{
    if (c->room)
        return records_room(c->m, c->a, c->room);
    int seat;
    struct table *t = table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t) {
        reply(c, "Ask in the channel (%stop there).", prefix(c->m));
        return NULL;
    }
    return records_room(c->m, c->a, t->room);
}

/* Says an answer's lines in the room (damped as !status is) or tells
 * them to the asker. */
static void answer(struct cmd *c, struct records_room *r, int which,
                   const char *text)
{
    enum echo where = echo_at(c, &r->echo_at[which], r->echo_by[which],
                              sizeof r->echo_by[which]);
    if (where == ECHO_NONE)
        return;
    char *buf = strdup(text);
    if (!buf)
        abort();
    for (char *line = buf, *nl; line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        if (where == ECHO_ROOM)
            c->a->ops->say(c->a, r->room, line, CHAT_LOW);
        else
            reply(c, "%s", line);
    }
    free(buf);
}

/* !scores with no game running: the last finished game's sheet. */
static void last_sheet(struct cmd *c)
{
    struct records_room *r = asked_room(c);
    if (!r)
        return;
    char text[2048];
    int n = snprintf(text, sizeof text,
                     "No game is running here; the last game's sheet:\n");
    if (!records_sheet(r, c->room != NULL, c->a->style, text + n,
                       sizeof text - (size_t)n)) {
        reply(c, "No game is running here.");
        return;
    }
    answer(c, r, 3, text);
}

/* The preset of the room's default rules: the board shown without one. */
static const char *default_preset(const struct cmd *c,
                                  const struct records_room *r)
{
    struct engine_rules rules;
    if (engine_rules_parse(&rules, room_rules(c->m, c->a, r->room), 0, NULL, 0))
        return "standard";
    return engine_preset_name(rules.preset);
}

static void cmd_top(struct cmd *c)
{
    struct records_room *r = asked_room(c);
    if (!r)
        return;
    const char *n = NULL, *preset = NULL;
    for (int i = 1; i < c->nwords && i < 3; i++) {
        if (isdigit((unsigned char)c->words[i][0]) || c->words[i][0] == '-')
            n = c->words[i];
        else
            preset = c->words[i];
    }
    struct sbuf sb = {.len = 0};
    if (!records_top(r, n, preset, default_preset(c, r), &sb)) {
        reply(c, "%s", sb.buf);
        return;
    }
    answer(c, r, 0, sb.buf);
}

static void cmd_stats(struct cmd *c)
{
    struct records_room *r = asked_room(c);
    if (!r)
        return;
    const char *name = c->nwords > 1 ? c->words[1] : NULL;
    const char *preset = c->nwords > 2 ? c->words[2] : NULL;
    struct sbuf sb = {.len = 0};
    if (!records_stats(r, c->m->played, c->u, name, preset,
                       default_preset(c, r), &sb)) {
        reply(c, "%s", sb.buf);
        return;
    }
    answer(c, r, 1, sb.buf);
}

static void cmd_last(struct cmd *c)
{
    struct records_room *r = asked_room(c);
    if (!r)
        return;
    struct sbuf sb = {.len = 0};
    records_last(r, (int64_t)time(NULL), &sb);
    answer(c, r, 2, sb.buf);
}

static void cmd_pass_in_channel(struct cmd *c)
{
    reply(c, "Passed cards are secret: tell me privately, \"pass C1 C2 "
             "C3\".");
}

/* ---- Playing ---------------------------------------------------------- */

/* The seated person's table, or NULL after a reply saying why. */
static struct table *my_table(struct cmd *c, int *seat)
{
    struct table *t;
    if (c->room) {
        t = table_find(c->m, c->a, c->room);
        if (!t || (*seat = seat_of(t, c->u)) < 0) {
            reply(c, "You are not playing at this table.");
            return NULL;
        }
    } else {
        t = table_of_person(c->m, c->a, c->u->nick, seat);
        if (!t) {
            reply(c, "You are not at a table. %s%s", prefix(c->m),
                  c->a->solo ? "hearts opens one." : "join one in a channel.");
            return NULL;
        }
        if (!same_person(t, *seat, c->u)) {
            reply(c, "That seat belongs to someone else who had your nick.");
            return NULL;
        }
    }
    if (!t->playing) {
        char label[256];
        reply(c, "The game at %s has not started yet.",
              room_label(t->a, t->room, label, sizeof label));
        return NULL;
    }
    if (t->seats[*seat].away) {
        reply(c, "A computer player has your seat: tell me \"back\" to take "
                 "it again.");
        return NULL;
    }
    return t;
}

static void explain(struct cmd *c, struct table *t, enum engine_refusal why,
                    const struct engine_refusal_detail *d)
{
    struct sbuf card = {.len = 0};
    if (d->card >= 0 && d->card < 64 && engine_card_valid(d->card))
        sb_card(&card, t, d->card);
    const struct engine_game *g = &t->game;
    switch (why) {
    case ENGINE_REFUSE_NOT_YOUR_TURN:
        reply(c, "Not your turn: %s plays now.",
              d->seat >= 0 ? seat_name(t, d->seat) : "someone else");
        break;
    case ENGINE_REFUSE_WRONG_PHASE:
        if (engine_phase(g) == ENGINE_PHASE_PASS)
            reply(c, "Cards are being passed: \"pass\" and %d cards.",
                  t->rules.pass_count);
        else if (engine_phase(g) == ENGINE_PHASE_PLAY)
            reply(c, "We are playing tricks now: \"play\" a card.");
        else
            reply(c, "Not now.");
        break;
    case ENGINE_REFUSE_ALREADY_PASSED:
        reply(c, "You have passed already.");
        break;
    case ENGINE_REFUSE_NOT_IN_HAND:
        reply(c, "You don't hold %s.", card.buf);
        break;
    case ENGINE_REFUSE_BAD_CARD:
        reply(c, "%s is not in this game's pack.", card.buf);
        break;
    case ENGINE_REFUSE_DUPLICATE_CARD:
        reply(c, "You named %s twice.", card.buf);
        break;
    case ENGINE_REFUSE_PASS_COUNT:
        reply(c, "Name exactly %d cards.", d->count);
        break;
    case ENGINE_REFUSE_BLIND_NOT_ALLOWED:
        reply(c, "Blind passing is not allowed here.");
        break;
    case ENGINE_REFUSE_MUST_FOLLOW:
        reply(c, "You must follow suit: %s.", render_suit_name(d->suit));
        break;
    case ENGINE_REFUSE_HEARTS_NOT_BROKEN:
        reply(c, "Hearts are not broken yet: lead another suit.");
        break;
    case ENGINE_REFUSE_FIRST_TRICK_POINTS:
        reply(c, "No points on the first trick: play a card without "
                 "points.");
        break;
    case ENGINE_REFUSE_MUST_LEAD_CARD:
        reply(c, "You must lead %s.", card.buf);
        break;
    case ENGINE_REFUSE_MUST_DUMP_QUEEN:
        reply(c,
              "You must play %s now (the queen goes at the first safe "
              "chance).",
              card.buf);
        break;
    case ENGINE_REFUSE_MUST_LEAD_QUEEN:
        reply(c, "Hearts are not broken: lead %s.", card.buf);
        break;
    case ENGINE_REFUSE_BAD_MOON_CHOICE:
        reply(c, "Say \"moon add\" or \"moon subtract\".");
        break;
    case ENGINE_REFUSE_NOT_SHOOTER:
        reply(c, "Only the shooter chooses.");
        break;
    default:
        reply(c, "That won't do: %s.", engine_refusal_text(why));
        break;
    }
}

/* Scans the cards in words[from..], blank- or comma-separated ("KS,AS,
 * KC"), into out (up to max; out may be NULL to count). Returns how many,
 * -1 at a word that is no card (*bad and *badlen name it), or -2 when
 * there are more than max. */
static int scan_cards(const struct cmd *c, int from, uint8_t *out, int max,
                      const char **bad, size_t *badlen)
{
    int n = 0;
    for (int i = from; i < c->nwords; i++) {
        for (const char *w = c->words[i]; *w;) {
            size_t len = strcspn(w, ",");
            int card;
            if (len > 0) {
                if (engine_card_parse(w, len, &card)) {
                    *bad = w;
                    *badlen = len;
                    return -1;
                }
                if (n == max)
                    return -2;
                if (out)
                    out[n] = (uint8_t)card;
                n++;
            }
            w += len;
            w += *w == ',';
        }
    }
    return n;
}

/* Reads cards from words[from..]; replies and returns -1 on a bad one. */
static int read_cards(struct cmd *c, int from, uint8_t *out, int max)
{
    const char *bad = NULL;
    size_t len = 0;
    int n = scan_cards(c, from, out, max, &bad, &len);
    if (n == -1)
        reply(c,
              "'%.*s' is not a card: write them like QS, 10h, t♦ or "
              "Q♠.",
              (int)(len > 40 ? 40 : len), bad);
    else if (n == -2)
        reply(c, "Too many cards.");
    return n < 0 ? -1 : n;
}

static void do_action(struct cmd *c, struct table *t, int seat,
                      struct engine_action *a)
{
    struct engine_refusal_detail d;
    enum engine_refusal why = table_act(t, seat, a, &d);
    if (why)
        explain(c, t, why, &d);
}

/* A private play before one's turn: kept, and played at the turn if it
 * is legal then. Returns false (nothing done) if it is no such play. */
static bool queue_play(struct cmd *c, struct table *t, int seat, int card)
{
    const struct engine_game *g = &t->game;
    struct engine_cards hand = engine_hand(g, seat);
    if (c->room || engine_phase(g) != ENGINE_PHASE_PLAY ||
        engine_turn(g) == seat || !((hand.one | hand.two) & ENGINE_BIT(card)))
        return false;
    struct seat *st = &t->seats[seat];
    st->queued = true;
    st->queued_card = (uint8_t)card;
    struct sbuf sb = {.len = 0};
    sb_card(&sb, t, card);
    reply(c,
          "Not your turn yet: %s plays now. I'll play %s for you at your "
          "turn if it is legal then (\"play none\" to take it back).",
          seat_name(t, engine_turn(g)), sb.buf);
    return true;
}

static void cmd_play(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    if (c->nwords == 2 && strcasecmp(c->words[1], "none") == 0) {
        reply(c, t->seats[seat].queued ? "Taken back: I'll ask you at your "
                                         "turn."
                                       : "No card was waiting.");
        t->seats[seat].queued = false;
        return;
    }
    uint8_t cards[ENGINE_MAX_ACT_CARDS];
    int n = read_cards(c, 1, cards, 1);
    if (n < 0)
        return;
    if (n != 1) {
        reply(c, "Play which card? Like \"play QS\".");
        return;
    }
    if (queue_play(c, t, seat, cards[0]))
        return;
    struct engine_action a = {.kind = ENGINE_ACT_PLAY, .ncards = 1};
    a.cards[0] = cards[0];
    do_action(c, t, seat, &a);
}

static void cmd_autoplay(struct cmd *c)
{
    static const char *const modes[] = {"last", "on", "off"};
    static const char *const meaning[] = {
        "I play the last card of each hand for you",
        ("I play the last card of each hand, and every card that is your "
         "only legal one, for you"),
        "I always ask you"};
    int seat;
    struct table *t = table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !same_person(t, seat, c->u)) {
        reply(c, "You are not at a table. %sjoin one in a channel.",
              prefix(c->m));
        return;
    }
    struct seat *st = &t->seats[seat];
    if (c->nwords > 1) {
        int k = 0;
        while (k < 3 && strcasecmp(c->words[1], modes[k]) != 0)
            k++;
        if (k == 3) {
            reply(c, "autoplay on, off or last.");
            return;
        }
        st->autoplay = (enum seat_autoplay)k;
    }
    reply(c, "Autoplay %s: %s (this game).", modes[st->autoplay],
          meaning[st->autoplay]);
}

static void cmd_pass(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_PASS};
    if (c->nwords == 2 && strcasecmp(c->words[1], "blind") == 0) {
        a.kind = ENGINE_ACT_PASS_BLIND;
    } else {
        int n = read_cards(c, 1, a.cards, ENGINE_MAX_ACT_CARDS);
        if (n < 0)
            return;
        a.ncards = (uint8_t)n;
    }
    do_action(c, t, seat, &a);
}

static void cmd_discard(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_DISCARD};
    int n = read_cards(c, 1, a.cards, ENGINE_MAX_ACT_CARDS);
    if (n < 0)
        return;
    a.ncards = (uint8_t)n;
    do_action(c, t, seat, &a);
}

static void cmd_moon(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_MOON};
    const char *w = c->nwords > 1 ? c->words[1] : "";
    if (strcasecmp(w, "add") == 0)
        a.moon = ENGINE_MOON_ADD_OTHERS;
    else if (strcasecmp(w, "subtract") == 0 || strcasecmp(w, "sub") == 0)
        a.moon = ENGINE_MOON_SUBTRACT;
    else {
        reply(c, "Say \"moon add\" or \"moon subtract\".");
        return;
    }
    do_action(c, t, seat, &a);
}

static void cmd_hand(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    const struct engine_game *g = &t->game;
    struct engine_cards hand = engine_hand(g, seat);
    if (!hand.one && !hand.two) {
        /* the hand is over (the next deal, or a moon choice, is due) */
        if (engine_phase(g) == ENGINE_PHASE_MOON && engine_may_act(g, seat))
            reply(c,
                  "You hold no cards: the hand is over and you shot the %s. "
                  "Tell me \"moon subtract\" or \"moon add\".",
                  g->moon_sun ? "sun" : "moon");
        else
            reply(c, "You hold no cards until the next deal.");
        return;
    }
    struct sbuf sb = {.len = 0};
    /* while the others choose, the cards passed are no longer ours */
    bool passing =
        engine_phase(g) == ENGINE_PHASE_PASS && !engine_may_act(g, seat);
    if (passing && !(g->blind_mask >> seat & 1))
        for (int i = 0; i < t->rules.pass_count && i < ENGINE_MAX_ACT_CARDS;
             i++) {
            uint64_t bit = ENGINE_BIT(g->pass_cards[seat][i]);
            if (hand.two & bit)
                hand.two &= ~bit;
            else
                hand.one &= ~bit;
        }
    sb_printf(&sb, "Your hand: ");
    uint64_t legal = engine_turn(g) == seat ? engine_legal_plays(g) : 0;
    sb_hand(&sb, t, &hand, legal);
    if (legal)
        sb_printf(&sb, " (your turn: the marked cards are playable)");
    if (passing) {
        sb_printf(&sb, " (");
        table_sb_passing(t, seat, &sb);
        sb_printf(&sb, ")");
    }
    if (t->seats[seat].queued) {
        sb_printf(&sb, " (waiting to play ");
        sb_card(&sb, t, t->seats[seat].queued_card);
        sb_printf(&sb, ")");
    }
    reply(c, "%s", sb.buf);
}

static void cmd_back(struct cmd *c)
{
    int seat;
    struct table *t = table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !same_person(t, seat, c->u)) {
        reply(c, "You have no seat to come back to.");
        return;
    }
    if (!t->seats[seat].away && !t->seats[seat].gone) {
        reply(c, "You are playing already.");
        return;
    }
    shown_as_seat(c, t, seat);
    char text[800];
    snprintf(text, sizeof text, "%s %s back.", subject(c),
             verb(c, "is", "are"));
    table_say(t, text);
    table_back(t, seat);
}

/* ---- Help and dispatch ------------------------------------------------ */

struct command {
    const char *name;
    void (*fn)(struct cmd *c);
    bool in_room;
    bool in_private;
    const char *help;
};

static void cmd_help(struct cmd *c);

static const struct command commands[] = {
    {"hearts", cmd_hearts, true, false,
     "hearts [PRESET] [KEY=VALUE ...]: open a table here (or show it)"},
    {"join", cmd_join, true, false, "join: take a seat before the start"},
    {"leave", cmd_leave, true, false,
     "leave: give up your seat (in a game: a computer takes it)"},
    {"bot", cmd_bot, true, false, "bot [N] [LEVEL]: add computer players"},
    {"start", cmd_start, true, false,
     "start: deal (empty seats get computer players)"},
    {"stop", cmd_stop, true, false,
     "stop: end the game unscored (opener, most players, or an admin)"},
    {"status", cmd_status, true, true, "status: the table in a line"},
    {"scores", cmd_scores, true, true, "scores: the score sheet"},
    {"top", cmd_top, true, true, "top [N] [PRESET]: the leaderboard"},
    {"stats", cmd_stats, true, true, "stats [NAME] [PRESET]: a record"},
    {"last", cmd_last, true, true, "last: the last finished game"},
    {"rules", cmd_rules, true, true, "rules [PRESET]: the rules"},
    {"presets", cmd_presets, true, true, "presets: the presets"},
    {"help", cmd_help, true, true, "help [COMMAND]: this help"},
    {"play", cmd_play, true, true, "play CARD (or just CARD, privately)"},
    {"pass", cmd_pass_in_channel, true, false, NULL},
    {"pass", cmd_pass, false, true,
     "pass C1 C2 C3 (privately): the cards to pass"},
    {"hand", cmd_hand, false, true, "hand (privately): your cards"},
    {"moon", cmd_moon, false, true,
     "moon add | moon subtract (privately): after shooting the moon"},
    {"discard", cmd_discard, false, true,
     "discard C1 C2 (privately): the kitty exchange"},
    {"back", cmd_back, false, true,
     "back (privately): take your seat back from a computer"},
    {"autoplay", cmd_autoplay, false, true,
     "autoplay on|off|last (privately): on plays every forced card for "
     "you, last (the default) only the last card of a hand, off none"},
};

static void cmd_help(struct cmd *c)
{
    const char *p = prefix(c->m);
    if (c->nwords > 1) {
        const char *w = c->words[1];
        if (strncmp(w, p, strlen(p)) == 0)
            w += strlen(p);
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
            if (!commands[i].help || strcasecmp(commands[i].name, w) != 0)
                continue;
            struct sbuf sb = {.len = 0};
            if (c->a->solo && commands[i].in_private) {
                /* at a terminal everything is "private": not worth saying */
                sb_printf(&sb, "%s", commands[i].help);
                static const char *const noise[] = {" (privately)",
                                                    ", privately"};
                for (int k = 0; k < 2; k++) {
                    char *at = strstr(sb.buf, noise[k]);
                    if (at)
                        memmove(at, at + strlen(noise[k]),
                                strlen(at + strlen(noise[k])) + 1);
                }
                sb.len = strlen(sb.buf);
            } else {
                sb_printf(&sb, "%s%s", commands[i].in_room ? p : "",
                          commands[i].help);
            }
            if (commands[i].fn == cmd_bot) {
                sb_printf(&sb, ". Levels:");
                for (int l = 0; l < AI_LEVEL_COUNT; l++)
                    sb_printf(&sb, "%s %s", l ? "," : "", ai_level_name(l));
                sb_printf(&sb, " (%s unless named)",
                          ai_level_name(c->m->ai_level));
            }
            reply(c, "%s", sb.buf);
            return;
        }
        reply(c, "No command '%.30s'. %shelp lists them.", w, p);
        return;
    }
    /* every command, from the table, so none is left out */
    struct sbuf sb = {.len = 0};
    if (c->a->solo) {
        /* one person at a terminal: what they type, nothing of channels */
        sb_printf(&sb, "Type a card to play it (QS, 10h, t♦), or: hand, pass "
                       "C1 C2 C3");
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
            const struct command *k = &commands[i];
            if (k->in_private && k->help && strcmp(k->name, "hand") &&
                strcmp(k->name, "pass") && strcmp(k->name, "back") &&
                strcmp(k->name, "top") && strcmp(k->name, "stats"))
                sb_printf(&sb, ", %s", k->name);
        }
        sb_printf(&sb,
                  ". %sstop ends the game, %shearts [PRESET] opens a new "
                  "table, %sstart deals. help COMMAND for one.",
                  p, p, p);
        reply(c, "%s", sb.buf);
        return;
    }
    sb_printf(&sb,
              "Hearts: %shearts opens a table, %sjoin sits down, %sstart "
              "deals. In the channel also:",
              p, p, p);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const struct command *k = &commands[i];
        if (k->in_room && k->help && strcmp(k->name, "hearts") &&
            strcmp(k->name, "join") && strcmp(k->name, "start"))
            sb_printf(&sb, " %s%s", p, k->name);
    }
    sb_printf(&sb, ". Privately: hand, pass C1 C2 C3, play CARD (or just "
                   "CARD)");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const struct command *k = &commands[i];
        if (k->in_private && !k->in_room && k->help &&
            strcmp(k->name, "hand") && strcmp(k->name, "pass"))
            sb_printf(&sb, ", %s", k->name);
    }
    sb_printf(&sb, ". %shelp COMMAND for one.", p);
    reply(c, "%s", sb.buf);
}

/* The command nearest to an unknown word, or NULL if none is near. */
static const struct command *nearest_command(const char *w)
{
    const struct command *best = NULL;
    int bestd = 3; /* two typos at most */
    size_t len = strlen(w);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        int d = engine_word_distance(w, len, commands[i].name, true);
        if (d < bestd && (size_t)d < len) {
            bestd = d;
            best = &commands[i];
        }
    }
    return best;
}

/* An unknown private command: the nearest one, or help. */
static void unknown(struct cmd *c, const char *w)
{
    const struct command *k = nearest_command(w);
    if (!k) {
        reply(c, "I don't know '%.30s'. Try \"help\".", w);
        return;
    }
    bool room_only = !k->in_private;
    reply(c, "I don't know '%.30s' — did you mean '%s%s'%s?", w,
          room_only ? prefix(c->m) : "", k->name,
          room_only ? " (in the channel)" : "");
}

/* The command the first word names, here (room or private), or NULL. */
static const struct command *find_command(const struct cmd *c)
{
    for (size_t i = 0;
         c->nwords > 0 && i < sizeof commands / sizeof commands[0]; i++) {
        const struct command *k = &commands[i];
        if (strcasecmp(k->name, c->words[0]) == 0 &&
            (c->room ? k->in_room : k->in_private))
            return k;
    }
    return NULL;
}

static void dispatch(struct cmd *c)
{
    if (c->nwords == 0)
        return;
    const char *w = c->words[0];
    const struct command *k = find_command(c);
    /* a command of the other kind here (a channel command privately) */
    bool room_only = false;
    for (size_t i = 0; !k && i < sizeof commands / sizeof commands[0]; i++)
        if (strcasecmp(commands[i].name, w) == 0)
            room_only = !c->room;
    if (k) {
        k->fn(c);
        return;
    }
    if (!c->room) {
        /* privately, a bare card is a play */
        int card;
        if (c->nwords == 1 && engine_card_parse(w, strlen(w), &card) == 0) {
            char text[64];
            snprintf(text, sizeof text, "play %s", w);
            split_words(c, text);
            cmd_play(c);
            return;
        }
        if (room_only)
            reply(c, "%s%s works in the channel of the table: say it there.",
                  prefix(c->m), w);
        else
            unknown(c, w);
    }
    /* unknown channel commands are left to other bots */
}

/* Whether words[from..] are one or more cards (commas allowed). */
static bool words_are_cards(const struct cmd *c, int from)
{
    const char *bad;
    size_t len;
    return scan_cards(c, from, NULL, ENGINE_MAX_CARDS, &bad, &len) > 0;
}

/* "pass QS KS AS" or "play QS" said in the channel by a player of its
 * table, without the prefix: meant for the bot privately. A private hint
 * that does not repeat the cards. */
static enum limit_verdict person_verdict(const struct cmd *c, const char *text,
                                         bool quiet_repeats);

static void said_in_channel_by_mistake(struct cmd *c, const char *text)
{
    if (c->nwords < 2 || !words_are_cards(c, 1))
        return;
    bool pass = strcasecmp(c->words[0], "pass") == 0;
    if (!pass && strcasecmp(c->words[0], "play") != 0)
        return;
    struct table *t = table_find(c->m, c->a, c->room);
    if (!t || !t->playing || seat_of(t, c->u) < 0)
        return;
    /* a hint nobody asked for: never more often than chatter is answered,
     * and the same text again gets nothing */
    if (!c->a->solo && person_verdict(c, text, true) != LIMIT_ANSWER)
        return;
    if (pass)
        reply(c, "That went to the channel: passes are secret, tell me "
                 "privately (a private message to me).");
    else
        reply(c,
              "That went to the channel as chat: tell me privately, or "
              "say %splay CARD there.",
              prefix(c->m));
}

/* ---- The answer limit -------------------------------------------------- */

/* A seated player's move (or "hand", "back"): always answered. */
static bool game_action(const struct cmd *c)
{
    static const char *const moves[] = {"play", "pass",    "hand",
                                        "moon", "discard", "back"};
    if (c->nwords == 0)
        return false;
    int s;
    struct table *t = table_of_person(c->m, c->a, c->u->nick, &s);
    if (!t || !same_person(t, s, c->u))
        return false;
    const char *w = c->words[0];
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
        if (strcasecmp(w, moves[i]) == 0)
            return true;
    int card;
    return !c->room && c->nwords == 1 &&
           engine_card_parse(w, strlen(w), &card) == 0;
}

/* Whether to handle a command at all: everything but a seated player's
 * moves counts against the sender's answers (limit.h), and a command over
 * the limit is dropped whole, with what it would have said anywhere. A
 * private message repeated is answered once; a channel command repeated
 * (!hearts after the table closed) may be meant anew. */
/* What the sender's answer budget says of `text`; `quiet_repeats`: the
 * same text again within repeat_quiet gets nothing. */
static enum limit_verdict person_verdict(const struct cmd *c, const char *text,
                                         bool quiet_repeats)
{
    const struct config *cfg = c->m->cfg;
    struct limit_rules r = {.burst = cfg->reply_burst,
                            .interval_ms = cfg->reply_interval * 1000LL,
                            .quiet_ms =
                                quiet_repeats ? cfg->repeat_quiet * 1000LL : 0};
    return limit_check(c->m->limit, &r, c->a->network, c->u->id, text,
                       loop_now(c->m->loop));
}

static bool within_limit(struct cmd *c, const char *text)
{
    c->game = game_action(c);
    if (c->game || c->a->solo)
        return true;
    if (c->room && !find_command(c))
        return false; /* another bot's command: not ours to count */
    const struct config *cfg = c->m->cfg;
    int64_t now = loop_now(c->m->loop);
    /* a repeat in a channel may mean anew */
    enum limit_verdict v = person_verdict(c, text, !c->room);
    /* while the games' lines wait to go out, private chatter from
     * everyone together has a budget too: each answer would delay them */
    if (v != LIMIT_QUIET && !c->room && !c->a->ops->idle(c->a) &&
        !limit_shared(c->m->limit, cfg->chatter_burst,
                      cfg->chatter_interval * 1000LL, now))
        return false;
    if (v == LIMIT_WARN)
        c->a->ops->tell(c->a, c->u->nick,
                        "You are sending me too much: I answer again in a "
                        "while.",
                        CHAT_LOW);
    return v == LIMIT_ANSWER;
}

/* ---- Events ----------------------------------------------------------- */

static bool usable(const char *s, size_t max)
{
    return s && *s && strlen(s) < max;
}

/* The account of a person if it can be a seat's, else NULL (none). */
static const char *account_of(const struct chat_user *u)
{
    return usable(u->account, 192) ? u->account : NULL;
}

static void on_message(struct manager *m, struct chat_adapter *a,
                       const struct chat_event *ev)
{
    struct cmd c = {.m = m, .a = a, .room = ev->room, .u = &ev->from};
    render_name(c.shown, sizeof c.shown,
                ev->from.display ? ev->from.display : ev->from.nick);
    /* read without the formatting a client added and without what hides
     * or reorders text (the markup's bytes too): never echo them */
    char clean[sizeof c.storage];
    if (strlen(ev->text) >= sizeof clean)
        return;
    memcpy(clean, ev->text, strlen(ev->text) + 1);
    render_clean_text(clean);
    const char *text = clean;
    while (isspace((unsigned char)*text))
        text++;
    size_t plen = strlen(prefix(m));
    bool prefixed = strncmp(text, prefix(m), plen) == 0;
    if (ev->room && !prefixed) {
        split_words(&c, text);
        said_in_channel_by_mistake(&c, text);
        return; /* channel chatter */
    }
    if (prefixed)
        text += plen;
    split_words(&c, text);
    /* the text after the command word, for !hearts' rules */
    const char *p = text;
    while (*p && isspace((unsigned char)*p))
        p++;
    while (*p && !isspace((unsigned char)*p))
        p++;
    while (*p && isspace((unsigned char)*p))
        p++;
    c.rest = p;
    if (within_limit(&c, text))
        dispatch(&c);
}

static void on_gone(struct manager *m, struct chat_adapter *a, const char *room,
                    const char *nick)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        if (room && !a->ops->same_nick(a, t->room, room))
            continue;
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used && t->seats[s].human &&
                a->ops->same_nick(a, t->seats[s].nick, nick))
                table_person_left(t, s);
    }
}

/* The person of a seat is here (joined, or spoke): no grace period. With
 * `reprompt`, a seat that must act now is prompted again. */
static void present(struct manager *m, struct table *t, int s, bool reprompt)
{
    struct seat *st = &t->seats[s];
    /* nick and user@host match: who holds the nick is confirmed; one
     * waiting for that (a reconnect, a restart) is told what they missed,
     * as the adapter's answer would have (manager_identity); before the
     * table is back online, journal_back_online does it */
    bool was_unconfirmed = st->unconfirmed;
    st->unconfirmed = false;
    if (!st->gone || st->away) {
        if (was_unconfirmed && t->online)
            table_seat_ready(t, s);
        return;
    }
    st->gone = false;
    loop_cancel(m->loop, st->grace_timer);
    st->grace_timer = 0;
    if (reprompt)
        table_seat_ready(t, s);
    if (t->paused)
        table_resume(t);
}

static void on_join(struct manager *m, struct chat_adapter *a,
                    const struct chat_event *ev)
{
    struct table *t = table_find(m, a, ev->room);
    if (!t)
        return;
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && same_person(t, s, &ev->from))
            present(m, t, s, true);
}

/* Anything a seated person says shows they are here. */
static void spoke(struct manager *m, struct chat_adapter *a,
                  const struct chat_user *u)
{
    int s;
    struct table *t = table_of_person(m, a, u->nick, &s);
    if (t && same_person(t, s, u))
        present(m, t, s, false);
}

static void on_nick(struct manager *m, struct chat_adapter *a,
                    const struct chat_event *ev)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used && same_person(t, s, &ev->from))
                seat_set_name(&t->seats[s], ev->target, ev->from.display);
        table_names_unique(t);
    }
}

void manager_on_event(void *ctx, struct chat_adapter *a,
                      const struct chat_event *ev)
{
    struct manager *m = ctx;
    /* every field a handler touches is checked here first */
    switch (ev->kind) {
    case CHAT_CONNECTED:
    case CHAT_DISCONNECTED:
        if (ev->kind == CHAT_CONNECTED)
            journal_connected(m, a);
        else
            played_forget(m->played, a);
        for (int i = 0; i < m->ntables; i++)
            if (m->tables[i]->a == a && !m->tables[i]->closing)
                table_set_online(m->tables[i], ev->kind == CHAT_CONNECTED);
        return;
    case CHAT_SENT:
        manager_sent(m, a, ev->cookie);
        return;
    case CHAT_IDENTITY:
        /* an identity too long to be a seat's is someone else's */
        if (usable(ev->from.nick, 64))
            manager_identity(
                m, a, ev->from.nick,
                !ev->from.id || usable(ev->from.id, 192) ? ev->from.id : "",
                account_of(&ev->from));
        return;
    default:
        break;
    }
    if (!usable(ev->from.nick, 64) || !usable(ev->from.id, 192))
        return;
    /* an account too long to be a seat's is taken as none */
    struct chat_event checked = *ev;
    checked.from.account = account_of(&ev->from);
    ev = &checked;
    if (ev->kind == CHAT_MESSAGE || ev->kind == CHAT_JOIN ||
        ev->kind == CHAT_NICK)
        manager_seen(m, a, &ev->from);
    switch (ev->kind) {
    case CHAT_MESSAGE:
        if (ev->text && (!ev->room || usable(ev->room, 64))) {
            /* a private message's name is from another room than the
             * table's: it only fills in a name not known yet (a restored
             * game from an old journal) */
            manager_display(m, a, ev->room, &ev->from, false, !ev->room);
            spoke(m, a, &ev->from);
            on_message(m, a, ev);
        }
        break;
    case CHAT_JOIN:
        if (usable(ev->room, 64)) {
            manager_display(m, a, ev->room, &ev->from, false, false);
            on_join(m, a, ev);
        }
        break;
    case CHAT_RENAME:
        if (!ev->room || usable(ev->room, 64))
            manager_display(m, a, ev->room, &ev->from, true, false);
        break;
    case CHAT_PART:
        if (usable(ev->room, 64))
            on_gone(m, a, ev->room, ev->from.nick);
        break;
    case CHAT_KICK:
        if (usable(ev->room, 64) && usable(ev->target, 64))
            on_gone(m, a, ev->room, ev->target);
        break;
    case CHAT_QUIT:
        played_quit(m->played, a, ev->from.nick, ev->from.id);
        on_gone(m, a, NULL, ev->from.nick);
        break;
    case CHAT_NICK:
        if (usable(ev->target, 64)) {
            played_nick(m->played, a, ev->from.nick, ev->from.id, ev->target);
            on_nick(m, a, ev);
        }
        break;
    default:
        break;
    }
}
