/*
 * The commands of a seated player (cmd_play.h).
 */
#include "bot/manager/cmd_play.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/rule_words.h"
#include "bot/common/msg.h"
#include "bot/manager/card_words.h"
#include "bot/manager/deal.h"
#include "bot/manager/lang.h"
#include "bot/manager/presence.h"
#include "bot/manager/render.h"
#include "bot/manager/say.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"

/* How the asker's replies are written: their language and card mode,
 * the adapter's style. */
static struct render_look look_of(const struct cmd *c)
{
    return mgr_look_person(c->m, c->a, c->u, c->room);
}

/* TRANSLATORS: the end of a list of names: {list} is the names before
 * the last, a comma between them ("bob, carol"), {last} the last one
 * ("dave"): "bob, carol and dave". */
#define LIST_AND MC("a list's last two items", "{list} and {last}")
/* TRANSLATORS: the end of a list of choices (suits): {list} is the ones
 * before the last, a comma between them, {last} the last one: "♣ or ♦". */
#define LIST_OR MC("a list's last two choices", "{list} or {last}")

/* items as a list in lang, the last two joined by the pattern `last_two`
 * (LIST_AND, LIST_OR): "bob", "bob and carol", "bob, carol and dave". */
static void add_list(struct strbuf *sb, int lang, const char *last_two,
                     const char *const *items, int n)
{
    if (n <= 1) {
        strbuf_addf(sb, "%s", n ? items[0] : "");
        return;
    }
    char head_text[MGR_TEXT_SIZE];
    struct strbuf head;
    strbuf_init(&head, head_text, sizeof head_text);
    for (int i = 0; i < n - 1; i++)
        strbuf_addf(&head, "%s%s", i ? ", " : "", items[i]);
    msg_add(sb, lang, last_two, MSG_S("list", head.buf),
            MSG_S("last", items[n - 1]), MSG_END);
}

static void say_moon_choice(struct cmd *c)
{
    /* TRANSLATORS: keep "moon add" and "moon subtract" (commands) as they
     * are. */
    mgr_cmd_replym(c, M("Say \"moon add\" or \"moon subtract\"."), MSG_END);
}

void mgr_cmd_pass_in_channel(struct cmd *c)
{
    mgr_cmd_replym(
        c, M("Passed cards are secret: tell me privately, \"pass C1 C2 C3\"."),
        MSG_END);
}

struct table *mgr_cmd_my_table(struct cmd *c, int *seat)
{
    struct table *t;
    if (c->room) {
        t = mgr_table_find(c->m, c->a, c->room);
        if (!t || (*seat = mgr_cmd_seat_of(t, c->u)) < 0) {
            mgr_cmd_replym(c, M("You are not playing at this table."), MSG_END);
            return NULL;
        }
    } else {
        t = mgr_table_of_person(c->m, c->a, c->u->nick, seat);
        if (!t) {
            if (c->a->solo)
                mgr_cmd_replym(
                    c,
                    /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
                     * "{prefix}hearts" as it is. */
                    M("You are not at a table. {prefix}hearts opens one."),
                    MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
            else
                mgr_cmd_replym(
                    c,
                    /* TRANSLATORS: {prefix} is the command prefix
                     * ("!"): keep "{prefix}join" as it is. */
                    M("You are not at a table. {prefix}join one in a channel."),
                    MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
            return NULL;
        }
        if (!mgr_same_person(t, *seat, c->u)) {
            mgr_cmd_replym(
                c, M("That seat belongs to someone else who had your nick."),
                MSG_END);
            return NULL;
        }
    }
    if (!t->playing) {
        char label[256];
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: {room} is a channel or room ("#hearts"). */
            M("The game at {room} has not started yet."),
            MSG_S("room", mgr_room_label(t->a, t->room, label, sizeof label)),
            MSG_END);
        return NULL;
    }
    if (t->seats[*seat].away) {
        mgr_cmd_replym(c,
                       M("A computer player has your seat: tell me \"back\" to "
                         "take it again."),
                       MSG_END);
        return NULL;
    }
    return t;
}

/* The seats that have not passed yet, as a list in lang: "bob", "bob and
 * carol", "bob, carol and dave". */
static void still_to_pass(struct strbuf *sb, const struct table *t, int lang)
{
    const struct engine_game *g = &t->game;
    const char *names[ENGINE_MAX_PLAYERS];
    int n = 0;
    for (int s = 0; s < g->n && n < ENGINE_MAX_PLAYERS; s++)
        if (engine_may_act(g, s))
            names[n++] = mgr_seat_name(t, s);
    add_list(sb, lang, LIST_AND, names, n);
}

/* Why the seat's action came at the wrong time, and what the table waits
 * for instead. */
static void not_now(struct cmd *c, struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    char names_text[MGR_TEXT_SIZE];
    struct strbuf names;
    strbuf_init(&names, names_text, sizeof names_text);
    int turn = engine_turn(g);
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PASS:
        if (engine_may_act(g, seat)) {
            int k = t->rules.pass_count;
            mgr_cmd_replymn(
                c,
                /* TRANSLATORS: keep "pass" (the command) as it is. */
                MN("Cards are being passed: \"pass\" and {n} card.",
                   "Cards are being passed: \"pass\" and {n} cards."),
                (unsigned long)k, MSG_I("n", k), MSG_END);
            break;
        }
        still_to_pass(&names, t, mgr_cmd_lang_of(c));
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: {players} is a list of names ("bob and carol"). */
            M("You passed already; waiting for {players} to pass."),
            MSG_S("players", names.buf), MSG_END);
        break;
    case ENGINE_PHASE_PLAY:
        /* TRANSLATORS: keep "play" (the command) as it is. */
        mgr_cmd_replym(c, M("We are playing tricks now: \"play\" a card."),
                       MSG_END);
        break;
    case ENGINE_PHASE_DEAL:
        mgr_cmd_replym(c, M("Not now: the next hand is about to be dealt."),
                       MSG_END);
        break;
    default:
        if (turn >= 0 && turn != seat)
            mgr_cmd_replym(c, M("Not now: waiting for {player}."),
                           MSG_S("player", mgr_seat_name(t, turn)), MSG_END);
        else
            mgr_cmd_replym(c, M("Not now."), MSG_END);
        break;
    }
}

static void explain(struct cmd *c, struct table *t, int seat,
                    enum engine_refusal why,
                    const struct engine_refusal_detail *d)
{
    char card[64] = "";
    if (d->card >= 0 && d->card < 64 && engine_card_valid(d->card))
        mgr_card_text(card, sizeof card, look_of(c), d->card);
    switch (why) {
    case ENGINE_REFUSE_NOT_YOUR_TURN:
        if (d->seat >= 0)
            mgr_cmd_replym(c, M("Not your turn: {player} plays now."),
                           MSG_S("player", mgr_seat_name(t, d->seat)), MSG_END);
        else
            mgr_cmd_replym(c, M("Not your turn: someone else plays now."),
                           MSG_END);
        break;
    case ENGINE_REFUSE_WRONG_PHASE:
    case ENGINE_REFUSE_ALREADY_PASSED:
        not_now(c, t, seat);
        break;
    case ENGINE_REFUSE_NOT_IN_HAND:
        mgr_cmd_replym(c, M("You don't hold {card}."), MSG_S("card", card),
                       MSG_END);
        break;
    case ENGINE_REFUSE_BAD_CARD:
        mgr_cmd_replym(c, M("{card} is not in this game's pack."),
                       MSG_S("card", card), MSG_END);
        break;
    case ENGINE_REFUSE_DUPLICATE_CARD:
        mgr_cmd_replym(c, M("You named {card} twice."), MSG_S("card", card),
                       MSG_END);
        break;
    case ENGINE_REFUSE_PASS_COUNT:
        mgr_cmd_replymn(c,
                        MN("Name exactly {n} card.", "Name exactly {n} cards."),
                        (unsigned long)d->count, MSG_I("n", d->count), MSG_END);
        break;
    case ENGINE_REFUSE_BLIND_NOT_ALLOWED:
        mgr_cmd_replym(c, M("Blind passing is not allowed here."), MSG_END);
        break;
    case ENGINE_REFUSE_MUST_FOLLOW:
        /* TRANSLATORS: {suit} is a suit's name ("clubs"). */
        mgr_cmd_replym(
            c, M("You must follow suit: {suit}."),
            MSG_S("suit", render_suit_word(d->suit, mgr_cmd_lang_of(c))),
            MSG_END);
        break;
    case ENGINE_REFUSE_HEARTS_NOT_BROKEN:
        mgr_cmd_replym(c, M("Hearts are not broken yet: lead another suit."),
                       MSG_END);
        break;
    case ENGINE_REFUSE_FIRST_TRICK_POINTS:
        mgr_cmd_replym(
            c, M("No points on the first trick: play a card without points."),
            MSG_END);
        break;
    case ENGINE_REFUSE_MUST_LEAD_CARD:
        mgr_cmd_replym(c, M("You must lead {card}."), MSG_S("card", card),
                       MSG_END);
        break;
    case ENGINE_REFUSE_MUST_DUMP_QUEEN:
        mgr_cmd_replym(c,
                       /* TRANSLATORS: {card} is the queen of spades. */
                       M("You must play {card} now (the queen goes at the "
                         "first safe chance)."),
                       MSG_S("card", card), MSG_END);
        break;
    case ENGINE_REFUSE_MUST_LEAD_QUEEN:
        /* TRANSLATORS: {card} is the queen of spades. */
        mgr_cmd_replym(c, M("Hearts are not broken: lead {card}."),
                       MSG_S("card", card), MSG_END);
        break;
    case ENGINE_REFUSE_BAD_MOON_CHOICE:
        say_moon_choice(c);
        break;
    case ENGINE_REFUSE_NOT_SHOOTER:
        mgr_cmd_replym(c, M("Only the shooter chooses."), MSG_END);
        break;
    default: {
        char words[100];
        /* TRANSLATORS: {reason} says why a play is refused. */
        mgr_cmd_replym(
            c, M("That won't do: {reason}."),
            MSG_S("reason", rule_words_refusal_text(words, sizeof words,
                                                    mgr_cmd_lang_of(c), why)),
            MSG_END);
        break;
    }
    }
}

/* Scans the cards in words[from..], blank- or comma-separated ("KS,AS,
 * KC"), into out (up to max; out may be NULL to count). Returns how many,
 * -1 at a word that is no card (*bad and *badlen name it), or -2 when
 * there are more than max. */
int mgr_cmd_scan_cards(const struct cmd *c, int from, uint8_t *out, int max,
                       const char **bad, size_t *badlen)
{
    int lang = mgr_cmd_lang_of(c);
    int n = 0;
    for (int i = from; i < c->nwords; i++) {
        for (const char *w = c->words[i]; *w;) {
            size_t len = strcspn(w, ",");
            int card;
            if (len > 0) {
                if (mgr_card_parse(lang, w, len, &card)) {
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

bool mgr_cmd_is_card(const struct cmd *c, const char *w)
{
    int card;
    return mgr_card_parse(mgr_cmd_lang_of(c), w, strlen(w), &card) !=
           MGR_CARD_NONE;
}

/* At most `most` bytes of text[0..len), cut before a character, not in
 * it. */
static int cut_len(const char *text, size_t len, size_t most)
{
    if (len <= most)
        return (int)len;
    while (most > 0 && ((unsigned char)text[most] & 0xC0) == 0x80)
        most--;
    return (int)most;
}

/* Why the word bad[0..len) is no card, to the asker. */
static void not_a_card(struct cmd *c, const char *bad, size_t len)
{
    char word[48];
    snprintf(word, sizeof word, "%.*s", cut_len(bad, len, 40), bad);
    int lang = mgr_cmd_lang_of(c);
    int card;
    int why = mgr_card_parse(lang, bad, len, &card);
    /* the letter of two meanings, in capitals as the catalogue writes
     * letters */
    char at = why == MGR_CARD_RANK_AMBIGUOUS ? bad[0] : bad[len - 1];
    char letter[2] = {(char)toupper((unsigned char)at), 0};
    if (why == MGR_CARD_SUIT_AMBIGUOUS) {
        /* the suits the letter means, as the asker sees suits */
        struct render_look look = look_of(c);
        const char *suits[4];
        char text[4][32];
        int n = 0;
        unsigned bits = mgr_card_suit_meanings(lang, letter[0]);
        for (int s = 0; s < 4; s++)
            if (bits >> s & 1) {
                render_suit(text[n], sizeof text[n], s, look);
                suits[n] = text[n];
                n++;
            }
        char list_text[256];
        struct strbuf list;
        strbuf_init(&list, list_text, sizeof list_text);
        add_list(&list, lang, LIST_OR, suits, n);
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: a card typed with a letter that means two suits in
             * your language and English (the K of Kreuz and Karo, the C of
             * coeur and clubs): {text} is what was typed, {letter} the letter,
             * {suits} the suits it may mean ("♣ or ♦"). Keep C D H S (the
             * English letters). */
            M("'{text}' could be more than one card: {letter} is {suits} here. "
              "Write the suit as a symbol or in English letters: C D H S."),
            MSG_S("text", word), MSG_S("letter", letter),
            MSG_S("suits", list.buf), MSG_END);
        return;
    }
    if (why == MGR_CARD_RANK_AMBIGUOUS) {
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: a card typed with a letter that means two ranks in
             * your language and English: {text} is what was typed, {letter}
             * the letter. Keep J Q K A (the English letters). */
            M("'{text}' could be more than one card: {letter} is more than one "
              "rank here. Write the rank as 2 to 10 or in English letters: J Q "
              "K A."),
            MSG_S("text", word), MSG_S("letter", letter), MSG_END);
        return;
    }
    mgr_cmd_replym(
        c,
        /* TRANSLATORS: {text} is what was typed. The examples are cards as
         * they may be typed: English codes, either case, and suit symbols;
         * add your language's letters if you like ("DP" for Dame Pik). */
        M("'{text}' is not a card: write them like QS, 10h, t♦ or Q♠."),
        MSG_S("text", word), MSG_END);
}

/* Reads cards from words[from..]; replies and returns -1 on a bad one. */
static int read_cards(struct cmd *c, int from, uint8_t *out, int max)
{
    const char *bad = NULL;
    size_t len = 0;
    int n = mgr_cmd_scan_cards(c, from, out, max, &bad, &len);
    if (n == -1)
        not_a_card(c, bad, len);
    else if (n == -2)
        mgr_cmd_replym(c, M("Too many cards."), MSG_END);
    return n < 0 ? -1 : n;
}

static void do_action(struct cmd *c, struct table *t, int seat,
                      struct engine_action *a)
{
    struct engine_refusal_detail d;
    enum engine_refusal why = mgr_table_act(t, seat, a, &d);
    if (why)
        explain(c, t, seat, why, &d);
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
    char text[64];
    mgr_cmd_replym(
        c,
        /* TRANSLATORS: keep "play none" (a command) as it is. */
        M("Not your turn yet: {player} plays now. I'll play {card} for you at "
          "your turn if it is legal then (\"play none\" to take it back)."),
        MSG_S("player", mgr_seat_name(t, engine_turn(g))),
        MSG_S("card", mgr_card_text(text, sizeof text, look_of(c), card)),
        MSG_END);
    return true;
}

void mgr_cmd_play(struct cmd *c)
{
    int seat;
    struct table *t = mgr_cmd_my_table(c, &seat);
    if (!t)
        return;
    if (c->nwords == 2 && strcasecmp(c->words[1], "none") == 0) {
        if (t->seats[seat].queued)
            mgr_cmd_replym(c, M("Taken back: I'll ask you at your turn."),
                           MSG_END);
        else
            mgr_cmd_replym(c, M("No card was waiting."), MSG_END);
        t->seats[seat].queued = false;
        return;
    }
    uint8_t cards[ENGINE_MAX_ACT_CARDS];
    int n = read_cards(c, 1, cards, 1);
    if (n < 0)
        return;
    if (n != 1) {
        /* TRANSLATORS: keep "play QS" (a command) as it is. */
        mgr_cmd_replym(c, M("Play which card? Like \"play QS\"."), MSG_END);
        return;
    }
    if (queue_play(c, t, seat, cards[0]))
        return;
    struct engine_action a = {.kind = ENGINE_ACT_PLAY, .ncards = 1};
    a.cards[0] = cards[0];
    do_action(c, t, seat, &a);
}

void mgr_cmd_autoplay(struct cmd *c)
{
    static const char *const modes[] = {"last", "on", "off"};
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !mgr_same_person(t, seat, c->u)) {
        mgr_cmd_replym(
            c, M("You are not at a table. {prefix}join one in a channel."),
            MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return;
    }
    struct seat *st = &t->seats[seat];
    if (c->nwords > 1) {
        int k = 0;
        while (k < 3 && strcasecmp(c->words[1], modes[k]) != 0)
            k++;
        if (k == 3) {
            /* TRANSLATORS: keep "autoplay", "on", "off" and "last" (a
             * command and its words) as they are. */
            mgr_cmd_replym(c, M("autoplay on, off or last."), MSG_END);
            return;
        }
        st->autoplay = (enum seat_autoplay)k;
    }
    switch (st->autoplay) {
    case 0:
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: "Autoplay last", "on" and "off" name the setting
             * (the words typed after "autoplay"): keep them as they are. */
            M("Autoplay last: I play the last card of each hand for you (this "
              "game)."),
            MSG_END);
        break;
    case 1:
        mgr_cmd_replym(
            c,
            M("Autoplay on: I play the last card of each hand, and every card "
              "that is your only legal one, for you (this game)."),
            MSG_END);
        break;
    default:
        mgr_cmd_replym(c, M("Autoplay off: I always ask you (this game)."),
                       MSG_END);
        break;
    }
}

void mgr_cmd_pass(struct cmd *c)
{
    int seat;
    struct table *t = mgr_cmd_my_table(c, &seat);
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

void mgr_cmd_discard(struct cmd *c)
{
    int seat;
    struct table *t = mgr_cmd_my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_DISCARD};
    int n = read_cards(c, 1, a.cards, ENGINE_MAX_ACT_CARDS);
    if (n < 0)
        return;
    a.ncards = (uint8_t)n;
    do_action(c, t, seat, &a);
}

void mgr_cmd_moon(struct cmd *c)
{
    int seat;
    struct table *t = mgr_cmd_my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_MOON};
    const char *w = c->nwords > 1 ? c->words[1] : "";
    if (strcasecmp(w, "add") == 0)
        a.moon = ENGINE_MOON_ADD_OTHERS;
    else if (strcasecmp(w, "subtract") == 0 || strcasecmp(w, "sub") == 0)
        a.moon = ENGINE_MOON_SUBTRACT;
    else {
        say_moon_choice(c);
        return;
    }
    do_action(c, t, seat, &a);
}

/* While the others choose their passes: which cards the seat passes to
 * whom, and who is still to pass, in parentheses, in lang. */
static void add_passing(struct strbuf *sb, struct table *t, int seat,
                        struct render_look look)
{
    const struct engine_game *g = &t->game;
    char cards[MGR_TEXT_SIZE] = "", names_text[MGR_TEXT_SIZE];
    struct strbuf names;
    strbuf_init(&names, names_text, sizeof names_text);
    still_to_pass(&names, t, look.lang);
    bool blind = g->blind_mask >> seat & 1;
    int target = mgr_pass_chosen(t, seat, look, cards, sizeof cards);
    const char *to = target >= 0 ? mgr_seat_name(t, target) : NULL;
    /* (the engine passes blind to one seat only, never spread) */
    if (blind && to)
        msg_add(sb, look.lang,
                /* TRANSLATORS: after a hand shown while the others choose
                 * their passes: the cards passed unseen ("pass blind") go
                 * to {player}; {players} is a list of names ("bob and
                 * carol"). */
                M("(Passing blind to {player}; waiting for {players} to pass)"),
                MSG_S("player", to), MSG_S("players", names.buf), MSG_END);
    else if (to)
        msg_add(
            sb, look.lang,
            /* TRANSLATORS: after a hand shown while the others choose
             * their passes: {cards} are the cards passed, {player} who
             * gets them, {players} a list of names ("bob and carol"). */
            M("(Passing {cards} to {player}; waiting for {players} to pass)"),
            MSG_S("cards", cards), MSG_S("player", to),
            MSG_S("players", names.buf), MSG_END);
    else
        msg_add(
            sb, look.lang,
            /* TRANSLATORS: as "(Passing {cards} to {player}...", the
             * cards spread among the other players. */
            M("(Passing {cards} to the others; waiting for {players} to pass)"),
            MSG_S("cards", cards), MSG_S("players", names.buf), MSG_END);
}

void mgr_cmd_hand(struct cmd *c)
{
    int seat;
    struct table *t = mgr_cmd_my_table(c, &seat);
    if (!t)
        return;
    const struct engine_game *g = &t->game;
    struct engine_cards hand = engine_hand(g, seat);
    if (!hand.one && !hand.two) {
        /* the hand is over (the next deal, or a moon choice, is due) */
        if (engine_phase(g) == ENGINE_PHASE_MOON && engine_may_act(g, seat)) {
            if (g->moon_sun)
                mgr_cmd_replym(
                    c,
                    /* TRANSLATORS: keep "moon subtract" and "moon
                     * add" (commands) as they are. */
                    M("You hold no cards: the hand is over and you shot the "
                      "sun. Tell me \"moon subtract\" or \"moon add\"."),
                    MSG_END);
            else
                mgr_cmd_replym(
                    c,
                    M("You hold no cards: the hand is over and you shot the "
                      "moon. Tell me \"moon subtract\" or \"moon add\"."),
                    MSG_END);
        } else {
            mgr_cmd_replym(c, M("You hold no cards until the next deal."),
                           MSG_END);
        }
        return;
    }
    struct render_look look = look_of(c);
    char sb_text[MGR_TEXT_SIZE], shown[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
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
    uint64_t legal = engine_turn(g) == seat ? engine_legal_plays(g) : 0;
    render_hand(shown, sizeof shown, &hand, legal, look);
    msg_add(&sb, look.lang, M("Your hand: {hand}"), MSG_S("hand", shown),
            MSG_END);
    if (legal) {
        strbuf_addc(&sb, ' ');
        msg_add(&sb, look.lang, M("(your turn: the marked cards are playable)"),
                MSG_END);
    }
    if (passing) {
        strbuf_addc(&sb, ' ');
        add_passing(&sb, t, seat, look);
    }
    if (t->seats[seat].queued) {
        char card[64];
        strbuf_addc(&sb, ' ');
        msg_add(&sb, look.lang, M("(waiting to play {card})"),
                MSG_S("card", mgr_card_text(card, sizeof card, look,
                                            t->seats[seat].queued_card)),
                MSG_END);
    }
    mgr_cmd_reply(c, "%s", sb.buf);
}

void mgr_cmd_back(struct cmd *c)
{
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !mgr_same_person(t, seat, c->u)) {
        mgr_cmd_replym(c, M("You have no seat to come back to."), MSG_END);
        return;
    }
    if (!t->seats[seat].away && !t->seats[seat].gone) {
        mgr_cmd_replym(c, M("You are playing already."), MSG_END);
        return;
    }
    mgr_cmd_shown_as_seat(c, t, seat);
    /* the one person at a terminal is "you" */
    if (c->a->solo)
        mgr_table_saym(t, M("You are back."), MSG_END);
    else
        mgr_table_saym(t, M("{player} is back."), MSG_S("player", c->shown),
                       MSG_END);
    mgr_table_back(t, seat);
}
