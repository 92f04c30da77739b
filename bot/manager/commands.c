/*
 * What people type, and its dispatch (commands.h).
 */
#include "bot/manager/commands.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/msg.h"
#include "bot/manager/cmd.h"
#include "bot/manager/cmd_admin.h"
#include "bot/manager/cmd_person.h"
#include "bot/manager/cmd_play.h"
#include "bot/manager/cmd_replay.h"
#include "bot/manager/cmd_results.h"
#include "bot/manager/cmd_table.h"
#include "bot/manager/cmd_teach.h"
#include "bot/manager/limit.h"
#include "bot/manager/render.h"
#include "bot/manager/say.h"
#include "bot/manager/text.h"
#include "engine/ai/ai.h"

static void cmd_help(struct cmd *c);
static enum limit_verdict person_verdict(const struct cmd *c, const char *text,
                                         bool quiet_repeats);

struct command {
    const char *name;
    void (*fn)(struct cmd *c);
    bool in_room;
    bool in_private;
    /* catalogue messages: what help says of it, and at a terminal (where
     * everything is private) without "privately" (NULL: the same) */
    const char *help;
    const char *help_solo;
};

static const struct command commands[] = {
    /* TRANSLATORS: the help of each command. It starts with the command
     * as typed, {prefix} ("!") included: the command and its option names
     * stay untranslated; the words in capitals (PRESET, N, CARD...) stand
     * for what is typed there and may be translated. */
    {"hearts", mgr_cmd_hearts, true, false,
     M("{prefix}hearts [PRESET] [KEY=VALUE ...]: open a table here (or show "
       "it)"),
     NULL},
    {"join", mgr_cmd_join, true, false,
     M("{prefix}join: take a seat before the start"), NULL},
    {"leave", mgr_cmd_leave, true, false,
     M("{prefix}leave: give up your seat (in a game: a computer takes it)"),
     NULL},
    {"bot", mgr_cmd_bot, true, false,
     M("{prefix}bot [N] [LEVEL]: add computer players"), NULL},
    {"start", mgr_cmd_start, true, false,
     M("{prefix}start: deal (empty seats get computer players)"), NULL},
    {"stop", mgr_cmd_stop, true, false,
     M("{prefix}stop: end the game unscored (opener, most players, or an "
       "admin)"),
     NULL},
    {"part", mgr_cmd_part, true, false,
     M("{prefix}part: I leave this channel (a channel operator there, or an "
       "admin)"),
     NULL},
    {"status", mgr_cmd_status, true, true,
     M("{prefix}status: the table in a line"), NULL},
    {"scores", mgr_cmd_scores, true, true, M("{prefix}scores: the score sheet"),
     NULL},
    {"top", mgr_cmd_top, true, true,
     M("{prefix}top [N] [PRESET]: the leaderboard"), NULL},
    {"stats", mgr_cmd_stats, true, true,
     M("{prefix}stats [NAME] [PRESET]: a record"), NULL},
    {"last", mgr_cmd_last, true, true,
     M("{prefix}last: the last finished game"), NULL},
    {"replay", mgr_cmd_replay, true, true,
     M("{prefix}replay [GAME]: a finished game's hands and tricks, privately, "
       "a few lines at a time (GAME: its ID from {prefix}last, or 2 for the "
       "game before the last)"),
     M("{prefix}replay [GAME]: a finished game's hands and tricks, a few "
       "lines at a time (GAME: its ID from {prefix}last, or 2 for the game "
       "before the last)")},
    {"hint", mgr_cmd_hint, true, true,
     M("{prefix}hint: at your turn, what the computer's search would play or "
       "pass and why, privately (at tables opened with hints=on)"),
     M("{prefix}hint: at your turn, what the computer's search would play or "
       "pass and why (at tables opened with hints=on)")},
    {"review", mgr_cmd_review, true, true,
     M("{prefix}review [GAME]: privately, your plays that cost most against "
       "the computer's search: your last hand or game, or GAME as for "
       "{prefix}replay"),
     M("{prefix}review [GAME]: your plays that cost most against the "
       "computer's search: your last hand or game, or GAME as for "
       "{prefix}replay")},
    {"rules", mgr_cmd_rules, true, true, M("{prefix}rules [PRESET]: the rules"),
     NULL},
    {"presets", mgr_cmd_presets, true, true, M("{prefix}presets: the presets"),
     NULL},
    {"help", cmd_help, true, true, M("{prefix}help [COMMAND]: this help"),
     NULL},
    {"lang", mgr_cmd_lang, true, true,
     M("{prefix}lang [CODE]: the language I speak with you"), NULL},
    {"cards", mgr_cmd_cards, true, true,
     M("{prefix}cards [symbols|ascii|words]: how I show you cards"), NULL},
    {"notify", mgr_cmd_notify, true, false,
     M("{prefix}notify [on|off]: whether I call you here when a table opens"),
     NULL},
    {"play", mgr_cmd_play, true, true,
     M("{prefix}play CARD (or just CARD, privately)"),
     M("{prefix}play CARD (or just CARD)")},
    {"pass", mgr_cmd_pass_in_channel, true, false, NULL, NULL},
    {"pass", mgr_cmd_pass, false, true,
     M("pass C1 C2 C3 (privately): the cards to pass"),
     M("pass C1 C2 C3: the cards to pass")},
    {"hand", mgr_cmd_hand, false, true, M("hand (privately): your cards"),
     M("hand: your cards")},
    {"moon", mgr_cmd_moon, false, true,
     M("moon add | moon subtract (privately): after shooting the moon"),
     M("moon add | moon subtract: after shooting the moon")},
    {"discard", mgr_cmd_discard, false, true,
     M("discard C1 C2 (privately): the kitty exchange"),
     M("discard C1 C2: the kitty exchange")},
    {"back", mgr_cmd_back, false, true,
     M("back (privately): take your seat back from a computer"),
     M("back: take your seat back from a computer")},
    {"more", mgr_cmd_more, false, true,
     M("more (privately): the next lines of your {prefix}replay"),
     M("more: the next lines of your {prefix}replay")},
    {"autoplay", mgr_cmd_autoplay, false, true,
     M("autoplay on|off|last (privately): on plays every forced card for "
       "you, last (the default) only the last card of a hand, off none"),
     M("autoplay on|off|last: on plays every forced card for you, last (the "
       "default) only the last card of a hand, off none")},
    /* TRANSLATORS: the admins' commands: "(admins)" says who may use them;
     * NICK and ROOM stand for what is typed there. */
    {"seat", mgr_cmd_seat, true, true,
     M("{prefix}seat NICK computer|back (admins): a computer player takes "
       "NICK's seat until they say back, or NICK has it back"),
     NULL},
    {"end", mgr_cmd_end, true, true,
     M("{prefix}end [ROOM] (admins): end the game here or in ROOM unscored"),
     NULL},
    {"reload", mgr_cmd_reload, true, true,
     M("{prefix}reload (admins): reread the configuration file"), NULL},
};

/* Other words for commands, as people type them to other game bots;
 * each works where its command does. */
static const struct {
    const char *word, *command;
} aliases[] = {
    {"j", "join"},         {"h", "help"},          {"score", "scores"},
    {"stat", "stats"},     {"leaderboard", "top"}, {"rule", "rules"},
    {"preset", "presets"},
};

/* Whether k is for admins (cmd_admin.h): help lists it only to them. */
static bool for_admins(const struct command *k)
{
    return k->fn == mgr_cmd_seat || k->fn == mgr_cmd_end ||
           k->fn == mgr_cmd_reload;
}

/* The command a word names (an alias read as its command). */
static const char *command_word(const char *w)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(aliases[i].word, w) == 0)
            return aliases[i].command;
    return w;
}

/* A list's items joined with ", " into sb (words, not a sentence). */
static void list_add(struct strbuf *sb, const char *item)
{
    strbuf_addf(sb, "%s%s", sb->len ? ", " : "", item);
}

/* Command k's help in lang, as "help COMMAND" says it: its text, the
 * computer players' levels for bot, and the other words for it. */
static void command_help(const struct cmd *c, const struct command *k, int lang,
                         struct strbuf *out)
{
    const char *p = mgr_cmd_prefix(c->m);
    /* at a terminal everything is "private": not worth saying */
    bool quiet = c->a->solo && k->in_private;
    char text[MGR_TEXT_SIZE], more[MGR_TEXT_SIZE];
    struct strbuf sb, mb;
    strbuf_init(&sb, text, sizeof text);
    msg_add(&sb, lang, quiet && k->help_solo ? k->help_solo : k->help,
            MSG_S("prefix", k->in_room && !quiet ? p : ""), MSG_END);
    if (k->fn == mgr_cmd_bot) {
        char levels[256];
        struct strbuf lv;
        strbuf_init(&lv, levels, sizeof levels);
        for (int l = 0; l < ai_level_count(); l++) {
            char item[64];
            struct strbuf ib;
            strbuf_init(&ib, item, sizeof item);
            /* TRANSLATORS: a level of computer player in the help of bot,
             * as typed, with its rating ("hard (1720)") */
            msg_add(&ib, lang, M("{level} ({rating})"),
                    MSG_S("level", ai_level_name(l)),
                    MSG_I("rating", ai_level_rating(l, NULL)), MSG_END);
            list_add(&lv, item);
        }
        strbuf_init(&mb, more, sizeof more);
        msg_add(&mb, lang,
                /* TRANSLATORS: {help} is the help of bot; {levels} the
                 * levels' names, as typed, each with its rating, measured
                 * in games between them ("random (1100), easy (1500),
                 * ..."); {level} the one a computer player gets when none
                 * is named. */
                M("{help}. Levels, with their rating (higher is stronger: "
                  "200 more wins about 3 games in 4 between them): {levels} "
                  "({level} unless named)"),
                MSG_S("help", text), MSG_S("levels", levels),
                MSG_S("level", ai_level_name(c->m->ai_level)), MSG_END);
        strbuf_reset(&sb);
        strbuf_addstr(&sb, more);
    }
    char words[256];
    struct strbuf wb;
    strbuf_init(&wb, words, sizeof words);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(aliases[i].command, k->name) != 0)
            continue;
        char word[64];
        snprintf(word, sizeof word, "%s%s", k->in_room ? p : "",
                 aliases[i].word);
        list_add(&wb, word);
    }
    if (!wb.len) {
        strbuf_addstr(out, text);
        return;
    }
    /* TRANSLATORS: {help} is a command's help; {aliases} the other words
     * that do the same, as typed ("!j, !sit"). */
    msg_add(out, lang, M("{help} (also {aliases})"), MSG_S("help", text),
            MSG_S("aliases", words), MSG_END);
}

static void cmd_help(struct cmd *c)
{
    const char *p = mgr_cmd_prefix(c->m);
    int lang = mgr_cmd_lang_of(c);
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    if (c->nwords > 1) {
        const char *w = c->words[1];
        if (strncmp(w, p, strlen(p)) == 0)
            w += strlen(p);
        const char *name = command_word(w);
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
            if (!commands[i].help || strcasecmp(commands[i].name, name) != 0)
                continue;
            command_help(c, &commands[i], lang, &sb);
            mgr_cmd_reply(c, "%s", sb.buf);
            return;
        }
        char word[32];
        snprintf(word, sizeof word, "%.30s", w);
        mgr_cmd_replym(c, M("No command '{word}'. {prefix}help lists them."),
                       MSG_S("word", word), MSG_S("prefix", p), MSG_END);
        return;
    }
    /* every command, from the table, so none is left out */
    char list_text[512];
    struct strbuf list;
    strbuf_init(&list, list_text, sizeof list_text);
    if (c->a->solo) {
        /* one person at a terminal: what they type, nothing of channels */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
            const struct command *k = &commands[i];
            if (k->in_private && k->help && !for_admins(k) &&
                strcmp(k->name, "hand") && strcmp(k->name, "pass") &&
                strcmp(k->name, "back") && strcmp(k->name, "top") &&
                strcmp(k->name, "stats"))
                list_add(&list, k->name);
        }
        /* TRANSLATORS: the help at a terminal. The cards are examples of
         * what is typed (the English letters always work); {commands}
         * lists more commands ("status, scores, ..."); {prefix} is the
         * command prefix ("!"). Commands stay untranslated. */
        msg_add(&sb, lang,
                M("Type a card to play it (QS, 10h, t♦), or: hand, pass C1 C2 "
                  "C3, {commands}. {prefix}stop ends the game, "
                  "{prefix}hearts [PRESET] opens a new table, {prefix}start "
                  "deals, quit leaves. help COMMAND for one."),
                MSG_S("commands", list_text), MSG_S("prefix", p), MSG_END);
        mgr_cmd_reply(c, "%s", sb.buf);
        return;
    }
    bool admin = mgr_cmd_is_admin(c->m, c->u);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const struct command *k = &commands[i];
        if (k->in_room && k->help && (admin || !for_admins(k)) &&
            strcmp(k->name, "hearts") && strcmp(k->name, "join") &&
            strcmp(k->name, "start"))
            strbuf_addf(&list, "%s%s%s", list.len ? " " : "", p, k->name);
    }
    char private_text[256];
    struct strbuf priv;
    strbuf_init(&priv, private_text, sizeof private_text);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const struct command *k = &commands[i];
        if (k->in_private && !k->in_room && k->help &&
            strcmp(k->name, "hand") && strcmp(k->name, "pass"))
            list_add(&priv, k->name);
    }
    /* TRANSLATORS: the help in a chat. {prefix} is the command prefix
     * ("!"); {channel} lists the other channel commands ("!status
     * !scores ..."), {private} the other private ones ("moon, discard,
     * ..."). Commands stay untranslated. */
    msg_add(&sb, lang,
            M("Hearts: {prefix}hearts opens a table, {prefix}join sits down, "
              "{prefix}start deals. In the channel also: {channel}. "
              "Privately: hand, pass C1 C2 C3, play CARD (or just CARD), "
              "{private}. {prefix}help COMMAND for one."),
            MSG_S("prefix", p), MSG_S("channel", list_text),
            MSG_S("private", private_text), MSG_END);
    mgr_cmd_reply(c, "%s", sb.buf);
}

/* Whether command k works where c was said. */
static bool works_here(const struct cmd *c, const struct command *k)
{
    return c->room ? k->in_room : k->in_private;
}

/* The command of this name that works here, else the first of the name
 * (it works elsewhere), or NULL. */
static const struct command *named(const struct cmd *c, const char *name)
{
    const struct command *other = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcasecmp(commands[i].name, name) != 0)
            continue;
        if (works_here(c, &commands[i]))
            return &commands[i];
        if (!other)
            other = &commands[i];
    }
    return other;
}

/* A word someone may have meant: a command's name or an alias. */
struct near {
    const char *word;
    const struct command *k;
};

/* The word of a command (or alias) nearest to w, at most `most` edits
 * away and fewer than w has letters; of two as near, one that works here
 * ("pas" privately is the private pass, not the channel's). False if none
 * is near. */
static bool nearest(const struct cmd *c, const char *w, int most,
                    struct near *out)
{
    size_t len = strlen(w);
    int bestd = most + 1;
    bool best_here = false;
    size_t nwords = sizeof commands / sizeof commands[0] +
                    sizeof aliases / sizeof aliases[0];
    for (size_t i = 0; i < nwords; i++) {
        bool alias = i >= sizeof commands / sizeof commands[0];
        size_t j = i - sizeof commands / sizeof commands[0];
        const char *word = alias ? aliases[j].word : commands[i].name;
        const struct command *k =
            alias ? named(c, aliases[j].command) : &commands[i];
        int d = engine_word_distance(w, len, word, true);
        bool here = works_here(c, k);
        if (d > most || (size_t)d >= len || d > bestd ||
            (d == bestd && (!here || best_here)))
            continue;
        bestd = d;
        best_here = here;
        out->word = word;
        out->k = k;
    }
    return bestd <= most;
}

/* How many edits from a command a typed word may be to be taken for it:
 * two privately and at a terminal; in a channel, where other bots'
 * commands are said too, one, and none in a word under three letters
 * (!op is no typo of !top). */
static int typo_reach(const struct cmd *c, const char *w)
{
    if (!c->room || c->a->solo)
        return 2;
    return strlen(w) >= 3 ? 1 : 0;
}

/* A word that is no command here: the nearest one, said as it works
 * (privately, in the channel), or help. */
static void unknown(struct cmd *c, const char *w, const struct near *n)
{
    const char *p = mgr_cmd_prefix(c->m);
    const char *typed = c->room ? p : "";
    char word[128];
    snprintf(word, sizeof word, "%s%.30s", typed, w);
    if (!n) {
        /* TRANSLATORS: {word} is what was typed ("!hlep"); {prefix} the
         * command prefix as it is typed there ("!", or nothing in a
         * private message). */
        mgr_cmd_replym(c, M("I don't know '{word}'. Try \"{prefix}help\"."),
                       MSG_S("word", word), MSG_S("prefix", typed), MSG_END);
        return;
    }
    char meant[128];
    snprintf(meant, sizeof meant, "%s%s",
             n->k->in_room && (c->room || !n->k->in_private) ? p : "", n->word);
    /* TRANSLATORS: {word} is what was typed ("!hlep"), {command} the
     * command it is near ("!help"). */
    const char *id = M("I don't know '{word}' — did you mean '{command}'?");
    if (!works_here(c, n->k) && !c->a->solo)
        id = c->room ? M("I don't know '{word}' — did you mean '{command}' "
                         "(privately, in a message to me)?")
                     : M("I don't know '{word}' — did you mean '{command}' (in "
                         "the channel)?");
    mgr_cmd_replym(c, id, MSG_S("word", word), MSG_S("command", meant),
                   MSG_END);
}

/* The command the first word names, here (room or private), or NULL. */
static const struct command *find_command(const struct cmd *c)
{
    if (c->nwords == 0)
        return NULL;
    const struct command *k = named(c, command_word(c->words[0]));
    return k && works_here(c, k) ? k : NULL;
}

static void dispatch(struct cmd *c)
{
    if (c->nwords == 0)
        return;
    const char *w = c->words[0];
    const struct command *k = find_command(c);
    if (k) {
        k->fn(c);
        return;
    }
    /* privately, a bare card is a play */
    if (!c->room && c->nwords == 1 && mgr_cmd_is_card(c, w)) {
        char text[64];
        snprintf(text, sizeof text, "play %s", w);
        mgr_cmd_split_words(c, text);
        mgr_cmd_play(c);
        return;
    }
    /* a command of the other kind here */
    k = named(c, command_word(w));
    if (k && c->room) {
        mgr_cmd_replym(c,
                       M("\"{command}\" works privately: send it to me in a "
                         "private message."),
                       MSG_S("command", k->name), MSG_END);
    } else if (k) {
        char command[64];
        snprintf(command, sizeof command, "%s%s", mgr_cmd_prefix(c->m),
                 k->name);
        mgr_cmd_replym(c,
                       M("{command} works in the channel of the table: say it "
                         "there."),
                       MSG_S("command", command), MSG_END);
    } else {
        struct near n;
        bool near = nearest(c, w, typo_reach(c, w), &n);
        unknown(c, w, near ? &n : NULL);
    }
}

/* Whether a channel word that is none of ours here gets an answer: at a
 * terminal always; from a person seated on this network (talking to us)
 * within their answer limit; from anyone else only when it is one of our
 * words or a near miss of one (a channel holds other bots' commands),
 * and at most once every m->hint_interval_ms a person. */
static bool channel_stray_answered(struct cmd *c)
{
    if (c->a->solo)
        return true;
    struct near n;
    const char *w = c->words[0];
    if (!named(c, command_word(w)) && !nearest(c, w, typo_reach(c, w), &n))
        return false;
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (t && mgr_same_person(t, seat, c->u))
        return person_verdict(c, w, false) == LIMIT_ANSWER;
    return limit_hint(c->m->limit, c->a->network, c->u->id,
                      c->m->hint_interval_ms, loop_now(c->m->loop));
}

/* Whether words[from..] are one or more cards (commas allowed). */
static bool words_are_cards(const struct cmd *c, int from)
{
    const char *bad;
    size_t len;
    return mgr_cmd_scan_cards(c, from, NULL, ENGINE_MAX_CARDS, &bad, &len) > 0;
}

static void said_in_channel_by_mistake(struct cmd *c, const char *text)
{
    if (c->nwords < 2 || !words_are_cards(c, 1))
        return;
    bool pass = strcasecmp(c->words[0], "pass") == 0;
    if (!pass && strcasecmp(c->words[0], "play") != 0)
        return;
    struct table *t = mgr_table_find(c->m, c->a, c->room);
    if (!t || !t->playing || mgr_cmd_seat_of(t, c->u) < 0)
        return;
    /* a hint nobody asked for: never more often than chatter is answered,
     * and the same text again gets nothing */
    if (!c->a->solo && person_verdict(c, text, true) != LIMIT_ANSWER)
        return;
    if (pass)
        mgr_cmd_replym(c,
                       M("That went to the channel: passes are secret, tell me "
                         "privately (a private message to me)."),
                       MSG_END);
    else
        mgr_cmd_replym(c,
                       M("That went to the channel as chat: tell me privately, "
                         "or say {prefix}play CARD there."),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
}

/* A seated player's move (or "hand", "back"): always answered. */
static bool game_action(const struct cmd *c)
{
    static const char *const moves[] = {"play", "pass",    "hand",
                                        "moon", "discard", "back"};
    if (c->nwords == 0)
        return false;
    int s;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &s);
    if (!t || !mgr_same_person(t, s, c->u))
        return false;
    const char *w = c->words[0];
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
        if (strcasecmp(w, moves[i]) == 0)
            return true;
    return !c->room && c->nwords == 1 && mgr_cmd_is_card(c, w);
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
        return channel_stray_answered(c);
    /* a repeat in a channel may mean anew, and so may "more" */
    enum limit_verdict v =
        person_verdict(c, text, !c->room && !mgr_cmd_is_more(c));
    /* while the games' lines wait to go out, private chatter from
     * everyone together has a budget too: each answer would delay them
     * (one whose answers it drops is told once) */
    if (v != LIMIT_QUIET && !c->room && !c->a->ops->idle(c->a) &&
        !mgr_chatter_shared(c->m, c->a, c->u))
        return false;
    if (v == LIMIT_WARN) {
        char warn[256];
        struct strbuf sb;
        strbuf_init(&sb, warn, sizeof warn);
        msg_add(&sb, mgr_cmd_lang_of(c),
                M("You are sending me too much: I answer again in a while."),
                MSG_END);
        mgr_cmd_tell(c, warn, CHAT_LOW);
    }
    return v == LIMIT_ANSWER;
}

void mgr_on_message(struct manager *m, struct chat_adapter *a,
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
    size_t plen = strlen(mgr_cmd_prefix(m));
    bool prefixed = strncmp(text, mgr_cmd_prefix(m), plen) == 0;
    if (ev->room && !prefixed) {
        mgr_cmd_split_words(&c, text);
        said_in_channel_by_mistake(&c, text);
        return; /* channel chatter */
    }
    if (prefixed)
        text += plen;
    mgr_cmd_split_words(&c, text);
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
