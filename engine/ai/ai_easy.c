/*
 * The easy computer player: the usual advice of the rules texts (the
 * strategy notes of text 004, docs/spec/variants.md, and common Hearts
 * play) as a handful of scores, computed from the seat's view alone.
 *
 * Passing and the kitty-exchange discard pick, one card at a time, the card
 * the seat most wants to be rid of: the costliest penalty cards unless well
 * guarded, the high cards that would catch them, high hearts, whole short
 * suits (voids); never the low cards that guard a penalty card, never the
 * bonus card (which a discard, going to the seat's own tricks, takes
 * instead). Leading picks the card most likely to lose the trick, smoking
 * out the queen with low spades when safe. Following ducks under the winning
 * card; when it cannot, it wins with the highest card, but not over a
 * penalty card still out that a later seat could drop under it (the QS
 * under the AS: see play_over); last to play it judges each card by what
 * the trick would cost or bring. Void, it dumps the costliest card it can
 * (the QS first), then high hearts and the cards that would catch the
 * queen. It takes a trick holding the bonus card when it surely wins it and
 * the trick carries no penalty.
 *
 * Where the rules have a moon (read_moon): when another side has taken
 * every moon card so far and enough of them to be a threat, it takes one
 * cheaply if it can and keeps its stoppers otherwise (play_stop); when its
 * side has taken every moon card so far and holds all the others as
 * masters, it leads them and takes them all (play_shoot).
 *
 * Who wins a trick follows the rules: with two decks a card whose twin is on
 * the trick cannot win; the joker wins unless the JH or a higher heart is on
 * the trick. Every decision is a few passes over the hand and the trick with
 * no allocation, and it never draws from the PRNG: ties go to a fixed order.
 */
#include "engine/ai/ai_internal.h"
#include "engine/internal.h"

#include <limits.h>

/* The JH, QH, KH and AH: the hearts that beat the joker. */
#define HIGH_HEARTS                                                            \
    (ENGINE_SUIT_MASK(ENGINE_HEARTS) & ~ENGINE_BIT(ENGINE_JOKER) &             \
     ~(ENGINE_BIT(ENGINE_JH) - 1))

/* What one decision needs, worked out once. */
struct easy {
    const struct engine_view *v;
    const struct engine_rules *r;
    uint64_t out; /* cards still to come from other seats (or the stock) */
    int top[4];   /* per suit but hearts: its costliest penalty card */
    int bonus;    /* a card worth negative points, or ENGINE_NO_CARD */
    /* the trick in progress */
    int led;        /* suit led, -1 when leading */
    int win_seat;   /* who is winning it, ENGINE_NO_SEAT if no one */
    int pts;        /* net points on the trick (a bonus card counts < 0) */
    int pen;        /* its positive points */
    uint64_t on;    /* cards on the trick */
    uint64_t twice; /* cards on the trick twice (two decks) */
    int after;      /* seats still to play to the trick after this one */
    /* the moon (see read_moon) */
    uint32_t threat; /* seats of another side that may shoot: stop it */
    bool shoot;      /* our side may shoot, and surely can: go for it */
};

static int count_in(const struct engine_cards *h, uint64_t mask)
{
    return bits_count(h->one & mask) + bits_count(h->two & mask);
}

static int points(const struct easy *e, int c)
{
    return e->r->points[c];
}

/* Cards strictly above c in the bit order (the joker is above the AH). */
static uint64_t above(int c)
{
    return ~((ENGINE_BIT(c) << 1) - 1);
}

/* The highest card of a set, as a set (empty for an empty set). */
static uint64_t highest(uint64_t set)
{
    return set ? ENGINE_BIT(bits_high(set)) : 0;
}

/* The card that wins a trick of these cards (cancellation and joker rules
 * included), as a one-card set; empty if every card of the suit led
 * cancelled. */
static uint64_t winning_card(const struct engine_rules *r, uint64_t on,
                             uint64_t twice, int led)
{
    if (r->special & ENGINE_SPECIAL_CANCEL)
        return highest(on & ~twice & ENGINE_SUIT_MASK(led));
    if ((r->special & ENGINE_SPECIAL_JOKER) &&
        (on & ENGINE_BIT(ENGINE_JOKER))) {
        uint64_t high = on & HIGH_HEARTS;
        return high ? highest(high) : ENGINE_BIT(ENGINE_JOKER);
    }
    return highest(on & ENGINE_SUIT_MASK(led));
}

/* Whether card c would be winning the trick once played now. */
static bool wins_now(const struct easy *e, int c)
{
    if (e->led < 0)
        return true;
    uint64_t b = ENGINE_BIT(c);
    return winning_card(e->r, e->on | b, e->twice | (e->on & b), e->led) == b;
}

/* The cards still out that could beat c on a trick of `suit` (its twin
 * too, with two decks; the joker where it wins). */
static uint64_t overtakers(const struct easy *e, int c, int suit)
{
    uint64_t threat = e->out & ENGINE_SUIT_MASK(suit) & above(c);
    if (e->r->special & ENGINE_SPECIAL_JOKER) {
        /* a void seat may play the joker; only JH and above beat it */
        if (!(ENGINE_BIT(c) & HIGH_HEARTS))
            threat |= e->out & ENGINE_BIT(ENGINE_JOKER);
        if (c == ENGINE_JOKER)
            threat = e->out & HIGH_HEARTS;
    }
    if (e->r->special & ENGINE_SPECIAL_CANCEL)
        threat |= e->out & ENGINE_BIT(c); /* its twin would cancel it */
    return threat;
}

/* Whether c, played now, wins the trick whatever the seats after play
 * (given what is still out). */
static bool sure_win(const struct easy *e, int c)
{
    if (!wins_now(e, c))
        return false;
    if (e->after == 0)
        return true;
    return overtakers(e, c, e->led < 0 ? engine_card_suit(c) : e->led) == 0;
}

/* ---- The moon --------------------------------------------------------- */

/*
 * A threat is one other side's unit that has taken every moon card taken so
 * far, at least STOP_CARDS of them and STOP_NUM / STOP_DEN of their points:
 * worth a few points of ours to stop (a moon gives each of us the whole
 * hand's points). Below that most hands end without a moon (the QS taken
 * early, say), and stopping costs more than it saves: measured with
 * hearts-sim against the easy player before the change (docs/engine.md).
 */
#define STOP_NUM 1
#define STOP_DEN 2
#define STOP_CARDS 3

/* What shoots as one: the seat, or its team under partners=team_score. */
static int unit_of(const struct easy *e, int seat)
{
    return e->r->partners == ENGINE_PARTNERS_TEAM ? seat % 2 : seat;
}

/* Whether a seat plays for our score: ourselves, or our partner (whose
 * moon is good for the team in either partners mode). */
static bool friendly(const struct easy *e, int seat)
{
    if (e->r->partners != ENGINE_PARTNERS_OFF)
        return seat % 2 == e->v->seat % 2;
    return seat == e->v->seat;
}

/*
 * Who may still shoot, from the moon cards taken so far (only where the
 * rules have a moon): nobody once two units have some. Another side's unit
 * that has them all and enough of their points is a threat (e->threat, its
 * seats). Our own shot (e->shoot) is conservative, a lock but for the lead:
 * our unit has taken every moon card taken so far, and every other one is
 * in our hand and a master (nothing still out can beat it when led), so
 * that each one we lead wins its trick and keeps the lead (play_shoot).
 */
static void read_moon(struct easy *e)
{
    const struct engine_rules *r = e->r;
    const struct engine_view *v = e->v;
    e->threat = 0;
    e->shoot = false;
    if (r->moon == ENGINE_MOON_OFF || !r->moon_cards)
        return;
    const uint64_t mc = r->moon_cards;
    int unit = -1, who = ENGINE_NO_SEAT, pts = 0;
    struct engine_cards got = {0, 0};
    for (int s = 0; s < v->n; s++) {
        struct engine_cards t = {v->taken[s].one & mc, v->taken[s].two & mc};
        if (!t.one)
            continue;
        if (unit >= 0 && unit_of(e, s) != unit)
            return; /* two units have moon cards: nobody can shoot */
        unit = unit_of(e, s);
        who = s;
        pts += cards_points(r, &t);
        cards_merge(&got, &t);
    }
    if (unit >= 0 && unit != unit_of(e, v->seat)) {
        if (friendly(e, who) ||
            bits_count(got.one) + bits_count(got.two) < STOP_CARDS ||
            pts * STOP_DEN < set_points(r, mc) * r->decks * STOP_NUM)
            return;
        for (int s = 0; s < v->n; s++)
            if (unit_of(e, s) == unit)
                e->threat |= 1u << s;
        return;
    }
    for (uint64_t m = mc; m; m &= m - 1) {
        int c = bits_low(m);
        int held = cards_has(&v->hand, c);
        if (cards_has(&got, c) + held < r->decks)
            return; /* out, on the trick, aside or in an unseen kitty */
        if (held && overtakers(e, c, engine_card_suit(c)))
            return;
    }
    e->shoot = true;
}

static void read_view(const struct engine_view *v, struct easy *e)
{
    const struct engine_rules *r = v->rules;
    e->v = v;
    e->r = r;

    const struct engine_cards *p = &v->played, *h = &v->hand;
    uint64_t gone;
    if (r->decks == 1)
        gone = p->one | h->one | v->faceup | v->rest_seen;
    else
        gone = p->two | h->two | (p->one & h->one);
    e->out = r->in_play & ~gone;

    for (int s = 0; s < 4; s++) {
        e->top[s] = ENGINE_NO_CARD;
        if (s == ENGINE_HEARTS)
            continue;
        uint64_t pen = r->penalty & ENGINE_SUIT_MASK(s);
        int best = 0;
        while (pen) {
            int c = bits_low(pen);
            pen &= pen - 1;
            if (r->points[c] >= best) {
                best = r->points[c];
                e->top[s] = c;
            }
        }
    }
    e->bonus = ENGINE_NO_CARD;
    if (r->bonus != ENGINE_NO_CARD && r->points[r->bonus] < 0)
        e->bonus = r->bonus;

    e->led = v->trick_len ? engine_card_suit(v->trick[0]) : -1;
    e->pts = e->pen = 0;
    e->on = e->twice = 0;
    unsigned in_trick = 0;
    for (int i = 0; i < v->trick_len; i++) {
        int c = v->trick[i];
        uint64_t b = ENGINE_BIT(c);
        e->twice |= e->on & b;
        e->on |= b;
        e->pts += r->points[c];
        if (r->points[c] > 0)
            e->pen += r->points[c];
        in_trick |= 1u << v->trick_seat[i];
    }
    e->win_seat = ENGINE_NO_SEAT;
    if (e->led >= 0) {
        uint64_t win = winning_card(r, e->on, e->twice, e->led);
        for (int i = 0; i < v->trick_len; i++)
            if (ENGINE_BIT(v->trick[i]) == win)
                e->win_seat = v->trick_seat[i];
    }
    /* seats out of cards have dropped out (domino) */
    e->after = 0;
    for (int s = 0; s < v->n; s++)
        if (s != v->seat && !(in_trick >> s & 1) && v->cards_left[s] > 0)
            e->after++;
    read_moon(e);
}

/* ---- Passing and discarding ------------------------------------------- */

/*
 * How much the seat wants to be rid of card c before the play, holding h
 * with `left` cards still to choose. The scale: an unguarded QS about 43,
 * an AH 34, a void-making low club about 16, guards of the QS below 0.
 */
static int pass_danger(const struct easy *e, const struct engine_cards *h,
                       int c, int left)
{
    int s = engine_card_suit(c), rk = engine_card_rank(c);
    int p = points(e, c);
    uint64_t sm = ENGINE_SUIT_MASK(s);
    int len = count_in(h, sm);
    int guard = count_in(h, sm & (ENGINE_BIT(c) - 1));
    int top = e->top[s];

    if (p < 0)
        return -50; /* the bonus card: keep it */
    if (c == ENGINE_JOKER)
        return 60; /* wins nearly every trick it meets, and costs 5 */
    int d = rk * 2;
    if (p > 0 && s != ENGINE_HEARTS) {
        /* the QS (and Black Maria's KS, AS): safe only behind enough low
         * cards of its suit to duck every lead of it */
        if (guard >= 4)
            d = 2;
        else if (guard == 3)
            d = 14 + p / 2;
        else
            d = 30 + p;
    } else if (p > 0) {
        d += 2 * p + (rk >= 9 ? 8 : 0);
        /* with plenty of low hearts the high ones can be kept (004) */
        if (len >= 5 && guard >= 3)
            d -= 10;
    } else if (top != ENGINE_NO_CARD && c > top) {
        /* AS, KS: they catch the queen when spades are short */
        int low = count_in(h, sm & (ENGINE_BIT(top) - 1));
        d = low >= 3 ? 8 + rk : 26 + rk;
    } else if (top != ENGINE_NO_CARD) {
        /* passing low spades guards someone's queen, maybe ours (004) */
        return -20 + rk;
    }
    if (e->bonus != ENGINE_NO_CARD && s == engine_card_suit(e->bonus) &&
        c > e->bonus && p == 0)
        d -= 8; /* high diamonds may win the bonus card */
    /* the whole of a short suit fits in the pass: a void to dump on */
    if (s != ENGINE_HEARTS && top == ENGINE_NO_CARD && len <= left &&
        !(e->bonus != ENGINE_NO_CARD && (h->one & sm & ENGINE_BIT(e->bonus))))
        d += 12 + 4 * (left - len);
    return d;
}

/*
 * Chooses k cards of the hand, the most wanted gone first (a scatter pass
 * sends the first ones left). A discard goes into the seat's own tricks:
 * there the bonus card is best and penalty cards worst.
 */
static void choose_cards(const struct easy *e, int k, bool discard,
                         struct engine_action *a)
{
    struct engine_cards h = e->v->hand;
    a->ncards = (uint8_t)k;
    for (int i = 0; i < k; i++) {
        int best = INT_MIN, pick = ENGINE_NO_CARD;
        for (uint64_t m = h.one; m; m &= ~ENGINE_BIT(bits_high(m))) {
            int c = bits_high(m);
            int d = pass_danger(e, &h, c, k - i);
            if (discard && points(e, c) < 0)
                d = 1000;
            else if (discard && points(e, c) > 0)
                d = -100 - points(e, c);
            if (d > best) {
                best = d;
                pick = c;
            }
        }
        a->cards[i] = (uint8_t)pick;
        cards_remove(&h, pick);
    }
}

/* ---- Playing ---------------------------------------------------------- */

/*
 * How much the seat wants to shed card c in play, apart from its points:
 * high cards, high hearts, and the cards that would catch a penalty card
 * still out; less so the diamonds that may win the bonus card.
 */
static int shed_value(const struct easy *e, int c)
{
    int s = engine_card_suit(c);
    int rk = c == ENGINE_JOKER ? 13 : engine_card_rank(c);
    int d = rk * 2;
    if (s == ENGINE_HEARTS && points(e, c) > 0 && rk >= 9)
        d += 12;
    int top = e->top[s];
    if (top != ENGINE_NO_CARD && c > top && (e->out & ENGINE_BIT(top)))
        d += 14;
    if (e->bonus != ENGINE_NO_CARD && s == engine_card_suit(e->bonus) &&
        c > e->bonus && (e->out & ENGINE_BIT(e->bonus)))
        d -= 6;
    if (count_in(&e->v->hand, ENGINE_SUIT_MASK(s)) == 1)
        d += 2; /* the last of a suit: a void */
    return d;
}

/* The card of `set` with the best value of fn (ties: the higher card). */
static int best_of(const struct easy *e, uint64_t set,
                   int (*fn)(const struct easy *, int))
{
    int best = INT_MIN, pick = bits_high(set);
    for (uint64_t m = set; m; m &= ~ENGINE_BIT(bits_high(m))) {
        int c = bits_high(m);
        int val = fn(e, c);
        if (val > best) {
            best = val;
            pick = c;
        }
    }
    return pick;
}

/* Last to play: the outcome of each card is known. Taking points weighs
 * ten times what giving them brings; a clean trick is won with the highest
 * card, which sheds it. */
static int value_last(const struct easy *e, int c)
{
    int p = points(e, c);
    if (wins_now(e, c))
        return -(e->pts + p) * 100 + shed_value(e, c);
    return p * 10 + shed_value(e, c);
}

/* Void in the suit led, not last: dump the costliest card, then high
 * hearts and queen catchers; never the bonus card. */
static int value_dump(const struct easy *e, int c)
{
    return points(e, c) * 10 + shed_value(e, c);
}

/* As value_dump when the partner is winning: spare the team points. */
static int value_dump_partner(const struct easy *e, int c)
{
    int p = points(e, c);
    return -(p > 0 ? p : -p) * 10 + shed_value(e, c);
}

/* Cannot duck: win with the highest card that adds no points of one's own
 * (the AS rather than the QS); the bonus card only when it surely wins. */
static int value_take(const struct easy *e, int c)
{
    int p = points(e, c);
    if (p < 0 && !sure_win(e, c))
        p = 2;
    return -p * 100 + engine_card_rank(c);
}

/* The fewest points of our own, then the lowest card. */
static int value_cheap(const struct easy *e, int c)
{
    return -points(e, c) * 100 - engine_card_rank(c);
}

/*
 * Following when every card we may play beats the winning card, with seats
 * still to play. If a penalty card of the suit led is still out (the QS;
 * Black Maria's KS and AS too), a seat after us that holds it and must
 * follow suit drops it safely under any higher card of ours: the AS above
 * all, which nothing can overtake. A card below the lowest penalty card
 * still out cannot take one on this trick: a seat that follows with a
 * penalty card then wins the trick with it, or a later seat overtakes it
 * and takes it (a void seat's dump is a risk of any trick). So we play the
 * highest such card, which sheds a high card and keeps the low ones for
 * ducking later. If we have none, the lowest card (the KS rather than the
 * AS): a later seat may still overtake it, and our own points count first.
 * Hearts, all penalty cards, and suits without penalty cards out keep the
 * plain choice: the highest card without points of our own.
 */
static int play_over(const struct easy *e)
{
    uint64_t legal = e->v->legal;
    uint64_t pen_out = e->out & e->r->penalty & ENGINE_SUIT_MASK(e->led);
    if (e->led == ENGINE_HEARTS || !pen_out)
        return best_of(e, legal, value_take);
    uint64_t below = legal & (ENGINE_BIT(bits_low(pen_out)) - 1);
    if (below)
        return best_of(e, below, value_take);
    return best_of(e, legal, value_cheap);
}

static int play_last(const struct easy *e)
{
    return best_of(e, e->v->legal, value_last);
}

/* The set without our bonus card, unless that is all of it: the card is
 * for our own tricks, not to be handed over on a lost one. */
static uint64_t spare_bonus(const struct easy *e, uint64_t set)
{
    uint64_t keep = e->bonus != ENGINE_NO_CARD ? ENGINE_BIT(e->bonus) : 0;
    return set & ~keep ? set & ~keep : set;
}

static int play_follow(const struct easy *e)
{
    const struct engine_view *v = e->v;
    uint64_t legal = v->legal, lose = 0, sure = 0;
    for (uint64_t m = legal; m; m &= m - 1) {
        int c = bits_low(m);
        if (!wins_now(e, c))
            lose |= ENGINE_BIT(c);
        else if (sure_win(e, c))
            sure |= ENGINE_BIT(c);
    }
    /* a trick with the bonus card and no penalty: take it if sure */
    if (e->pts < 0 && e->pen == 0 && sure)
        return best_of(e, sure, value_take);
    /* our own bonus card, sure to win a clean trick so far: take it */
    if (e->bonus != ENGINE_NO_CARD && (sure & ENGINE_BIT(e->bonus)) &&
        e->pen == 0)
        return e->bonus;
    /* first trick with points forbidden: nothing can hurt, shed high */
    if (v->trick_no == 0 && (e->r->special & ENGINE_SPECIAL_FIRST_TRICK))
        return best_of(e, legal, value_take);
    if (lose) /* duck as high as possible, but keep the bonus card */
        return bits_high(spare_bonus(e, lose));
    return play_over(e);
}

static int play_void(const struct easy *e)
{
    const struct engine_view *v = e->v;
    uint64_t cand = 0;
    for (uint64_t m = v->legal; m; m &= m - 1)
        if (!wins_now(e, bits_low(m)))
            cand |= ENGINE_BIT(bits_low(m));
    if (!cand)
        cand = v->legal; /* only the joker, say: it wins anyway */
    bool partner = e->r->partners != ENGINE_PARTNERS_OFF && v->n == 4 &&
                   e->win_seat != ENGINE_NO_SEAT &&
                   e->win_seat == (v->seat + 2) % 4;
    return best_of(e, cand, partner ? value_dump_partner : value_dump);
}

/*
 * How good card c is to lead: it should lose the trick (many cards of its
 * suit still out above it, few below), carry no points, not be led into
 * seats known void while penalty cards are out, and not be a spade while
 * the seat holds a card that would catch the queen; low spades that smoke
 * out the queen are welcome.
 */
static int value_lead(const struct easy *e, int c)
{
    const struct engine_view *v = e->v;
    int s = engine_card_suit(c), p = points(e, c);
    uint64_t sm = ENGINE_SUIT_MASK(s);
    uint64_t o = e->out & sm;
    int hi = bits_count(o & above(c));
    int lo = bits_count(o & (ENGINE_BIT(c) - 1));
    bool pen_out = (e->out & e->r->penalty) != 0;
    int score;
    if (!o)
        score = pen_out ? -50 : -20; /* nobody follows: they dump */
    else if (!hi || sure_win(e, c))
        score = pen_out ? -40 : -10;
    else
        score = 20 * hi / (hi + lo);
    score -= engine_card_rank(c);

    if (p < 0) {
        /* leading the bonus card gives it away unless it is master */
        score = o && sure_win(e, c) ? 25 : -60;
    } else if (p > 0 && s != ENGINE_HEARTS) {
        score -= 100 + p;
    } else if (p > 0) {
        score -= 4 + 2 * p; /* low hearts are for the end (004) */
    }

    int top = e->top[s];
    if (top != ENGINE_NO_CARD && (e->out & ENGINE_BIT(top))) {
        if (v->hand.one & sm & above(top))
            score -= 25; /* holding AS or KS: do not draw the queen */
        else
            score += 8; /* smoke the queen out */
    } else if (top != ENGINE_NO_CARD && (v->hand.one & ENGINE_BIT(top)) &&
               count_in(&v->hand, sm) <= 4) {
        score -= 10; /* the queen with few guards: keep spades unled */
    }
    if (pen_out)
        for (int seat = 0; seat < v->n; seat++)
            if (seat != v->seat && v->cards_left[seat] > 0 &&
                (v->void_suits[seat] >> s & 1))
                score -= 8;
    return score;
}

static int play_lead(const struct easy *e)
{
    return best_of(e, e->v->legal, value_lead);
}

/* The cards of `set` that win the trick for now, and those sure to. */
static uint64_t winners(const struct easy *e, uint64_t set, uint64_t *sure)
{
    uint64_t win = 0;
    *sure = 0;
    for (uint64_t m = set; m; m &= m - 1) {
        int c = bits_low(m);
        if (!wins_now(e, c))
            continue;
        win |= ENGINE_BIT(c);
        if (sure_win(e, c))
            *sure |= ENGINE_BIT(c);
    }
    return win;
}

/*
 * Another side may shoot (e->threat): cheap ways to take one of its moon
 * cards. On lead, a moon card that nothing still out beats (a master heart)
 * takes a trick with points at once. When that side is winning the trick:
 * with points on it, win it if we can (the cheapest sure winner, else the
 * highest card that wins for now); otherwise keep our stoppers, the high
 * cards and the penalty cards that may win a later trick with points:
 * following suit play the lowest card, void a card without points. Else
 * (ENGINE_NO_CARD) the usual play: when a seat of another side is winning,
 * points dumped on it break the moon.
 */
static int play_stop(const struct easy *e)
{
    const struct engine_view *v = e->v;
    uint64_t legal = v->legal, sure;
    if (e->led < 0) {
        winners(e, legal & e->r->moon_cards, &sure);
        return sure ? best_of(e, sure, value_cheap) : ENGINE_NO_CARD;
    }
    if (e->win_seat == ENGINE_NO_SEAT || !(e->threat >> e->win_seat & 1))
        return ENGINE_NO_CARD;
    bool follow = (legal & ENGINE_SUIT_MASK(e->led)) != 0;
    if (e->pen > 0 || !follow) {
        uint64_t win = winners(e, legal, &sure);
        if (sure)
            return best_of(e, sure, value_cheap);
        if (win)
            return bits_high(win);
    }
    if (follow && e->pen == 0)
        return ENGINE_NO_CARD;
    if (follow)
        return bits_low(spare_bonus(e, legal));
    uint64_t clean = legal & ~e->r->penalty;
    if (clean)
        return best_of(e, clean, value_dump);
    return bits_low(legal);
}

/* The lowest card (any suit), keeping the high ones. */
static int value_low(const struct easy *e, int c)
{
    (void)e;
    return -engine_card_rank(c);
}

/*
 * Shooting (e->shoot): every moon card not yet ours is in our hand and a
 * master, so each one we lead wins its trick and keeps the lead. Win the
 * trick when we surely can, with a moon card first (on lead: one of them,
 * or while hearts are unbroken a sure winner to keep the lead); else the
 * highest card that wins for now, but never a moon card that may lose;
 * else the lowest card without points, keeping the high cards that may win
 * the lead back. Only moon cards that may lose: the shot has failed, and
 * the usual play (ENGINE_NO_CARD) takes over, as on a lead without a sure
 * winner.
 */
static int play_shoot(const struct easy *e)
{
    const uint64_t legal = e->v->legal, mc = e->r->moon_cards;
    uint64_t sure, win = winners(e, legal, &sure) & ~mc;
    if (sure & mc)
        return bits_high(sure & mc);
    if (sure)
        return bits_low(sure);
    if (e->led < 0)
        return ENGINE_NO_CARD;
    if (win)
        return bits_high(win);
    uint64_t clean = legal & ~e->r->penalty;
    return clean ? best_of(e, clean, value_low) : ENGINE_NO_CARD;
}

static int choose_play(const struct easy *e)
{
    uint64_t legal = e->v->legal;
    if (!(legal & (legal - 1)))
        return bits_low(legal);
    int c = ENGINE_NO_CARD;
    if (e->shoot)
        c = play_shoot(e);
    else if (e->threat)
        c = play_stop(e);
    if (c != ENGINE_NO_CARD)
        return c;
    if (e->led < 0)
        return play_lead(e);
    if (e->after == 0)
        return play_last(e);
    if (legal & ENGINE_SUIT_MASK(e->led))
        return play_follow(e);
    return play_void(e);
}

/* Whether k cards can be chosen from the hand into one action. */
static bool can_choose(const struct engine_view *v, int k)
{
    return k > 0 && k <= ENGINE_MAX_ACT_CARDS &&
           k <= engine_cards_count(&v->hand);
}

int ai_easy_pass_order(const struct engine_view *v, int k,
                       struct engine_action *a)
{
    if (v->phase != ENGINE_PHASE_PASS || !can_choose(v, k))
        return -1;
    struct easy e;
    read_view(v, &e);
    a->kind = ENGINE_ACT_PASS;
    choose_cards(&e, k, false, a);
    return 0;
}

int ai_easy_decide(const struct engine_view *v, struct engine_prng *rng,
                   int budget, int flags, struct engine_action *a)
{
    (void)rng;
    (void)budget;
    (void)flags;
    struct easy e;
    switch (v->phase) {
    case ENGINE_PHASE_PASS:
        return ai_easy_pass_order(v, v->pass_count, a);
    case ENGINE_PHASE_PLAY:
        if (!v->legal)
            return -1;
        read_view(v, &e);
        a->kind = ENGINE_ACT_PLAY;
        a->ncards = 1;
        a->cards[0] = (uint8_t)choose_play(&e);
        return 0;
    case ENGINE_PHASE_DISCARD:
        if (!can_choose(v, v->discard_count))
            return -1;
        read_view(v, &e);
        a->kind = ENGINE_ACT_DISCARD;
        choose_cards(&e, v->discard_count, true, a);
        return 0;
    default:
        return -1;
    }
}
