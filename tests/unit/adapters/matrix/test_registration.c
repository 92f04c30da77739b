/*
 * The application-service registration file (adapters/matrix/
 * registration.c): what the writer writes reads back as written, hand-
 * written files in the style of Synapse's and the bridges' read right,
 * a table of bad files is refused at the expected line and column with
 * the caller's struct untouched, and the writer makes fresh tokens, mode
 * 0640, and never replaces anything or leaves a temporary file behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/matrix/registration.h"

#define ERRLEN 1024

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/heartsbot-mxreg.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/registration.yaml", dir);
    return 0;
}

/* Empties and removes the test's directory. */
static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
    return 0;
}

/* The names in the test's directory, sorted, one per line. */
static void dir_listing(char *out, size_t len)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            strncat(out, names[i]->d_name, len - strlen(out) - 1);
            strncat(out, "\n", len - strlen(out) - 1);
        }
        free(names[i]);
    }
    free(names);
}

static void write_file(const char *p, const char *text, size_t len)
{
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static char *read_file(const char *p)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* A [[matrix]] in appservice mode as matrix_config.c leaves it. */
static struct matrix_config appservice(const char *user_id, const char *host,
                                       int port)
{
    struct matrix_config mx;
    memset(&mx, 0, sizeof mx);
    mx.name = "mx";
    mx.homeserver = "http://127.0.0.1:8008";
    mx.user_id = (char *)user_id;
    mx.appservice = true;
    mx.registration = path;
    mx.listen_host = (char *)host;
    mx.listen_port = port;
    return mx;
}

/* Parses text that must be accepted. */
static void parse_ok(const char *text, size_t len, struct mx_registration *r)
{
    char err[ERRLEN] = "";
    int rc = mx_registration_parse(text, len, "reg.yaml", r, err, sizeof err);
    if (rc)
        print_error("unexpected error: %s\n", err);
    assert_int_equal(rc, 0);
}

#define OK(lit, r) parse_ok(lit, sizeof(lit) - 1, r)

/* The keys after an id, for files that differ in one line. */
#define GOOD_REST "as_token: a\nhs_token: b\nsender_localpart: c\n"

/* The five values of r, then frees it. */
static void expect(struct mx_registration *r, const char *id, const char *url,
                   const char *as, const char *hs, const char *local)
{
    assert_string_equal(r->id, id);
    assert_string_equal(r->url, url);
    assert_string_equal(r->as_token, as);
    assert_string_equal(r->hs_token, hs);
    assert_string_equal(r->sender_localpart, local);
    mx_registration_free(r);
}

static bool is_hex64(const char *s)
{
    return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* ---- The writer's file ------------------------------------------------ */

static void test_mx_registration_text_exact(void **state)
{
    (void)state;
    struct matrix_config mx =
        appservice("@heartsbot:example.org", "127.0.0.1", 9009);
    char *text = mx_registration_text(&mx, "AS", "HS");
    assert_string_equal(
        text,
        "# heartsbot application service registration for [[matrix]] "
        "\"mx\"\n"
        "# Give this file to the homeserver (docs/hosting.md, \"Matrix as an "
        "application service\").\n"
        "id: \"heartsbot-mx\"\n"
        "url: \"http://127.0.0.1:9009\"\n"
        "as_token: \"AS\"\n"
        "hs_token: \"HS\"\n"
        "sender_localpart: \"heartsbot\"\n"
        "rate_limited: false\n"
        "namespaces:\n"
        "  users:\n"
        "    - exclusive: true\n"
        "      regex: \"^@heartsbot:example\\\\.org$\"\n"
        "  aliases: []\n"
        "  rooms: []\n");
    free(text);
}

/* Every character a regex gives a meaning is escaped, and then every
 * backslash and quote for YAML. */
static void test_mx_registration_text_escapes_the_user_id(void **state)
{
    (void)state;
    struct matrix_config mx =
        appservice("@a.b+c=d/e:h[1]$(x)|y*?{2}^\\\"", "::1", 80);
    char *text = mx_registration_text(&mx, "AS", "HS");
    assert_non_null(
        strstr(text, "regex: \"^@a\\\\.b\\\\+c=d/e:h\\\\[1\\\\]\\\\$\\\\(x\\\\)"
                     "\\\\|y\\\\*\\\\?\\\\{2\\\\}\\\\^\\\\\\\\\\\"$\"\n"));
    assert_non_null(strstr(text, "sender_localpart: \"a.b+c=d/e\"\n"));
    assert_non_null(strstr(text, "url: \"http://[::1]:80\"\n"));
    free(text);
}

static void test_mx_registration_url(void **state)
{
    (void)state;
    char url[128];
    struct matrix_config mx = appservice("@b:h", "10.0.0.5", 65535);
    mx_registration_url(&mx, url, sizeof url);
    assert_string_equal(url, "http://10.0.0.5:65535");
    mx = appservice("@b:h", "0.0.0.0", 9009);
    mx_registration_url(&mx, url, sizeof url);
    assert_string_equal(url, "http://127.0.0.1:9009");
    mx = appservice("@b:h", "fd00::1", 1);
    mx_registration_url(&mx, url, sizeof url);
    assert_string_equal(url, "http://[fd00::1]:1");
    mx = appservice("@b:h", "::", 9009);
    mx_registration_url(&mx, url, sizeof url);
    assert_string_equal(url, "http://[::1]:9009");
}

/* What the writer writes, the reader reads back. */
static void test_mx_registration_parse_written(void **state)
{
    (void)state;
    struct matrix_config mx = appservice("@hearts-bot:example.org", "::1", 1);
    char *text = mx_registration_text(&mx, "tok.A_b~c+d/e=f-g", "other");
    struct mx_registration r;
    parse_ok(text, strlen(text), &r);
    char err[ERRLEN];
    assert_int_equal(mx_registration_check(&r, &mx, err, sizeof err), 0);
    expect(&r, "heartsbot-mx", "http://[::1]:1", "tok.A_b~c+d/e=f-g", "other",
           "hearts-bot");
    mx_registration_free(&r); /* twice: a no-op */
    mx_registration_free(NULL);
    free(text);
}

/* ---- Hand-written files ----------------------------------------------- */

/* As Synapse's documentation and the bridges write them: comments,
 * plain and single-quoted values, keys the bot does not read with lists
 * and mappings as values, in block and flow style. */
static void test_mx_registration_parse_synapse_style(void **state)
{
    (void)state;
    struct mx_registration r;
    OK("# A unique, user-defined ID of the application service which will "
       "never change.\n"
       "id: heartsbot   # trailing comment\n"
       "\n"
       "# Where the application service is located.\n"
       "url: http://localhost:9009\n"
       "as_token: 'wfghWEGh3wgWHEf3478sHFWE'\n"
       "hs_token: \"ugw8243igya57aaABGFfgeyu\" # the homeserver's\n"
       "sender_localpart: heartsbot\n"
       "namespaces:\n"
       "  users:\n"
       "    - exclusive: true\n"
       "      regex: '@heartsbot:example\\.org'\n"
       "\t# a comment after a tab\n"
       "  aliases: []\n"
       "  rooms: []\n"
       "rate_limited: false\n"
       "protocols: [\"heartsbot\"]\n"
       "de.sorunome.msc2409.push_ephemeral: true\n"
       "receive_ephemeral: true\n",
       &r);
    expect(&r, "heartsbot", "http://localhost:9009", "wfghWEGh3wgWHEf3478sHFWE",
           "ugw8243igya57aaABGFfgeyu", "heartsbot");

    /* a BOM, CRLF, '---', key order, compact lists at column 0, a flow
     * mapping over several lines with a key-like line inside it, quotes
     * with escapes, and url null */
    OK("\xef\xbb\xbf---\r\n"
       "namespaces:\r\n"
       "  users:\r\n"
       "  - exclusive: true\r\n"
       "    regex: \"@hb:h\"\r\n"
       "protocols:\r\n"
       "- irc\r\n"
       "- 'x'\r\n"
       "extra: {a: [1, 2,\r\n"
       "as_token: not-this, 'q''uote: }]', \"\\\"]\"\r\n"
       "  ]}\r\n"
       "sender_localpart : hb\r\n"
       "hs_token: \"a.b\"\r\n"
       "as_token: 'tok'\r\n"
       "url: ~\r\n"
       "id: 'it''s' \r\n",
       &r);
    expect(&r, "it's", "", "tok", "a.b", "hb");

    /* close to YAML's numbers and dates, and strings to it */
    OK("id: 0x\nas_token: 0xg1\nhs_token: 1e\nsender_localpart: 1.2.3\n", &r);
    expect(&r, "0x", "", "0xg1", "1e", "1.2.3");
    OK("id: 202-01-01\nas_token: _1\nhs_token: 1-2\nsender_localpart: "
       "inf\n",
       &r);
    expect(&r, "202-01-01", "", "_1", "1-2", "inf");

    /* no url at all, no line break at the end, UTF-8 in the id */
    OK("id: c\xc5\x93ur\nas_token: a\nhs_token: b\nsender_localpart: c", &r);
    expect(&r, "c\xc5\x93ur", "", "a", "b", "c");

    /* the two escapes of a "..." value */
    OK("id: \"h\\\"b\\\\c\"\n" GOOD_REST, &r);
    expect(&r, "h\"b\\c", "", "a", "b", "c");
}

/* ---- Refused files ---------------------------------------------------- */

struct bad_case {
    const char *text;
    const char *at; /* "LINE:COL", or "" for a message on the file */
    const char *fragment;
};

static const struct bad_case bad_cases[] = {
    /* keys the bot needs */
    {"as_token: a\nhs_token: b\nsender_localpart: c\n", "",
     "no 'id' (a registration needs id, as_token, hs_token and "
     "sender_localpart)"},
    {"id: x\nhs_token: b\nsender_localpart: c\n", "", "no 'as_token'"},
    {"id: x\nas_token: a\nsender_localpart: c\n", "", "no 'hs_token'"},
    {"id: x\nas_token: a\nhs_token: b\n", "", "no 'sender_localpart'"},
    {"", "", "no 'id'"},
    {"id: x\n" GOOD_REST "id: y\n", "5:1",
     "'id' is repeated (first at line 1)"},
    {"id: x\n" GOOD_REST "url: http://a\nurl: http://b\n", "6:1",
     "'url' is repeated (first at line 5)"},
    {"id: x\nas_token: same\nhs_token: same\nsender_localpart: c\n", "3:11",
     "'hs_token' is the same as 'as_token': the two must differ"},
    /* values */
    {"id:\n" GOOD_REST, "1:4", "'id' has no value"},
    {"id: # nothing\n" GOOD_REST, "1:5", "'id' has no value"},
    {"id: ''\n" GOOD_REST, "1:5", "'id' is empty"},
    {"id: x\nas_token: \"a b\"\nhs_token: b\nsender_localpart: c\n", "2:11",
     "'as_token' may hold only letters, digits and . _ ~ + / = -"},
    {"id: x\nas_token: a\nhs_token: b%\nsender_localpart: c\n", "3:11",
     "'hs_token' may hold only"},
    {"id: x\nas_token: a\nhs_token: b\nsender_localpart: Bot\n", "4:19",
     "'sender_localpart' may hold only a-z, 0-9"},
    {"id: x\nas_token: a\nhs_token: b\nsender_localpart: '@bot:h'\n", "4:19",
     "'sender_localpart' may hold only"},
    {"id: x\n" GOOD_REST "url: ftp://h\n", "5:6",
     "'url' must be an http:// or https:// URL"},
    {"id: x\n" GOOD_REST "url: 'http://a b'\n", "5:6", "no spaces"},
    {"id: x\n" GOOD_REST "url: http://\n", "5:6", "must be an http://"},
    {"id: \"a\tb\"\n" GOOD_REST, "1:5", "'id' contains a tab"},
    {"id: x\n" GOOD_REST "url: \"http://h\t\"\n", "5:6",
     "'url' contains a tab"},
    /* what YAML reads as something else */
    {"id: null\n" GOOD_REST, "1:5", "'id' is null in YAML, not a string"},
    {"id: ~\n" GOOD_REST, "1:5", "is null in YAML"},
    {"id: x\nas_token: 1234\nhs_token: b\nsender_localpart: c\n", "2:11",
     "'as_token' is a number in YAML, not a string: quote it"},
    {"id: x\nas_token: -1.5e3\nhs_token: b\nsender_localpart: c\n", "2:11",
     "is a number in YAML"},
    {"id: x\nas_token: 1e5\nhs_token: b\nsender_localpart: c\n", "2:11",
     "is a number in YAML"}, /* YAML 1.2's float; 1.1's string */
    {"id: yes\n" GOOD_REST, "1:5", "'id' is a boolean in YAML"},
    {"id: x\nas_token: 0x1F\nhs_token: b\nsender_localpart: c\n", "2:11",
     "is a number in YAML"},
    {"id: x\nas_token: 0b101\nhs_token: b\nsender_localpart: c\n", "2:11",
     "is a number in YAML"},
    {"id: 1:30\n" GOOD_REST, "1:5", "'id' is a number in YAML"},
    {"id: -.inf\n" GOOD_REST, "1:5", "'id' is a number in YAML"},
    {"id: .NaN\n" GOOD_REST, "1:5", "'id' is a number in YAML"},
    {"id: 2024-05-01\n" GOOD_REST, "1:5", "'id' is a date in YAML"},
    {"id: x\nas_token: 2024-5-1t\nhs_token: b\nsender_localpart: c\n", "2:11",
     "is a date in YAML"},
    {"id: x\nas_token: false\nhs_token: b\nsender_localpart: c\n", "2:11",
     "is a boolean in YAML"},
    {"id: |\n  x\n" GOOD_REST, "1:5", "block values (| and >) are not"},
    {"id: >-\n  x\n" GOOD_REST, "1:5", "block values"},
    {"id: &a x\n" GOOD_REST, "1:5", "anchors, aliases and tags"},
    {"id: *a\n" GOOD_REST, "1:5", "anchors, aliases and tags"},
    {"id: !!str x\n" GOOD_REST, "1:5", "anchors, aliases and tags"},
    {"id: [x]\n" GOOD_REST, "1:5", "'id' must be a string, not a list"},
    {"id: {a: b}\n" GOOD_REST, "1:5", "not a list or a mapping"},
    {"id: - x\n" GOOD_REST, "1:5", "not a list or a mapping"},
    {"id: @x\n" GOOD_REST, "1:5",
     "a plain value may not start with '@' in YAML: quote it"},
    {"id: `x\n" GOOD_REST, "1:5", "may not start with '`'"},
    {"id: a: b\n" GOOD_REST, "1:6",
     "': ' in a plain value makes it a mapping in YAML: quote the value"},
    {"id: x\n  y\n" GOOD_REST, "2:3",
     "this indented line would go on with the value of 'id' above"},
    {"id:\n  nested: x\n" GOOD_REST, "1:4", "'id' has no value"},
    {"id: x\nurl:\n  - a\n" GOOD_REST, "3:3", "value of 'url' above"},
    /* quotes */
    {"id: \"x\n" GOOD_REST, "1:5",
     "the closing '\"' is missing on this line (a value must be on one "
     "line)"},
    {"id: 'x\n" GOOD_REST, "1:5", "the closing \"'\" is missing"},
    {"id: \"a\\nb\"\n" GOOD_REST, "1:7",
     "only the escapes \\\\ and \\\" are supported"},
    {"id: \"a\\u0041\"\n" GOOD_REST, "1:7", "only the escapes"},
    {"id: \"a\" b\n" GOOD_REST, "1:9",
     "unexpected 'b' after the value (only a # comment may follow it)"},
    {"id: \"a\"#c\n" GOOD_REST, "1:8", "a # comment needs a space before it"},
    {"x: \"open\n" GOOD_REST "id: i\n", "1:4", "the closing '\"' is missing"},
    /* lines that are not top-level keys */
    {"id x\n" GOOD_REST, "1:4", "expected ':' after the key 'id'"},
    {"id:x\n" GOOD_REST, "1:4", "expected a space after ':'"},
    {"\"id\": x\n" GOOD_REST, "1:1", "quoted keys are not supported"},
    {"? id\n: x\n" GOOD_REST, "1:1",
     "unexpected '?': expected a top-level 'key: value'"},
    {"- x\n" GOOD_REST, "1:1",
     "a list item ('- ') at the top level must follow a key without a "
     "value"},
    {"id: x\n- y\n" GOOD_REST, "2:1", "a list item"},
    {"id: x\n---\n" GOOD_REST, "2:1",
     "a second YAML document ('---') is not supported"},
    {"id: x\n...\n" GOOD_REST, "2:1", "the end of a YAML document"},
    {"%YAML 1.2\n---\nid: x\n" GOOD_REST, "1:1", "YAML directives"},
    {"id: x\nextra: [a,\n  b\n" GOOD_REST, "2:8",
     "this list or mapping is not closed"},
    {"id: x\nnamespaces:\n\tusers: []\n" GOOD_REST, "3:1",
     "a tab in the indentation (YAML indents with spaces)"},
    {"\xc3\xa9: x\n" GOOD_REST, "1:1", "unexpected non-ASCII character"},
    /* bytes */
    {"id: a\x01"
     "b\n" GOOD_REST,
     "1:6", "control character 0x01"},
    {"id: x\r\n" GOOD_REST "url: a\rb\n", "5:7", "control character 0x0D"},
    {"id: x\x7f\n" GOOD_REST, "1:6", "control character 0x7F"},
    {"id: \xc3\xa9\xff\n" GOOD_REST, "1:6", "invalid UTF-8"},
    {"id: \xed\xa0\x80\n" GOOD_REST, "1:5", "invalid UTF-8"},
    {"id: \xc0\xaf\n" GOOD_REST, "1:5", "invalid UTF-8"},
    {"id: a\xc2\x85"
     "b\n" GOOD_REST,
     "1:6", "control character or line separator U+0085"},
    {"id: a\xe2\x80\xa8"
     "b\n" GOOD_REST,
     "1:6", "line separator U+2028"},
    {"# \xe2\x80\xa9\n" GOOD_REST, "1:3", "U+2029"},
};

/* Checks one refusal: -1, "reg.yaml:AT: ...FRAGMENT...", out untouched. */
static void parse_bad(const char *text, size_t len, const char *at,
                      const char *fragment)
{
    struct mx_registration r, sentinel;
    memset(&r, 0xa5, sizeof r);
    memset(&sentinel, 0xa5, sizeof sentinel);
    char err[ERRLEN] = "", prefix[64];
    snprintf(prefix, sizeof prefix, "reg.yaml:%s%s", at, *at ? ": " : " ");
    if (!*at)
        snprintf(prefix, sizeof prefix, "reg.yaml: ");
    int rc = mx_registration_parse(text, len, "reg.yaml", &r, err, sizeof err);
    if (rc != -1 || strncmp(err, prefix, strlen(prefix)) != 0 ||
        !strstr(err + strlen(prefix), fragment))
        print_error("input:\n%s\nwant: %s...%s\ngot:  %s\n", text, prefix,
                    fragment, err);
    assert_int_equal(rc, -1);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err + strlen(prefix), fragment));
    assert_memory_equal(&r, &sentinel, sizeof r);
}

static void test_mx_registration_parse_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        parse_bad(bad_cases[i].text, strlen(bad_cases[i].text), bad_cases[i].at,
                  bad_cases[i].fragment);
}

/* NUL bytes count by the length, not as the end. */
static void test_mx_registration_parse_nul(void **state)
{
    (void)state;
    static const char text[] = "id: a\0b\n" GOOD_REST;
    parse_bad(text, sizeof text - 1, "1:6", "control character 0x00");
}

static void test_mx_registration_parse_limits(void **state)
{
    (void)state;
    char big[400];
    struct mx_registration r;
    /* 255 bytes of token: the most */
    snprintf(big, sizeof big,
             "id: x\nas_token: %0255d\nhs_token: b\n"
             "sender_localpart: c\n",
             0);
    memcpy(big + 16, "t", 1); /* a number to YAML otherwise */
    parse_ok(big, strlen(big), &r);
    assert_int_equal(strlen(r.as_token), 255);
    mx_registration_free(&r);
    snprintf(big, sizeof big,
             "id: x\nas_token: t%0255d\nhs_token: b\n"
             "sender_localpart: c\n",
             0);
    parse_bad(big, strlen(big), "2:11", "'as_token' is longer than 255 bytes");

    /* 64 KiB, and one byte more */
    size_t len = MX_REGISTRATION_MAX + 1;
    char *text = malloc(len);
    assert_non_null(text);
    static const char head[] = "id: x\n" GOOD_REST;
    memset(text, '#', len);
    memcpy(text, head, sizeof head - 1);
    text[sizeof head - 1] = '\n';
    parse_ok(text, len - 1, &r);
    mx_registration_free(&r);
    char err[ERRLEN];
    memset(&r, 0xa5, sizeof r);
    assert_int_equal(
        mx_registration_parse(text, len, "reg.yaml", &r, err, sizeof err), -1);
    assert_string_equal(err, "reg.yaml: larger than 64 KiB, the most a "
                             "registration file may be");
    free(text);
    /* no error buffer: still refused, nothing written */
    assert_int_equal(mx_registration_parse("id: x\n", 6, "r", &r, NULL, 0), -1);
}

/* ---- Loading ---------------------------------------------------------- */

static void test_mx_registration_load_errors(void **state)
{
    (void)state;
    struct mx_registration r;
    char err[ERRLEN], want[512];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory",
             path);
    assert_int_equal(mx_registration_load(path, &r, err, sizeof err), -1);
    assert_string_equal(err, want);

    assert_int_equal(mx_registration_load(dir, &r, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: not a regular file", dir);
    assert_string_equal(err, want);

    /* a FIFO must not hang the bot waiting for a writer */
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(mx_registration_load(path, &r, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: not a regular file", path);
    assert_string_equal(err, want);
    unlink(path);

    size_t len = 3 * MX_REGISTRATION_MAX;
    char *big = malloc(len);
    assert_non_null(big);
    memset(big, '#', len);
    write_file(path, big, len);
    free(big);
    assert_int_equal(mx_registration_load(path, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "larger than 64 KiB"));

    static const char bad[] =
        "id: x\nas_token: a\nhs_token: a\nsender_localpart: c\n";
    write_file(path, bad, sizeof bad - 1);
    assert_int_equal(mx_registration_load(path, &r, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3:11: 'hs_token' is the same", path);
    assert_memory_equal(err, want, strlen(want));

    static const char good[] = "id: x\n" GOOD_REST;
    write_file(path, good, sizeof good - 1);
    assert_int_equal(mx_registration_load(path, &r, err, sizeof err), 0);
    assert_string_equal(r.sender_localpart, "c");
    mx_registration_free(&r);
    unlink(path);
}

static void test_mx_registration_check(void **state)
{
    (void)state;
    struct matrix_config mx = appservice("@other:h", "127.0.0.1", 9009);
    struct mx_registration r;
    OK("id: x\n" GOOD_REST, &r);
    char err[ERRLEN], want[512];
    assert_int_equal(mx_registration_check(&r, &mx, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s: its sender_localpart is \"c\" but user_id is \"@other:h\"",
             path);
    assert_memory_equal(err, want, strlen(want));
    mx.user_id = "@c:h";
    assert_int_equal(mx_registration_check(&r, &mx, err, sizeof err), 0);
    mx.user_id = "@cc:h";
    assert_int_equal(mx_registration_check(&r, &mx, err, sizeof err), -1);
    mx_registration_free(&r);
}

/* ---- Writing ---------------------------------------------------------- */

/* Fresh tokens, mode 0640 whatever the umask, the text as
 * mx_registration_text makes it, and nothing else left in the directory. */
static void test_mx_registration_write_round_trip(void **state)
{
    (void)state;
    struct matrix_config mx =
        appservice("@heartsbot:example.org", "127.0.0.1", 9009);
    char err[ERRLEN] = "";
    mode_t old = umask(077);
    int rc = mx_registration_write(&mx, err, sizeof err);
    umask(old);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    char names[512];
    dir_listing(names, sizeof names);
    assert_string_equal(names, "registration.yaml\n");

    struct mx_registration r;
    rc = mx_registration_load(path, &r, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    assert_true(is_hex64(r.as_token));
    assert_true(is_hex64(r.hs_token));
    assert_string_not_equal(r.as_token, r.hs_token);
    assert_string_equal(r.id, "heartsbot-mx");
    assert_string_equal(r.url, "http://127.0.0.1:9009");
    assert_string_equal(r.sender_localpart, "heartsbot");
    assert_int_equal(mx_registration_check(&r, &mx, err, sizeof err), 0);
    char *text = mx_registration_text(&mx, r.as_token, r.hs_token);
    assert_string_equal(read_file(path), text);
    free(text);

    /* a second file has tokens of its own */
    char first_as[65], first_hs[65];
    snprintf(first_as, sizeof first_as, "%s", r.as_token);
    snprintf(first_hs, sizeof first_hs, "%s", r.hs_token);
    mx_registration_free(&r);
    unlink(path);
    assert_int_equal(mx_registration_write(&mx, err, sizeof err), 0);
    assert_int_equal(mx_registration_load(path, &r, err, sizeof err), 0);
    assert_string_not_equal(r.as_token, first_as);
    assert_string_not_equal(r.hs_token, first_hs);
    assert_string_not_equal(r.as_token, first_hs);
    mx_registration_free(&r);
}

/* A file, a link (even dangling) or a directory at the path is kept as it
 * is; a missing directory is an error that leaves nothing behind. */
static void test_mx_registration_write_never_replaces(void **state)
{
    (void)state;
    struct matrix_config mx = appservice("@b:h", "127.0.0.1", 9009);
    char err[ERRLEN] = "", names[512];
    static const char mine[] = "not a registration\n";
    write_file(path, mine, sizeof mine - 1);
    assert_int_equal(mx_registration_write(&mx, err, sizeof err),
                     MX_REGISTRATION_EXISTS);
    assert_string_equal(read_file(path), mine);
    unlink(path);

    char target[160];
    snprintf(target, sizeof target, "%s/target", dir);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(mx_registration_write(&mx, err, sizeof err),
                     MX_REGISTRATION_EXISTS);
    assert_int_equal(access(target, F_OK), -1); /* not followed */
    unlink(path);

    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(mx_registration_write(&mx, err, sizeof err),
                     MX_REGISTRATION_EXISTS);
    rmdir(path);
    dir_listing(names, sizeof names);
    assert_string_equal(names, "");

    char missing[200];
    snprintf(missing, sizeof missing, "%s/no/such/dir/r.yaml", dir);
    mx.registration = missing;
    assert_int_equal(mx_registration_write(&mx, err, sizeof err), -1);
    char want[400];
    snprintf(want, sizeof want,
             "%s: cannot create a file beside it: No such file or directory "
             "(nothing written)",
             missing);
    assert_string_equal(err, want);
    dir_listing(names, sizeof names);
    assert_string_equal(names, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mx_registration_text_exact),
        cmocka_unit_test(test_mx_registration_text_escapes_the_user_id),
        cmocka_unit_test(test_mx_registration_url),
        cmocka_unit_test(test_mx_registration_parse_written),
        cmocka_unit_test(test_mx_registration_parse_synapse_style),
        cmocka_unit_test(test_mx_registration_parse_refused),
        cmocka_unit_test(test_mx_registration_parse_nul),
        cmocka_unit_test(test_mx_registration_parse_limits),
        cmocka_unit_test_setup_teardown(test_mx_registration_load_errors, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mx_registration_check, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mx_registration_write_round_trip,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_mx_registration_write_never_replaces, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
