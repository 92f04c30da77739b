/*
 * Cards, hands, tricks and score sheets as text for a chat protocol. The
 * game manager words its messages with these; adapters send the text as it
 * is. CHAT_STYLE_PLAIN is text without control codes (the console, IRC
 * with colours off); CHAT_STYLE_IRC adds mIRC formatting: red
 * (colour 04) for hearts, diamonds and the joker, bold for marked cards.
 * Clubs and spades keep the client's default colour, which reads on dark
 * and light themes alike.
 *
 * Every function writes into the caller's buffer and allocates nothing.
 * The text is always NUL-terminated (when len > 0) and, when it does not
 * fit, cut safely: never inside a UTF-8 sequence, a colour code or a card,
 * and a colour left open by the cut is closed. Like snprintf, each returns
 * the length in bytes of the whole text, without the NUL: a return value
 * >= len means the text was cut (buf may then be NULL with len 0 to
 * measure). Text cut this way may be shorter than len - 1.
 *
 * On IRC a red run is "\x03" "04" ... "\x0F": the colour always has two
 * digits, so a digit after it (the rank "2") is not read as part of the
 * colour, and the end is \x0F (reset all), which no following character
 * can extend. Do not wrap rendered cards in formatting of your own: the
 * reset ends it too.
 *
 * CHAT_STYLE_MARKUP is a small private markup for adapters that build rich
 * text themselves (Matrix: adapters/matrix/format.h turns it into a plain
 * `body` and an HTML `formatted_body`). It is made of control bytes, which
 * names from the network never contain (render_name removes them all):
 *   "\x03" "04" ... "\x0F"   a red run, exactly as on IRC (hearts,
 *                            diamonds, the joker; a hand's red group)
 *   "\x02" ... "\x02"        bold, as on IRC (a trick's taker)
 *   "\x05" card "\x05"       a marked (legal) card: "[card]" in plain
 *                            text, bold in HTML
 *   "\x1F"                   in a score-sheet row, just before each
 *                            two-space column gap: removing the \x1F
 *                            bytes gives exactly the plain sheet; a line
 *                            holding one is a table row, consecutive rows
 *                            are one table and its first row the heading
 *   "\x01" id "\x01" name "\x01"   a mention (pill) of the user `id`
 *                            shown as `name`: a link to the user in HTML,
 *                            the name in plain text; nobody is notified
 *   "\x01!" id "\x01" name "\x01"  the same, and `id` is notified
 * The score sheet's heading is not bold in this style: it is a table's
 * heading row.
 *
 * Everything from the network (names) is untrusted and passes through the
 * same cleaning as render_name. All functions may be called from a
 * callback; none keeps a pointer it was given.
 */
#ifndef HEARTS_BOT_RENDER_H
#define HEARTS_BOT_RENDER_H

#include "bot/common/chat.h"
#include "bot/common/msg.h"
#include "engine/engine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How cards are written for a reader (a person's `cards` setting; a
 * channel's lines are always in symbols):
 *   symbols  "Q♠ 10♥", a hand "♣ 2 5 J  ♦ 3 Q": the suits' symbols, red
 *            suits red on IRC and in the markup (the default). A jack,
 *            queen, king and ace are the language's letters, as in words
 *            (German "D♠ 10♥").
 *   ascii    "QS 10H", a hand "C: 2 5 J  D: 3 Q": ASCII letters only, the
 *            English codes the bot always reads back; "Joker" for the
 *            joker; no colour, and on IRC no formatting at all (bold
 *            neither: a client without Unicode shows none). The markup
 *            keeps its own codes, but no red.
 *   words    "Q of spades, 10 of hearts", a hand "clubs: 2 5 J; diamonds:
 *            3 Q": the suits' names in look.lang and no symbol anywhere,
 *            for screen readers (which read "♠" as "black spade suit").
 *            A jack, queen, king and ace are the language's letters, the
 *            ones a person may type (bot/manager/card_words.h: "Pik D" in
 *            German). Colours and marks as in symbols.
 */
enum render_cards {
    RENDER_CARDS_SYMBOLS, /* "Q♠ 10♥": the suits' symbols (the default) */
    RENDER_CARDS_ASCII,   /* "QS 10H": letters, for clients without Unicode */
    RENDER_CARDS_WORDS    /* the suits' names, for screen readers */
};

/* How a line is written for its reader: the adapter's style, the
 * language of its words (msg.h) and how cards are written. Every
 * function below that takes a look writes its words in look.lang: the
 * English shown here is MSG_EN's. */
struct render_look {
    enum chat_style style;
    int lang;
    enum render_cards cards;
};

/* The look of a style in English with the suits' symbols. */
static inline struct render_look render_look_style(enum chat_style style)
{
    return (struct render_look){style, MSG_EN, RENDER_CARDS_SYMBOLS};
}

/* Code points kept of a name (render_name, and names in trick lines). */
#define RENDER_NAME_MAX 24
/* Code points of the tag that tells a name apart ("(@carol:example.org)")
 * kept whole after it (render_name). */
#define RENDER_TAG_MAX 64
/* Bytes that hold any name render_name writes, with "(NN)" after it. */
#define RENDER_SHOWN_SIZE ((RENDER_NAME_MAX + 1 + RENDER_TAG_MAX) * 4 + 8)
/* Code points kept of a name as a score-sheet column heading. */
#define RENDER_SCORES_NAME_WIDTH 8
/* Hands a score sheet said in a channel should show (render_scores'
 * `last`): with the heading, the "..." row and the totals, 8 lines. */
#define RENDER_SCORES_LAST 5

/* render_trick's `winner` when no one takes the trick. */
#define RENDER_TRICK_ASIDE (-1) /* cancelled: set aside for the next */
#define RENDER_TRICK_OPEN (-2)  /* still being played */

/*
 * One card: the rank (2-10, J, Q, K, A, or the language's letters) and the
 * suit symbol (U+2663 ♣, U+2666 ♦, U+2665 ♥, U+2660 ♠), without the emoji
 * selector. The joker is "Joker" or the language's name for it; a card
 * that is no card is "??". engine_card_parse reads back every card
 * written here in English and in ascii, mgr_card_parse (card_words.h) the
 * language's letters and joker.
 *   plain: "Q♠", "10♥", "Joker"
 *   IRC:   "Q♠", "\x03" "0410♥\x0F", "\x03" "04Joker\x0F"
 *   markup: as IRC
 *   ascii: "QS", "10H", "Joker" (no colour)
 *   words: "Q of spades", "10 of hearts" (red on IRC)
 */
size_t render_card(char *buf, size_t len, int card, struct render_look look);

/*
 * A hand, grouped by suit in the order clubs, diamonds, spades, hearts (so
 * black and red alternate), ranks ascending after the suit's symbol,
 * groups two spaces apart, the joker last as a group of its own; empty
 * suits are left out and an empty hand is "". A card held twice (two
 * decks) is shown twice. The cards in `mark` (the legal plays at the
 * player's turn; 0 marks none) are in brackets in plain text and bold on
 * IRC, where a red suit's whole group is coloured.
 *   plain: "♣ 2 [5] [J]  ♦ 3 Q  ♠ 4 4 A  ♥ 7 K  Joker"
 *   IRC:   "♣ 2 \x02" "5\x02 \x02J\x02  \x03" "04♦ 3 Q\x0F  ♠ 4 4 A  "
 *          "\x03" "04♥ 7 K\x0F  \x03" "04Joker\x0F"
 *   markup: as IRC with each marked card in \x05 instead of \x02:
 *          "♣ 2 \x05" "5\x05 \x05J\x05  \x03" "04♦ 3 Q\x0F ..."
 *   ascii: "C: 2 [5] [J]  D: 3 Q  S: 4 4 A  H: 7 K  Joker"
 *   words: "clubs: 2 [5] [J]; diamonds: 3 Q; spades: 4 4 A; hearts: 7 K;
 *          Joker" (a group in the catalogue's "{suit}: {cards}")
 * A cut keeps whole cards, and a group's suit with its first card.
 */
size_t render_hand(char *buf, size_t len, const struct engine_cards *hand,
                   uint64_t mark, struct render_look look);

/*
 * Cards in the order given, one space apart, each as render_card writes
 * it: "Q♠ A♥ 3♣" ("Q♠ \x03" "04A♥\x0F 3♣" on IRC); in words a comma and
 * a space apart ("Q of spades, A of hearts"). n = 0 gives "".
 * render_sort puts a list in a hand's order first, where that reads
 * better (the cards received in a pass).
 */
size_t render_cards(char *buf, size_t len, const uint8_t *cards, int n,
                    struct render_look look);

/*
 * Sorts n cards in place into a hand's order: clubs, diamonds, spades,
 * hearts, the joker; ranks ascending; anything else last.
 */
void render_sort(uint8_t *cards, int n);

/*
 * One channel line for a trick: "Trick N: " (left out if trick_no <= 0),
 * then each play as the seat's name and the card, in the order given,
 * then the outcome. cards[i] was played by seat seats[i]; names[seat] is
 * the seat's name (cleaned as by render_name). `winner` is the seat that
 * takes the trick, RENDER_TRICK_ASIDE for a cancelled trick waiting for
 * the next winner, or RENDER_TRICK_OPEN for a trick still being played
 * (no outcome). `points` is what the trick is worth; 0 leaves it out.
 * On IRC the taker's name is bold. A taker named "you" (the console's
 * person) "take it". The words are the catalogue's ("Trick {n}: {plays}",
 * "{player} takes it ({points})", ...), the cards as look.cards says.
 *   plain: "Trick 5: alice 7♣, bob K♣, carol 2♥, dave 9♣ - bob takes it
 *           (1 point)"
 *          "Trick 6: alice 7♣, bob 7♣ - set aside for the next winner
 *           (2 points)"
 *          "Trick 7: alice 7♣, bob K♣"
 *          "Trick 7: no cards yet" (no plays)
 *   IRC:   "Trick 5: alice 7♣, bob K♣, carol \x03" "042♥\x0F, dave 9♣ -
 *           \x02" "bob\x02 takes it (1 point)"
 *   markup: as IRC.
 * A cut keeps whole plays.
 */
size_t render_trick(char *buf, size_t len, int trick_no, const uint8_t *cards,
                    const uint8_t *seats, int n, const char *const *names,
                    int winner, int points, struct render_look look);

/*
 * render_trick, and in the markup style the taker's name is a quiet pill
 * (render_mention) for ids[winner] when ids is not NULL and that entry is
 * not NULL (a person, not a computer player: the one who leads next).
 *   markup: "... - \x02\x01@bob:hs\x01" "bob\x01\x02 takes it (1 point)"
 */
size_t render_trick_ids(char *buf, size_t len, int trick_no,
                        const uint8_t *cards, const uint8_t *seats, int n,
                        const char *const *names, const char *const *ids,
                        int winner, int points, struct render_look look);

/*
 * A person's name (cleaned as by render_name). In the markup style, when
 * `id` is a non-empty string without control bytes, the name is a pill
 * for id: "\x01" id "\x01" name "\x01", or with `notify` (the person is
 * to be notified: whose turn it is) "\x01!" id "\x01" name "\x01". Other
 * styles, and an unusable id, give the name alone. Never cut inside.
 */
size_t render_mention(char *buf, size_t len, const char *id, const char *name,
                      bool notify, struct render_look look);

/*
 * The score sheet as a table for a monospace font, lines separated by
 * '\n' (no '\n' at the end; the adapter sends each line as a message).
 * Columns are two spaces apart and right-aligned: the hand number, then
 * one per seat headed by its name (cleaned, cut to
 * RENDER_SCORES_NAME_WIDTH code points); every line has the same width in
 * code points (wide characters in names aside). hands_points[h][seat] is
 * what seat scored in hand h + 1; totals[seat] the game totals (NULL: no
 * total line). Only the last `last` hands are shown (<= 0: all), after a
 * "..." row when some are left out; RENDER_SCORES_LAST suits a channel.
 * "hand", "total" and "..." are the catalogue's, in look.lang (the first
 * column as wide as the widest of them).
 * n is at most ENGINE_MAX_PLAYERS (more seats are left out). On IRC the
 * heading line is bold; in the markup style every line is a table row,
 * with \x1F before each column gap ("hand\x1F  alice\x1F  bob").
 *    hand  alice  bob  carol
 *     ...    ...  ...    ...
 *       7      0   13      4
 *       8     26    0      0
 *   total     41   55     30
 * A cut keeps whole lines.
 */
size_t render_scores(char *buf, size_t len, const char *const *names, int n,
                     const int32_t *const *hands_points, int nhands,
                     const int32_t *totals, int last, struct render_look look);

/* Bytes of a mark after a score-sheet heading (render_scores_marked). */
#define RENDER_SCORES_MARK_MAX 16

/*
 * render_scores, and each heading whose marks[seat] is a non-empty
 * string (printable UTF-8: no control, nothing render_name removes; less
 * than RENDER_SCORES_MARK_MAX bytes; marks NULL: none) has it after the
 * cut name and a space: "bob (left)", "bob (gegangen)" (a mark this short:
 * "(ordinateur)" is 12 bytes). Its width is counted in code points.
 */
size_t render_scores_marked(char *buf, size_t len, const char *const *names,
                            const char *const *marks, int n,
                            const int32_t *const *hands_points, int nhands,
                            const int32_t *totals, int last,
                            struct render_look look);

/*
 * A name from the network, safe to show: control characters (C0 such as
 * CR, LF and tab, DEL, C1) and IRC formatting (bold \x02, colour
 * \x03 with its "NN,NN" digits, hex colour \x04 with its digits, reset
 * \x0F, reverse \x16, italics \x1D, strike \x1E, underline \x1F) are
 * removed, and so are invisible and direction-changing characters
 * (U+00AD, U+061C, U+200B-U+200F, U+2028-U+202E, U+2060-U+206F, U+FEFF,
 * tags U+E0000-U+E007F), which could make a name look like another or
 * reorder the rest of a line. Bytes that are not UTF-8 are read as
 * Latin-1, as IRC clients do. Spaces are trimmed and runs of them become
 * one. At most RENDER_NAME_MAX code points are kept, but for a name told
 * apart by a tag in brackets at its end ("Ace (@carol:example.org)": a
 * Matrix display name two people share): the tag is kept whole after the
 * name cut to RENDER_NAME_MAX when it is at most RENDER_TAG_MAX code
 * points, and dropped when longer (never cut inside); a name with
 * nothing left (or NULL) is "?".
 *   "\x02" "bob\x0F" -> "bob";  "\x03" "04,01al\x1Fice" -> "alice"
 */
size_t render_name(char *buf, size_t len, const char *name);

/*
 * Removes IRC formatting from text in place, as render_name does (bold
 * \x02, colour \x03 and hex colour \x04 with their digits, reset \x0F,
 * reverse \x16, italics \x1D, strike \x1E, underline \x1F, monospace
 * \x11), and nothing else: what a person types is read, and echoed, without
 * the codes their client added. Returns the new length.
 *   "pl\x02ay\x02 \x03" "04QS" -> "play QS"
 */
size_t render_strip_formatting(char *text);

/*
 * Cleans text a person typed, in place, before the bot reads it: IRC
 * formatting is removed (render_strip_formatting), and so is every
 * character render_name leaves out of names: C0 and C1 controls (CTCP's
 * \x01 included), DEL, and the invisible and direction-changing
 * characters (U+00AD, U+061C, U+200B-U+200F, U+202A-U+202E,
 * U+2066-U+2069 and the rest of U+2060-U+206F, U+FEFF, variation
 * selectors, tags...); tab, CR, LF, VT and FF become spaces. A byte that
 * is not UTF-8 is read as Latin-1: dropped if that is a C1 control, else
 * kept. So nothing the bot echoes from what it read (an unknown command,
 * option or name) can hide or reorder the rest of a line. Never grows the
 * text; returns the new length.
 *   "!hearts target=\xe2\x80\xae" "05" -> "!hearts target=05"
 */
size_t render_clean_text(char *text);

/* A suit's symbol, red on IRC and in the markup for hearts and diamonds
 * ("♦", "\x03" "04♦\x0F"); in ascii its letter ("D"), in words its name
 * in look.lang ("diamonds"); "?" for no suit. */
size_t render_suit(char *buf, size_t len, int suit, struct render_look look);

/* A suit's name in language lang (msg.h), from the catalogue ("Kreuz" in
 * German); "?" for no suit. A static string. */
const char *render_suit_word(int suit, int lang);

#endif
