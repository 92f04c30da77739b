/*
 * The commands about a room's table (cmd_table.h).
 */
#include "bot/manager/cmd_table.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/rule_words.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/manager/announce.h"
#include "bot/manager/cmd_results.h"
#include "bot/manager/cmd_teach.h"
#include "bot/manager/lang.h"
#include "bot/manager/life.h"
#include "bot/manager/notify.h"
#include "bot/manager/render.h"
#include "bot/manager/say.h"
#include "bot/manager/slow.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"
#include "engine/ai/ai.h"

/* How long a !leave during a game waits for the second that confirms
 * it. */
#define LEAVE_CONFIRM_MS 30000

void mgr_cmd_stop_with(struct table *t, const char *id, const char *player)
{
    char text[800];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    msg_add(&sb, mgr_lang_room(t->m, t->a, t->room), id,
            MSG_S("player", player ? player : ""), MSG_END);
    mgr_table_stop(t, text);
}

/* The options that differ from the preset ("target=50 hands=1"), then
 * the table's own turn length ("turn_timeout=1d") and hints ("hints=on"):
 * how many. */
static int all_changes(char *out, size_t len, const struct engine_rules *r,
                       int turn_timeout, bool hints)
{
    int n = engine_rules_changes(r, out, len);
    if (n <= 0) {
        n = 0;
        out[0] = '\0';
    }
    if (turn_timeout) {
        char d[32];
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s" SLOW_OPTION "=%s",
                 used ? " " : "", mgr_duration_text(d, sizeof d, turn_timeout));
        n++;
    }
    if (hints) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s" TEACH_OPTION "=on",
                 used ? " " : "");
        n++;
    }
    return n;
}

/* The rules in a few words, for one-line announcements: "standard for 4
 * with target=50", in lang. */
static void rules_short(struct strbuf *sb, int lang,
                        const struct engine_rules *r, int turn_timeout,
                        bool hints)
{
    char changes[MGR_TEXT_SIZE];
    const char *preset = engine_preset_name(r->preset);
    if (all_changes(changes, sizeof changes, r, turn_timeout, hints) > 0)
        /* TRANSLATORS: the rules of a table in a few words, said inside other
         * messages: {preset} is the name of the rules ("standard", typed as
         * it is), {n} the number of players, {changes} options that differ
         * from the preset ("target=50 hands=1", typed as they are). */
        msg_add(sb, lang, M("{preset} for {n} with {changes}"),
                MSG_S("preset", preset), MSG_I("n", r->players),
                MSG_S("changes", changes), MSG_END);
    else
        /* TRANSLATORS: the rules of a table in a few words, said inside
         * other messages: {preset} is the name of the rules ("standard",
         * typed as it is), {n} the number of players. */
        msg_add(sb, lang, M("{preset} for {n}"), MSG_S("preset", preset),
                MSG_I("n", r->players), MSG_END);
}

/* The full rules, for !rules: at most two IRC lines, in lang. */
static void describe_rules(struct strbuf *sb, int lang,
                           const struct engine_rules *r, int turn_timeout,
                           bool hints)
{
    char summary[MGR_TEXT_SIZE];
    struct strbuf words;
    strbuf_init(&words, summary, sizeof summary);
    rule_words_preset(&words, lang, r->preset);
    msg_addn(sb, lang,
             /* TRANSLATORS: {preset} is the name of the rules ("standard",
              * typed as it is), {summary} what they are. */
             MN("{preset} for {n} player: {summary}.",
                "{preset} for {n} players: {summary}."),
             (unsigned long)r->players,
             MSG_S("preset", engine_preset_name(r->preset)),
             MSG_I("n", r->players), MSG_S("summary", summary), MSG_END);
    char changes[MGR_TEXT_SIZE];
    if (all_changes(changes, sizeof changes, r, turn_timeout, hints) > 0) {
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: {changes} are options that differ from the preset
         * ("target=50 hands=1"), typed as they are. */
        msg_add(sb, lang, M("Changed here: {changes}."),
                MSG_S("changes", changes), MSG_END);
    }
    if (turn_timeout >= SLOW_GAME_S) {
        char d[32];
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: a slow game; {time} is a turn's length ("1d", "12h":
         * d, h, m and s are the units people type, keep them). */
        msg_add(sb, lang,
                M("A slow game: each turn lasts up to {time}; when it runs "
                  "out a computer player makes that one move and the player "
                  "keeps the seat."),
                MSG_S("time", mgr_duration_text(d, sizeof d, turn_timeout)),
                MSG_END);
    }
    if (hints) {
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: hint is a command and hints a board's name: keep
         * them as they are. */
        msg_add(sb, lang,
                M("Hints are allowed (hint): the game counts on the hints "
                  "board, not the preset's."),
                MSG_END);
    }
    strbuf_addc(sb, ' ');
    msg_add(sb, lang,
            M("Plays against the rules are refused, so the rules' penalties "
              "never arise."),
            MSG_END);
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
    mgr_cmd_replym(
        c,
        /* TRANSLATORS: {room} is a channel or room ("#hearts"); {prefix} the
         * command prefix ("!"): keep "{prefix}leave" as it is. */
        M("You sit at the table in {room} already; one table at a time on a "
          "network ({prefix}leave there first)."),
        MSG_S("room", mgr_room_label(c->a, other->room, label, sizeof label)),
        MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
    return true;
}

/* The summary of the table here, for !hearts where one is open. */
static void table_here(struct cmd *c, struct table *t)
{
    int lang = mgr_cmd_lang_of(c);
    char rules_text[MGR_TEXT_SIZE], names_text[MGR_TEXT_SIZE];
    struct strbuf rules, names;
    strbuf_init(&rules, rules_text, sizeof rules_text);
    strbuf_init(&names, names_text, sizeof names_text);
    rules_short(&rules, lang, &t->rules, t->turn_timeout, t->hints);
    seated_names(&names, t);
    if (t->playing)
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: {rules} are the rules in a few words ("standard for
             * 4 with target=50"), {players} the names seated ("alice, bob");
             * {prefix} is the command prefix ("!"): keep "{prefix}rules" and
             * "{prefix}join" as they are. */
            M("A game is on here: {rules}; {players}. {prefix}rules for the "
              "rules."),
            MSG_S("rules", rules.buf), MSG_S("players", names.buf),
            MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
    else
        mgr_cmd_replym(c,
                       /* TRANSLATORS: as "A game is on here"; {seated} of
                        * {seats} seats are taken. */
                       M("A table is open here: {rules}; {players} "
                         "({seated}/{seats}). {prefix}join to sit down."),
                       MSG_S("rules", rules.buf), MSG_S("players", names.buf),
                       MSG_I("seated", mgr_table_seated(t)),
                       MSG_I("seats", t->capacity),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
}

/* The value of turn_timeout= typed after !hearts, checked against the
 * bounds (SLOW_TURN_MIN, the config's max_turn_timeout): into *out, or
 * false with the refusal said. */
static bool turn_option(struct cmd *c, const char *value, int *out)
{
    int max = c->m->cfg->max_turn_timeout;
    char lo[32], hi[32];
    if (max < SLOW_TURN_MIN) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: turn_timeout is an option, typed as
                        * it is. */
                       M("Those rules won't do: tables here can't set "
                         "turn_timeout."),
                       MSG_END);
        return false;
    }
    if (mgr_duration_parse(value, out) == 0 && *out >= SLOW_TURN_MIN &&
        *out <= max)
        return true;
    mgr_cmd_replym(
        c,
        /* TRANSLATORS: turn_timeout is an option, typed as it
         * is; {min} and {max} are times ("30s", "7d"): d, h, m
         * and s are the units people type, keep them and the
         * examples. */
        M("Those rules won't do: turn_timeout is a time from "
          "{min} to {max}, such as 45s, 90m, 12h or 1d."),
        MSG_S("min", mgr_duration_text(lo, sizeof lo, SLOW_TURN_MIN)),
        MSG_S("max", mgr_duration_text(hi, sizeof hi, max)), MSG_END);
    return false;
}

void mgr_cmd_hearts(struct cmd *c)
{
    struct table *t = mgr_table_find(c->m, c->a, c->room);
    if (t) {
        table_here(c, t);
        return;
    }
    if (seated_elsewhere(c))
        return;
    const char *base = mgr_cmd_room_rules(c->m, c->a, c->room);
    char text[600], timed_args[600], args[600], value[64], hints_value[64];
    bool timed, hinted;
    int turn_timeout = 0;
    bool hints = false;
    if (mgr_slow_take(c->rest, timed_args, sizeof timed_args, value,
                      sizeof value, &timed) ||
        mgr_option_take(timed_args, TEACH_OPTION, args, sizeof args,
                        hints_value, sizeof hints_value, &hinted)) {
        mgr_cmd_replym(c, M("Those rules won't do: too many options."),
                       MSG_END);
        return;
    }
    if (timed && !turn_option(c, value, &turn_timeout))
        return;
    if (hinted && mgr_teach_option(hints_value, &hints)) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: hints is an option, typed as it is,
                        * and so are on and off. */
                       M("Those rules won't do: hints is on or off."), MSG_END);
        return;
    }
    if (!*args)
        snprintf(text, sizeof text, "%s", base);
    else if (memchr(args, '=', strcspn(args, " "))) {
        /* the options typed replace the channel's of the same name */
        if (engine_rules_over(base, args, text, sizeof text)) {
            mgr_cmd_replym(c, M("Those rules won't do: too many options."),
                           MSG_END);
            return;
        }
    } else
        snprintf(text, sizeof text, "%s", args);
    struct engine_rules r;
    struct engine_error e;
    if (engine_rules_parse(&r, text, 0, &e)) {
        char err[RULE_WORDS_SIZE];
        rule_words_error_text(err, sizeof err, mgr_cmd_lang_of(c), &e);
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: {reason} says what is wrong with the rules typed;
             * {prefix} is the command prefix ("!"): keep "{prefix}presets". */
            M("Those rules won't do: {reason}. {prefix}presets lists the "
              "presets."),
            MSG_S("reason", err), MSG_S("prefix", mgr_cmd_prefix(c->m)),
            MSG_END);
        return;
    }
    t = mgr_table_open(c->m, c->a, c->room, &r, text, turn_timeout, hints);
    mgr_table_sit(t, c->u);
    char rules_text[MGR_TEXT_SIZE];
    struct strbuf rules;
    strbuf_init(&rules, rules_text, sizeof rules_text);
    rules_short(&rules, mgr_lang_room(c->m, c->a, c->room), &r, turn_timeout,
                hints);
    if (c->a->solo)
        mgr_table_saym(t,
                       /* TRANSLATORS: {rules} are the rules in a few words
                        * ("standard for 4 with target=50"). "You" is the one
                        * person playing at a terminal. */
                       M("You open a Hearts table: {rules}. Computer players "
                         "take the other seats."),
                       MSG_S("rules", rules.buf), MSG_END);
    else
        mgr_table_saym(
            t,
            /* TRANSLATORS: {player} opened the table; {rules} are the rules
             * in a few words ("standard for 4 with target=50"); {prefix} is
             * the command prefix ("!"): keep "{prefix}join" and
             * "{prefix}start" as they are. */
            M("{player} opens a Hearts table: {rules}. {prefix}join to sit "
              "down, {prefix}start to deal (computers fill empty seats)."),
            MSG_S("player", c->shown), MSG_S("rules", rules.buf),
            MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
    mgr_table_storage_ok(t, false);
    mgr_notify_opened(t, c->u, c->shown, rules.buf);
}

/* TRANSLATORS: {prefix} is the command prefix ("!"): keep "{prefix}hearts"
 * as it is. */
#define NO_TABLE_HERE M("No table here. {prefix}hearts opens one.")

static struct table *need_table(struct cmd *c)
{
    struct table *t = mgr_table_find(c->m, c->a, c->room);
    if (!t)
        mgr_cmd_replym(c, NO_TABLE_HERE, MSG_S("prefix", mgr_cmd_prefix(c->m)),
                       MSG_END);
    return t;
}

void mgr_cmd_join(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (mgr_cmd_seat_of(t, c->u) >= 0) {
        mgr_cmd_replym(c, M("You are seated here already."), MSG_END);
        return;
    }
    if (t->playing) {
        mgr_cmd_replym(c,
                       M("A game is in progress here; you can watch, or join "
                         "the next one."),
                       MSG_END);
        return;
    }
    if (seated_elsewhere(c))
        return;
    int sat = mgr_table_sit(t, c->u);
    if (sat < 0) {
        mgr_cmd_replymn(c,
                        MN("The table is full ({n} seat).",
                           "The table is full ({n} seats)."),
                        (unsigned long)t->capacity, MSG_I("n", t->capacity),
                        MSG_END);
        return;
    }
    mgr_cmd_shown_as_seat(c, t, sat);
    int lang = mgr_lang_room(c->m, c->a, c->room);
    char text[800];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    if (c->a->solo)
        /* TRANSLATORS: {seated} of {seats} seats are taken. "You" is the one
         * person playing at a terminal. */
        msg_add(&sb, lang, M("You sit down ({seated}/{seats})."),
                MSG_I("seated", mgr_table_seated(t)),
                MSG_I("seats", t->capacity), MSG_END);
    else
        /* TRANSLATORS: {seated} of {seats} seats are taken. */
        msg_add(&sb, lang, M("{player} sits down ({seated}/{seats})."),
                MSG_S("player", c->shown), MSG_I("seated", mgr_table_seated(t)),
                MSG_I("seats", t->capacity), MSG_END);
    if (mgr_table_seated(t) == t->capacity) {
        strbuf_addc(&sb, ' ');
        /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
         * "{prefix}start" as it is. */
        msg_add(&sb, lang, M("The table is full: {prefix}start."),
                MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
    }
    mgr_table_say(t, text);
}

void mgr_cmd_leave(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    int s = mgr_cmd_seat_of(t, c->u);
    if (s < 0) {
        mgr_cmd_replym(c, M("You are not seated here."), MSG_END);
        return;
    }
    mgr_cmd_shown_as_seat(c, t, s);
    if (!t->playing) {
        mgr_table_stand(t, s);
        if (c->a->solo)
            /* TRANSLATORS: {seated} of {seats} seats are taken. "You" is the
             * one person playing at a terminal. */
            mgr_table_saym(t, M("You stand up ({seated}/{seats})."),
                           MSG_I("seated", mgr_table_seated(t)),
                           MSG_I("seats", t->capacity), MSG_END);
        else
            /* TRANSLATORS: {seated} of {seats} seats are taken. */
            mgr_table_saym(t, M("{player} stands up ({seated}/{seats})."),
                           MSG_S("player", c->shown),
                           MSG_I("seated", mgr_table_seated(t)),
                           MSG_I("seats", t->capacity), MSG_END);
        if (mgr_table_humans(t) == 0) {
            mgr_table_saym(t, M("Nobody is left at the table; it closes."),
                           MSG_END);
            mgr_table_close(t);
        }
        return;
    }
    /* leaving a running game is a loss: a second !leave confirms it */
    struct seat *st = &t->seats[s];
    int64_t now = loop_now(c->m->loop);
    if (!st->leave_asked || now - st->leave_asked > LEAVE_CONFIRM_MS) {
        st->leave_asked = now;
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
             * "{prefix}leave" as it is; {n} seconds. */
            M("Leaving counts as a loss and a computer player takes your seat: "
              "say {prefix}leave again within {n} s to leave."),
            MSG_S("prefix", mgr_cmd_prefix(c->m)),
            MSG_I("n", LEAVE_CONFIRM_MS / 1000), MSG_END);
        return;
    }
    st->leave_asked = 0;
    /* a computer player takes the seat for good */
    st->human = false;
    st->level = t->m->ai_level;
    if (c->a->solo)
        mgr_table_saym(
            t,
            /* TRANSLATORS: "You" is the one person playing at a terminal. */
            M("You leave the game; a computer player takes the seat."),
            MSG_END);
    else
        mgr_table_saym(
            t, M("{player} leaves the game; a computer player takes the seat."),
            MSG_S("player", c->shown), MSG_END);
    if (mgr_table_humans(t) == 0) {
        mgr_cmd_stop_with(
            t, M("Nobody is left at the table: the game ends unscored."), NULL);
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
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
             * "{prefix}join" and "{prefix}start" as they are. */
            M("Sit down first ({prefix}join) to add computer players."),
            MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return;
    }
    if (t->playing) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: {prefix} is the command prefix ("!"):
                        * keep "{prefix}start" as it is. */
                       M("The game has begun; computer players fill seats at "
                         "{prefix}start."),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return;
    }
    int count = 1, level = c->m->ai_level;
    for (int i = 1; i < c->nwords; i++) {
        const char *w = c->words[i];
        if (isdigit((unsigned char)w[0])) {
            long v = strtol(w, NULL, 10);
            if (v < 1 || v > ENGINE_MAX_PLAYERS) {
                mgr_cmd_replym(c, M("How many? 1 to {n}."),
                               MSG_I("n", t->capacity), MSG_END);
                return;
            }
            count = (int)v;
        } else if ((level = ai_level_find(w)) < 0) {
            mgr_cmd_replym(
                /* TRANSLATORS: {word} is what was typed; keep the levels
                 * (random, easy, normal, hard: typed as they are). */
                c, M("Unknown level '{word}': random, easy, normal or hard."),
                MSG_S("word", w), MSG_END);
            return;
        }
    }
    int free_seats = t->capacity - mgr_table_seated(t);
    if (count > free_seats) {
        mgr_cmd_replymn(
            c, MN("Only {n} seat is free.", "Only {n} seats are free."),
            (unsigned long)free_seats, MSG_I("n", free_seats), MSG_END);
        return;
    }
    for (int i = 0; i < count; i++)
        mgr_table_add_computer(t, level);
    char text[800];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    msg_addn(
        &sb, mgr_lang_room(c->m, c->a, c->room),
        /* TRANSLATORS: {level} is how well they play (random, easy, normal,
         * hard: kept as typed); {seated} of {seats} seats are taken. */
        MN("{n} computer player ({level}) sits down ({seated}/{seats}).",
           "{n} computer players ({level}) sit down ({seated}/{seats})."),
        (unsigned long)count, MSG_I("n", count),
        MSG_S("level", ai_level_name(level)),
        MSG_I("seated", mgr_table_seated(t)), MSG_I("seats", t->capacity),
        MSG_END);
    mgr_table_say(t, text);
}

void mgr_cmd_start(struct cmd *c)
{
    struct table *t = need_table(c);
    if (!t)
        return;
    if (t->playing) {
        mgr_cmd_replym(c, M("The game is already running."), MSG_END);
        return;
    }
    int s = mgr_cmd_seat_of(t, c->u);
    if (s < 0) {
        /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
         * "{prefix}join" as it is. */
        mgr_cmd_replym(c, M("Sit down first ({prefix}join)."),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return;
    }
    if (s != t->opener && mgr_table_seated(t) < t->capacity) {
        mgr_cmd_replym(c,
                       M("Only {player}, who opened the table, can start it "
                         "before every seat is taken."),
                       MSG_S("player", mgr_seat_name(t, t->opener)), MSG_END);
        return;
    }
    mgr_table_start(t);
}

/* What holds the bot in a room a channel operator sends it from. */
#define PART_GAME_ON                                                           \
    M("A game is on here: I leave when it is over, or when an admin asks.")

void mgr_cmd_part_now(struct cmd *c, bool admin)
{
    struct table *t = mgr_table_find(c->m, c->a, c->room);
    if (t && t->playing && !admin) {
        mgr_cmd_replym(c, PART_GAME_ON, MSG_END);
        return;
    }
    if (t)
        mgr_cmd_stop_with(
            t,
            t->playing ? M("{player} sends me away: the game ends unscored.")
                       : M("{player} sends me away: the table closes."),
            c->shown);
    log_info("%s: leaving %s, asked by %s (%s)", c->a->network, c->room,
             c->u->nick, admin ? "an admin" : "a channel operator");
    char bye[400];
    struct strbuf sb;
    strbuf_init(&sb, bye, sizeof bye);
    msg_add(&sb, mgr_lang_room(c->m, c->a, c->room),
            M("Goodbye! {player} asked me to leave this channel."),
            MSG_S("player", c->shown), MSG_END);
    c->a->ops->say(c->a, c->room, bye, CHAT_NORMAL);
    c->a->ops->part(c->a, c->room, bye);
}

void mgr_cmd_part(struct cmd *c)
{
    if (!c->a->ops->part) {
        mgr_cmd_replym(c,
                       M("I leave rooms here only when my configuration "
                         "says so."),
                       MSG_END);
        return;
    }
    if (mgr_cmd_is_admin(c->m, c->u)) {
        mgr_cmd_part_now(c, true);
        return;
    }
    struct table *t = mgr_table_find(c->m, c->a, c->room);
    if (!c->a->ops->ask_operator) {
        mgr_cmd_replym(c, M("Only an admin can send me away from here."),
                       MSG_END);
        return;
    }
    if (t && t->playing) {
        mgr_cmd_replym(c, PART_GAME_ON, MSG_END);
        return;
    }
    c->a->ops->ask_operator(c->a, c->room, c->u);
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
        if (c->a->solo)
            mgr_cmd_stop_with(t,
                              /* TRANSLATORS: "You" is the one person playing at
                                 a terminal. */
                              t->playing
                                  ? M("You stop the game: it ends unscored.")
                                  : M("You stop the table."),
                              NULL);
        else
            mgr_cmd_stop_with(
                t,
                t->playing ? M("{player} stops the game: it ends unscored.")
                           : M("{player} stops the table."),
                c->shown);
        return;
    }
    if (s < 0 || !t->playing) {
        mgr_cmd_replym(
            c,
            M("Only the opener, most of the players, or an admin can stop it."),
            MSG_END);
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
        mgr_cmd_stop_with(
            t, M("Most players voted to stop: the game ends unscored."), NULL);
        return;
    }
    mgr_table_saym(t,
                   /* TRANSLATORS: {votes} of the {players} people playing voted
                      to stop. */
                   M("{player} votes to stop the game ({votes} of {players})."),
                   MSG_S("player", c->shown), MSG_I("votes", votes),
                   MSG_I("players", humans), MSG_END);
}

/* The table's state, for !status, in look's language and style. */
static void status_text(struct strbuf *sb, struct table *t,
                        struct render_look look)
{
    int lang = look.lang;
    char label[256];
    /* TRANSLATORS: {room} is a channel or room ("#hearts"); {rules} the
     * table's rules as typed ("standard target=50"). */
    char rules[MGR_TEXT_SIZE];
    msg_add(sb, lang, M("Table at {room}: {rules}."),
            MSG_S("room", mgr_room_label(t->a, t->room, label, sizeof label)),
            MSG_S("rules", mgr_table_rules_shown(t, rules, sizeof rules)),
            MSG_END);
    strbuf_addc(sb, ' ');
    char list_text[MGR_TEXT_SIZE];
    struct strbuf list;
    strbuf_init(&list, list_text, sizeof list_text);
    if (!t->playing) {
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used)
                strbuf_addf(&list, "%s%s", list.len ? " " : "",
                            mgr_seat_name(t, s));
        /* TRANSLATORS: {seated} of {seats} seats are taken; {players} are
         * their names, a space between them. */
        msg_add(sb, lang, M("Waiting to start ({seated}/{seats}): {players}."),
                MSG_I("seated", mgr_table_seated(t)),
                MSG_I("seats", t->capacity), MSG_S("players", list.buf),
                MSG_END);
        return;
    }
    const struct engine_game *g = &t->game;
    mgr_table_scoreline_in(t, &list, lang, false);
    /* TRANSLATORS: {hand} and {trick} are numbers; {scores} the scores
     * ("alice 0, bob 13"). */
    msg_add(sb, lang, M("Hand {hand}, trick {trick}. Scores: {scores}."),
            MSG_I("hand", g->hand_no), MSG_I("trick", g->trick_no + 1),
            MSG_S("scores", list.buf), MSG_END);
    int turn = engine_turn(g);
    if (engine_phase(g) == ENGINE_PHASE_PLAY) {
        strbuf_addc(sb, ' ');
        mgr_sb_tally_for(sb, t, look, -1);
    }
    strbuf_reset(&list);
    char seat[MGR_TEXT_SIZE];
    if (engine_phase(g) == ENGINE_PHASE_PASS) {
        for (int s = 0; s < g->n; s++) {
            if (engine_may_act(g, s)) {
                if (list.len)
                    strbuf_addc(&list, ' ');
                strbuf_addstr(
                    &list, mgr_seat_text(seat, sizeof seat, t, s, false, look));
            }
        }
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: {players} are names, a space between them. */
        msg_add(sb, lang, M("Passing; waiting for: {players}."),
                MSG_S("players", list.buf), MSG_END);
    } else if (turn >= 0) {
        mgr_seat_text(seat, sizeof seat, t, turn, false, look);
        strbuf_addc(sb, ' ');
        if (g->trick_len) {
            char cards[MGR_TEXT_SIZE];
            render_cards(cards, sizeof cards, g->trick, g->trick_len, look);
            /* TRANSLATORS: {cards} are the cards on the trick ("Q♠ A♥"). */
            msg_add(sb, lang, M("{player} to play; on the trick: {cards}."),
                    MSG_S("player", seat), MSG_S("cards", cards), MSG_END);
        } else {
            msg_add(sb, lang, M("{player} to play."), MSG_S("player", seat),
                    MSG_END);
        }
    }
    if (mgr_slow_current(t)) {
        char left[32], when[64];
        mgr_slow_left_text(left, sizeof left, t, mgr_wall(t->m));
        mgr_slow_deadline_text(when, sizeof when, t->slow_deadline);
        strbuf_addc(sb, ' ');
        /* TRANSLATORS: a slow game: {left} the time left to act ("11h30m":
         * d, h, m and s are the units people type, keep them), {time} when
         * the turn ends ("2026-12-03 10:00 UTC"). */
        msg_add(sb, lang, M("Turn time left: {left}, until {time}."),
                MSG_S("left", left), MSG_S("time", when), MSG_END);
    }
}

void mgr_cmd_status(struct cmd *c)
{
    struct table *t = c->room ? mgr_table_find(c->m, c->a, c->room) : NULL;
    int seat;
    if (!t && !c->room)
        t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t) {
        mgr_cmd_replym(c, NO_TABLE_HERE, MSG_S("prefix", mgr_cmd_prefix(c->m)),
                       MSG_END);
        return;
    }
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    struct render_look look = mgr_look_room(t);
    status_text(&sb, t, look);
    if (mgr_cmd_room_hears(c, &t->echo, sb.buf)) {
        mgr_table_say(t, sb.buf);
        return;
    }
    /* the asker's own words */
    strbuf_reset(&sb);
    look = mgr_look_person(c->m, c->a, c->u, c->room);
    status_text(&sb, t, look);
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
    mgr_table_scores_in(t, false, mgr_look_room(t), text, sizeof text);
    if (mgr_cmd_room_hears(c, &t->echo, text)) {
        mgr_table_send_scores(t);
        return;
    }
    /* the asker's own: every hand, in their words */
    struct render_look look = mgr_look_person(c->m, c->a, c->u, c->room);
    mgr_table_scores_in(t, true, look, text, sizeof text);
    mgr_cmd_reply_lines(c, text);
}

void mgr_cmd_rules(struct cmd *c)
{
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    int lang = mgr_cmd_lang_of(c);
    if (c->nwords > 1) {
        struct engine_rules r;
        struct engine_error e;
        if (engine_rules_parse(&r, c->words[1], 0, &e)) {
            char err[RULE_WORDS_SIZE];
            rule_words_error_text(err, sizeof err, mgr_cmd_lang_of(c), &e);
            mgr_cmd_reply(c, "%s", err);
            return;
        }
        describe_rules(&sb, lang, &r, 0, false);
    } else {
        struct table *t = c->room ? mgr_table_find(c->m, c->a, c->room) : NULL;
        int seat;
        if (!t && !c->room)
            t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
        struct engine_rules r;
        int turn_timeout = t ? t->turn_timeout : 0;
        if (t)
            r = t->rules;
        else if (engine_rules_parse(
                     &r,
                     c->room ? mgr_cmd_room_rules(c->m, c->a, c->room)
                             : c->m->cfg->default_rules,
                     0, NULL))
            return;
        describe_rules(&sb, lang, &r, turn_timeout, t && t->hints);
    }
    mgr_cmd_reply(c, "%s", sb.buf);
}

void mgr_cmd_presets(struct cmd *c)
{
    char list_text[MGR_TEXT_SIZE];
    struct strbuf list;
    strbuf_init(&list, list_text, sizeof list_text);
    for (int p = 0; p < engine_preset_count(); p++) {
        int lo, hi;
        engine_preset_players(p, &lo, &hi);
        if (lo == hi)
            strbuf_addf(&list, "%s%s (%d)", p ? ", " : "",
                        engine_preset_name(p), lo);
        else
            strbuf_addf(&list, "%s%s (%d-%d)", p ? ", " : "",
                        engine_preset_name(p), lo, hi);
    }
    mgr_cmd_replym(
        c,
        /* TRANSLATORS: {presets} are the presets' names (typed as they are)
         * with their numbers of players: "standard (4), omnibus (3-6)";
         * {prefix} is the command prefix ("!"): keep "{prefix}rules" and
         * "{prefix}hearts" as they are (NAME and KEY=VALUE stand for what one
         * types). */
        M("Presets: {presets}. {prefix}rules NAME tells one; {prefix}hearts "
          "NAME KEY=VALUE opens a table."),
        MSG_S("presets", list.buf), MSG_S("prefix", mgr_cmd_prefix(c->m)),
        MSG_END);
}
