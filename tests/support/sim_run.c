/*
 * Running hearts-sim for its tests (sim_run.h).
 */
#include "tests/support/sim_run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *sim_run_binary(void)
{
    const char *sim = getenv("HEARTS_SIM");
    return sim && *sim ? sim : NULL;
}

char *sim_run_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            char *bigger = realloc(buf, cap);
            assert_non_null(bigger);
            buf = bigger;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        if (got == 0)
            break;
        len += got;
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

void sim_run(struct sim_run *r, const char *input, const char *const *args)
{
    const char *sim = sim_run_binary();
    assert_non_null(sim);
    char out_path[] = "/tmp/test_sim_out_XXXXXX";
    char err_path[] = "/tmp/test_sim_err_XXXXXX";
    int out_fd = mkstemp(out_path);
    int err_fd = mkstemp(err_path);
    assert_true(out_fd >= 0 && err_fd >= 0);
    const char *argv[24] = {sim};
    int argc = 1;
    for (; args[argc - 1]; argc++) {
        assert_true(argc < 23);
        argv[argc] = args[argc - 1];
    }
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, input ? input : "/dev/null",
                                     O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    pid_t pid;
    assert_int_equal(
        posix_spawn(&pid, sim, &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    close(out_fd);
    close(err_fd);
    r->out = sim_run_slurp(out_path);
    r->err = sim_run_slurp(err_path);
    unlink(out_path);
    unlink(err_path);
}

void sim_run_free(struct sim_run *r)
{
    free(r->out);
    free(r->err);
}
