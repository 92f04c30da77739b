/*
 * The Hearts rules engine: cards, rule options and presets, and the state of
 * one game with the actions that change it.
 *
 * The engine is pure: no I/O, no clock, no globals, no rand(). A game is a
 * fixed-size struct without pointers of its own (it refers to an immutable
 * rules struct), so a caller may copy it by assignment to explore what-ifs,
 * which is what simulating computer players do. Deals come from the seeded
 * PRNG in the game (engine_prng_*), or from the caller (a replayed record).
 *
 * Every option and preset of docs/spec/variants.md is played here;
 * docs/rules.md documents the decisions the catalogue left to us.
 *
 * Cards are small integers: suit * 16 + rank, rank 0 (the two) to 12 (the
 * ace), suits clubs, diamonds, hearts, spades. The joker is 45 (the hearts
 * block, bit 13), so a mask of the hearts block includes it: the joker counts
 * as a heart for following suit and breaking hearts. A set of distinct cards
 * is a uint64_t with bit `card` set. With two decks (cancellation) a hand may
 * hold both copies of a card: struct engine_cards keeps the cards held at
 * least once in `one` and those held twice in `two` (two is a subset of one).
 *
 * Nothing here allocates. Every function may be called from a callback,
 * except that a sink must not act on the game that is emitting to it.
 */
#ifndef HEARTS_ENGINE_H
#define HEARTS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Cards ------------------------------------------------------------ */

#define ENGINE_MAX_PLAYERS 10
#define ENGINE_MAX_CARDS 104   /* two decks */
#define ENGINE_MAX_PASS 4      /* pass_count is 0..4 */
#define ENGINE_MAX_ACT_CARDS 8 /* a pass or a kitty-exchange discard */
#define ENGINE_NO_CARD 0xFF
#define ENGINE_NO_SEAT (-1)

enum engine_suit {
    ENGINE_CLUBS = 0,
    ENGINE_DIAMONDS = 1,
    ENGINE_HEARTS = 2,
    ENGINE_SPADES = 3
};

/* Ranks: 0 is the two, 8 the ten, 9 jack, 10 queen, 11 king, 12 ace. */
#define ENGINE_CARD(suit, rank) ((suit)*16 + (rank))
#define ENGINE_JOKER 45
#define ENGINE_BIT(card) (UINT64_C(1) << (card))
#define ENGINE_SUIT_MASK(suit) (UINT64_C(0x3FFF) << ((suit)*16))
/* Every real card and the joker. */
#define ENGINE_ALL_CARDS UINT64_C(0x1FFF3FFF1FFF1FFF)

#define ENGINE_2C ENGINE_CARD(ENGINE_CLUBS, 0)
#define ENGINE_QC ENGINE_CARD(ENGINE_CLUBS, 10)
#define ENGINE_TD ENGINE_CARD(ENGINE_DIAMONDS, 8)
#define ENGINE_JD ENGINE_CARD(ENGINE_DIAMONDS, 9)
#define ENGINE_2H ENGINE_CARD(ENGINE_HEARTS, 0)
#define ENGINE_JH ENGINE_CARD(ENGINE_HEARTS, 9)
#define ENGINE_2S ENGINE_CARD(ENGINE_SPADES, 0)
#define ENGINE_QS ENGINE_CARD(ENGINE_SPADES, 10)
#define ENGINE_KS ENGINE_CARD(ENGINE_SPADES, 11)
#define ENGINE_AS ENGINE_CARD(ENGINE_SPADES, 12)

static inline int engine_card_suit(int card)
{
    return card >> 4;
}

static inline int engine_card_rank(int card)
{
    return card & 15;
}

/* True for the 52 real cards and the joker. */
bool engine_card_valid(int card);

/*
 * Parses one card written as in variants.md: rank 2-9, T or 10, J, Q, K, A,
 * then suit C D H S or a suit symbol (UTF-8 ♣ ♦ ♥ ♠, with or without the
 * emoji variation selector); case does not matter; "JK" (or "joker") is the
 * joker. `text` need not be NUL-terminated; `len` bytes are read. Returns 0
 * and sets *card, or -1 (and leaves *card alone) if it is no card.
 */
int engine_card_parse(const char *text, size_t len, int *card);

/* The canonical two-character name ("TD", "QS", "JK"); "??" if invalid. */
const char *engine_card_name(int card);

/* A multiset of cards: `one` held at least once, `two` held twice. */
struct engine_cards {
    uint64_t one;
    uint64_t two;
};

/* How many cards the multiset holds. */
int engine_cards_count(const struct engine_cards *c);

/* ---- Errors ----------------------------------------------------------- */

/*
 * What is wrong with a rules text or a given deal, as values: the engine
 * builds no text for people. A caller words it in the reader's language
 * (bot/common/rule_words.h, through the message catalogue; English for
 * logs and operators). Each code says which fields it fills; the others
 * are 0 or "".
 */
enum engine_error_code {
    ENGINE_ERR_NONE = 0,
    /* The shape of a rules text. */
    ENGINE_ERR_TOO_LONG,       /* the text is over 1023 bytes */
    ENGINE_ERR_NOT_KEY_VALUE,  /* word: a word after the preset without '=' */
    ENGINE_ERR_NO_KEY,         /* an option with no name before '=' */
    ENGINE_ERR_OPTION_TWICE,   /* option; word: the key as typed */
    ENGINE_ERR_UNKNOWN_PRESET, /* word: as typed; near: the nearest preset */
    ENGINE_ERR_UNKNOWN_OPTION, /* word: the key typed; near: nearest option */
    /* One option's value: option is the option, word the value typed. */
    ENGINE_ERR_BAD_NUMBER,      /* n1 to n2: the whole numbers it takes */
    ENGINE_ERR_BAD_SWITCH,      /* not on or off */
    ENGINE_ERR_BAD_VALUE,       /* not one of its values (engine_option_value);
                                   near: the nearest */
    ENGINE_ERR_BAD_ACE_VALUE,   /* ace_spot_value: not 1 or 14 */
    ENGINE_ERR_BAD_CYCLE,       /* pass_cycle: not a comma list of directions */
    ENGINE_ERR_BAD_DIRECTION,   /* pass_cycle; word: the direction; near */
    ENGINE_ERR_CYCLE_TOO_LONG,  /* pass_cycle: more than n1 directions */
    ENGINE_ERR_BAD_CARD_POINTS, /* card_points: not a list of CARD:N */
    ENGINE_ERR_BAD_CARD_VALUE,  /* card_points; word: the points typed for
                                   card; n1 to n2: what it takes */
    ENGINE_ERR_CARD_TWICE,      /* card_points names card twice */
    ENGINE_ERR_CARD_POINTS_QS,  /* card_points gives the QS n1 but
                                   qs_points is n2 */
    ENGINE_ERR_QS_POINTS_CARD,  /* qs_points is n1 but card_points gives
                                   the QS n2 */
    /* Combinations (engine_rules_finish); option names the option at
     * fault. */
    ENGINE_ERR_PRESET_PLAYERS,     /* preset is for n1 to n2 players, not n3 */
    ENGINE_ERR_ONE_DECK_PLAYERS,   /* players: one deck seats 2 to 7 */
    ENGINE_ERR_TWO_DECKS_PLAYERS,  /* decks: two decks need 6 to 10 */
    ENGINE_ERR_TWO_PLAYERS_STOCK,  /* players: 2 play stock=two_handed only */
    ENGINE_ERR_TWO_HANDED_PLAYERS, /* stock: two_handed is for 2 players */
    ENGINE_ERR_JOKER_TWO_DECKS,    /* joker: not with two decks */
    ENGINE_ERR_STOCK_TWO_DECKS,    /* stock: not with two decks */
    ENGINE_ERR_STOCK_KITTY,        /* odd_cards: a stock deals no kitty */
    ENGINE_ERR_PARTNERS_STOCK,     /* partners: not with a stock */
    ENGINE_ERR_WIDOW_PLAYERS,      /* odd_cards: a widow is for 3 to 6
                                      players and one deck */
    ENGINE_ERR_MODERN_SEVEN,       /* remove_table: modern stops at 6 */
    ENGINE_ERR_TWO_DECKS_DIVIDE,   /* odd_cards: 104 cards do not divide
                                      among n1 players */
    ENGINE_ERR_PARTNERS_FOUR,      /* partners: for 4 players */
    ENGINE_ERR_CYCLE_EMPTY,        /* pass_cycle: no direction */
    ENGINE_ERR_SCATTER_COUNT,      /* pass_count: scatter needs a multiple
                                      of n1 cards with n2 players */
    ENGINE_ERR_SUN_NO_MOON,        /* sun: needs a moon rule */
    ENGINE_ERR_PASS_OVER_HAND,     /* pass_count: n1 cards to pass, a hand
                                      holds n2 */
    ENGINE_ERR_CARD_NOT_IN_PACK,   /* card_points: card is not in the pack
                                      for these rules and n1 players */
    ENGINE_ERR_CARD_IS_BONUS,      /* card_points: card is the bonus card */
    /* A given deal (engine_deal_given). */
    ENGINE_ERR_DEAL_PHASE,       /* a hand is still being played */
    ENGINE_ERR_DEAL_DEALER,      /* dealer n1 is not a seat */
    ENGINE_ERR_DEAL_LENGTH,      /* the pack has n1 cards, not n2 */
    ENGINE_ERR_DEAL_NOT_IN_PACK, /* card (maybe no card at all) is not in
                                    the pack */
    ENGINE_ERR_DEAL_TWICE        /* card is dealt more often than the
                                    decks hold it */
};

/* Room for a word of an error: longer words are cut (at a character). */
#define ENGINE_ERROR_WORD 256
#define ENGINE_ERROR_NEAR 32

struct engine_error {
    enum engine_error_code code;
    int option; /* the option concerned (engine_option_name) */
    int preset; /* the preset concerned (engine_preset_name) */
    int card;   /* the card concerned (engine_card_name) */
    int n1, n2, n3;
    char word[ENGINE_ERROR_WORD]; /* what was typed and is wrong */
    char near[ENGINE_ERROR_NEAR]; /* the nearest valid word to it */
};

/* ---- Rules ------------------------------------------------------------ */

enum engine_odd_cards {
    ENGINE_ODD_REMOVE,
    ENGINE_ODD_KITTY,
    ENGINE_ODD_KITTY_FIRST_POINT,
    ENGINE_ODD_KITTY_EXCHANGE,
    ENGINE_ODD_FACEUP_LEFTOVER,
    ENGINE_ODD_WIDOW
};

enum engine_remove_table {
    ENGINE_REMOVE_MOMENTPOINT,
    ENGINE_REMOVE_BIGD,
    ENGINE_REMOVE_MODERN
};

/* Pass directions; also the values of a pass cycle. */
enum engine_pass_dir {
    ENGINE_PASS_LEFT,
    ENGINE_PASS_RIGHT,
    ENGINE_PASS_ACROSS,
    ENGINE_PASS_HOLD,
    ENGINE_PASS_SCATTER,
    ENGINE_PASS_LEFT2,
    ENGINE_PASS_RIGHT2
};

#define ENGINE_MAX_CYCLE 16

/* Every game ends: after this many hands whatever the totals (the lowest
 * total wins, a tie is shared), so every game fits one record. */
#define ENGINE_MAX_HANDS 1000

enum engine_first_lead { ENGINE_LEAD_TWO_CLUBS, ENGINE_LEAD_LEFT_OF_DEALER };
enum engine_club_fallback {
    ENGINE_FALLBACK_HOLDER_OF_LOWEST,
    ENGINE_FALLBACK_FIRST_LEFT_WITH_CLUBS
};
enum engine_hearts_lead { ENGINE_HEARTS_BROKEN, ENGINE_HEARTS_ANY };
enum engine_first_trick { ENGINE_FIRST_ALLOWED, ENGINE_FIRST_FORBIDDEN };
enum engine_heart_points { ENGINE_HEARTS_ONE, ENGINE_HEARTS_SPOT };
enum engine_bonus { ENGINE_BONUS_NONE, ENGINE_BONUS_TD, ENGINE_BONUS_JD };

enum engine_moon {
    ENGINE_MOON_SUBTRACT,
    ENGINE_MOON_ADD_OTHERS,
    ENGINE_MOON_CHOICE,
    ENGINE_MOON_ADD_UNLESS_LOSES,
    ENGINE_MOON_OFF
};

enum engine_reset { ENGINE_RESET_OFF, ENGINE_RESET_HALF, ENGINE_RESET_ZERO };
enum engine_tie { ENGINE_TIE_SHARE, ENGINE_TIE_PLAY_ON };
enum engine_partners {
    ENGINE_PARTNERS_OFF,
    ENGINE_PARTNERS_TEAM,
    ENGINE_PARTNERS_INDIVIDUAL
};
enum engine_stock {
    ENGINE_STOCK_OFF,
    ENGINE_STOCK_DOMINO,
    ENGINE_STOCK_TWO_HANDED
};

/*
 * A rule set: the options of variants.md, then what follows from them for
 * the table's player count (filled by engine_rules_finish). Plain data:
 * copy it by assignment. Change options only through engine_rules_set,
 * which records what was set explicitly (for refusing contradictions and
 * for writing records).
 */
struct engine_rules {
    /* options */
    int preset; /* index into the preset table */
    int players;
    int decks;
    enum engine_odd_cards odd_cards;
    enum engine_remove_table remove_table;
    bool joker;
    int pass_count;
    int pass_cycle_len;
    uint8_t pass_cycle[ENGINE_MAX_CYCLE]; /* enum engine_pass_dir */
    bool pass_blind;
    enum engine_first_lead first_lead;
    enum engine_club_fallback lowest_club_fallback;
    enum engine_hearts_lead hearts_lead;
    bool queen_breaks_hearts;
    bool lead_hearts_over_queen;
    enum engine_first_trick first_trick_points;
    bool dump_queen;
    enum engine_heart_points heart_points;
    int ace_spot_value;
    int qs_points;
    uint64_t card_points_set; /* cards named in card_points */
    int16_t card_points[64];  /* their values */
    enum engine_bonus bonus_card;
    int bonus_points;
    enum engine_moon moon;
    int moon_points;
    bool moon_keeps_bonus;
    bool sun;
    enum engine_reset exact_target_reset;
    bool match_pairs;
    int target;
    int hands;
    enum engine_tie tie;
    enum engine_partners partners;
    enum engine_stock stock;

    uint64_t explicit_keys; /* bit per option key set by the user */

    /* derived by engine_rules_finish */
    bool finished;
    int hand_size;                  /* cards dealt to each seat */
    int deck_len;                   /* cards in play (dealt + rest) */
    uint8_t deck[ENGINE_MAX_CARDS]; /* canonical order, before shuffling */
    uint64_t in_play;               /* distinct cards in play */
    uint64_t removed;               /* cards taken out of the pack */
    int rest_len;                   /* kitty, widow, leftovers or stock */
    int16_t points[64];             /* penalty value of each card */
    uint64_t penalty;               /* cards worth more than 0 */
    uint64_t moon_cards;            /* the penalty cards but the bonus card */
    uint64_t scoring;               /* cards worth anything but 0 */
    int bonus;                      /* the bonus card, or ENGINE_NO_CARD */
    uint64_t breaks;                /* cards that break hearts when played */
    int nclasses;                   /* cards grouped by value, for counting */
    int16_t class_value[64];        /* points with popcounts */
    uint64_t class_mask[64];
    uint32_t special; /* ENGINE_SPECIAL_* bits, for fast paths */
};

/* Bits of engine_rules.special: play rules that need more than the plain
 * follow-suit check, so the hot path tests one word. */
#define ENGINE_SPECIAL_FIRST_TRICK 0x01u /* first_trick_points=forbidden */
#define ENGINE_SPECIAL_DUMP_QUEEN 0x02u
#define ENGINE_SPECIAL_JOKER 0x04u
#define ENGINE_SPECIAL_CANCEL 0x08u /* two decks */
#define ENGINE_SPECIAL_DOMINO 0x10u
#define ENGINE_SPECIAL_TWO_HANDED 0x20u
#define ENGINE_SPECIAL_KITTY 0x40u /* rest cards go to a trick winner */
/* Anything that makes the end of a trick more than "highest of the suit
 * led takes it and leads". */
#define ENGINE_SPECIAL_TRICK_END                                               \
    (ENGINE_SPECIAL_JOKER | ENGINE_SPECIAL_CANCEL | ENGINE_SPECIAL_DOMINO |    \
     ENGINE_SPECIAL_TWO_HANDED)

/* The presets, in the order of variants.md. */
int engine_preset_count(void);
const char *engine_preset_name(int preset);
/* The player range of a preset. */
void engine_preset_players(int preset, int *min, int *max);
/* The preset's index, or -1. Case-insensitive. */
int engine_preset_find(const char *name);

/*
 * The edit distance between the la bytes at a and the string b, for naming
 * the nearest valid word in a message: a letter added, dropped or changed,
 * or two neighbours swapped ("hlep" for "help"), is one edit;
 * case-insensitive if fold_case. Words over 40 bytes count as far away
 * (99).
 */
int engine_word_distance(const char *a, size_t la, const char *b,
                         bool fold_case);

/* Option keys in the order of variants.md. */
int engine_option_count(void);
const char *engine_option_name(int option);
/* The option's index, or -1. */
int engine_option_find(const char *key);
/* The i-th word an option of named values takes (an enum option's values,
 * pass_cycle's directions), from 0; NULL past the last and for options of
 * other kinds. */
const char *engine_option_value(int option, int i);

/*
 * The functions below that can fail return 0, or -1 with what is wrong in
 * *err (which may be NULL), and leave their rules unchanged.
 *
 * Starts a rule set from a preset (NULL means "standard") for its default
 * player count (4, else the lowest it allows). Refuses an unknown preset
 * naming the nearest (ENGINE_ERR_UNKNOWN_PRESET).
 */
int engine_rules_init(struct engine_rules *r, const char *preset,
                      struct engine_error *err);

/*
 * Sets one option from text, as in `key=value`. Refuses naming the
 * problem (and the nearest valid key or value). Combinations are checked
 * by engine_rules_finish.
 */
int engine_rules_set(struct engine_rules *r, const char *key, const char *value,
                     struct engine_error *err);

/*
 * Parses "[PRESET] [KEY=VALUE ...]" separated by blanks into *r (the whole
 * line a user typed after the command), then finishes it. An option named
 * twice is refused, naming it (whatever the values). `players`, if
 * positive, sets the player count unless the text sets it. Returns 0, or -1
 * with the first error; *r is unchanged on error.
 */
int engine_rules_parse(struct engine_rules *r, const char *text, int players,
                       struct engine_error *err);

/*
 * The rules text of `over` (options a person typed) given on top of
 * `base` (a channel's rules text, "[PRESET] [KEY=VALUE ...]"), into out:
 * base's words but those setting an option that a later word of base or
 * any word of over sets, then over's words as they are. So an option
 * over names replaces the channel's, and engine_rules_parse refuses only
 * what over itself names twice; over "" makes a text from before that
 * rule (the last of a repeated option counts) one that parses. 0, or -1
 * if the result does not fit in outlen bytes (out is then cut).
 */
int engine_rules_over(const char *base, const char *over, char *out,
                      size_t outlen);

/*
 * Checks the combination (player range of the preset, cards to pass against
 * the hand size, options that exclude each other) and derives the deck and
 * the point table. Returns 0, or -1 with the error (its option names the
 * option at fault).
 */
int engine_rules_finish(struct engine_rules *r, struct engine_error *err);

/* Room for any option's value as text (the longest, card_points naming
 * every card, is under 600 bytes). */
#define ENGINE_OPTION_TEXT_MAX 1024

/*
 * Writes an option's current value in the text form engine_rules_set takes.
 * Returns the length of the whole text, as snprintf does (it is truncated
 * to len-1 bytes if longer), or -1 for a bad index.
 */
int engine_rules_get(const struct engine_rules *r, int option, char *buf,
                     size_t len);

/* True if the option's value differs from what the rules' preset sets
 * (never the player count: a preset is played by any count it allows). */
bool engine_rules_differs(const struct engine_rules *r, int option);

/*
 * The options whose values differ from the preset's, as KEY=VALUE one
 * space apart in the options' order ("target=50 hands=1"; "" if none),
 * each in the form engine_rules_set takes. Returns the length of the
 * whole text, as snprintf does; an option that does not fit whole is
 * left out, with those after it.
 */
int engine_rules_changes(const struct engine_rules *r, char *buf, size_t len);

/* ---- Pseudo-random numbers -------------------------------------------- */

/*
 * xoshiro256** (Blackman and Vigna), its state filled from the 64-bit seed
 * by splitmix64. Documented in docs/engine.md so that a deal can be
 * reproduced from its seed by anyone.
 */
struct engine_prng {
    uint64_t s[4];
};

void engine_prng_seed(struct engine_prng *p, uint64_t seed);

/* The next 64 random bits. Inline: it is in every simulated deal and
 * every random play. */
static inline uint64_t engine_prng_next(struct engine_prng *p)
{
    uint64_t *s = p->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, bound), bound >= 1, without bias: Lemire's multiply,
 * rejecting the few low products that would bias it, using the high 32
 * bits of each draw. */
static inline uint32_t engine_prng_below(struct engine_prng *p, uint32_t bound)
{
    uint64_t m = (engine_prng_next(p) >> 32) * (uint64_t)bound;
    if ((uint32_t)m < bound) {
        uint32_t threshold = (uint32_t)(-bound) % bound;
        while ((uint32_t)m < threshold)
            m = (engine_prng_next(p) >> 32) * (uint64_t)bound;
    }
    return (uint32_t)(m >> 32);
}

/* ---- A game ----------------------------------------------------------- */

enum engine_phase {
    ENGINE_PHASE_DEAL,    /* waiting for engine_deal / engine_deal_given */
    ENGINE_PHASE_PASS,    /* seats choose cards to pass, in any order */
    ENGINE_PHASE_PLAY,    /* engine_turn() plays a card */
    ENGINE_PHASE_DISCARD, /* kitty_exchange: the taker discards */
    ENGINE_PHASE_MOON,    /* moon=choice: the shooter chooses */
    ENGINE_PHASE_GAME_OVER
};

enum engine_action_kind {
    ENGINE_ACT_PASS,       /* cards[0..ncards): the cards passed */
    ENGINE_ACT_PASS_BLIND, /* pass on, unseen, what arrives */
    ENGINE_ACT_PLAY,       /* cards[0] */
    ENGINE_ACT_DISCARD,    /* cards[0..ncards) into one's own tricks */
    ENGINE_ACT_MOON        /* moon: ENGINE_MOON_SUBTRACT or _ADD_OTHERS */
};

/*
 * One action by one seat. For a scatter pass the cards go, in order,
 * `pass_count / (players - 1)` to the left neighbour, as many to the next
 * seat clockwise, and so on (the record's order).
 */
struct engine_action {
    uint8_t kind;
    uint8_t seat;
    uint8_t ncards;
    uint8_t moon;
    uint8_t cards[ENGINE_MAX_ACT_CARDS];
};

/* Why an action is refused. ENGINE_OK (0) means it was taken. */
enum engine_refusal {
    ENGINE_OK = 0,
    ENGINE_REFUSE_WRONG_PHASE,   /* e.g. playing while cards are passed */
    ENGINE_REFUSE_NOT_YOUR_TURN, /* detail.seat is whose turn it is */
    ENGINE_REFUSE_ALREADY_PASSED,
    ENGINE_REFUSE_NOT_IN_HAND,    /* detail.card */
    ENGINE_REFUSE_BAD_CARD,       /* not a card of this game */
    ENGINE_REFUSE_DUPLICATE_CARD, /* the same card twice in one pass */
    ENGINE_REFUSE_PASS_COUNT,     /* detail.count is how many to pass */
    ENGINE_REFUSE_BLIND_NOT_ALLOWED,
    ENGINE_REFUSE_MUST_FOLLOW, /* detail.suit is the suit led */
    ENGINE_REFUSE_HEARTS_NOT_BROKEN,
    ENGINE_REFUSE_FIRST_TRICK_POINTS,
    ENGINE_REFUSE_MUST_LEAD_CARD, /* detail.card (2C or lowest club) */
    ENGINE_REFUSE_MUST_DUMP_QUEEN,
    ENGINE_REFUSE_MUST_LEAD_QUEEN, /* only hearts and the QS, QS first */
    ENGINE_REFUSE_BAD_MOON_CHOICE,
    ENGINE_REFUSE_NOT_SHOOTER,
    ENGINE_REFUSE_BAD_ACTION
};

struct engine_refusal_detail {
    int seat;
    int card;
    int suit;
    int count;
};

enum engine_event_kind {
    ENGINE_EV_DEALT,        /* a hand is dealt: see engine_deal_order */
    ENGINE_EV_PASS_CHOSEN,  /* seat has chosen (public: no cards) */
    ENGINE_EV_PASSED,       /* cards exchanged: engine_passed_cards */
    ENGINE_EV_PLAYED,       /* seat played card */
    ENGINE_EV_DRAWN,        /* seat drew card from the stock (private) */
    ENGINE_EV_TRICK,        /* trick complete: seat won it (or
                               ENGINE_NO_SEAT: set aside / dead), cards */
    ENGINE_EV_REST_TAKEN,   /* seat took the kitty, widow or leftovers
                               (cards: private unless face-up leftovers) */
    ENGINE_EV_DISCARDED,    /* seat discarded (cards: private) */
    ENGINE_EV_OUT,          /* domino: seat has played its last card */
    ENGINE_EV_MOON_PENDING, /* seat shot the moon (sun if value) and chooses */
    ENGINE_EV_MOON,         /* seat shot; value is the mode applied, card is
                               1 for the sun */
    ENGINE_EV_HAND_SCORED,  /* engine_hand_points / engine_totals */
    ENGINE_EV_GAME_OVER     /* engine_winners */
};

/*
 * An event. `cards` is a set of distinct cards; `cards2` the second copies
 * (two decks). Details too large for the struct are read from the game
 * during the callback.
 */
struct engine_event {
    enum engine_event_kind kind;
    int seat;
    int card;
    int value;
    uint64_t cards;
    uint64_t cards2;
};

struct engine_game;

/* Where events go. A NULL sink drops them (what simulations do). */
struct engine_sink {
    void (*emit)(void *ctx, const struct engine_game *g,
                 const struct engine_event *ev);
    void *ctx;
};

/*
 * The whole state of a game. Callers read it through the functions below;
 * the fields are public only so that the struct can live on the stack and
 * be copied.
 */
struct engine_game {
    const struct engine_rules *rules;
    struct engine_prng rng;
    uint8_t n;
    uint8_t phase;
    uint8_t dealer;
    uint8_t turn;      /* seat to act in PLAY, DISCARD, MOON */
    uint8_t leader;    /* of the current trick */
    uint8_t trick_len; /* cards on the current trick */
    uint8_t trick_no;  /* tricks completed this hand */
    uint8_t pass_dir;  /* this hand's direction (HOLD if none) */
    uint8_t hearts_broken;
    uint8_t rest_owner_pending; /* rest still waits for a trick winner */
    uint8_t win_seat;           /* current winner of the trick */
    uint8_t win_card;
    uint8_t trick_size; /* seats playing to this trick */
    uint8_t lead_card;  /* the first lead's forced card, or NO_CARD */
    uint8_t rest_taker; /* who took the rest, or NO_CARD */
    uint8_t moon_unit;  /* shooter (seat) pending a choice */
    uint8_t moon_sun;
    uint8_t rest_len;
    uint8_t rest_pos;     /* stock: next card to draw */
    uint16_t passed_mask; /* seats that have chosen */
    uint16_t blind_mask;  /* seats that pass blind */
    uint16_t in_mask;     /* domino: seats still in */
    uint16_t hand_no;     /* hands dealt so far (this one included) */
    uint16_t nplays;
    uint8_t tricks[ENGINE_MAX_PLAYERS]; /* tricks won this hand */
    uint8_t voids[ENGINE_MAX_PLAYERS];  /* suits a seat showed void in */
    uint64_t trick_cards; /* distinct cards on the current trick */
    uint64_t led_mask;    /* the suit led to the current trick */
    struct engine_cards hand[ENGINE_MAX_PLAYERS];
    struct engine_cards taken[ENGINE_MAX_PLAYERS];
    struct engine_cards aside; /* cancelled tricks waiting for a winner */
    uint8_t aside_tricks;      /* how many */
    uint8_t trick[ENGINE_MAX_PLAYERS]; /* in play order */
    uint8_t trick_seat[ENGINE_MAX_PLAYERS];
    uint8_t deal[ENGINE_MAX_CARDS]; /* the pack as dealt */
    uint8_t deal_len;
    uint8_t plays[ENGINE_MAX_CARDS]; /* cards in the order played */
    uint8_t play_seat[ENGINE_MAX_CARDS];
    uint8_t pass_cards[ENGINE_MAX_PLAYERS][ENGINE_MAX_ACT_CARDS];
    uint8_t received[ENGINE_MAX_PLAYERS][ENGINE_MAX_ACT_CARDS];
    uint8_t nreceived[ENGINE_MAX_PLAYERS];
    uint8_t discard[ENGINE_MAX_ACT_CARDS];
    uint8_t ndiscard;
    uint8_t moon_applied; /* mode applied in the last scored hand, or
                             ENGINE_MOON_OFF if none */
    uint8_t nwinners;
    uint8_t winners[ENGINE_MAX_PLAYERS];
    int32_t points[ENGINE_MAX_PLAYERS]; /* last scored hand */
    int32_t totals[ENGINE_MAX_PLAYERS];
    int32_t hand_points[ENGINE_MAX_PLAYERS]; /* taken so far this hand */
};

/*
 * Starts a game: totals 0, phase DEAL, the first hand's dealer `dealer`.
 * The rules must be finished and outlive the game. `seed` seeds the deals.
 */
void engine_game_init(struct engine_game *g, const struct engine_rules *r,
                      uint64_t seed, int dealer);

/* Deals the next hand from the game's PRNG. Phase must be DEAL. Returns 0
 * or -1 if the phase is wrong. */
int engine_deal(struct engine_game *g, const struct engine_sink *sink);

/*
 * Deals the next hand as given: the pack in dealing order, `len` cards
 * (cards[k] goes to seat (dealer + 1 + k) % n for k < n * hand_size, the
 * rest form the kitty, widow, leftovers or stock, top card first). The
 * dealer is set to `dealer`. Returns 0, or -1 with the error
 * (ENGINE_ERR_DEAL_*) if the cards are not exactly the rules' pack.
 */
int engine_deal_given(struct engine_game *g, int dealer, const uint8_t *cards,
                      int len, const struct engine_sink *sink,
                      struct engine_error *err);

/*
 * Takes one action, or refuses it with the reason (and the detail, if not
 * NULL) and changes nothing. Events go to the sink.
 */
enum engine_refusal engine_act(struct engine_game *g,
                               const struct engine_action *a,
                               const struct engine_sink *sink,
                               struct engine_refusal_detail *detail);

/* Shorthand for a PLAY action by the seat whose turn it is. */
enum engine_refusal engine_play(struct engine_game *g, int card,
                                const struct engine_sink *sink,
                                struct engine_refusal_detail *detail);

/* ---- Simulation ------------------------------------------------------- */

/*
 * Every seat that has not passed yet passes uniformly random cards (never
 * blind), and the cards are exchanged. Only in the PASS phase.
 */
void engine_pass_random(struct engine_game *g, struct engine_prng *rng,
                        const struct engine_sink *sink);

/*
 * Plays the current hand to its end with uniformly random legal cards
 * (random kitty-exchange discards, the moon choice by engine_moon_default)
 * and scores it; no events. The play step is the one engine_play takes,
 * without the checks its own choices make needless: the inner loop of
 * Monte Carlo players and of the benchmark. Returns at once outside PLAY,
 * DISCARD and MOON.
 */
void engine_playout(struct engine_game *g, struct engine_prng *rng);

/* ---- Reading a game --------------------------------------------------- */

static inline enum engine_phase engine_phase(const struct engine_game *g)
{
    return (enum engine_phase)g->phase;
}

/* The seat to act in PLAY, DISCARD and MOON; ENGINE_NO_SEAT otherwise. */
int engine_turn(const struct engine_game *g);

/* Whether seat may act now (in PASS: has not chosen yet). */
bool engine_may_act(const struct engine_game *g, int seat);

/*
 * The cards the seat to play may play now (distinct cards). 0 outside the
 * PLAY phase. Never 0 in it.
 */
uint64_t engine_legal_plays(const struct engine_game *g);

/* What a seat must pass this hand: how many cards (0 for a hold hand or
 * once chosen), and whether it may pass blind. */
int engine_pass_count(const struct engine_game *g, int seat,
                      bool *blind_allowed);

/* The seat a pass direction sends to (for scatter: not meaningful). */
int engine_pass_target(const struct engine_game *g, int seat, int dir);

/* Under a scatter pass of k cards among n seats: the seat the i-th card
 * passed by `seat` goes to (k / (n - 1) to each seat to its left in turn),
 * or -1 if k leaves fewer than one card per seat. */
int engine_scatter_target(int n, int k, int seat, int i);

/* How many cards the DISCARD phase asks for. */
int engine_discard_count(const struct engine_game *g);

/* The option moon=choice takes if the shooter does not answer (the
 * decision of variants.md). Only in the MOON phase. */
int engine_moon_default(const struct engine_game *g);

/* In the MOON phase: the totals after the hand if the shooter chose `mode`
 * (ENGINE_MOON_SUBTRACT or _ADD_OTHERS), and whether the game would end
 * there (then its winners, as the rules count a tie). False, and nothing
 * filled but *nwinners = 0, in any other phase. */
bool engine_moon_outcome(const struct engine_game *g, int mode, int32_t *totals,
                         uint8_t *winners, int *nwinners);

/* The hand a seat holds. */
struct engine_cards engine_hand(const struct engine_game *g, int seat);

/* The cards a seat passed and received in this hand's exchange (valid from
 * ENGINE_EV_PASSED on). For a blind seat, passed = what it passed on. */
int engine_passed_cards(const struct engine_game *g, int seat, uint8_t *cards);
int engine_received_cards(const struct engine_game *g, int seat,
                          uint8_t *cards);

/* The pack of this hand in dealing order (see engine_deal_given). */
const uint8_t *engine_deal_order(const struct engine_game *g, int *len);

/* The rest (kitty, widow, leftovers, stock) of this hand, top first. */
const uint8_t *engine_rest(const struct engine_game *g, int *len);

/* The penalty value of a card under these rules. */
static inline int engine_card_points(const struct engine_rules *r, int card)
{
    return r->points[card & 63];
}

/* ---- What one seat may know: the input of computer players ------------ */

/*
 * Everything a seat may know and nothing more: its own hand, the public
 * history of this hand, and what it passed and received. Computer players
 * are functions of a view, never of a game.
 */
struct engine_view {
    const struct engine_rules *rules;
    int seat;
    int n;
    enum engine_phase phase;
    int dealer;
    int hand_no;
    struct engine_cards hand;
    /* whose turn it is in PLAY, DISCARD and MOON (ENGINE_NO_SEAT in PASS,
     * where every seat that has not passed may act) */
    int turn;
    /* at this seat's turn in PLAY: the legal cards */
    uint64_t legal;
    /* PASS: how many, where to, blind allowed */
    int pass_count;
    int pass_dir;
    int pass_target;
    bool blind_allowed;
    /* DISCARD: how many */
    int discard_count;
    /* MOON, for the shooter: whether the sun, and the choice better for
     * it (-1 for every other seat) */
    bool moon_sun;
    int moon_best;
    /* MOON, for the shooter: what each choice (by ENGINE_MOON_SUBTRACT and
     * _ADD_OTHERS) leaves: the totals, and whether the game ends there
     * with which winners (engine_moon_outcome) */
    struct engine_moon_option {
        int32_t totals[ENGINE_MAX_PLAYERS];
        bool over;
        int nwinners;
        uint8_t winners[ENGINE_MAX_PLAYERS];
    } moon_option[2];
    /* public */
    int leader;
    int trick_len;
    uint8_t trick[ENGINE_MAX_PLAYERS];
    uint8_t trick_seat[ENGINE_MAX_PLAYERS];
    int trick_no;
    bool hearts_broken;
    struct engine_cards played; /* every card played this hand */
    int nplays;
    const uint8_t *plays; /* in order; valid while the game is */
    const uint8_t *play_seat;
    struct engine_cards taken[ENGINE_MAX_PLAYERS];
    struct engine_cards aside; /* cancelled tricks waiting, face up */
    int hand_points[ENGINE_MAX_PLAYERS];
    int cards_left[ENGINE_MAX_PLAYERS];
    uint8_t void_suits[ENGINE_MAX_PLAYERS]; /* bit per suit, shown void */
    uint64_t faceup;                        /* face-up leftovers, if any */
    int stock_left;
    int32_t totals[ENGINE_MAX_PLAYERS];
    /* private */
    int npassed;
    uint8_t passed[ENGINE_MAX_ACT_CARDS];
    int nreceived;
    uint8_t received[ENGINE_MAX_ACT_CARDS];
    uint64_t rest_seen; /* kitty/widow cards this seat has seen */
    /*
     * For searching players: the game as this seat may know it, with the
     * other seats' hands, the face-down cards it has not seen (the pack,
     * an unseen kitty, widow, discard or stock) and every other private
     * detail removed (hands empty, unseen cards ENGINE_NO_CARD), and how
     * many cards of the rest are hidden from it and still count (an unseen
     * kitty, widow or stock, or another seat's kitty-exchange discard).
     * engine_view_world fills a sampled guess back in.
     */
    struct engine_game known;
    int rest_hidden;
};

/* Fills *v with what `seat` may know of g. */
void engine_view_make(const struct engine_game *g, int seat,
                      struct engine_view *v);

/*
 * Builds a complete game from what the view's seat knows and a guess of
 * what it does not: hands[s] for every other seat s (exactly
 * v->cards_left[s] cards; hands[v->seat] is ignored) and hidden[], the
 * v->rest_hidden unseen cards of the rest (the stock top first). The
 * result plays on from the view's position like the real game would with
 * those cards (engine_play, engine_playout); its PRNG is seeded with
 * `seed`. Returns 0, or -1 if the counts do not match the view.
 */
int engine_view_world(const struct engine_view *v,
                      const struct engine_cards *hands, const uint8_t *hidden,
                      uint64_t seed, struct engine_game *out);

#endif
