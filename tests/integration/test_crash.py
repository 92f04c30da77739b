"""The crash test: the real bot plays game after game on a real
IRC server with two scripted people and two computer players, and is killed
with SIGKILL at random moments of the games (at least 50 kills), started
again on the same data directory each time. Afterwards:
- every game started is in the archive exactly once, and the archive
  replays (no torn or glued line; a game the bot finished but did not get
  to announce before a kill is archived once all the same);
- every game in progress at a kill went on from where it was and finished:
  each person's dealt cards in each game are the record's;
- no person got a different hand after a restart: every deal told again
  for a hand is the one told first;
- no journal was refused, and none is left.
About a minute and a half. HEARTS_CRASH_SEED=N replays a run;
HEARTS_CRASH_KILLS=N changes the number of kills.
Run: /usr/bin/python3 tests/integration/test_crash.py -v
"""

import json
import os
import random
import subprocess
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (Deal, HarnessTestCase, Player, play_game,  # noqa: E402
                     play_lowest)

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 50}
GAME = {"turn_timeout": 3600, "next_hand_delay": 0, "grace_period": 120}


class CrashTest(HarnessTestCase):

    def test_many_kills_at_random_moments(self):
        seed = int(os.environ.get("HEARTS_CRASH_SEED", random.randrange(10**9)))
        kills_wanted = int(os.environ.get("HEARTS_CRASH_KILLS", 50))
        print("crash test seed %d" % seed, file=sys.stderr)
        rng = random.Random(seed)
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        # no answer limits: after a kill the scripted people repeat what
        # the bot may not have heard, and a limited !hearts would stall
        # the test (it is about crashes, not floods)
        cfg = harness.bot_config(server.port, data,
                                 bot={"colors": False, "reply_interval": 0,
                                      "chatter_interval": 0,
                                      "repeat_quiet": 0},
                                 irc=FAST_IRC, game=GAME)
        bot = self.bot(cfg)
        alice = self.client(server, "alice", user="alice")
        bob = self.client(server, "bob", user="bob")
        for c in (alice, bob):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        pa, pb = Player(alice), Player(bob)
        players = (pa, pb)
        dealt = {}          # (game, nick, hand) -> the cards first dealt
        game = [0]

        def on_event(p, ev):
            if not isinstance(ev, Deal):
                return
            key = (game[0], p.nick, ev.hand_no)
            if key in dealt:
                self.assertEqual(sorted(ev.cards), sorted(dealt[key]),
                                 "game %d: %s got another hand %d after a "
                                 "restart (seed %d)" % (key + (seed,)))
            else:
                dealt[key] = list(ev.cards)

        kills = 0
        started = time.monotonic()
        while kills < kills_wanted:
            game[0] += 1
            mark = alice.mark()
            alice.say("#hearts", "!hearts standard hands=1 tie=share")
            alice.wait_privmsg("heartsbot", r"opens a Hearts table",
                               to="#hearts", since=mark, timeout=15)
            bob.say("#hearts", "!join")
            alice.wait_privmsg("heartsbot", r"^bob sits down", to="#hearts",
                               since=mark, timeout=15)
            alice.say("#hearts", "!start")
            alice.wait_privmsg("heartsbot", r"^The game begins",
                               to="#hearts", since=mark, timeout=15)
            # one to three kills in this game, at random moments
            plan = sorted(rng.uniform(0.0, 1.2)
                          for _ in range(rng.randint(1, 3)))
            at = time.monotonic()
            while True:
                when = at + plan[0] if plan else None

                def done():
                    if len(harness.read_records(data)) == game[0]:
                        return "over"
                    if when is not None and time.monotonic() >= when:
                        return "kill"
                    return None

                what = play_game(players, done, timeout=60,
                                 on_event=on_event, on_prompt=play_lowest)
                if what == "over":
                    break
                plan.pop(0)
                kills += 1
                bot.signal(signal.SIGKILL)
                self.assertIsNotNone(bot.wait(10))
                mark = alice.mark()
                # (the log is appended to by every run of the bot)
                runs = bot.log().count("registered as heartsbot")
                bot = self.bot(cfg)
                deadline = time.monotonic() + 15
                while bot.log().count("registered as heartsbot") <= runs:
                    self.assertLess(time.monotonic(), deadline,
                                    "the bot did not come back")
                    time.sleep(0.02)
                # the game goes on, or it had ended: archived (at once, or
                # now from its journal)
                deadline = time.monotonic() + 30
                while True:
                    if alice.find(r"The game goes on after a restart",
                                  frm="heartsbot", to="#hearts", since=mark):
                        break
                    if len(harness.read_records(data)) == game[0]:
                        break
                    self.assertLess(time.monotonic(), deadline,
                                    "the game did not come back (seed %d):"
                                    "\n%s" % (seed, alice.tail(10)))
                    time.sleep(0.05)
                at = time.monotonic()
            # the end may still be on its way to the channel
            time.sleep(0.1)

        elapsed = time.monotonic() - started
        print("%d kills over %d games in %.0f s" % (kills, game[0], elapsed),
              file=sys.stderr)
        records = harness.read_records(data)
        self.assertEqual(len(records), game[0])
        rc, out = harness.replay(harness.archive_path(data))
        self.assertEqual(rc, 0, out)
        for g, record in enumerate(records, 1):
            for nick in ("alice", "bob"):
                seat = record["players"].index(nick)
                self.assertEqual(sorted(record["hands"][0]["deal"][seat]),
                                 sorted(dealt[(g, nick, 1)]),
                                 "game %d, %s (seed %d)" % (g, nick, seed))
        log = bot.log()
        self.assertNotIn("cannot be replayed", log)
        self.assertEqual(harness.journals_gone(data), [])
        self.assertEqual(bot.stop(), 0)
        # No file is torn: every line of every JSON Lines file is whole.
        room = os.path.dirname(harness.archive_path(data))
        for name in ("archive.jsonl", "results.jsonl"):
            with open(os.path.join(room, name), "rb") as f:
                text = f.read()
            self.assertTrue(text.endswith(b"\n"), name)
            for line in text.splitlines():
                json.loads(line)
        # Each game is in the results once, and the leaderboards are
        # exactly what the archive implies.
        with open(os.path.join(room, "results.jsonl")) as f:
            ids = [json.loads(line)["game"] for line in f]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(len(ids), game[0])
        sim = harness.sim_binary()
        done = subprocess.run([sim, "leaderboard", room, "--check"],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("leaderboard.json: current", done.stdout)


if __name__ == "__main__":
    harness.main()
