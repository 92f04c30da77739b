/*
 * libFuzzer target for the application-service registration reader
 * (adapters/matrix/registration.c): any bytes are a registration file.
 * The reader never crashes or leaks; a refused file leaves the caller's
 * struct as it was and says where ("fuzz.yaml:" first); an accepted one
 * holds what the header promises (every string set, without control
 * characters; tokens of 1 to 255 token characters that differ; a
 * localpart a homeserver accepts; url "" or http(s)://), and the file
 * the writer makes with those tokens and that localpart reads back to
 * the same values. Built when HEARTS_FUZZ is on and the compiler is
 * clang; run it as `build/tests/fuzz_matrix_registration -max_len=8192
 * DIR` with a copy of corpus/matrix_registration in DIR.
 */
#include "adapters/matrix/registration.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const char *s, size_t min, size_t max)
{
    if (!s || strlen(s) < min || strlen(s) > max)
        abort();
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            abort();
}

static void check_chars(const char *s, const char *allowed)
{
    if (strspn(s, allowed) != strlen(s))
        abort();
}

/* The writer's file for r's values reads back to them. */
static void round_trip(const struct mx_registration *r)
{
    char user_id[300];
    snprintf(user_id, sizeof user_id, "@%s:fuzz.example", r->sender_localpart);
    struct matrix_config mx;
    memset(&mx, 0, sizeof mx);
    mx.name = "fuzz";
    mx.user_id = user_id;
    mx.appservice = true;
    mx.registration = "fuzz.yaml";
    mx.listen_host = "127.0.0.1";
    mx.listen_port = 9009;
    char *text = mx_registration_text(&mx, r->as_token, r->hs_token);
    struct mx_registration back;
    char err[512];
    if (mx_registration_parse(text, strlen(text), "fuzz.yaml", &back, err,
                              sizeof err))
        abort();
    if (strcmp(back.as_token, r->as_token) ||
        strcmp(back.hs_token, r->hs_token) ||
        strcmp(back.sender_localpart, r->sender_localpart) ||
        strcmp(back.url, "http://127.0.0.1:9009") ||
        strcmp(back.id, "heartsbot-fuzz") ||
        mx_registration_check(&back, &mx, err, sizeof err))
        abort();
    mx_registration_free(&back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char token[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
                                "tuvwxyz0123456789._~+/=-";
    struct mx_registration r, sentinel;
    char err[512];
    memset(&r, 0xa5, sizeof r);
    memset(&sentinel, 0xa5, sizeof sentinel);
    if (mx_registration_parse((const char *)data, size, "fuzz.yaml", &r, err,
                              sizeof err)) {
        if (memcmp(&r, &sentinel, sizeof r) != 0 ||
            strncmp(err, "fuzz.yaml:", 10) != 0)
            abort();
        return 0;
    }
    check_string(r.id, 1, 255);
    check_string(r.url, 0, 1024);
    check_string(r.as_token, 1, 255);
    check_string(r.hs_token, 1, 255);
    check_string(r.sender_localpart, 1, 255);
    check_chars(r.as_token, token);
    check_chars(r.hs_token, token);
    check_chars(r.sender_localpart,
                "abcdefghijklmnopqrstuvwxyz0123456789._=/+-");
    if (strcmp(r.as_token, r.hs_token) == 0)
        abort();
    if (*r.url && strncmp(r.url, "http://", 7) != 0 &&
        strncmp(r.url, "https://", 8) != 0)
        abort();
    round_trip(&r);
    mx_registration_free(&r);
    return 0;
}
