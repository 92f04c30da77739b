/*
 * The subcommands of hearts-sim, one file each: replay (replay.c), play
 * (sim.c), bench (bench.c), think (think.c) and leaderboard
 * (leaderboard.c). Each takes the
 * arguments after its name and returns the process exit code.
 */
#ifndef HEARTS_TOOLS_SIM_H
#define HEARTS_TOOLS_SIM_H

int sim_replay(int argc, char **argv);
int sim_play(int argc, char **argv);
int sim_bench(int argc, char **argv);
int sim_leaderboard(int argc, char **argv);
int sim_think(int argc, char **argv);

/* Shared by the subcommands (sim.c): a monotonic clock in seconds; qsort's
 * order of doubles; a whole decimal number in [min, max] into *out, 0, or
 * -1 (and *out unchanged) for anything else. */
double sim_seconds(void);
int sim_cmp_double(const void *a, const void *b);
int sim_parse_count(const char *s, long min, long max, long *out);

#endif
