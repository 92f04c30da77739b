/*
 * A small strict reader of the TOML subset the bot's config uses
 * (config.example.toml): `[table]` and `[[table]]` headers, `key = value`
 * lines with bare keys, and values that are basic strings, decimal
 * integers, booleans or arrays of strings. What TOML has beyond the subset
 * (floats, dates, inline tables, literal and multi-line strings, dotted and
 * quoted keys) is refused by name rather than misread, so a file read here
 * means the same to any TOML reader.
 *
 * The reader knows no schema: it hands each header, key and value to a
 * visitor in the order of the text, and the visitor decides what each
 * means. The first refusal, the reader's or the visitor's, ends the read,
 * so an error is always the first in the file (toml_read_all reads on
 * past the visitor's, for a check that names them all). An error names
 * the file, line and column: "PATH:LINE:COL: what is wrong" (textpos.h).
 */
#ifndef HEARTS_BOT_TOML_H
#define HEARTS_BOT_TOML_H

#include <stdbool.h>
#include <stddef.h>

enum toml_type { TOML_STRING, TOML_INT, TOML_BOOL, TOML_ARRAY };

/* A value as read. A visitor may take a string it keeps (setting the
 * pointer to NULL); the reader frees what is left. */
struct toml_value {
    enum toml_type type;
    size_t pos; /* of its first character, for messages */
    char *s;    /* TOML_STRING */
    long long i;
    bool b;
    struct toml_value *items; /* TOML_ARRAY: strings */
    int n;
};

struct toml_reader;

/*
 * What a reader tells as it goes. Each returns 0 to go on, or -1 after
 * writing its message (toml_fail) to end the read. `table_end` ends the
 * table before a header, when the header's '[' is reached (before the
 * header is read), and the last table at the end of the text. `key` comes
 * once the key and its '=' are read, before the value; `value` then
 * brings the value.
 */
struct toml_visitor {
    int (*table_end)(void *ctx, struct toml_reader *r);
    int (*table)(void *ctx, struct toml_reader *r, const char *name, size_t len,
                 bool array, size_t start, size_t name_pos);
    int (*key)(void *ctx, struct toml_reader *r, const char *key, size_t len,
               size_t pos);
    int (*value)(void *ctx, struct toml_reader *r, struct toml_value *v);
};

/*
 * Reads text (len bytes; a UTF-8 byte order mark is skipped) and tells
 * the visitor. `path` only names the file in messages. 0 if the whole text
 * was read and the visitor agreed, else -1 with the message in err.
 */
int toml_read(const char *text, size_t len, const char *path,
              const struct toml_visitor *vis, void *ctx, char *err,
              size_t errlen);

/* Where toml_read_all passes each refusal of the visitor:
 * "PATH:LINE:COL: what is wrong". */
typedef void (*toml_problem_fn)(void *ctx, const char *msg);

/*
 * toml_read, reading on past each refusal of the visitor, which goes to
 * `problem` (and is counted in *problems): a key refused has its value
 * read and not told, a refused header, value or end of table is passed
 * over. What the reader itself refuses (the text is no TOML of the
 * subset) still ends the read, as it must: -1 with the message in err.
 * 0 if the whole text was read. With no refusal it tells the visitor
 * exactly what toml_read does.
 */
int toml_read_all(const char *text, size_t len, const char *path,
                  const struct toml_visitor *vis, void *ctx,
                  toml_problem_fn problem, void *problem_ctx, int *problems,
                  char *err, size_t errlen);

/* Writes "PATH:LINE:COL: message" for byte `pos` of the text being read
 * into the read's error buffer. */
void toml_fail(struct toml_reader *r, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The message, then -1 in plain sight: the static analyzer does not follow
 * variadic calls, and a -1 it cannot see makes it walk error paths as if
 * they had succeeded. */
#define TOML_FAIL(...) (toml_fail(__VA_ARGS__), -1)

/* The line of byte `pos` of the text being read, from 1. */
int toml_line(const struct toml_reader *r, size_t pos);

/* The path the read's messages name. */
const char *toml_path(const struct toml_reader *r);

/* A type as messages name a value of it: "a string", "an integer", "a
 * boolean", "an array". */
const char *toml_type_name(enum toml_type type);

/* Frees what a value holds (not the struct) and zeroes it. */
void toml_value_free(struct toml_value *v);

#endif
