/*
 * Tests of adapters/console/console.c without a terminal: typed lines
 * (through a pipe, or injected) become room or private messages, input is
 * cut into lines, an overlong line is dropped whole, and output is worded
 * "[room] text" / "[you] text", cleaned of control characters, capped in
 * whole lines, and dropped when the terminal is gone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
    int eofs;
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

static void on_eof(void *ctx)
{
    struct seen *t = ctx;
    t->eofs++;
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

static void rig_open(struct rig *r)
{
    memset(r, 0, sizeof *r);
    r->loop = loop_new();
    r->seen.loop = r->loop;
    assert_int_equal(pipe(r->in), 0);
    r->out = tmpfile();
    assert_non_null(r->out);
    r->a = console_new(r->loop, r->in[0], fileno(r->out), "!", on_event,
                       &r->seen, on_eof, &r->seen);
    assert_non_null(r->a);
}

static void rig_close(struct rig *r)
{
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

/* Types `bytes` at the console, ends the input and runs the loop until
 * the console sees the end. */
static void type(struct rig *r, const char *bytes, size_t len)
{
    assert_int_equal(r->a->ops->start(r->a), 0);
    assert_int_equal(write(r->in[1], bytes, len), (ssize_t)len);
    close(r->in[1]);
    r->in[1] = -1;
    assert_int_equal(loop_run(r->loop), 0);
    assert_int_equal(r->seen.eofs, 1);
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
    r.a = console_new(r.loop, r.in[0], fileno(r.out), "hb:", on_event, &r.seen,
                      on_eof, &r.seen);
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
        console_new(l, -1, out[1], "!", on_event, &seen, on_eof, &seen);
    a->ops->say(a, CONSOLE_ROOM, "lost", CHAT_NORMAL);
    assert_false(a->ops->idle(a));
    a->ops->stop(a, NULL);
    assert_true(a->ops->idle(a));
    a->ops->free(a);
    loop_free(l);
    close(out[1]);
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
        cmocka_unit_test(
            test_room_and_private_lines_are_worded_for_the_terminal),
        cmocka_unit_test(test_control_characters_become_spaces),
        cmocka_unit_test(test_a_long_room_name_is_cut_in_the_head),
        cmocka_unit_test(test_output_is_capped_in_whole_lines),
        cmocka_unit_test(test_a_terminal_that_is_gone_drops_the_output),
        cmocka_unit_test(test_the_adapter_says_it_is_a_solo_plain_console),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
