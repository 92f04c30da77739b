"""Damaged files, through the real bot on a real IRC server (ngIRCd): what a
crash, a kill, a full file, a person's editor and a link do to a
channel's files, and what the bot makes of them.

- test_a_crash_edits_and_links: after a crash at a game's end the board
  catches up from leaderboard.json (no rebuild); a temporary file left by
  a killed replacement is removed at start; a run of zero bytes at the end
  of the archive leaves the boards readable; a room directory that is a
  link is not read (the channel told once, and !last does not pretend no
  game finished); boards that could not be read are read again, without
  a restart, once the damage is gone.
- test_a_game_that_cannot_be_kept_is_told_once: a journal that cannot be
  written (a file size limit) is told to the channel once, not at every
  table, until a journal is written there again.
- test_a_results_line_not_written_is_completed: a file size limit stops
  the results line after the game's record was written: the journal is
  kept, the next game's end archives the game first (once), and a game
  cut off the same way before a kill is archived at the next start.
Run: /usr/bin/python3 tests/integration/test_damaged_files.py -v
"""

import json
import os
import re
import resource
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402


class DamagedFilesTest(HarnessTestCase):

    def start(self, channels=("#hearts",)):
        return self.bot(harness.records_bot_config(
            self.server.port, self.data, channels=channels))

    def ask(self, client, text, match, room="#hearts"):
        return harness.ask(client, text, match, room)

    def game(self, bot, alice, bob):
        """alice, bob and two computers play a one-hand game to its end."""
        ended = len(re.findall(r"game record (?:not )?written", bot.log()))
        harness.short_game(alice, bob)
        bot.wait_log(r"(?s)(game record (?:not )?written.*){%d}" % (ended + 1),
                     timeout=10)

    def people(self):
        alice = self.client(self.server, "alice")
        bob = self.client(self.server, "bob")
        for c in (alice, bob):
            c.join("#hearts")
        return alice, bob

    def lines(self, name):
        with open(os.path.join(self.room, name), "rb") as f:
            return [json.loads(line) for line in f.read().splitlines()
                    if line.strip()]

    def test_a_crash_edits_and_links(self):
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        self.room = os.path.dirname(harness.archive_path(self.data))
        bot = self.start()
        alice, bob = self.people()
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        self.game(bot, alice, bob)
        bot.stop(timeout=30)
        board = os.path.join(self.room, "leaderboard.json")
        with open(board, "rb") as f:
            after_one = f.read()

        # a crash at the second game's end: archived, the board one game
        # behind (the file as it was after the first game)
        bot = self.start()
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        self.game(bot, alice, bob)
        bot.signal(signal.SIGKILL)
        self.assertIsNotNone(bot.wait(10))
        with open(board, "wb") as f:
            f.write(after_one)
        # what a kill in the middle of replacing it leaves
        dead = subprocess.Popen(["true"])
        dead.wait()
        tmp = os.path.join(self.room, "leaderboard.json.tmp-%d-3" % dead.pid)
        with open(tmp, "wb") as f:
            f.write(after_one)
        # and zero bytes at the end of the archive, more than a record holds
        with open(os.path.join(self.room, "archive.jsonl"), "ab") as f:
            f.write(b"\0" * (5 << 20))

        runs = bot.log().count("leaderboards of")
        bot = self.start()
        bot.wait_log(r"(?s)(leaderboards of 1 channel read.*){%d}" % (runs + 1),
                     timeout=30)
        log = bot.log().split("leaderboards of")[runs]
        with self.subTest("caught up from the checkpoint, not rebuilt"):
            self.assertRegex(log, r"leaderboard\.json caught up: 1 game "
                             r"after it counted")
            self.assertNotIn("rebuilt", log)
        with self.subTest("a killed replacement's file removed"):
            self.assertRegex(log, r"warn .*leaderboard\.json\.tmp-\d+-3: a "
                             r"temporary file left by a killed process")
            self.assertFalse(os.path.exists(tmp))
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        with self.subTest("zero bytes at the end: the boards readable"):
            top = self.ask(alice, "!top custom", r"^Top 2 \(custom\): 1\. ")
            self.assertIn("(2 games, ", top)
        self.assertEqual(len(self.lines("results.jsonl")), 2)
        bot.stop(timeout=30)
        sim = harness.sim_binary()
        if sim:
            with self.subTest("hearts-sim leaderboard --check"):
                done = subprocess.run(
                    [sim, "leaderboard", self.room, "--check"],
                    capture_output=True, text=True, timeout=60)
                self.assertEqual(done.returncode, 0,
                                 done.stdout + done.stderr)
                self.assertIn("leaderboard.json: current", done.stdout)

        # a room directory replaced by a link to another room's: not read
        other = os.path.join(os.path.dirname(self.room),
                             harness.encode_name("#other"))
        os.symlink(self.room, other)
        bot = self.start(channels=("#hearts", "#other"))
        alice.join("#other")
        alice.wait_member("heartsbot", "#other", timeout=15)
        mark = alice.mark()
        with self.subTest("a linked room is not read"):
            self.ask(alice, "!top custom", r".", room="#other")
            said = [m.text for m in alice.privmsgs_from(
                "heartsbot", to="#other", since=mark)]
            self.assertNotIn("alice", "".join(said))
            self.assertRegex(bot.log(), r"error .*leaderboards not read from "
                             r".*%23other.*not a directory")
        with self.subTest("!last says the results can't be read"):
            last = self.ask(alice, "!last", r".", room="#other")
            self.assertEqual(last, "The results here can't be read (see "
                             "the bot's log).")
        self.ask(alice, "!top", r".", room="#other")
        with self.subTest("the channel told once"):
            told = [m for m in alice.privmsgs_from("heartsbot", to="#other",
                                                   since=mark)
                    if "games are still played" in m.text]
            self.assertEqual(len(told), 1)
        # the link gone: read again at the next question, no restart
        os.unlink(other)
        with self.subTest("read again without a restart"):
            self.ask(alice, "!last", r"^No game has finished here yet\.",
                     room="#other")
            self.ask(alice, "!top custom", r"^Top 2 \(custom\)")

    def test_a_game_that_cannot_be_kept_is_told_once(self):
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        bot = self.start()
        alice, bob = self.people()
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        lost = (r"^This game can't be kept: a file reached the size limit\. "
                r"It goes on, but will not survive a restart\.$")
        mark = alice.mark()
        # no journal header fits (the log no longer grows either)
        resource.prlimit(bot.pid, resource.RLIMIT_FSIZE,
                         (100, resource.RLIM_INFINITY))
        self.ask(alice, "!hearts", r"opens a Hearts table")
        alice.wait_privmsg("heartsbot", lost, to="#hearts", since=mark,
                           timeout=10)
        self.ask(alice, "!leave", r"^alice stands up")
        self.ask(alice, "!hearts", r"opens a Hearts table")
        self.ask(alice, "!leave", r"^alice stands up")
        told = [m for m in alice.privmsgs_from("heartsbot", to="#hearts",
                                               since=mark)
                if re.search(lost, m.text)]
        self.assertEqual(len(told), 1)
        # a journal written again: a later failure is told again
        resource.prlimit(bot.pid, resource.RLIMIT_FSIZE,
                         (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        self.ask(alice, "!hearts", r"opens a Hearts table")
        self.ask(alice, "!leave", r"^alice stands up")
        resource.prlimit(bot.pid, resource.RLIMIT_FSIZE,
                         (100, resource.RLIM_INFINITY))
        mark = alice.mark()
        self.ask(alice, "!hearts", r"opens a Hearts table")
        alice.wait_privmsg("heartsbot", lost, to="#hearts", since=mark,
                           timeout=10)

    def test_a_results_line_not_written_is_completed(self):
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        self.room = os.path.dirname(harness.archive_path(self.data))
        os.makedirs(self.room)
        # results.jsonl just under the limit set below (empty lines are no
        # results): a game's record fits in the archive, its results line
        # no longer fits in results.jsonl
        limit = 64 << 20
        with open(os.path.join(self.room, "results.jsonl"), "wb") as f:
            f.write(b"\n" * (limit - 64))
        bot = self.start()
        alice, bob = self.people()
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        resource.prlimit(bot.pid, resource.RLIMIT_FSIZE,
                         (limit, resource.RLIM_INFINITY))
        self.game(bot, alice, bob)
        bot.wait_log(r"game record not written", timeout=10)
        alice.wait_privmsg("heartsbot", r"Results can't be saved: a file "
                           r"reached the size limit\.", to="#hearts",
                           timeout=10)
        self.assertEqual(len(self.lines("archive.jsonl")), 1)
        self.assertEqual(self.lines("results.jsonl"), [])
        journals = [f for f in os.listdir(self.room)
                    if f.startswith("journal-")]
        self.assertEqual(len(journals), 1, "the journal is kept")

        # room again: the next game's end archives the first game first
        with open(os.path.join(self.room, "results.jsonl"), "wb"):
            pass
        resource.prlimit(bot.pid, resource.RLIMIT_FSIZE,
                         (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        self.game(bot, alice, bob)
        bot.wait_log(r"archived now, after an earlier failure", timeout=10)
        records = self.lines("archive.jsonl")
        results = self.lines("results.jsonl")
        self.assertEqual(len(records), 2)
        self.assertEqual(len(results), 2)
        self.assertEqual(journals[0], "journal-%s.jsonl" % results[0]["game"])
        self.assertEqual(harness.journals_gone(self.room), [])
        top = self.ask(alice, "!top custom", r"^Top 2 \(custom\): 1\. ")
        self.assertIn("(2 games, ", top)

        # cut off the same way, then a kill: the next start completes it
        with open(os.path.join(self.room, "results.jsonl"), "ab") as f:
            f.write(b"\n" * (limit - 64 - f.tell()))
        resource.prlimit(bot.pid, resource.RLIMIT_FSIZE,
                         (limit, resource.RLIM_INFINITY))
        self.game(bot, alice, bob)
        bot.wait_log(r"(?s)(game record not written.*){2}", timeout=10)
        bot.signal(signal.SIGKILL)
        self.assertIsNotNone(bot.wait(10))
        with open(os.path.join(self.room, "results.jsonl"), "rb") as f:
            kept = f.read().rstrip(b"\n") + b"\n"
        with open(os.path.join(self.room, "results.jsonl"), "wb") as f:
            f.write(kept)
        self.assertEqual(len(self.lines("archive.jsonl")), 3)
        bot = self.start()
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        bot.wait_log(r"a finished game found in .*: archived", timeout=15)
        self.assertEqual(len(self.lines("archive.jsonl")), 3)
        results = self.lines("results.jsonl")
        self.assertEqual(len(results), 3)
        self.assertEqual(len({r["game"] for r in results}), 3)
        self.assertEqual(harness.journals_gone(self.room), [])
        top = self.ask(alice, "!top custom", r"^Top 2 \(custom\): 1\. ")
        self.assertIn("(3 games, ", top)
        rc, out = harness.replay(harness.archive_path(self.data))
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    harness.main()
