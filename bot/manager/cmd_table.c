/*
 * The commands about a room's table (cmd_table.h).
 */
#include "bot/manager/cmd_table.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/rule_words.h"
#include "bot/manager/announce.h"
#include "bot/manager/cmd_results.h"
#include "bot/manager/life.h"
#include "bot/manager/say.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"
#include "engine/ai/ai.h"

/* How long a !leave during a game waits for the second that confirms
 * it. */
#define LEAVE_CONFIRM_MS 30000

/* What differs from the preset, after `lead` and before `end`: " with
 * target=50 hands=1"; nothing if nothing differs. */
static void rules_changes(struct strbuf *sb, const struct engine_rules *r,
                          const char *lead, const char *end)
{
    char changes[MGR_TEXT_SIZE];
    if (engine_rules_changes(r, changes, sizeof changes) > 0)
        strbuf_addf(sb, "%s %s%s", lead, changes, end);
}

/* The rules in a few words, for one-line announcements: "standard for 4
 * with target=50". */
static void rules_short(struct strbuf *sb, const struct engine_rules *r)
{
    strbuf_addf(sb, "%s for %d", engine_preset_name(r->preset), r->players);
    rules_changes(sb, r, " with", "");
}

/* The full rules, for !rules: at most two IRC lines. */
static void describe_rules(struct strbuf *sb, int lang,
                           const struct engine_rules *r)
{
    char summary[MGR_TEXT_SIZE];
    struct strbuf words;
    strbuf_init(&words, summary, sizeof summary);
    rule_words_preset(&words, lang, r->preset);
    strbuf_addf(sb, "%s for %d players: %s.", engine_preset_name(r->preset),
                r->players, summary);
    rules_changes(sb, r, " Changed here:", ".");
    strbuf_addf(sb, " Plays against the rules are refused, so the rules' "
                    "penalties never arise.");
}

/* The people seated: "alice, bob, bot1". */
static void seated_names(struct strbuf *sb, const struct table *t)
{
    bool first = true;
    for (int s = 0; s < t->capacity; s++) {
        if (!t->seats[s].used)
            continue;
        strbuf_addf(sb, "%s%s", first ? "" : ", ", mgr_seat_name(t, s));
        first = false;
    }
}

/* Whether the caller sits at a table in another room of the network
 * (one table at a time), replying so if they do. */
static bool seated_elsewhere(struct cmd *c)
{
    int seat;
    struct table *other = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!other)
        return false;
    char label[256];
    mgr_cmd_reply(c,
                  "You sit at the table in %s already; one table at a time "
                  "on a network (!leave there first).",
                  mgr_room_label(c->a, other->room, label, sizeof label));
    return true;
}

void mgr_cmd_hearts(struct cmd *c)
{
    struct table *t = mgr_table_find(c->m, c->a, c->room);
    if (t) {
        char sb_text[MGR_TEXT_SIZE];
        struct strbuf sb;
        strbuf_init(&sb, sb_text, sizeof sb_text);
        strbuf_addf(
            &sb, "%s here: ", t->playing ? "A game is on" : "A table is open");
        rules_short(&sb, &t->rules);
        strbuf_addf(&sb, "; ");
        seated_names(&sb, t);
        if (t->playing)
            strbuf_addf(&sb, ". %srules for the rules.", mgr_cmd_prefix(c->m));
        else
            strbuf_addf(&sb, " (%d/%d). %sjoin to sit down.",
                        mgr_table_seated(t), t->capacity, mgr_cmd_prefix(c->m));
        mgr_cmd_reply(c, "%s", sb.buf);
        return;
    }
    if (seated_elsewhere(c))
        return;
    const char *base = mgr_cmd_room_rules(c->m, c->a, c->room);
    char text[600];
    const char *args = c->rest;
    if (!*args)
        snprintf(text, sizeof text, "%s", base);
    else if (c->nwords > 1 && strchr(c->words[1], '=')) {
        /* the options typed replace the channel's of the same name */
        if (engine_rules_over(base, args, text, sizeof text)) {
            mgr_cmd_reply(c, "Those rules won't do: too many options.");
            return;
        }
    } else
        snprintf(text, sizeof text, "%s", args);
    struct engine_rules r;
    struct engine_error e;
    if (engine_rules_parse(&r, text, 0, &e)) {
        char err[RULE_WORDS_SIZE];
        rule_words_error_text(err, sizeof err, mgr_cmd_lang_of(c), &e);
        mgr_cmd_reply(
            c, "Those rules won't do: %s. !presets lists the presets.", err);
        return;
    }
    t = mgr_table_open(c->m, c->a, c->room, &r, text);
    mgr_table_sit(t, c->u);
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    strbuf_addf(&sb, "%s %s a Hearts table: ", mgr_cmd_subject(c),
                mgr_cmd_verb(c, "opens", "open"));
    rules_short(&sb, &r);
    if (c->a->solo)
        strbuf_addf(&sb, ". Computer players take the other seats.");
    else
        strbuf_addf(&sb,
                    ". %sjoin to sit down, %sstart to deal (computers fill "
                    "empty seats).",
                    mgr_cmd_prefix(c->m), mgr_cmd_prefix(c->m));
    mgr_table_say(t, sb.buf);
    mgr_table_storage_ok(t, false);
}

static struct table *need_table(struct cmd *c)
{
    struct table *t = mgr_table_find(c->m, c->a, c->room);
    if (!t)
        mgr_cmd_reply(c, "No table here. %shearts opens one.",
                      mgr_cmd_prefix(c->m));
    return t;
}

void mgr_cmd_join(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (mgr_cmd_seat_of(t, c->u) >= 0) {
        mgr_cmd_reply(c, "You are seated here already.");
        return;
    }
    if (t->playing) {
        mgr_cmd_reply(c,
                      "A game is in progress here; you can watch, or join the "
                      "next one.");
        return;
    }
    if (seated_elsewhere(c))
        return;
    int sat = mgr_table_sit(t, c->u);
    if (sat < 0) {
        mgr_cmd_reply(c, "The table is full (%d seats).", t->capacity);
        return;
    }
    mgr_cmd_shown_as_seat(c, t, sat);
    char text[800];
    snprintf(text, sizeof text, "%s %s down (%d/%d).%s", mgr_cmd_subject(c),
             mgr_cmd_verb(c, "sits", "sit"), mgr_table_seated(t), t->capacity,
             mgr_table_seated(t) == t->capacity ? " The table is full: !start."
                                                : "");
    mgr_table_say(t, text);
}

void mgr_cmd_leave(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    int s = mgr_cmd_seat_of(t, c->u);
    if (s < 0) {
        mgr_cmd_reply(c, "You are not seated here.");
        return;
    }
    mgr_cmd_shown_as_seat(c, t, s);
    char text[800];
    if (!t->playing) {
        mgr_table_stand(t, s);
        snprintf(text, sizeof text, "%s %s up (%d/%d).", mgr_cmd_subject(c),
                 mgr_cmd_verb(c, "stands", "stand"), mgr_table_seated(t),
                 t->capacity);
        mgr_table_say(t, text);
        if (mgr_table_humans(t) == 0) {
            mgr_table_say(t, "Nobody is left at the table; it closes.");
            mgr_table_close(t);
        }
        return;
    }
    /* leaving a running game is a loss: a second !leave confirms it */
    struct seat *st = &t->seats[s];
    int64_t now = loop_now(c->m->loop);
    if (!st->leave_asked || now - st->leave_asked > LEAVE_CONFIRM_MS) {
        st->leave_asked = now;
        mgr_cmd_reply(c,
                      "Leaving counts as a loss and a computer player takes "
                      "your seat: say %sleave again within %d s to leave.",
                      mgr_cmd_prefix(c->m), LEAVE_CONFIRM_MS / 1000);
        return;
    }
    st->leave_asked = 0;
    /* a computer player takes the seat for good */
    st->human = false;
    st->level = t->m->ai_level;
    snprintf(text, sizeof text,
             "%s %s the game; a computer player takes the seat.",
             mgr_cmd_subject(c), mgr_cmd_verb(c, "leaves", "leave"));
    mgr_table_say(t, text);
    if (mgr_table_humans(t) == 0) {
        mgr_table_stop(t, "Nobody is left at the table: the game ends "
                          "unscored.");
        return;
    }
    mgr_table_resume(t);
}

void mgr_cmd_bot(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (mgr_cmd_seat_of(t, c->u) < 0) {
        mgr_cmd_reply(c, "Sit down first (!join) to add computer players.");
        return;
    }
    if (t->playing) {
        mgr_cmd_reply(c, "The game has begun; computer players fill seats at "
                         "!start.");
        return;
    }
    int count = 1, level = c->m->ai_level;
    for (int i = 1; i < c->nwords; i++) {
        const char *w = c->words[i];
        if (isdigit((unsigned char)w[0])) {
            long v = strtol(w, NULL, 10);
            if (v < 1 || v > ENGINE_MAX_PLAYERS) {
                mgr_cmd_reply(c, "How many? 1 to %d.", t->capacity);
                return;
            }
            count = (int)v;
        } else if ((level = ai_level_find(w)) < 0) {
            mgr_cmd_reply(
                c, "Unknown level '%s': random, easy, normal or hard.", w);
            return;
        }
    }
    if (count > t->capacity - mgr_table_seated(t)) {
        mgr_cmd_reply(c, "Only %d seat%s free.",
                      t->capacity - mgr_table_seated(t),
                      t->capacity - mgr_table_seated(t) == 1 ? " is" : "s are");
        return;
    }
    for (int i = 0; i < count; i++)
        mgr_table_add_computer(t, level);
    char text[800];
    snprintf(text, sizeof text, "%d computer player%s (%s) sit%s down (%d/%d).",
             count, count == 1 ? "" : "s", ai_level_name(level),
             count == 1 ? "s" : "", mgr_table_seated(t), t->capacity);
    mgr_table_say(t, text);
}

void mgr_cmd_start(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (t->playing) {
        mgr_cmd_reply(c, "The game is already running.");
        return;
    }
    int s = mgr_cmd_seat_of(t, c->u);
    if (s < 0) {
        mgr_cmd_reply(c, "Sit down first (!join).");
        return;
    }
    if (s != t->opener && mgr_table_seated(t) < t->capacity) {
        mgr_cmd_reply(
            c,
            "Only %s, who opened the table, can start it before every "
            "seat is taken.",
            mgr_seat_name(t, t->opener));
        return;
    }
    mgr_table_start(t);
}

void mgr_cmd_stop(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    int s = mgr_cmd_seat_of(t, c->u);
    mgr_cmd_shown_as_seat(c, t, s);
    bool admin = mgr_cmd_is_admin(c->m, c->u);
    if (admin || (s >= 0 && s == t->opener)) {
        char text[800];
        snprintf(text, sizeof text, "%s %s the %s.", mgr_cmd_subject(c),
                 mgr_cmd_verb(c, "stops", "stop"),
                 t->playing ? "game: it ends unscored" : "table");
        mgr_table_stop(t, text);
        return;
    }
    if (s < 0 || !t->playing) {
        mgr_cmd_reply(c,
                      "Only the opener, most of the players, or an admin can "
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
        mgr_table_stop(t,
                       "Most players voted to stop: the game ends unscored.");
        return;
    }
    char text[800];
    snprintf(text, sizeof text, "%s votes to stop the game (%d of %d).",
             c->shown, votes, humans);
    mgr_table_say(t, text);
}

static void status_text(struct strbuf *sb, struct table *t)
{
    char label[256];
    strbuf_addf(sb, "Table at %s: %s. ",
                mgr_room_label(t->a, t->room, label, sizeof label),
                t->rules_text);
    if (!t->playing) {
        strbuf_addf(sb, "Waiting to start (%d/%d):", mgr_table_seated(t),
                    t->capacity);
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used)
                strbuf_addf(sb, " %s", mgr_seat_name(t, s));
        strbuf_addf(sb, ".");
        return;
    }
    const struct engine_game *g = &t->game;
    strbuf_addf(sb, "Hand %d, trick %d. Scores: ", g->hand_no, g->trick_no + 1);
    mgr_table_scoreline(t, sb);
    int turn = engine_turn(g);
    strbuf_addf(sb, ".");
    if (engine_phase(g) == ENGINE_PHASE_PLAY) {
        strbuf_addf(sb, " ");
        mgr_sb_tally(sb, t, -1);
    }
    if (engine_phase(g) == ENGINE_PHASE_PASS) {
        strbuf_addf(sb, " Passing; waiting for:");
        for (int s = 0; s < g->n; s++) {
            if (engine_may_act(g, s)) {
                strbuf_addf(sb, " ");
                mgr_sb_seat(sb, t, s, false);
            }
        }
        strbuf_addf(sb, ".");
    } else if (turn >= 0) {
        strbuf_addf(sb, " ");
        mgr_sb_seat(sb, t, turn, false);
        strbuf_addf(sb, " to play");
        if (g->trick_len) {
            strbuf_addf(sb, "; on the trick:");
            for (int i = 0; i < g->trick_len; i++) {
                strbuf_addf(sb, " ");
                mgr_sb_card(sb, t, g->trick[i]);
            }
        }
        strbuf_addf(sb, ".");
    }
}

void mgr_cmd_status(struct cmd *c)
{
    struct table *t = c->room ? mgr_table_find(c->m, c->a, c->room) : NULL;
    int seat;
    if (!t && !c->room)
        t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t) {
        mgr_cmd_reply(c, "No table here. %shearts opens one.",
                      mgr_cmd_prefix(c->m));
        return;
    }
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    status_text(&sb, t);
    if (mgr_cmd_room_hears(c, &t->echo, sb.buf))
        mgr_table_say(t, sb.buf);
    else
        mgr_cmd_reply(c, "%s", sb.buf);
}

void mgr_cmd_scores(struct cmd *c)
{
    struct table *t = c->room ? mgr_table_find(c->m, c->a, c->room) : NULL;
    int seat;
    if (!t && !c->room)
        t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !t->playing) {
        mgr_cmd_last_sheet(c);
        return;
    }
    /* the room's sheet (its last hands) is what the room would hear */
    char text[2048];
    mgr_table_scores_text(t, false, text, sizeof text);
    if (mgr_cmd_room_hears(c, &t->echo, text)) {
        mgr_table_send_scores(t);
        return;
    }
    mgr_table_scores_text(t, true, text, sizeof text);
    mgr_cmd_reply_lines(c, text);
}

void mgr_cmd_rules(struct cmd *c)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    if (c->nwords > 1) {
        struct engine_rules r;
        struct engine_error e;
        if (engine_rules_parse(&r, c->words[1], 0, &e)) {
            char err[RULE_WORDS_SIZE];
            rule_words_error_text(err, sizeof err, mgr_cmd_lang_of(c), &e);
            mgr_cmd_reply(c, "%s", err);
            return;
        }
        describe_rules(&sb, mgr_cmd_lang_of(c), &r);
    } else {
        struct table *t = c->room ? mgr_table_find(c->m, c->a, c->room) : NULL;
        int seat;
        if (!t && !c->room)
            t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
        struct engine_rules r;
        if (t)
            r = t->rules;
        else if (engine_rules_parse(
                     &r,
                     c->room ? mgr_cmd_room_rules(c->m, c->a, c->room)
                             : c->m->cfg->default_rules,
                     0, NULL))
            return;
        describe_rules(&sb, mgr_cmd_lang_of(c), &r);
    }
    mgr_cmd_reply(c, "%s", sb.buf);
}

void mgr_cmd_presets(struct cmd *c)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    strbuf_addf(&sb, "Presets:");
    for (int p = 0; p < engine_preset_count(); p++) {
        int lo, hi;
        engine_preset_players(p, &lo, &hi);
        if (lo == hi)
            strbuf_addf(&sb, "%s %s (%d)", p ? "," : "", engine_preset_name(p),
                        lo);
        else
            strbuf_addf(&sb, "%s %s (%d-%d)", p ? "," : "",
                        engine_preset_name(p), lo, hi);
    }
    strbuf_addf(&sb,
                ". %srules NAME tells one; %shearts NAME KEY=VALUE opens "
                "a table.",
                mgr_cmd_prefix(c->m), mgr_cmd_prefix(c->m));
    mgr_cmd_reply(c, "%s", sb.buf);
}
