/*
 * What the record's writer, reader and replay share (record_write.c,
 * record_read.c, record_replay.c) and nothing else: the words of the
 * format and how an integer option reads.
 */
#ifndef HEARTS_RECORD_INTERNAL_H
#define HEARTS_RECORD_INTERNAL_H

#include "storage/record/record.h"

#include <stdbool.h>
#include <stddef.h>

#define RECORD_MSG 256              /* an error message from the engine */
#define RECORD_MAX_OPTION_TEXT 1024 /* one option's value as text */

/* The pass directions' names in the order of enum engine_pass_dir
 * (engine.h). */
extern const char *const record_dir_names[];
#define RECORD_NDIRS 7

/* Whether s is a whole decimal number, as engine_rules_get writes integer
 * options; if so, its value into *v. */
bool record_integer_text(const char *s, long long *v);

#endif
