/*
 * The commands about a room's results (cmd_results.h).
 */
#include "bot/manager/cmd_results.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/common/msg.h"
#include "bot/common/xalloc.h"
#include "bot/manager/lang.h"
#include "bot/manager/results.h"
#include "bot/manager/text.h"
#include "bot/site/site.h"
#include "storage/stats.h"

/* The room a leaderboard command is about: the channel, or privately the
 * one where the asker sits; NULL after a reply. */
static struct results_room *asked_room(struct cmd *c)
{
    if (c->room)
        return mgr_results_room(c->m, c->a, c->room);
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t) {
        /* TRANSLATORS: {prefix} is the command prefix ("!") */
        mgr_cmd_replym(c, M("Ask in the channel ({prefix}top there)."),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return NULL;
    }
    return mgr_results_room(c->m, c->a, t->room);
}

/* An answer written for a reader's look (its language): true with the
 * answer in sb, false with a refusal (for the asker only). */
typedef bool (*answer_fn)(struct cmd *c, struct results_room *r,
                          struct render_look look, struct strbuf *sb);

/* Says an answer's lines in the room, in the room's language (unless the
 * room heard the same a moment ago, mgr_cmd_room_hears), or tells them
 * to the asker in theirs. */
static void answer(struct cmd *c, struct results_room *r, answer_fn make)
{
    struct render_look mine = mgr_look_person(c->m, c->a, c->u, c->room);
    struct render_look look = mine;
    if (c->room) {
        look = render_look_style(c->a->style);
        look.lang = mgr_lang_room(c->m, c->a, r->room);
    }
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    if (make(c, r, look, &sb) && mgr_cmd_room_hears(c, &r->echo, text)) {
        char *buf = xstrdup(text);
        for (char *line = buf, *nl; line; line = nl) {
            nl = strchr(line, '\n');
            if (nl)
                *nl++ = '\0';
            c->a->ops->say(c->a, r->room, line, CHAT_LOW);
        }
        free(buf);
        return;
    }
    if (look.lang != mine.lang || look.style != mine.style ||
        look.cards != mine.cards) {
        strbuf_reset(&sb);
        make(c, r, mine, &sb);
    }
    mgr_cmd_reply_lines(c, text);
}

static bool last_sheet(struct cmd *c, struct results_room *r,
                       struct render_look look, struct strbuf *sb)
{
    char sheet[MGR_TEXT_SIZE];
    if (!mgr_results_sheet(r, c->room != NULL, look, sheet, sizeof sheet)) {
        msg_add(sb, look.lang, M("No game is running here."), MSG_END);
        return false;
    }
    msg_add(sb, look.lang, M("No game is running here; the last game's sheet:"),
            MSG_END);
    strbuf_addf(sb, "\n%s", sheet);
    return true;
}

/* !scores with no game running: the last finished game's sheet. */
void mgr_cmd_last_sheet(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (r)
        answer(c, r, last_sheet);
}

/* The preset of the room's default rules: the board shown without one. */
static const char *default_preset(const struct cmd *c,
                                  const struct results_room *r)
{
    struct engine_rules rules;
    if (engine_rules_parse(&rules, mgr_cmd_room_rules(c->m, c->a, r->room), 0,
                           NULL))
        return "standard";
    return engine_preset_name(rules.preset);
}

/* What a page's address ends an answer about. */
enum page { PAGE_CHANNEL, PAGE_PERSON, PAGE_GAME };

/* " URL" of the room's page (of the person with key `id`, or of game
 * `id`) appended to sb, when the site is written and has an address. */
static void page_address(const struct cmd *c, const struct results_room *r,
                         enum page page, const char *id, struct strbuf *sb)
{
    const char *url = c->m->cfg->site_url;
    if (!url || !*url || !c->m->site_secret[0] ||
        (page != PAGE_CHANNEL && !*id))
        return;
    char folded[sizeof r->room], path[1024];
    if (c->a->ops->fold)
        c->a->ops->fold(c->a, r->room, folded, sizeof folded);
    else
        snprintf(folded, sizeof folded, "%s", r->room);
    const char *net = c->a->network ? c->a->network : "";
    int rc = page == PAGE_CHANNEL
                 ? site_channel_path(net, folded, path, sizeof path)
             : page == PAGE_PERSON
                 ? site_person_path(net, folded, c->m->site_secret, id, path,
                                    sizeof path)
                 : site_game_path(net, folded, id, path, sizeof path);
    if (rc == 0)
        strbuf_addf(sb, " %s%s", url, path);
}

static bool top(struct cmd *c, struct results_room *r, struct render_look look,
                struct strbuf *sb)
{
    const char *n = NULL, *preset = NULL;
    for (int i = 1; i < c->nwords && i < 3; i++) {
        if (isdigit((unsigned char)c->words[i][0]) || c->words[i][0] == '-')
            n = c->words[i];
        else
            preset = c->words[i];
    }
    if (!mgr_results_top(r, look.lang, n, preset, default_preset(c, r), sb))
        return false;
    page_address(c, r, PAGE_CHANNEL, "", sb);
    return true;
}

void mgr_cmd_top(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (r)
        answer(c, r, top);
}

static bool stats(struct cmd *c, struct results_room *r,
                  struct render_look look, struct strbuf *sb)
{
    const char *name = c->nwords > 1 ? c->words[1] : NULL;
    const char *preset = c->nwords > 2 ? c->words[2] : NULL;
    if (!mgr_results_stats(r, look.lang, c->m->played, c->u, name, preset,
                           default_preset(c, r), sb))
        return false;
    page_address(c, r, PAGE_PERSON, r->stats_key, sb);
    return true;
}

void mgr_cmd_stats(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (r)
        answer(c, r, stats);
}

static bool last(struct cmd *c, struct results_room *r, struct render_look look,
                 struct strbuf *sb)
{
    if (!mgr_results_last(r, look.lang, (int64_t)time(NULL), sb))
        return false;
    if (r->stats && r->stats->last.has && r->stats->last.game[0]) {
        /* the game's ID, short, for !replay */
        char id[9];
        snprintf(id, sizeof id, "%.8s", r->stats->last.game);
        strbuf_addstr(sb, " ");
        /* TRANSLATORS: after !last's line: how to see that game's hands
         * and tricks; {prefix} is the command prefix ("!"), {id} the
         * game's ID (its first digits) */
        msg_add(sb, look.lang, M("Replay: {prefix}replay {id}"),
                MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_S("id", id),
                MSG_END);
        page_address(c, r, PAGE_GAME, r->stats->last.game, sb);
    }
    return true;
}

void mgr_cmd_last(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (r)
        answer(c, r, last);
}
