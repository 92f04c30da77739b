/*
 * Tests of adapters/console/console.c without a terminal: typed lines
 * (through a pipe, or injected) become room or private messages, "quit"
 * and "exit" end the session, input is cut into lines, an overlong line
 * is dropped whole, and output is worded "[room] text" / "[you] text",
 * cleaned of control characters, capped in whole lines, and dropped when
 * the terminal is gone. What a terminal gets (the features asked for):
 * the markup in ANSI colours, and a prompt that never stays inside a line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/console/console.h"

#define MAX_EVENTS 16

/* What the adapter reported. */
struct seen {
    int n;
    enum chat_event_kind kind[MAX_EVENTS];
    char *room[MAX_EVENTS]; /* NULL: private */
    char *text[MAX_EVENTS];
    char *nick[MAX_EVENTS];
    char *id[MAX_EVENTS];
    int ends;
    char why[32]; /* on_end's */
    struct loop *loop;
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void on_event(void *ctx, struct chat_adapter *a,
                     const struct chat_event *ev)
{
    (void)a;
    struct seen *t = ctx;
    assert_true(t->n < MAX_EVENTS);
    t->kind[t->n] = ev->kind;
    t->room[t->n] = dup_or_null(ev->room);
    t->text[t->n] = dup_or_null(ev->text);
    t->nick[t->n] = dup_or_null(ev->from.nick);
    t->id[t->n] = dup_or_null(ev->from.id);
    t->n++;
}

static void on_end(void *ctx, const char *why)
{
    struct seen *t = ctx;
    t->ends++;
    snprintf(t->why, sizeof t->why, "%s", why);
    loop_stop(t->loop);
}

static void seen_free(struct seen *t)
{
    for (int i = 0; i < t->n; i++) {
        free(t->room[i]);
        free(t->text[i]);
        free(t->nick[i]);
        free(t->id[i]);
    }
}

/* A console on a pipe for input and a temporary file for output. */
struct rig {
    struct loop *loop;
    struct chat_adapter *a;
    int in[2];
    FILE *out;
    struct seen seen;
};

static void rig_open_with(struct rig *r, unsigned features)
{
    memset(r, 0, sizeof *r);
    r->loop = loop_new();
    r->seen.loop = r->loop;
    assert_int_equal(pipe(r->in), 0);
    r->out = tmpfile();
    assert_non_null(r->out);
    r->a = console_new(r->loop, r->in[0], fileno(r->out), features, "!",
                       on_event, &r->seen, on_end, &r->seen);
    assert_non_null(r->a);
}

static void rig_open(struct rig *r)
{
    rig_open_with(r, 0);
}

static void rig_close(struct rig *r)
{
    if (r->a)
        r->a->ops->free(r->a);
    loop_free(r->loop);
    if (r->in[0] >= 0)
        close(r->in[0]);
    if (r->in[1] >= 0)
        close(r->in[1]);
    fclose(r->out);
    seen_free(&r->seen);
}

/* Everything written to the output so far (to free). */
static char *output(struct rig *r, size_t *len)
{
    struct stat st;
    assert_int_equal(fstat(fileno(r->out), &st), 0);
    char *text = calloc(1, (size_t)st.st_size + 1);
    assert_int_equal(pread(fileno(r->out), text, (size_t)st.st_size, 0),
                     st.st_size);
    if (len)
        *len = (size_t)st.st_size;
    return text;
}

static void stop_now(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

/* One round of the loop: the hooks (output, the prompt), then what is
 * ready to read. */
static void step(struct rig *r)
{
    loop_timer(r->loop, 0, stop_now, NULL);
    assert_int_equal(loop_run(r->loop), 0);
}

/* Types `bytes` at the console, ends the input and runs the loop until
 * the console sees the end. */
static void type(struct rig *r, const char *bytes, size_t len)
{
    assert_int_equal(r->a->ops->start(r->a), 0);
    assert_int_equal(write(r->in[1], bytes, len), (ssize_t)len);
    close(r->in[1]);
    r->in[1] = -1;
    assert_int_equal(loop_run(r->loop), 0);
    assert_int_equal(r->seen.ends, 1);
}

/* ---- Input ------------------------------------------------------------ */

static void
test_a_prefixed_line_is_said_in_the_room_others_privately(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    console_inject(r.a, "!hearts");
    console_inject(r.a, "play QS");
    console_inject(r.a, " \t!top 3");
    console_inject(r.a, "QS !x");
    assert_int_equal(r.seen.n, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(r.seen.kind[i], CHAT_MESSAGE);
        assert_string_equal(r.seen.nick[i], CONSOLE_NICK);
        assert_string_equal(r.seen.id[i], "console");
    }
    assert_string_equal(r.seen.room[0], CONSOLE_ROOM);
    assert_string_equal(r.seen.text[0], "!hearts");
    assert_null(r.seen.room[1]);
    assert_string_equal(r.seen.text[1], "play QS");
    /* leading blanks do not hide the prefix, and the text is as typed */
    assert_string_equal(r.seen.room[2], CONSOLE_ROOM);
    assert_string_equal(r.seen.text[2], " \t!top 3");
    assert_null(r.seen.room[3]);
    rig_close(&r);
}

static void test_blank_lines_say_nothing(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    console_inject(r.a, "");
    console_inject(r.a, "   ");
    console_inject(r.a, "\t \t");
    assert_int_equal(r.seen.n, 0);
    rig_close(&r);
}

static void test_the_prefix_is_the_one_given(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    r.a->ops->free(r.a);
    r.a = console_new(r.loop, r.in[0], fileno(r.out), 0, "hb:", on_event,
                      &r.seen, on_end, &r.seen);
    console_inject(r.a, "hb:top");
    console_inject(r.a, "!top");
    assert_int_equal(r.seen.n, 2);
    assert_string_equal(r.seen.room[0], CONSOLE_ROOM);
    assert_null(r.seen.room[1]);
    rig_close(&r);
}

static void test_typed_input_is_cut_into_lines(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    /* CR and NUL bytes are dropped; a last line without its newline is
     * never said */
    static const char in[] = "QS\r\n!t\0op\n\n  \nhand";
    type(&r, in, sizeof in - 1);
    assert_int_equal(r.seen.n, 3);
    assert_int_equal(r.seen.kind[0], CHAT_CONNECTED);
    assert_int_equal(r.seen.kind[1], CHAT_MESSAGE);
    assert_null(r.seen.room[1]);
    assert_string_equal(r.seen.text[1], "QS");
    assert_string_equal(r.seen.room[2], CONSOLE_ROOM);
    assert_string_equal(r.seen.text[2], "!top");
    assert_string_equal(r.seen.why, "end of input");
    /* stopping after the end of the input is fine */
    r.a->ops->stop(r.a, NULL);
    rig_close(&r);
}

static void test_an_overlong_line_is_dropped_whole(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    size_t len = 4095 + 1 + 4096 + 1 + 3;
    char *in = malloc(len);
    memset(in, 'a', 4095); /* the longest line kept */
    in[4095] = '\n';
    memset(in + 4096, 'b', 4096); /* one byte too long */
    in[8192] = '\n';
    memcpy(in + 8193, "QS\n", 3);
    type(&r, in, len);
    assert_int_equal(r.seen.n, 3);
    assert_int_equal(strlen(r.seen.text[1]), 4095);
    assert_true(r.seen.text[1][0] == 'a' && r.seen.text[1][4094] == 'a');
    assert_string_equal(r.seen.text[2], "QS");
    free(in);
    rig_close(&r);
}

static void test_quit_or_exit_ends_the_session(void **state)
{
    (void)state;
    static const char *const quits[] = {"quit", "exit",  "  QUIT \t",
                                        "Exit", "!quit", "!exit "};
    for (size_t i = 0; i < sizeof quits / sizeof *quits; i++) {
        struct rig r;
        rig_open(&r);
        console_inject(r.a, quits[i]);
        assert_int_equal(r.seen.n, 0);
        assert_int_equal(r.seen.ends, 1);
        assert_string_equal(r.seen.why, "quit");
        /* nothing more is read, and it ends once */
        console_inject(r.a, "!top");
        console_inject(r.a, "quit");
        assert_int_equal(r.seen.n, 0);
        assert_int_equal(r.seen.ends, 1);
        rig_close(&r);
    }
}

static void test_quit_with_more_words_is_a_message(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    static const char *const not_quit[] = {"quit now", "quitter", "qui",
                                           "!quit 2",  "?quit",   "exit."};
    for (size_t i = 0; i < sizeof not_quit / sizeof *not_quit; i++)
        console_inject(r.a, not_quit[i]);
    assert_int_equal(r.seen.n, 6);
    assert_int_equal(r.seen.ends, 0);
    assert_string_equal(r.seen.text[0], "quit now");
    assert_string_equal(r.seen.room[3], CONSOLE_ROOM);
    rig_close(&r);
}

static void test_a_typed_quit_drops_the_lines_after_it(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    static const char in[] = "hand\nquit\nQS\n";
    type(&r, in, sizeof in - 1);
    assert_int_equal(r.seen.n, 2);
    assert_int_equal(r.seen.kind[0], CHAT_CONNECTED);
    assert_string_equal(r.seen.text[1], "hand");
    assert_string_equal(r.seen.why, "quit");
    rig_close(&r);
}

/* ---- Output ----------------------------------------------------------- */

static void
test_room_and_private_lines_are_worded_for_the_terminal(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    const struct chat_adapter_ops *ops = r.a->ops;
    assert_true(ops->idle(r.a));
    ops->say(r.a, CONSOLE_ROOM, "Alice plays QS.", CHAT_NORMAL);
    ops->tell(r.a, CONSOLE_NICK, "Your turn.", CHAT_HIGH);
    ops->tell(r.a, "bob", "not for the terminal", CHAT_HIGH);
    assert_false(ops->idle(r.a));
    ops->stop(r.a, "Goodbye.");
    assert_true(ops->idle(r.a));
    char *out = output(&r, NULL);
    assert_string_equal(out, "[#console] Alice plays QS.\n"
                             "[you] Your turn.\n"
                             "Goodbye.\n");
    free(out);
    rig_close(&r);
}

static void test_control_characters_become_spaces(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    r.a->ops->tell(r.a, CONSOLE_NICK,
                   "a\x02"
                   "b\tc\nd\x1b[31m\re\x7f\xc3\xa9",
                   CHAT_NORMAL);
    r.a->ops->stop(r.a, NULL);
    char *out = output(&r, NULL);
    /* tab, newline, DEL and UTF-8 stay */
    assert_string_equal(out, "[you] a b\tc\nd [31m e\x7f\xc3\xa9\n");
    free(out);
    rig_close(&r);
}

static void test_a_long_room_name_is_cut_in_the_head(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    char room[100];
    memset(room, 'r', 99);
    room[99] = '\0';
    r.a->ops->say(r.a, room, "x", CHAT_LOW);
    r.a->ops->stop(r.a, NULL);
    char *out = output(&r, NULL);
    char want[100];
    snprintf(want, sizeof want, "[%.60s] x\n", room);
    assert_string_equal(out, want);
    free(out);
    rig_close(&r);
}

static void test_output_is_capped_in_whole_lines(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    const size_t cap = (1u << 20) - 1; /* bytes queued, below one MiB */
    const size_t head = strlen("[#console] ");
    char text[1000];
    memset(text, 'x', 999);
    text[999] = '\0';
    /* nothing is flushed in between: a terminal that does not read */
    for (int i = 0; i < 2000; i++)
        r.a->ops->say(r.a, CONSOLE_ROOM, text, CHAT_NORMAL);
    size_t line = head + 999 + 1;
    size_t whole = cap / line;
    size_t left = cap - whole * line;
    /* a line one byte longer than what is left is dropped; one that
     * fills it exactly is queued; after it nothing fits */
    char last[1000];
    memset(last, 'y', sizeof last);
    last[left - head] = '\0';
    r.a->ops->say(r.a, CONSOLE_ROOM, last, CHAT_NORMAL);
    last[left - head - 1] = '\0';
    r.a->ops->say(r.a, CONSOLE_ROOM, last, CHAT_NORMAL);
    r.a->ops->tell(r.a, CONSOLE_NICK, "", CHAT_NORMAL);
    r.a->ops->stop(r.a, NULL);
    size_t len;
    char *out = output(&r, &len);
    assert_int_equal(len, cap);
    for (size_t i = 0; i < whole; i++)
        assert_int_equal(out[i * line + line - 1], '\n');
    assert_memory_equal(out + whole * line, "[#console] yy", 13);
    assert_int_equal(out[cap - 2], 'y');
    assert_int_equal(out[cap - 1], '\n');
    free(out);
    rig_close(&r);
}

static void test_a_terminal_that_is_gone_drops_the_output(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    struct loop *l = loop_new();
    struct seen seen = {.loop = l};
    int out[2];
    assert_int_equal(pipe(out), 0);
    close(out[0]);
    struct chat_adapter *a =
        console_new(l, -1, out[1], 0, "!", on_event, &seen, on_end, &seen);
    a->ops->say(a, CONSOLE_ROOM, "lost", CHAT_NORMAL);
    assert_false(a->ops->idle(a));
    a->ops->stop(a, NULL);
    assert_true(a->ops->idle(a));
    a->ops->free(a);
    loop_free(l);
    close(out[1]);
}

/* ---- At a terminal ------------------------------------------------------ */

static void test_features_follow_the_terminal_and_no_color(void **state)
{
    (void)state;
    const unsigned all = CONSOLE_COLOUR | CONSOLE_PROMPT | CONSOLE_ANSI;
    assert_int_equal(console_features(true, true, "xterm", NULL), all);
    assert_int_equal(console_features(true, true, "xterm-256color", ""), all);
    /* NO_COLOR with any value: no colours, the rest stays */
    assert_int_equal(console_features(true, true, "xterm", "1"),
                     CONSOLE_PROMPT | CONSOLE_ANSI);
    assert_int_equal(console_features(true, true, "xterm", "0"),
                     CONSOLE_PROMPT | CONSOLE_ANSI);
    /* a dumb terminal, or none named: the prompt without ANSI codes */
    assert_int_equal(console_features(true, true, "dumb", NULL),
                     CONSOLE_PROMPT);
    assert_int_equal(console_features(true, true, NULL, NULL), CONSOLE_PROMPT);
    assert_int_equal(console_features(true, true, "", NULL), CONSOLE_PROMPT);
    /* piped output: plain lines; piped input: no prompt */
    assert_int_equal(console_features(true, false, "xterm", NULL), 0);
    assert_int_equal(console_features(false, true, "xterm", NULL),
                     CONSOLE_COLOUR | CONSOLE_ANSI);
    assert_int_equal(console_features(false, false, "xterm", NULL), 0);
}

static void test_colours_turn_the_markup_into_ansi_codes(void **state)
{
    (void)state;
    struct rig r;
    rig_open_with(&r, CONSOLE_COLOUR);
    /* the manager writes its markup for this console */
    assert_int_equal(r.a->style, CHAT_STYLE_MARKUP);
    const struct chat_adapter_ops *ops = r.a->ops;
    /* a hand: red runs, marked cards */
    ops->tell(r.a, CONSOLE_NICK,
              "\x03"
              "04\xe2\x99\xa6 \x05"
              "9\x05 Q\x0F  "
              "\xe2\x99\xa0 \x05"
              "2\x05",
              CHAT_HIGH);
    /* a trick: a mention, bold taker */
    ops->say(r.a, CONSOLE_ROOM,
             "\x01!you\x01you\x01 \x03"
             "042\xe2\x99\xa5\x0F, bot1 K\xe2\x99\xa0 "
             "(\x02"
             "bot1\x02 takes it)",
             CHAT_NORMAL);
    /* a score sheet row: cell marks go */
    ops->say(r.a, CONSOLE_ROOM, "    1\x1F  13\x1F   0", CHAT_NORMAL);
    /* a run left open is closed at the line's end; other controls are
     * spaces, an escape from a name too */
    ops->tell(r.a, CONSOLE_NICK,
              "\x03"
              "04A\x02"
              "B\x1b[2Jc\x07",
              CHAT_LOW);
    /* another colour than red is the default one */
    ops->tell(r.a, CONSOLE_NICK,
              "\x03"
              "03,01x\x03y",
              CHAT_LOW);
    ops->stop(r.a, NULL);
    char *out = output(&r, NULL);
    assert_string_equal(
        out, "[you] \x1b[31m\xe2\x99\xa6 [9] Q\x1b[0m  \xe2\x99\xa0 [2]\n"
             "[#console] you \x1b[31m2\xe2\x99\xa5\x1b[0m, bot1 K\xe2\x99\xa0 "
             "(\x1b[1mbot1\x1b[22m takes it)\n"
             "[#console]     1  13   0\n"
             "[you] \x1b[31mA\x1b[1mB [2Jc \x1b[0m\n"
             "[you] \x1b[39mx\x1b[39my\n");
    free(out);
    rig_close(&r);
}

static void test_the_prompt_waits_after_the_output(void **state)
{
    (void)state;
    struct rig r;
    rig_open_with(&r, CONSOLE_PROMPT | CONSOLE_ANSI);
    const struct chat_adapter_ops *ops = r.a->ops;
    assert_int_equal(ops->start(r.a), 0);
    ops->tell(r.a, CONSOLE_NICK, "Your turn.", CHAT_HIGH);
    ops->say(r.a, CONSOLE_ROOM, "bot1 plays.", CHAT_NORMAL);
    step(&r);
    /* the lines of the turn, then one prompt */
    char *out = output(&r, NULL);
    assert_string_equal(out, "[you] Your turn.\n[#console] bot1 plays.\n> ");
    free(out);
    assert_true(ops->idle(r.a));
    /* nothing new: no second prompt */
    step(&r);
    out = output(&r, NULL);
    assert_string_equal(out, "[you] Your turn.\n[#console] bot1 plays.\n> ");
    free(out);
    /* a line while it waits: the prompt is erased first, then comes back
     * after it */
    ops->say(r.a, CONSOLE_ROOM, "bot2 plays.", CHAT_NORMAL);
    step(&r);
    /* a line typed (its end echoed by the terminal, before or after the
     * prompt): a prompt again, the one before erased */
    assert_int_equal(write(r.in[1], "QS\n", 3), 3);
    step(&r);
    step(&r);
    assert_int_equal(r.seen.n, 2);
    assert_string_equal(r.seen.text[1], "QS");
    /* the end: the prompt goes */
    ops->stop(r.a, NULL);
    out = output(&r, NULL);
    assert_string_equal(out, "[you] Your turn.\n[#console] bot1 plays.\n> "
                             "\r\x1b[K[#console] bot2 plays.\n> "
                             "\r\x1b[K> "
                             "\r\x1b[K");
    free(out);
    rig_close(&r);
}

static void test_the_prompt_of_a_dumb_terminal_is_blanked_out(void **state)
{
    (void)state;
    struct rig r;
    rig_open_with(&r, CONSOLE_PROMPT);
    const struct chat_adapter_ops *ops = r.a->ops;
    assert_int_equal(ops->start(r.a), 0);
    step(&r);
    /* a prompt at the start, before anything is said */
    ops->say(r.a, CONSOLE_ROOM, "Hand 1.", CHAT_NORMAL);
    step(&r);
    ops->stop(r.a, "Goodbye.");
    char *out = output(&r, NULL);
    assert_string_equal(out, "> \r  \r[#console] Hand 1.\n> \r  \rGoodbye.\n");
    free(out);
    rig_close(&r);
}

static void test_no_prompt_after_the_end_of_the_input(void **state)
{
    (void)state;
    struct rig r;
    rig_open_with(&r, CONSOLE_PROMPT | CONSOLE_ANSI);
    console_inject(r.a, "quit");
    r.a->ops->say(r.a, CONSOLE_ROOM, "Bye.", CHAT_NORMAL);
    step(&r);
    char *out = output(&r, NULL);
    assert_string_equal(out, "[#console] Bye.\n");
    free(out);
    rig_close(&r);
}

static void test_the_input_is_given_back_blocking(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    assert_int_equal(fcntl(r.in[0], F_GETFL) & O_NONBLOCK, 0);
    assert_int_equal(r.a->ops->start(r.a), 0);
    /* read from the loop without blocking it */
    assert_int_not_equal(fcntl(r.in[0], F_GETFL) & O_NONBLOCK, 0);
    r.a->ops->stop(r.a, NULL);
    r.a->ops->free(r.a);
    r.a = NULL;
    assert_int_equal(fcntl(r.in[0], F_GETFL) & O_NONBLOCK, 0);
    rig_close(&r);
}

static void test_the_adapter_says_it_is_a_solo_plain_console(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    assert_string_equal(r.a->network, "console");
    assert_int_equal(r.a->style, CHAT_STYLE_PLAIN);
    assert_true(r.a->solo);
    assert_true(r.a->ops->same_nick(r.a, "you", "you"));
    assert_false(r.a->ops->same_nick(r.a, "you", "You"));
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_a_prefixed_line_is_said_in_the_room_others_privately),
        cmocka_unit_test(test_blank_lines_say_nothing),
        cmocka_unit_test(test_the_prefix_is_the_one_given),
        cmocka_unit_test(test_typed_input_is_cut_into_lines),
        cmocka_unit_test(test_an_overlong_line_is_dropped_whole),
        cmocka_unit_test(test_quit_or_exit_ends_the_session),
        cmocka_unit_test(test_quit_with_more_words_is_a_message),
        cmocka_unit_test(test_a_typed_quit_drops_the_lines_after_it),
        cmocka_unit_test(
            test_room_and_private_lines_are_worded_for_the_terminal),
        cmocka_unit_test(test_control_characters_become_spaces),
        cmocka_unit_test(test_a_long_room_name_is_cut_in_the_head),
        cmocka_unit_test(test_output_is_capped_in_whole_lines),
        cmocka_unit_test(test_a_terminal_that_is_gone_drops_the_output),
        cmocka_unit_test(test_features_follow_the_terminal_and_no_color),
        cmocka_unit_test(test_colours_turn_the_markup_into_ansi_codes),
        cmocka_unit_test(test_the_prompt_waits_after_the_output),
        cmocka_unit_test(test_the_prompt_of_a_dumb_terminal_is_blanked_out),
        cmocka_unit_test(test_no_prompt_after_the_end_of_the_input),
        cmocka_unit_test(test_the_input_is_given_back_blocking),
        cmocka_unit_test(test_the_adapter_says_it_is_a_solo_plain_console),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
