/*
 * The world of the game manager's tests (world.h).
 */
#include "tests/unit/bot/manager/world.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/common/protocol.h"
#include "bot/common/section.h"
#include "storage/record/record.h"

struct world *w;

/* The test-only hook of think.c: every decision counts as a slow one and
 * waits (at most 3 s) until the test opens the gate. `waiting` tells
 * whether a decision is held there now. */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static int waiting;
int last_budget;                   /* of the last job */
static struct ai_table last_table; /* of the last job, under gate_mu */

static char idbuf[128];

int setup(void **state)
{
    (void)state;
    w = calloc(1, sizeof *w);
    char err[200];
    assert_int_equal(
        config_parse("", 0, "test", NULL, &w->cfg, err, sizeof err), 0);
    snprintf(w->dir, sizeof w->dir, "/tmp/hearts-test-XXXXXX");
    assert_non_null(mkdtemp(w->dir));
    free(w->cfg.data_dir);
    w->cfg.data_dir = strdup(w->dir);
    w->cfg.turn_timeout = 1;
    w->cfg.max_timeouts = 2;
    w->cfg.next_hand_delay = 0;
    w->cfg.grace_period = 1;
    w->loop = loop_new();
    w->m = manager_new(w->loop, &w->cfg);
    fake_chat_init(&w->fake, FAKE_CHAT_PLAIN, "test", manager_on_event, w->m);
    return 0;
}

int teardown(void **state)
{
    (void)state;
    manager_free(w->m);
    loop_free(w->loop);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", w->dir);
    if (system(cmd)) {
        /* best effort */
    }
    config_free(&w->cfg);
    fake_chat_free(&w->fake);
    free(w);
    return 0;
}

/* The fake network's section of the config: its rooms' entries. */
struct rooms_section {
    char *name;
    struct protocol_room rooms[8];
    int n;
};

static void rooms_free(void *cfg)
{
    struct rooms_section *s = cfg;
    free(s->name);
    for (int i = 0; i < s->n; i++) {
        free(s->rooms[i].name);
        free(s->rooms[i].rules);
        free(s->rooms[i].lang);
    }
}

static const struct protocol_room *rooms_of(const void *cfg, int *n)
{
    const struct rooms_section *s = cfg;
    *n = s->n;
    return s->rooms;
}

static const struct protocol_config rooms_config = {
    .name = "fake",
    .size = sizeof(struct rooms_section),
    .free = rooms_free,
    .rooms = rooms_of,
};
static const struct protocol rooms_protocol = {.config = &rooms_config};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void room_entry(const char *room, const char *rules, const char *lang)
{
    struct config *c = &w->cfg;
    struct rooms_section *s = NULL;
    for (int i = 0; i < c->nnetworks; i++)
        if (c->networks[i].protocol == &rooms_protocol)
            s = c->networks[i].cfg;
    if (!s) {
        c->networks = realloc(c->networks,
                              sizeof *c->networks * (size_t)(c->nnetworks + 1));
        assert_non_null(c->networks);
        s = calloc(1, sizeof *s);
        assert_non_null(s);
        s->name = strdup(w->fake.base.network);
        c->networks[c->nnetworks++] = (struct config_network){
            .protocol = &rooms_protocol, .cfg = s, .name = s->name};
    }
    assert_true(s->n < 8);
    s->rooms[s->n++] = (struct protocol_room){.name = strdup(room),
                                              .rules = dup_or_null(rules),
                                              .lang = dup_or_null(lang)};
}

struct chat_user user(const char *nick)
{
    snprintf(idbuf, sizeof idbuf, "%s@host.test", nick);
    struct chat_user u = {.nick = nick, .id = idbuf};
    return u;
}

void said(const char *nick, const char *room, const char *text)
{
    struct chat_event ev = {
        .kind = CHAT_MESSAGE, .room = room, .from = user(nick), .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

void event(enum chat_event_kind k, const char *nick, const char *id,
           const char *room, const char *target)
{
    struct chat_event ev = {.kind = k,
                            .room = room,
                            .from = {.nick = nick, .id = id},
                            .target = target};
    manager_on_event(w->m, &w->fake.base, &ev);
}

static void stop_loop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

void run_for(int64_t ms)
{
    loop_timer(w->loop, ms, stop_loop, NULL);
    loop_run(w->loop);
}

const struct fake_chat_line *last_to(const char *to, int from)
{
    for (int i = w->fake.n - 1; i >= from; i--)
        if (strcasecmp(w->fake.lines[i].to, to) == 0)
            return &w->fake.lines[i];
    return NULL;
}

bool any_contains(const char *to, int from, const char *needle)
{
    for (int i = from; i < w->fake.n; i++)
        if (strcasecmp(w->fake.lines[i].to, to) == 0 &&
            strstr(w->fake.lines[i].text, needle))
            return true;
    return false;
}

int count_starting(const char *to, int from, const char *head)
{
    int k = 0;
    for (int i = from; i < w->fake.n; i++)
        if (strcasecmp(w->fake.lines[i].to, to) == 0 &&
            strncmp(w->fake.lines[i].text, head, strlen(head)) == 0)
            k++;
    return k;
}

int first_starting(const char *to, int from, const char *head)
{
    for (int i = from; i < w->fake.n; i++)
        if (strcasecmp(w->fake.lines[i].to, to) == 0 &&
            strncmp(w->fake.lines[i].text, head, strlen(head)) == 0)
            return i;
    return -1;
}

struct table *the_table(void)
{
    return mgr_table_find(w->m, &w->fake.base, "#h");
}

void room_file(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/test/%%23h/%s", w->dir, name);
}

void refused(const char *nick, const char *room, const char *text,
             const char *needle)
{
    struct table *t = the_table();
    struct engine_game before;
    if (t)
        before = t->game;
    int from = w->fake.n;
    said(nick, room, text);
    assert_int_equal(w->fake.n, from + 1);
    const struct fake_chat_line *l = &w->fake.lines[from];
    if (!l->private_ || strcasecmp(l->to, nick) != 0 ||
        !strstr(l->text, needle))
        fail_msg("'%s': want a private reply to %s with '%s', got %s '%s'",
                 text, nick, needle, l->private_ ? "private" : "public",
                 l->text);
    if (t && memcmp(&before, &t->game, sizeof before))
        fail_msg("'%s' changed the game", text);
}

void four_people(const char *rules)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "!hearts %s", rules);
    said("alice", "#h", cmd);
    said("bob", "#h", "!join");
    said("carol", "#h", "!join");
    said("dave", "#h", "!join");
    said("alice", "#h", "!start");
    assert_true(the_table()->playing);
}

void card_words(const struct engine_cards *h, uint64_t only, char *out,
                size_t len)
{
    out[0] = '\0';
    size_t pos = 0;
    for (int c = 0; c < 64; c++)
        if ((h->one & only) >> c & 1)
            pos += (size_t)snprintf(out + pos, len - pos, "%s%s",
                                    pos ? " " : "", engine_card_name(c));
}

uint64_t first_three(const struct table *t, int s, char *cmd, size_t len)
{
    struct engine_cards h = engine_hand(&t->game, s);
    uint64_t set = 0;
    size_t pos = (size_t)snprintf(cmd, len, "pass ");
    for (int c = 0, k = 0; c < 64 && k < 3; c++) {
        if (!(h.one >> c & 1))
            continue;
        set |= ENGINE_BIT(c);
        pos += (size_t)snprintf(cmd + pos, len - pos, "%s%s",
                                k == 0 ? "" : (k == 1 ? "," : ", "),
                                engine_card_name(c));
        k++;
    }
    return set;
}

void all_sent(int from)
{
    for (int i = from; i < w->fake.n; i++) {
        if (!w->fake.lines[i].cookie || w->fake.lines[i].retracted)
            continue;
        w->fake.lines[i].sent = true;
        struct chat_event ev = {.kind = CHAT_SENT,
                                .cookie = w->fake.lines[i].cookie};
        manager_on_event(w->m, &w->fake.base, &ev);
    }
}

void play_lowest(struct table *t, int n)
{
    for (int i = 0; i < n && engine_phase(&t->game) == ENGINE_PHASE_PLAY; i++) {
        const struct engine_game *g = &t->game;
        char cmd[16];
        snprintf(cmd, sizeof cmd, "%s",
                 engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
        said(t->seats[engine_turn(g)].nick, NULL, cmd);
    }
}

int first_turn(char nick[64], char id[128])
{
    four_people("standard pass_count=0");
    int turn = engine_turn(&the_table()->game);
    snprintf(nick, 64, "%s", the_table()->seats[turn].nick);
    snprintf(id, 128, "%s@host.test", nick);
    return turn;
}

void seat_said(const struct table *t, int s, const char *text)
{
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .from = {.nick = t->seats[s].nick,
                                     .id = t->seats[s].id[0]
                                               ? t->seats[s].id
                                               : user(t->seats[s].nick).id},
                            .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

bool person_acts(struct table *t)
{
    const struct engine_game *g = &t->game;
    char cmd[256], words[200];
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PASS:
        for (int s = 0; s < g->n; s++) {
            if (!engine_may_act(g, s))
                continue;
            struct engine_cards h = engine_hand(g, s);
            card_words(&h, ~UINT64_C(0), words, sizeof words);
            words[3 * t->rules.pass_count - 1] = '\0';
            snprintf(cmd, sizeof cmd, "pass %s", words);
            seat_said(t, s, cmd);
            break;
        }
        return true;
    case ENGINE_PHASE_PLAY:
        snprintf(cmd, sizeof cmd, "%s",
                 engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
        seat_said(t, engine_turn(g), cmd);
        return true;
    case ENGINE_PHASE_MOON:
        seat_said(t, engine_turn(g), "moon add");
        return true;
    case ENGINE_PHASE_DEAL:
        run_for(5);
        return true;
    default:
        return false;
    }
}

bool reached(const struct table *t, int hand, int plays)
{
    const struct engine_game *g = &t->game;
    return g->hand_no > hand ||
           (g->hand_no == hand && engine_phase(g) == ENGINE_PHASE_PLAY &&
            g->nplays >= plays);
}

void play_to(struct table *t, int hand, int plays)
{
    for (int guard = 0; guard < 5000 && !t->closing; guard++)
        if (reached(t, hand, plays) || !person_acts(t))
            return;
}

void play_everything(struct table *t)
{
    play_to(t, INT_MAX, 0);
}

void read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

void read_results(char *text, size_t len)
{
    run_for(5);
    char path[128];
    room_file(path, sizeof path, "results.jsonl");
    read_small(path, text, len);
}

bool answered(const char *nick, const char *text, const char *needle)
{
    int from = w->fake.n;
    said(nick, "#h", text);
    return any_contains("#h", from, needle);
}

void identity(const char *nick, const char *id)
{
    struct chat_event ev = {.kind = CHAT_IDENTITY,
                            .from = {.nick = nick, .id = id}};
    manager_on_event(w->m, &w->fake.base, &ev);
}

int private_lines_to(const char *nick, int from)
{
    int k = 0;
    for (int i = from; i < w->fake.n; i++)
        k += w->fake.lines[i].private_ &&
             strcasecmp(w->fake.lines[i].to, nick) == 0;
    return k;
}

int lines_to(const char *to, int from)
{
    int k = 0;
    for (int i = from; i < w->fake.n; i++)
        k += strcasecmp(w->fake.lines[i].to, to) == 0;
    return k;
}

int alice_with_computers(void)
{
    said("alice", "#h", "!hearts standard pass_count=0");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    int me = 0;
    while (!t->seats[me].human)
        me++;
    return me;
}

void renamed(const char *nick, const char *display, const char *room)
{
    struct chat_user u = user(nick);
    u.account = nick;
    u.display = display;
    struct chat_event ev = {.kind = CHAT_RENAME, .room = room, .from = u};
    manager_on_event(w->m, &w->fake.base, &ev);
}

struct table *standard_game_at(int plays)
{
    four_people("standard target=30");
    struct table *t = the_table();
    play_to(t, 1, plays);
    return t;
}

struct table *restart(void)
{
    manager_free(w->m);
    w->m = manager_new(w->loop, &w->cfg);
    w->fake.base.ctx = w->m;
    manager_restore(w->m, &w->fake.base);
    return the_table();
}

char *snapshot(const struct table *t)
{
    static char buf[8192];
    const struct engine_game *g = &t->game;
    size_t pos = (size_t)snprintf(
        buf, sizeof buf,
        "id %s phase %d hand %d turn %d plays %d trick %d "
        "passed %x blind %x|",
        t->game_id, (int)engine_phase(g), g->hand_no, engine_turn(g), g->nplays,
        g->trick_no, (unsigned)g->passed_mask, (unsigned)g->blind_mask);
    for (int s = 0; s < t->capacity; s++) {
        struct engine_cards h = engine_hand(g, s);
        const struct seat *st = &t->seats[s];
        pos += (size_t)snprintf(
            buf + pos, sizeof buf - pos,
            "%s/%s/%s h%d a%d l%d %llx %llx may%d total %d|", st->nick, st->id,
            st->key, st->human, st->away, st->level, (unsigned long long)h.one,
            (unsigned long long)h.two,
            g->phase == ENGINE_PHASE_GAME_OVER ? 0 : engine_may_act(g, s),
            (int)g->totals[s]);
    }
    for (int i = 0; i < g->nplays; i++)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%d ",
                                engine_card_name(g->plays[i]), g->play_seat[i]);
    if (g->phase == ENGINE_PHASE_PLAY)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "legal %llx",
                                (unsigned long long)engine_legal_plays(g));
    for (int i = 0; i < t->nhist; i++)
        for (int s = 0; s < t->capacity; s++)
            pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " %d",
                                    (int)t->hist[i][s]);
    return strdup(buf);
}

struct table *restart_to(char *before)
{
    struct table *t = restart();
    assert_non_null(t);
    char *after = snapshot(t);
    assert_string_equal(after, before);
    free(before);
    free(after);
    return t;
}

struct table *restart_same(struct table *t)
{
    char *rec = record_writer_json(t->rec);
    t = restart_to(snapshot(t));
    char *rec2 = record_writer_json(t->rec);
    assert_string_equal(rec2, rec);
    free(rec);
    free(rec2);
    return t;
}

char *archived(int *count)
{
    char path[128];
    snprintf(path, sizeof path, "%s/test/%%23h/archive.jsonl", w->dir);
    FILE *f = fopen(path, "r");
    *count = 0;
    if (!f)
        return NULL;
    char *line = NULL, *keep = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        (*count)++;
        free(keep);
        keep = strdup(line);
    }
    free(line);
    fclose(f);
    return keep;
}

void from_account(enum chat_event_kind k, const char *nick, const char *id,
                  const char *account, const char *room, const char *text,
                  const char *target)
{
    struct chat_event ev = {
        .kind = k,
        .room = room,
        .from = {.nick = nick, .id = id, .account = account},
        .text = text,
        .target = target};
    manager_on_event(w->m, &w->fake.base, &ev);
}

void said_account(const char *nick, const char *account, const char *room,
                  const char *text)
{
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", nick);
    from_account(CHAT_MESSAGE, nick, id, account, room, text, NULL);
}

struct table *four_accounts(void)
{
    w->cfg.grace_period = 60;
    w->cfg.turn_timeout = 60;
    said_account("alice", "Alice", "#h", "!hearts standard pass_count=0");
    said_account("bob", "Bob", "#h", "!join");
    said_account("carol", "Carol", "#h", "!join");
    said_account("dave", "Dave", "#h", "!join");
    said_account("alice", "Alice", "#h", "!start");
    struct table *t = the_table();
    assert_true(t->playing);
    return t;
}

int seat_of_nick(const struct table *t, const char *nick)
{
    for (int s = 0; s < t->capacity; s++)
        if (strcmp(t->seats[s].nick, nick) == 0)
            return s;
    fail_msg("%s is not seated", nick);
    return -1;
}

void lowest_play(const struct table *t, char *cmd, size_t len)
{
    uint64_t legal = engine_legal_plays(&t->game);
    int c = 0;
    while (!(legal >> c & 1))
        c++;
    snprintf(cmd, len, "play %s", engine_card_name(c));
}

static void held_at_gate(const struct think_job *j)
{
    __atomic_store_n(&last_budget, j->budget, __ATOMIC_RELAXED);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 3;
    pthread_mutex_lock(&gate_mu);
    last_table = j->table;
    waiting++;
    while (!gate_open &&
           pthread_cond_timedwait(&gate_cv, &gate_mu, &until) == 0)
        ;
    waiting--;
    pthread_mutex_unlock(&gate_mu);
}

void gate(bool open)
{
    pthread_mutex_lock(&gate_mu);
    gate_open = open;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

struct ai_table last_job_table(void)
{
    pthread_mutex_lock(&gate_mu);
    struct ai_table t = last_table;
    pthread_mutex_unlock(&gate_mu);
    return t;
}

int held(void)
{
    pthread_mutex_lock(&gate_mu);
    int n = waiting;
    pthread_mutex_unlock(&gate_mu);
    return n;
}

int setup_thinking(void **state)
{
    gate(false);
    think_test_hook(held_at_gate);
    return setup(state);
}

int teardown_thinking(void **state)
{
    gate(true);
    int rc = teardown(state); /* joins the worker */
    think_test_hook(NULL);
    return rc;
}

void until_thought(const struct table *t)
{
    for (int i = 0; i < 600 && t->think_id; i++)
        run_for(5);
}

int lacking_face_spade(const struct table *t, int s)
{
    static const int ranks[] = {10, 9, 11, 12};
    uint64_t held = engine_hand(&t->game, s).one;
    int i = 0;
    while (i < 4 && held >> ENGINE_CARD(ENGINE_SPADES, ranks[i]) & 1)
        i++;
    assert_true(i < 4);
    return i;
}
