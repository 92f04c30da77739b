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

#endif
