"""The channel's leaderboards through the real bot and a real IRC server
(ngIRCd): two people and two computer players finish a short game; then
!top, !stats and !last answer in the channel from what was archived
(results.jsonl names the people by their folded nicks, the computers by
no key), !scores shows the finished game's sheet, and a restart without
leaderboard.json rebuilds it from the archive at start (not at the first
question) to the same answers, which `hearts-sim leaderboard --check`
agrees with; `heartsbot --rebuild-stats` is refused while the bot runs
and rebuilds every channel after.
Run: /usr/bin/python3 tests/integration/test_leaderboards.py -v
"""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402


class LeaderboardTest(HarnessTestCase):

    def start(self):
        return self.bot(harness.records_bot_config(self.server.port,
                                                   self.data))

    def ask(self, client, text, match):
        return harness.ask(client, text, match)

    def test_a_game_then_top_stats_last_and_a_rebuild(self):
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        bot = self.start()
        alice = self.client(self.server, "Alice")
        bob = self.client(self.server, "bob")
        for c in (alice, bob):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        self.ask(alice, "!last", r"^No game has finished here yet\.")
        harness.short_game(alice, bob)
        bot.wait_log(r"game record written", timeout=10)

        room = os.path.dirname(harness.archive_path(self.data))
        with open(os.path.join(room, "results.jsonl")) as f:
            results = [json.loads(line) for line in f]
        self.assertEqual(len(results), 1)
        seats = results[0]["seats"]
        self.assertEqual(sorted(s["key"] for s in seats),
                         ["", "", "n:alice@127.0.0.1", "n:bob@127.0.0.1"])
        self.assertTrue(results[0]["custom"] and results[0]["finished"])

        top = self.ask(bob, "!top custom", r"^Top 2 \(custom\): 1\. ")
        self.assertIn("Alice", top)
        self.assertIn("bob", top)
        self.assertIn("(1 game, ", top)
        self.assertNotIn("bot1", top)
        # a refusal goes to the asker only
        mark = bob.mark()
        bob.say("#hearts", "!top 12")
        bob.wait_privmsg("heartsbot", r"How many\? 1 to 10\.", to="bob",
                         since=mark, timeout=15)
        mine = self.ask(alice, "!stats",
                        r"^Alice \(standard\): 1 game, \d win")
        self.assertRegex(mine, r"rating \d+ \(provisional\), rank [12] of 2")
        theirs = self.ask(alice, "!stats BOB custom",
                          r"^bob \(custom\): 1 game, ")
        last = self.ask(bob, "!last", r"^Last game \(just now, standard "
                        r"with hands=1 tie=share, \d+ hands?\): ")
        self.assertIn("bot1", last)
        self.ask(bob, "!scores", r"the last game's sheet")

        # leaderboard.json is derived: gone, the next start rebuilds it
        bot.stop(timeout=30)
        os.unlink(os.path.join(room, "leaderboard.json"))
        bot = self.start()
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        again = self.ask(alice, "!stats BOB custom",
                         r"^bob \(custom\): 1 game, ")
        self.assertEqual(again, theirs)
        # at start, before anyone asks
        bot.wait_log(r"(?s)leaderboard\.json rebuilt \(it is missing\).*"
                     r"leaderboards of 1 channel read in", timeout=5)
        # heartsbot --rebuild-stats: refused while the bot holds data_dir,
        # then rebuilds every channel
        rebuild = [harness.bot_binary(), "--rebuild-stats", self.data]
        done = subprocess.run(rebuild, capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("another heartsbot", done.stderr)
        bot.stop(timeout=30)
        done = subprocess.run(rebuild, capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("1 channel, 0 failed", done.stdout)
        sim = harness.sim_binary()
        if sim:
            done = subprocess.run([sim, "leaderboard", room, "--check"],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertIn("leaderboard.json: current", done.stdout)


if __name__ == "__main__":
    harness.main()
