/*
 * The engine's values in words (rule_words.h): one catalogue message per
 * error code, refusal and preset.
 */
#include "bot/common/rule_words.h"

#include <string.h>

#include "bot/common/msg.h"

/* An error's message and the names its numbers n1, n2, n3 take in it
 * (NULL: not used). */
struct error_words {
    const char *id;
    const char *n1, *n2, *n3;
};

/* Each error's words, by code; ENGINE_ERR_NONE has none. */
static const struct error_words error_table[] = {
    /* TRANSLATORS: a rules text (a preset and option=value words) is
     * too long. The errors of rules texts stand after "Those rules
     * won't do: ", so they start in lower case and end without a full
     * stop. Option names and values (target, pass_cycle=left, on, off)
     * are typed as they are in every language: never translate them. */
    [ENGINE_ERR_TOO_LONG] = {M("too many options"), 0, 0, 0},
    /* TRANSLATORS: {word} is a word of a rules text without '=';
     * KEY=VALUE is how an option is written (keep it). */
    [ENGINE_ERR_NOT_KEY_VALUE] =
        {M("'{word}' is not KEY=VALUE (a preset comes first, options "
           "after it)"),
         0, 0, 0},
    [ENGINE_ERR_NO_KEY] = {M("an option has no name before '='"), 0, 0, 0},
    /* TRANSLATORS: {word} is an option's name as typed. */
    [ENGINE_ERR_OPTION_TWICE] =
        {M("{word} is given twice: name each option once"), 0, 0, 0},
    /* TRANSLATORS: {word} is what was typed, {near} the nearest name
     * of a preset (standard, omnibus, ...: never translated). */
    [ENGINE_ERR_UNKNOWN_PRESET] =
        {M("unknown preset '{word}' (did you mean '{near}'?)"), 0, 0, 0},
    /* TRANSLATORS: {word} is what was typed, {near} the nearest name
     * of an option (target, moon, ...: never translated). */
    [ENGINE_ERR_UNKNOWN_OPTION] =
        {M("unknown option '{word}' (did you mean '{near}'?)"), 0, 0, 0},
    /* TRANSLATORS: {value} is what was typed for the option {option}
     * ("target"). */
    [ENGINE_ERR_BAD_NUMBER] =
        {M("bad value '{value}' for {option}: a whole number from {min} "
           "to {max}"),
         "min", "max", 0},
    /* TRANSLATORS: {value} is what was typed for the option {option};
     * "on" and "off" are the values to type: keep them. */
    [ENGINE_ERR_BAD_SWITCH] = {M("bad value '{value}' for {option}: on or off"),
                               0, 0, 0},
    /* TRANSLATORS: {value} is what was typed for the option {option},
     * {near} the nearest of its values, {values} all of them ("share,
     * play_on"): values are typed as they are, never translated. */
    [ENGINE_ERR_BAD_VALUE] =
        {M("bad value '{value}' for {option} (did you mean '{near}'?): "
           "{values}"),
         0, 0, 0},
    /* TRANSLATORS: {value} is what was typed; ace_spot_value is an
     * option's name. */
    [ENGINE_ERR_BAD_ACE_VALUE] =
        {M("bad value '{value}' for ace_spot_value: 1 or 14"), 0, 0, 0},
    /* TRANSLATORS: {value} is what was typed; {values} the directions
     * ("left, right, across, ..."), typed as they are. */
    [ENGINE_ERR_BAD_CYCLE] =
        {M("bad value '{value}' for pass_cycle: a comma list of {values}"), 0,
         0, 0},
    /* TRANSLATORS: {word} is a direction typed in the option
     * pass_cycle, {near} the nearest direction (left, right, across,
     * ...: typed as they are). */
    [ENGINE_ERR_BAD_DIRECTION] =
        {M("bad direction '{word}' in pass_cycle (did you mean "
           "'{near}'?)"),
         0, 0, 0},
    /* TRANSLATORS: {max} is 16. */
    [ENGINE_ERR_CYCLE_TOO_LONG] =
        {M("pass_cycle has more than {max} directions"), "max", 0, 0},
    /* TRANSLATORS: {value} is what was typed for the option
     * card_points; CARD:N and KS:10,AS:7 are how it is typed (keep
     * them). */
    [ENGINE_ERR_BAD_CARD_POINTS] =
        {M("bad value '{value}' for card_points: a comma list of CARD:N, "
           "like KS:10,AS:7"),
         0, 0, 0},
    /* TRANSLATORS: {value} is what was typed as the points of the card
     * {card} (written as typed: "QS") in the option card_points. */
    [ENGINE_ERR_BAD_CARD_VALUE] =
        {M("bad points '{value}' for {card} in card_points: a whole number "
           "from {min} to {max}"),
         "min", "max", 0},
    /* TRANSLATORS: {card} is a card as typed ("KS"). */
    [ENGINE_ERR_CARD_TWICE] = {M("card_points names {card} twice"), 0, 0, 0},
    /* TRANSLATORS: the options card_points and qs_points give the
     * queen of spades (QS, as typed) two values: {points} and
     * {qs_points}. */
    [ENGINE_ERR_CARD_POINTS_QS] =
        {M("card_points gives the QS {points} but qs_points is "
           "{qs_points}: name it once"),
         "points", "qs_points", 0},
    /* TRANSLATORS: the options qs_points and card_points give the
     * queen of spades (QS, as typed) two values: {qs_points} and
     * {points}. */
    [ENGINE_ERR_QS_POINTS_CARD] =
        {M("qs_points is {qs_points} but card_points gives the QS "
           "{points}: name it once"),
         "qs_points", "points", 0},
    /* TRANSLATORS: {preset} is a preset's name (never translated);
     * the numbers are 2 or more. */
    [ENGINE_ERR_PRESET_PLAYERS] =
        {M("{preset} is for {min} to {max} players, not {players}"), "min",
         "max", "players"},
    /* TRANSLATORS: the errors of combinations start with the option
     * at fault and a colon ("players: "); keep that, and keep
     * option=value words (decks=2) as they are. */
    [ENGINE_ERR_ONE_DECK_PLAYERS] =
        {M("players: one deck seats 2 to 7 (decks=2 seats 6 to 10)"), 0, 0, 0},
    [ENGINE_ERR_TWO_DECKS_PLAYERS] =
        {M("decks: two decks (cancellation) need 6 to 10 players"), 0, 0, 0},
    [ENGINE_ERR_TWO_PLAYERS_STOCK] =
        {M("players: a 2-player table plays the two-handed game only "
           "(stock=two_handed)"),
         0, 0, 0},
    [ENGINE_ERR_TWO_HANDED_PLAYERS] = {M("stock: two_handed is for 2 players"),
                                       0, 0, 0},
    [ENGINE_ERR_JOKER_TWO_DECKS] = {M("joker: not with two decks"), 0, 0, 0},
    [ENGINE_ERR_STOCK_TWO_DECKS] = {M("stock: not with two decks"), 0, 0, 0},
    [ENGINE_ERR_STOCK_KITTY] =
        {M("odd_cards: a stock game deals no kitty (odd_cards=remove)"), 0, 0,
         0},
    [ENGINE_ERR_PARTNERS_STOCK] = {M("partners: not with a stock"), 0, 0, 0},
    [ENGINE_ERR_WIDOW_PLAYERS] =
        {M("odd_cards: a widow is for 3 to 6 players and one deck"), 0, 0, 0},
    /* TRANSLATORS: modern, momentpoint and bigd are values of the
     * option remove_table (typed as they are). */
    [ENGINE_ERR_MODERN_SEVEN] =
        {M("remove_table: modern does not cover 7 players (try "
           "momentpoint or bigd)"),
         0, 0, 0},
    /* TRANSLATORS: {players} is 6 to 10. */
    [ENGINE_ERR_TWO_DECKS_DIVIDE] =
        {M("odd_cards: 104 cards do not divide among {players} players; "
           "use odd_cards=kitty"),
         "players", 0, 0},
    [ENGINE_ERR_PARTNERS_FOUR] = {M("partners: for 4 players"), 0, 0, 0},
    [ENGINE_ERR_CYCLE_EMPTY] = {M("pass_cycle: needs at least one direction"),
                                0, 0, 0},
    /* TRANSLATORS: {n} and {players} are 2 or more; scatter is a value
     * of pass_cycle (typed as it is). */
    [ENGINE_ERR_SCATTER_COUNT] =
        {M("pass_count: scatter needs a multiple of {n} cards with "
           "{players} players"),
         "n", "players", 0},
    /* TRANSLATORS: shooting the sun: taking every trick. */
    [ENGINE_ERR_SUN_NO_MOON] =
        {M("sun: shooting the sun needs a moon rule (moon is off)"), 0, 0, 0},
    /* TRANSLATORS: {n} is 2 to 4, more than a hand's {hand} cards. */
    [ENGINE_ERR_PASS_OVER_HAND] =
        {M("pass_count: {n} cards to pass but a hand holds {hand}"), "n",
         "hand", 0},
    /* TRANSLATORS: {card} is a card as typed ("2D"); {players} is 2 or
     * more. */
    [ENGINE_ERR_CARD_NOT_IN_PACK] =
        {M("card_points: {card} is not in the pack for these rules and "
           "{players} players"),
         "players", 0, 0},
    /* TRANSLATORS: {card} is a card as typed ("TD"); bonus_points is
     * an option's name. */
    [ENGINE_ERR_CARD_IS_BONUS] =
        {M("card_points: {card} is the bonus card; set its value with "
           "bonus_points"),
         0, 0, 0},
    /* TRANSLATORS: the errors of a given deal (a game record read
     * back) are for the bot's operators. */
    [ENGINE_ERR_DEAL_PHASE] = {M("a hand is still being played"), 0, 0, 0},
    /* TRANSLATORS: {seat} is a number that is no seat of the table. */
    [ENGINE_ERR_DEAL_DEALER] = {M("dealer {seat} is not a seat"), "seat", 0, 0},
    /* TRANSLATORS: {n} cards are in the pack, {given} were dealt. */
    [ENGINE_ERR_DEAL_LENGTH] = {M("the pack has {n} cards, not {given}"), "n",
                                "given", 0},
    /* TRANSLATORS: {card} is a card's code ("2D", or "??"). */
    [ENGINE_ERR_DEAL_NOT_IN_PACK] = {M("{card} is not in the pack"), 0, 0, 0},
    /* TRANSLATORS: {card} is a card's code ("2C"). */
    [ENGINE_ERR_DEAL_TWICE] = {M("{card} is dealt twice"), 0, 0, 0},
};

/* The words of error e: those of its code, but for a preset for one
 * number of players, which names just that number. */
static struct error_words error_words(const struct engine_error *e)
{
    if (e->code == ENGINE_ERR_PRESET_PLAYERS && e->n1 == e->n2)
        /* TRANSLATORS: {preset} is a preset's name (never translated);
         * {n} and {players} are 2 or more. */
        return (struct error_words){
            M("{preset} is for {n} players, not {players}"), "n", "",
            "players"};
    if (e->code <= ENGINE_ERR_NONE ||
        (size_t)e->code >= sizeof error_table / sizeof error_table[0])
        return (struct error_words){NULL, 0, 0, 0};
    return error_table[e->code];
}

/* The values an option takes, ", " apart, into buf. */
static const char *option_values(int option, char *buf, size_t len)
{
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    const char *v;
    for (int i = 0; (v = engine_option_value(option, i)); i++)
        strbuf_addf(&sb, "%s%s", i ? ", " : "", v);
    return buf;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

bool rule_words_error(struct strbuf *sb, int lang, const struct engine_error *e)
{
    struct error_words w = error_words(e);
    if (!w.id)
        return !sb->cut;
    char values[256];
    return msg_add(
        sb, lang, w.id, MSG_S("word", e->word), MSG_S("value", e->word),
        MSG_S("near", e->near),
        MSG_S("option", or_empty(engine_option_name(e->option))),
        MSG_S("values", option_values(e->option, values, sizeof values)),
        MSG_S("card", engine_card_name(e->card)),
        MSG_S("preset", or_empty(engine_preset_name(e->preset))),
        MSG_I(or_empty(w.n1), e->n1), MSG_I(or_empty(w.n2), e->n2),
        MSG_I(or_empty(w.n3), e->n3), MSG_END);
}

/* Why an action was refused, by enum engine_refusal. */
static const char *const refusal_ids[] = {
    /* TRANSLATORS: the action was taken (a refusal's words are for logs
     * and for "That won't do: ..."). */
    [ENGINE_OK] = MC("an action not refused", "ok"),
    /* TRANSLATORS: why a move is refused, in a few words after "That won't
     * do: " (lower case, no full stop). */
    [ENGINE_REFUSE_WRONG_PHASE] = M("not now"),
    [ENGINE_REFUSE_NOT_YOUR_TURN] = M("not your turn"),
    [ENGINE_REFUSE_ALREADY_PASSED] = M("already passed"),
    [ENGINE_REFUSE_NOT_IN_HAND] = M("card not in hand"),
    [ENGINE_REFUSE_BAD_CARD] = M("not a card of this game"),
    /* TRANSLATORS: a card named twice in one pass. */
    [ENGINE_REFUSE_DUPLICATE_CARD] = M("the same card twice"),
    [ENGINE_REFUSE_PASS_COUNT] = M("wrong number of cards"),
    [ENGINE_REFUSE_BLIND_NOT_ALLOWED] = M("blind passing not allowed"),
    [ENGINE_REFUSE_MUST_FOLLOW] = M("must follow suit"),
    [ENGINE_REFUSE_HEARTS_NOT_BROKEN] = M("hearts not broken"),
    [ENGINE_REFUSE_FIRST_TRICK_POINTS] = M("no points on the first trick"),
    [ENGINE_REFUSE_MUST_LEAD_CARD] = M("must lead the lowest club"),
    [ENGINE_REFUSE_MUST_DUMP_QUEEN] = M("must play the queen of spades"),
    [ENGINE_REFUSE_MUST_LEAD_QUEEN] = M("must lead the queen of spades"),
    /* TRANSLATORS: "add" and "subtract" are typed as they are. */
    [ENGINE_REFUSE_BAD_MOON_CHOICE] = M("moon choice is add or subtract"),
    /* TRANSLATORS: only the player who shot the moon chooses. */
    [ENGINE_REFUSE_NOT_SHOOTER] = M("not the shooter"),
    [ENGINE_REFUSE_BAD_ACTION] = M("bad action"),
};

bool rule_words_refusal(struct strbuf *sb, int lang, enum engine_refusal why)
{
    const char *id = NULL;
    if ((unsigned)why < sizeof refusal_ids / sizeof refusal_ids[0])
        id = refusal_ids[why];
    return msg_add(sb, lang, id ? id : M("refused"), MSG_END);
}

/* What each preset is, by its name (docs/spec/variants.md). */
static const struct {
    const char *name;
    const char *id;
} presets[] = {
    /* TRANSLATORS: what the preset "standard" is, after "standard for 4
     * players: ". The presets' summaries are rules in brief for card
     * players: say them as players of your language do. 2C is the two of
     * clubs, QS the queen of spades (13 points); "moon by choice": who
     * shoots the moon chooses; "to 100": the game ends at 100 points. */
    {"standard", M("pass left, right, across, hold; 2C leads; hearts must be "
                   "broken; QS 13; moon by choice; to 100")},
    /* TRANSLATORS: the preset "modern"; moon -26: shooting the moon takes
     * 26 off the shooter's score. */
    {"modern", M("jack of diamonds -10, no points on the first trick, the "
                 "queen breaks hearts, moon -26")},
    /* TRANSLATORS: the preset "tens": the cards left over after the deal
     * lie face up. */
    {"tens", M("ten of diamonds -10, pass right, left, hold, leftover cards "
               "face up")},
    /* TRANSLATORS: the preset "party". */
    {"party", M("left of the dealer leads anything, hearts any time")},
    /* TRANSLATORS: the preset "basic": only hearts score. */
    {"basic", M("hearts only, no passing, no moon, to 50")},
    /* TRANSLATORS: the preset "black-lady": hearts and the queen of spades
     * score. */
    {"black-lady", M("hearts and the QS, no passing")},
    /* TRANSLATORS: the preset "passing": Black Lady is a game's name. */
    {"passing", M("Black Lady with the pass cycle")},
    /* TRANSLATORS: the preset "spot": a heart scores its rank (the ten
     * 10, the king 13). */
    {"spot", M("basic, hearts score their face value")},
    /* TRANSLATORS: the preset "greek": QH is the queen of hearts. */
    {"greek", M("spot hearts, QH 50, pass right, moon gives the others 150")},
    /* TRANSLATORS: the preset "black-maria": the queen, king and ace of
     * spades score 13, 10 and 7. */
    {"black-maria", M("QS 13, KS 10, AS 7, pass right, no moon")},
    /* TRANSLATORS: the preset "omnibus". */
    {"omnibus", M("standard with the ten of diamonds -10")},
    /* TRANSLATORS: the preset "joker": a joker replaces the two of hearts
     * (2H), beats every card and scores 5. */
    {"joker", M("basic with a joker for the 2H: trump, 5 points")},
    /* TRANSLATORS: the preset "heartsette": the widow (cards dealt to no
     * one) goes to who takes the first trick. */
    {"heartsette", M("basic with a widow for the first trick's winner")},
    /* TRANSLATORS: the preset "cancellation": two identical cards on one
     * trick cancel each other. */
    {"cancellation", M("two decks, identical cards on a trick cancel")},
    /* TRANSLATORS: the preset "domino": a player who cannot follow suit
     * draws from the stock. */
    {"domino", M("six cards each, draw from the stock when void, to 31")},
    /* TRANSLATORS: the preset "two-handed". */
    {"two-handed", M("two players drawing from a stock")},
    /* TRANSLATORS: the preset "partners". */
    {"partners", M("partners sit opposite and score together")},
};

bool rule_words_preset(struct strbuf *sb, int lang, int preset)
{
    const char *name = engine_preset_name(preset);
    for (size_t i = 0; name && i < sizeof presets / sizeof presets[0]; i++)
        if (!strcmp(presets[i].name, name))
            return msg_add(sb, lang, presets[i].id, MSG_END);
    return !sb->cut;
}

const char *rule_words_error_text(char *buf, size_t len, int lang,
                                  const struct engine_error *e)
{
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    rule_words_error(&sb, lang, e);
    return buf;
}

const char *rule_words_refusal_text(char *buf, size_t len, int lang,
                                    enum engine_refusal why)
{
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    rule_words_refusal(&sb, lang, why);
    return buf;
}
