/*
 * The sampler of unseen cards (see ai_sample.h).
 */
#include "engine/ai/ai_sample.h"
#include "engine/internal.h"

#include <string.h>

/* Fisher-Yates over cards[0..n). */
static void shuffle(struct engine_prng *rng, uint8_t *cards, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)engine_prng_below(rng, (uint32_t)(i + 1));
        uint8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
}

/* Takes one copy of card out of m if it is there. */
static void take_out(struct engine_cards *m, int card)
{
    if (cards_has(m, card))
        cards_remove(m, card);
}

/*
 * Hall's condition for dealing the remaining cards of each suit to places
 * with room that accept them: every set of suits fits in the room of the
 * places that take any of them. A vector holds one figure per set of suits
 * (lane `set`, a bit per suit): the cards of those suits still to deal
 * (want) and the room of the places that take any of them (room). Dealing
 * a card of suit u takes one from the lanes of the sets holding u
 * (suit_sets[u]), giving it to place k one from the lanes of the sets
 * holding a suit k takes (slot_sets[k]), so a deal checks the condition in
 * a few vector instructions. Counts stay below ENGINE_MAX_CARDS, which
 * fits a lane.
 */
_Static_assert(ENGINE_MAX_CARDS <= 127, "a lane of ai_sets holds a count");

static const ai_sets suit_sets[4] = {
#define L(u, set) (int8_t)((set) >> (u)&1)
#define SUIT(u)                                                                \
    {                                                                          \
        L(u, 0), L(u, 1), L(u, 2), L(u, 3), L(u, 4), L(u, 5), L(u, 6),         \
            L(u, 7), L(u, 8), L(u, 9), L(u, 10), L(u, 11), L(u, 12), L(u, 13), \
            L(u, 14), L(u, 15)                                                 \
    }
    SUIT(0), SUIT(1), SUIT(2), SUIT(3)
#undef SUIT
#undef L
};

static bool fits(ai_sets want, ai_sets room)
{
    ai_sets over = want > room;
    uint64_t w[2];
    memcpy(w, &over, sizeof w);
    return !(w[0] | w[1]);
}

static ai_sets want_of(const int *need)
{
    ai_sets want = {0};
    for (int u = 0; u < 4; u++)
        want += suit_sets[u] * (int8_t)need[u];
    return want;
}

static ai_sets room_of(const struct ai_sampler *s, const int *cap)
{
    ai_sets room = {0};
    for (int k = 0; k < s->nslots; k++)
        room += s->slot_sets[k] * (int8_t)cap[k];
    return room;
}

/* The sets of suits each place takes (from allow). */
static void make_slot_sets(struct ai_sampler *s)
{
    for (int k = 0; k < s->nslots; k++)
        for (int set = 0; set < 16; set++)
            s->slot_sets[k][set] = (int8_t)((s->allow[k] & set) != 0);
}

static bool dealable(const struct ai_sampler *s, const int *cap,
                     const int *need)
{
    return fits(want_of(need), room_of(s, cap));
}

/* The place my passed cards went to, or -1 if they are not known to be
 * there (none, blind passing, a hand not yet exchanged). */
static int pass_slot(const struct ai_sampler *s, int i)
{
    const struct engine_view *v = s->v;
    int to;
    if (v->phase == ENGINE_PHASE_PASS || v->rules->pass_blind)
        return -1;
    if (v->pass_dir == ENGINE_PASS_SCATTER) {
        to = engine_scatter_target(v->n, v->rules->pass_count, v->seat, i);
        if (to < 0)
            return -1;
    } else if (v->pass_dir == ENGINE_PASS_HOLD) {
        return -1;
    } else {
        to = v->pass_target;
    }
    for (int k = 0; k < s->nslots; k++)
        if (s->slot_seat[k] == to)
            return k;
    return -1;
}

/* How many copies of card seat played this hand. */
static int played_by(const struct engine_view *v, int seat, int card)
{
    int c = 0;
    for (int i = 0; i < v->nplays; i++)
        c += v->plays[i] == card && v->play_seat[i] == seat;
    return c;
}

static void force_passes(struct ai_sampler *s, struct engine_cards *free_)
{
    const struct engine_view *v = s->v;
    for (int i = 0; i < v->npassed; i++) {
        int k = pass_slot(s, i);
        int c = v->passed[i];
        if (k < 0 || !cards_has(free_, c) || !s->cap[k] ||
            !(s->allow[k] >> engine_card_suit(c) & 1))
            continue;
        /* the target holds my copy unless it has played that card since
         * (with two decks, a copy it played may have been mine) */
        int gone = played_by(v, s->slot_seat[k], c);
        int mine = 0;
        for (int j = 0; j < i; j++)
            mine += v->passed[j] == c && pass_slot(s, j) == k;
        if (mine + 1 <= gone)
            continue;
        cards_remove(free_, c);
        s->cap[k]--;
        s->forced_card[s->nforced] = (uint8_t)c;
        s->forced_slot[s->nforced++] = (uint8_t)k;
    }
}

void ai_moon_tally(const struct engine_rules *r, int n,
                   const struct engine_cards *taken, struct ai_moon_tally *t)
{
    t->unit = -1;
    t->got = 0;
    for (int s = 0; s < n; s++)
        ai_moon_take(r, t, s, taken[s].one);
}

unsigned ai_moon_side(const struct engine_rules *r, int n,
                      const struct engine_cards *taken)
{
    struct ai_moon_tally t;
    ai_moon_tally(r, n, taken, &t);
    return ai_moon_tally_side(r, n, &t);
}

/* The ranks two to nine of every suit. */
#define LOW_RANKS UINT64_C(0x00FF00FF00FF00FF)

/* A side that may shoot (ai_moon_side) holds high cards: players go for
 * the moon with them. Its low cards are unlikely, so that the search sees
 * the hands it would shoot with. Not for the view's own side. */
static void infer_shooter(struct ai_sampler *s, const struct engine_view *v)
{
    unsigned side = ai_moon_side(v->rules, v->n, v->taken);
    if (!side || side >> v->seat & 1)
        return;
    for (int seat = 0; seat < v->n; seat++)
        if (side >> seat & 1)
            s->unlikely[seat] |= LOW_RANKS;
}

/* Reads the unlikely holdings off the tricks so far: a follower that beat
 * the winning card of a trick holding points probably had nothing of the
 * suit below it. Trick-taking games without a stock only (where every trick
 * has a card from every seat). */
static void infer_unlikely(struct ai_sampler *s, const struct engine_view *v)
{
    const struct engine_rules *r = v->rules;
    if (r->stock != ENGINE_STOCK_OFF)
        return;
    for (int start = 0; start < v->nplays; start += v->n) {
        int lead = v->plays[start];
        uint64_t suit = ENGINE_SUIT_MASK(engine_card_suit(lead));
        int win = lead;
        uint64_t on = ENGINE_BIT(lead);
        for (int i = start + 1; i < start + v->n && i < v->nplays; i++) {
            int c = v->plays[i], seat = v->play_seat[i];
            if ((ENGINE_BIT(c) & suit) && c > win) {
                if (set_points(r, on) > 0 && seat != v->seat)
                    s->unlikely[seat] |= suit & (ENGINE_BIT(win) - 1);
                win = c;
            }
            on |= ENGINE_BIT(c);
        }
    }
}

int ai_sampler_init(struct ai_sampler *s, const struct engine_view *v)
{
    return ai_sampler_init_moon(s, v, true);
}

int ai_sampler_init_moon(struct ai_sampler *s, const struct engine_view *v,
                         bool moon)
{
    const struct engine_rules *r = v->rules;
    const struct engine_game *k = &v->known;
    memset(s, 0, sizeof *s);
    s->v = v;
    struct engine_cards u = {0, 0};
    for (int i = 0; i < r->deck_len; i++)
        cards_add(&u, r->deck[i]);
    for (uint64_t m = v->hand.one; m; m &= m - 1)
        take_out(&u, bits_low(m));
    for (uint64_t m = v->hand.two; m; m &= m - 1)
        take_out(&u, bits_low(m));
    for (int i = 0; i < v->nplays; i++)
        take_out(&u, v->plays[i]);
    if (r->odd_cards == ENGINE_ODD_KITTY_EXCHANGE &&
        r->stock == ENGINE_STOCK_OFF) {
        /* my own discard; a kitty I took is in my hand, played or there */
        if (k->rest_taker == v->seat)
            for (int i = 0; i < k->ndiscard; i++)
                take_out(&u, k->discard[i]);
    } else if (r->stock == ENGINE_STOCK_OFF) {
        /* face-up leftovers and a kitty or widow I took */
        const uint8_t *rest = k->deal + k->deal_len - k->rest_len;
        for (int i = 0; i < k->rest_len; i++)
            if (rest[i] != ENGINE_NO_CARD)
                take_out(&u, rest[i]);
    }
    s->unseen = u;
    int total = 0;
    bool voids = r->stock != ENGINE_STOCK_TWO_HANDED;
    for (int seat = 0; seat < v->n; seat++) {
        if (seat == v->seat)
            continue;
        int i = s->nslots++;
        s->slot_seat[i] = (int8_t)seat;
        s->cap[i] = v->cards_left[seat];
        s->allow[i] = (uint8_t)(voids ? ~v->void_suits[seat] & 15 : 15);
        total += s->cap[i];
    }
    if (v->rest_hidden) {
        int i = s->nslots++;
        s->slot_seat[i] = -1;
        s->cap[i] = v->rest_hidden;
        s->allow[i] = 15;
        total += s->cap[i];
    }
    if (total != engine_cards_count(&u))
        return -1;
    infer_unlikely(s, v);
    if (moon)
        infer_shooter(s, v);
    struct engine_cards free_ = u;
    force_passes(s, &free_);
    for (uint64_t m = free_.one; m; m &= m - 1) {
        int c = bits_low(m), suit = engine_card_suit(c);
        for (int copies = cards_has(&free_, c); copies > 0; copies--)
            s->suit_cards[suit][s->nsuit[suit]++] = (uint8_t)c;
    }
    make_slot_sets(s);
    if (!dealable(s, s->cap, s->nsuit)) {
        s->relaxed = true;
        for (int i = 0; i < s->nslots; i++)
            s->allow[i] = 15;
        make_slot_sets(s);
    }
    /* the suits holding cards some seat probably lacks first (while every
     * place still has room to refuse them), then those with the least room
     * per card */
    int key[4][2];
    uint64_t marked = 0;
    for (int seat = 0; seat < v->n; seat++)
        marked |= s->unlikely[seat];
    for (int suit = 0; suit < 4; suit++) {
        int room = 0;
        for (int i = 0; i < s->nslots; i++)
            if (s->allow[i] >> suit & 1)
                room += s->cap[i];
        bool lacks = (marked & free_.one & ENGINE_SUIT_MASK(suit)) != 0;
        key[suit][0] = lacks ? 0 : room;
        key[suit][1] = s->nsuit[suit];
        s->suit_order[suit] = (uint8_t)suit;
    }
    for (int a = 1; a < 4; a++)
        for (int b = a; b > 0; b--) {
            int x = s->suit_order[b], y = s->suit_order[b - 1];
            if (key[x][0] * key[y][1] >= key[y][0] * key[x][1])
                break;
            s->suit_order[b] = (uint8_t)y;
            s->suit_order[b - 1] = (uint8_t)x;
        }
    /* what ai_sample reads at every card, worked out once */
    for (int i = 0; i < s->nslots; i++) {
        int seat = s->slot_seat[i];
        s->slot_unlikely[i] = seat >= 0 ? s->unlikely[seat] : 0;
        s->any_unlikely |= s->slot_unlikely[i];
        s->check |= s->allow[i] != 15;
        for (int suit = 0; suit < 4; suit++)
            s->takes[suit] |= (unsigned)(s->allow[i] >> suit & 1) << i;
    }
    for (int suit = 0; suit < 4; suit++) {
        uint64_t bits = 0;
        for (int i = 0; i < s->nsuit[suit]; i++)
            bits |= ENGINE_BIT(s->suit_cards[suit][i]);
        s->order_counts[suit] = s->check || (bits & s->any_unlikely);
        memcpy(s->all + s->nall, s->suit_cards[suit], (size_t)s->nsuit[suit]);
        s->nall += s->nsuit[suit];
    }
    s->plain = !s->check && !s->any_unlikely;
    return 0;
}

static void put(const struct ai_sampler *s, struct ai_deal *d, int slot,
                int card)
{
    int seat = s->slot_seat[slot];
    if (seat < 0)
        d->hidden[d->nhidden++] = (uint8_t)card;
    else
        cards_add(&d->hand[seat], card);
}

/* Deals card to a place with room that takes it (`takes`), each weighed by
 * its room (less if it probably lacks the card), so that what is left can
 * still be dealt: a place that would make the rest undealable is refused
 * and another drawn. `refused` are places refused already. `want` and
 * `rooms` are without the card; `cap` and `rooms` are updated. */
static int place_card(const struct ai_sampler *s, struct engine_prng *rng,
                      int card, unsigned takes, unsigned refused, int *cap,
                      ai_sets want, ai_sets *rooms)
{
    const uint64_t bit = ENGINE_BIT(card);
    unsigned cand = 0;
    int weight[AI_SLOTS], room = 0;
    for (int k = 0; k < s->nslots; k++) {
        int w = 0;
        if (cap[k] && (takes >> k & 1) && !(refused >> k & 1)) {
            bool rare = (s->slot_unlikely[k] & bit) != 0;
            w = cap[k] * (rare ? 1 : AI_UNLIKELY);
            cand |= 1u << k;
        }
        weight[k] = w;
        room += w;
    }
    while (cand) {
        int x = (int)engine_prng_below(rng, (uint32_t)room), k = 0;
        while (x >= weight[k])
            x -= weight[k++];
        ai_sets after = *rooms - s->slot_sets[k];
        if (fits(want, after)) {
            cap[k]--;
            *rooms = after;
            return k;
        }
        cand &= ~(1u << k);
        room -= weight[k];
        weight[k] = 0;
    }
    /* cannot happen once init found the deal possible; keep the counts
     * right whatever */
    int slot = 0;
    while (!cap[slot])
        slot++;
    cap[slot]--;
    *rooms -= s->slot_sets[slot];
    return slot;
}

/*
 * The plain deal (s->plain): every place takes any card, with the same
 * odds, so each deal of the cards with the places' room is as likely.
 * A partial Fisher-Yates draws each place's cards from those left, the
 * last place takes the rest, and a draw is 16 bits of a 64-bit one
 * (engine_quarter, engine_below_16, as the engine's playouts): the
 * odds of the card-by-card deal of ai_sample, in less than half of its
 * instructions (hearts-sim bench --search, docs/benchmarks.md).
 */
static void deal_plain(const struct ai_sampler *s, struct engine_prng *rngp,
                       struct ai_deal *d)
{
    uint8_t cards[ENGINE_MAX_CARDS];
    const int n = s->nall, last = s->nslots - 1;
    memcpy(cards, s->all, (size_t)n);
    struct engine_prng rng = *rngp;
    struct quarter_draws q = {0, 0};
    int i = 0;
    for (int k = 0; k < last; k++) {
        for (int c = s->cap[k]; c > 0 && i < n; c--, i++) {
            int j = i + (int)engine_below_16(&rng, engine_quarter(&rng, &q),
                                             (uint32_t)(n - i));
            uint8_t t = cards[j];
            cards[j] = cards[i];
            cards[i] = t;
            put(s, d, k, t);
        }
    }
    for (; i < n; i++)
        put(s, d, last, cards[i]);
    *rngp = rng;
}

void ai_sample(const struct ai_sampler *s, struct engine_prng *rng,
               struct ai_deal *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < s->nforced; i++)
        put(s, d, s->forced_slot[i], s->forced_card[i]);
    if (s->plain) {
        deal_plain(s, rng, d);
        /* a stock is drawn in order */
        shuffle(rng, d->hidden, d->nhidden);
        return;
    }
    int cap[AI_SLOTS];
    memcpy(cap, s->cap, sizeof cap);
    ai_sets want = want_of(s->nsuit), rooms = room_of(s, cap);
    for (int o = 0; o < 4; o++) {
        int suit = s->suit_order[o];
        uint8_t cards[ENGINE_MAX_CARDS];
        int nc = s->nsuit[suit];
        memcpy(cards, s->suit_cards[suit], (size_t)nc);
        /* Each card goes to a place drawn by its room, so where no place
         * is refused and no card is weighed less anywhere, every order of
         * the cards deals every hand with the same odds (the product of
         * the rooms as they shrink, over the cards left as they shrink)
         * and the shuffle would only spend draws. Where a place may be
         * refused, or a card weighed less, the first cards fare
         * otherwise than the last, and the shuffle spreads that over
         * them alike. */
        if (s->order_counts[suit])
            shuffle(rng, cards, nc);
        /* The places that take the suit, and their weights for a card that
         * no place probably lacks, kept up as the suit is dealt. Such a
         * card is placed here with the draw place_card would make; it
         * takes over if that place is refused, or for any other card. */
        unsigned takes = s->takes[suit];
        int weight[AI_SLOTS], room = 0;
        for (int k = 0; k < s->nslots; k++) {
            weight[k] = (takes >> k & 1) ? cap[k] * AI_UNLIKELY : 0;
            room += weight[k];
        }
        for (int i = 0; i < nc; i++) {
            int card = cards[i], slot;
            want -= suit_sets[suit];
            if (room && !(s->any_unlikely & ENGINE_BIT(card))) {
                int x = (int)engine_prng_below(rng, (uint32_t)room), k = 0;
                while (x >= weight[k])
                    x -= weight[k++];
                ai_sets after = rooms - s->slot_sets[k];
                if (!s->check || fits(want, after)) {
                    cap[k]--;
                    rooms = after;
                    slot = k;
                } else {
                    slot = place_card(s, rng, card, takes, 1u << k, cap, want,
                                      &rooms);
                }
            } else {
                slot = place_card(s, rng, card, takes, 0, cap, want, &rooms);
            }
            if (takes >> slot & 1) {
                weight[slot] -= AI_UNLIKELY;
                room -= AI_UNLIKELY;
            }
            put(s, d, slot, card);
        }
    }
    /* the rest was dealt suit by suit: a stock is drawn in order */
    shuffle(rng, d->hidden, d->nhidden);
}

void ai_sample_world(const struct ai_sampler *s, struct engine_prng *rng,
                     struct engine_game *out)
{
    struct ai_deal d;
    ai_sample(s, rng, &d);
    engine_view_world(s->v, d.hand, d.hidden, engine_prng_next(rng), out);
}
