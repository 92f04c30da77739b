/*
 * libFuzzer target for the Matrix /sync parser (adapters/matrix/sync.c):
 * any bytes are a response body from a hostile homeserver. The parser never
 * crashes or leaks; a refused body leaves the caller's struct as it was
 * and says why; an accepted one holds only what the checks promise (a
 * next_batch, IDs of the right shape, valid UTF-8 without NUL, bodies
 * within the cap). Built when HEARTS_FUZZ is on and the compiler is clang;
 * run it as `build/tests/fuzz_matrix_sync -max_len=65536 DIR` with a
 * /sync body or two in the corpus directory DIR
 * (tests/unit/adapters/matrix/test_sync.c covers the hostile cases by name).
 * The same bytes go to the m.direct, member-event, room-state and
 * joined-members parsers too.
 */
#include "adapters/matrix/sync.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/matrix_items.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct mx_sync *s)
{
    if (!s->next_batch || !*s->next_batch)
        abort();
    check_text(s->next_batch, MX_TOKEN_MAX, false);
    check_items(s);
}

/* The same body as a room's whole state (GET /rooms/{room}/state). */
static void room_state(const uint8_t *data, size_t size)
{
    struct mx_sync s;
    char err[128];
    if (mx_state_parse((const char *)data, size, "!r:hs", &s, err,
                       sizeof err) == 0) {
        if (s.next_batch)
            abort();
        for (size_t i = 0; i < s.nitems; i++)
            if (s.items[i].kind == MX_ITEM_MESSAGE ||
                strcmp(s.items[i].room, "!r:hs") != 0)
                abort();
        check_items(&s);
        mx_sync_free(&s);
    }
}

static void joined_one(void *ctx, const char *user, const char *name)
{
    size_t *n = ctx;
    if (!mx_is_user_id(user) || ++*n > 8)
        abort();
    check_text(name, MX_NAME_MAX, false);
}

/* The same body as a member list (GET /rooms/{room}/joined_members). */
static void joined_members(const uint8_t *data, size_t size)
{
    size_t n = 0;
    mx_joined_parse((const char *)data, size, joined_one, &n, 8);
}

/* The same body as a member event (GET state/m.room.member). */
static void member_event(const uint8_t *data, size_t size)
{
    char *membership, *name;
    if (mx_member_parse((const char *)data, size, &membership, &name) == 0) {
        if (!membership)
            abort();
        check_text(name, MX_NAME_MAX, false);
        if (name && !*name)
            abort();
        free(membership);
        free(name);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    member_event(data, size);
    room_state(data, size);
    joined_members(data, size);
    struct mx_sync s, sentinel;
    char err[256];
    memset(&s, 0xa5, sizeof s);
    memset(&sentinel, 0xa5, sizeof sentinel);
    if (mx_sync_parse((const char *)data, size, "@bot:hs", &s, err,
                      sizeof err)) {
        if (memcmp(&s, &sentinel, sizeof s) != 0 || !err[0])
            abort();
        return 0;
    }
    check(&s);
    mx_sync_free(&s);
    struct mx_direct *d = NULL;
    size_t n = 0;
    if (mx_direct_parse((const char *)data, size, &d, &n) == 0)
        mx_direct_free(d, n);
    return 0;
}
