/*
 * The commands about a room's results (cmd_results.h).
 */
#include "bot/manager/cmd_results.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/common/xalloc.h"
#include "bot/manager/results.h"
#include "bot/manager/text.h"

/* The room a leaderboard command is about: the channel, or privately the
 * one where the asker sits; NULL after a reply. */
static struct results_room *asked_room(struct cmd *c)
{
    if (c->room)
        return mgr_results_room(c->m, c->a, c->room);
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t) {
        mgr_cmd_reply(c, "Ask in the channel (%stop there).",
                      mgr_cmd_prefix(c->m));
        return NULL;
    }
    return mgr_results_room(c->m, c->a, t->room);
}

/* Says an answer's lines in the room (unless the room heard the same
 * a moment ago, mgr_cmd_room_hears) or tells them to the asker. */
static void answer(struct cmd *c, struct results_room *r, const char *text)
{
    if (!mgr_cmd_room_hears(c, &r->echo, text)) {
        mgr_cmd_reply_lines(c, text);
        return;
    }
    char *buf = xstrdup(text);
    for (char *line = buf, *nl; line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        c->a->ops->say(c->a, r->room, line, CHAT_LOW);
    }
    free(buf);
}

/* !scores with no game running: the last finished game's sheet. */
void mgr_cmd_last_sheet(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (!r)
        return;
    char text[2048];
    int n = snprintf(text, sizeof text,
                     "No game is running here; the last game's sheet:\n");
    if (!mgr_results_sheet(r, c->room != NULL, c->a->style, text + n,
                           sizeof text - (size_t)n)) {
        mgr_cmd_reply(c, "No game is running here.");
        return;
    }
    answer(c, r, text);
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

void mgr_cmd_top(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (!r)
        return;
    const char *n = NULL, *preset = NULL;
    for (int i = 1; i < c->nwords && i < 3; i++) {
        if (isdigit((unsigned char)c->words[i][0]) || c->words[i][0] == '-')
            n = c->words[i];
        else
            preset = c->words[i];
    }
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    if (!mgr_results_top(r, n, preset, default_preset(c, r), &sb)) {
        mgr_cmd_reply(c, "%s", sb.buf);
        return;
    }
    answer(c, r, sb.buf);
}

void mgr_cmd_stats(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (!r)
        return;
    const char *name = c->nwords > 1 ? c->words[1] : NULL;
    const char *preset = c->nwords > 2 ? c->words[2] : NULL;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    if (!mgr_results_stats(r, c->m->played, c->u, name, preset,
                           default_preset(c, r), &sb)) {
        mgr_cmd_reply(c, "%s", sb.buf);
        return;
    }
    answer(c, r, sb.buf);
}

void mgr_cmd_last(struct cmd *c)
{
    struct results_room *r = asked_room(c);
    if (!r)
        return;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    mgr_results_last(r, (int64_t)time(NULL), &sb);
    answer(c, r, sb.buf);
}
