/*
 * For the tests of hearts-sim's subcommands (tests/unit/tools/): runs the
 * real binary, whose path is in the environment variable HEARTS_SIM (set
 * by tests/CMakeLists.txt), and captures its exit code and output.
 */
#ifndef HEARTS_TEST_SIM_RUN_H
#define HEARTS_TEST_SIM_RUN_H

struct sim_run {
    int status; /* exit code, or -1 if it did not exit normally */
    char *out;
    char *err;
};

/* The binary from HEARTS_SIM, or NULL (the test is then skipped: exit 77). */
const char *sim_run_binary(void);

/* A whole file, NUL-ended (freed by the caller); fails the test if it
 * cannot be read. */
char *sim_run_slurp(const char *path);

/* Runs hearts-sim with args (NULL-terminated, at most 14), stdin from
 * `input` (or /dev/null), capturing stdout and stderr. */
void sim_run(struct sim_run *r, const char *input, const char *const *args);
void sim_run_free(struct sim_run *r);

#endif
