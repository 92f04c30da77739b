"""Games that survive the bot's death: the real bot, killed with SIGKILL,
started again on the same data directory.

- Mid-pass: alice has chosen her pass, bob not; the bot dies. Started again,
  it tells the channel the game goes on, bob gets the very deal he had
  (same cards) and alice her hand; both pass and play on.
- Mid-trick: at alice's turn in trick 3 of the first hand the bot dies;
  started again, alice is prompted for the same trick with the same hand
  and the same playable cards, and the players finish the game, whose
  record (one, replayable) holds the hands they were dealt.
- Channel dropped from the config: started again without #hearts in its
  channels, the bot leaves that game's journal as it is (byte for byte)
  and tells nobody anything about it, in the channel or privately; started
  once more with #hearts back, the game goes on and is finished.
Run: /usr/bin/python3 tests/integration/test_resume.py -v
"""

import os
import signal
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (HarnessTestCase, Passing, Player,  # noqa: E402
                     Prompt, pass_highest, play_game, play_lowest)

def private(msg):
    """A private line of the bot as the harness reads it."""
    return harness.parse_private(harness.marked_text(msg.raw_text))


FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}
GAME = {"turn_timeout": 3600, "next_hand_delay": 0, "grace_period": 60}


class ResumeTest(HarnessTestCase):

    def setUp(self):
        super().setUp()
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        self.cfg = harness.bot_config(self.server.port, self.data,
                                      bot={"colors": False}, irc=FAST_IRC,
                                      game=GAME)
        self.bot_ = self.bot(self.cfg)

    def kill_and_restart(self, watcher):
        """SIGKILL, then the same bot on the same data directory; returns
        the channel's 'goes on' line."""
        self.kill()
        mark = watcher.mark()
        self.bot_ = self.bot(self.cfg)
        return watcher.wait_privmsg(
            "heartsbot", r"^The game goes on after a restart: ",
            to="#hearts", since=mark, timeout=30)

    def journals(self):
        """The paths of the game journals under the data directory."""
        return harness.journals_in(self.data)

    def kill(self):
        self.bot_.signal(signal.SIGKILL)
        self.assertIsNotNone(self.bot_.wait(10))

    def two_people(self):
        alice = self.client(self.server, "alice", user="alice")
        bob = self.client(self.server, "bob", user="bob")
        for c in (alice, bob):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        alice.say("#hearts", "!hearts standard hands=2 tie=share")
        alice.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts")
        bob.say("#hearts", "!join")
        alice.wait_privmsg("heartsbot", r"^bob sits down", to="#hearts")
        alice.say("#hearts", "!start")
        return alice, bob, Player(alice), Player(bob)

    def finish(self, players, alice):
        over = play_game(players, lambda: alice.find(
            r"Game over!", frm="heartsbot", to="#hearts"), timeout=60)
        self.assertTrue(over)
        self.bot_.wait_log(r"game record written", timeout=10)
        records = harness.read_records(self.data)
        self.assertEqual(len(records), 1)
        rc, out = harness.replay(harness.archive_path(self.data))
        self.assertEqual(rc, 0, out)
        # the journal went with the archived game
        self.assertEqual(harness.journals_gone(self.data), [])
        return records[0]

    def test_killed_mid_pass(self):
        alice, bob, pa, pb = self.two_people()
        held = {}

        def on_deal(p, deal):
            if p is pb:
                held["bob"] = deal      # bob thinks it over: no pass yet
                return None
            return pass_highest(p, deal)

        def on_event(p, ev):
            if p is pa and isinstance(ev, Passing):
                held["alice"] = ev

        play_game([pa, pb], lambda: "bob" in held and "alice" in held,
                  timeout=30, on_deal=on_deal, on_event=on_event)
        dealt_alice = set(pa.deals[1])
        kept_alice = dealt_alice - set(held["alice"].cards)
        marks = (alice.mark(), bob.mark())
        line = self.kill_and_restart(alice)
        self.assertIn("waiting for the passes of bob", line.text)
        # bob's deal again, the same cards; alice's hand
        again = bob.wait_privmsg("heartsbot", r"^Hand 1 at #hearts\. Your "
                                 r"cards: ", timeout=15, since=marks[1])
        self.assertEqual(sorted(private(again).cards),
                         sorted(held["bob"].cards))
        mine = alice.wait_privmsg("heartsbot", r"^Your hand: ", timeout=15,
                                  since=marks[0])
        shown = set(private(mine).cards)
        self.assertTrue(kept_alice <= shown <= dealt_alice, mine.text)
        record = self.finish([pa, pb], alice)
        self.assertEqual(sorted(record["hands"][0]["deal"][
            record["players"].index("bob")]), sorted(held["bob"].cards))
        self.assertEqual(set(record["hands"][0]["deal"][
            record["players"].index("alice")]), dealt_alice)

    def test_killed_mid_trick(self):
        alice, bob, pa, pb = self.two_people()
        held = {}

        def on_prompt(p, pr):
            if p is pa and pr.trick_no >= 3 and "prompt" not in held:
                held["prompt"] = pr     # her turn waits over the kill
                return None
            return play_lowest(p, pr)

        play_game([pa, pb], lambda: held.get("prompt"), timeout=30,
                  on_prompt=on_prompt)
        line = self.kill_and_restart(bob)
        self.assertIn("hand 1, alice to play", line.text)
        # the same turn: her prompt again, same trick, hand and choices
        again = []

        def first_prompt(p, ev):
            if p is pa and isinstance(ev, Prompt) and not again:
                again.append(ev)
        play_game([pa, pb], lambda: again, timeout=15, on_event=first_prompt,
                  on_prompt=lambda p, pr: None)
        pr, before = again[0], held["prompt"]
        self.assertEqual(pr.trick_no, before.trick_no)
        self.assertEqual(pr.trick, before.trick)
        self.assertEqual(sorted(pr.cards), sorted(before.cards))
        self.assertEqual(sorted(pr.marked), sorted(before.marked))
        pa.play(play_lowest(pa, pr))
        record = self.finish([pa, pb], alice)
        holdings = harness.record_holdings(record, 0)
        self.assertEqual(pa.all_played(1), holdings[0])
        self.assertEqual(pb.all_played(1), holdings[1])

    def test_channel_dropped_from_config(self):
        alice, bob, pa, pb = self.two_people()
        held = {}

        def on_prompt(p, pr):
            held.setdefault("prompt", pr)   # the first turn waits
            return None

        play_game([pa, pb], lambda: held.get("prompt"), timeout=30,
                  on_prompt=on_prompt)
        before_kill = (alice.mark(), bob.mark())
        self.kill()
        # every line the bot sent before it died is in once its QUIT is
        # (the server relays the two in order): what comes later is the
        # new bot's
        for c, mark in zip((alice, bob), before_kill):
            c.wait_for(command="QUIT", frm="heartsbot", since=mark)
        journals = self.journals()
        self.assertEqual(len(journals), 1, journals)
        with open(journals[0], "rb") as f:
            before = f.read()

        # without #hearts in its channels: nothing rebuilt, nothing said
        marks = (alice.mark(), bob.mark())
        other = harness.bot_config(self.server.port, self.data,
                                   channels=("#other",),
                                   bot={"colors": False}, irc=FAST_IRC,
                                   game=GAME)
        self.bot_ = self.bot(other)
        self.bot_.wait_log(r"journal \S+ kept as it is: #hearts is not "
                           r"among this network's rooms", timeout=15)
        alice.join("#other")
        alice.wait_member("heartsbot", "#other", timeout=15)
        # an answer of the bot's (private), so its start is behind us
        alice.say("#other", "!status")
        answer = alice.wait_privmsg("heartsbot", r"^No table here\.",
                                    since=marks[0])
        for c, mark in ((alice, marks[0]), (bob, marks[1])):
            heard = [m.text for m in c.privmsgs_from("heartsbot", since=mark)
                     if m is not answer]
            self.assertEqual(heard, [], c.nick)
        self.kill()
        with open(journals[0], "rb") as f:
            self.assertEqual(f.read(), before)

        # #hearts back: the game goes on, and ends
        mark = alice.mark()
        self.bot_ = self.bot(self.cfg)
        line = alice.wait_privmsg(
            "heartsbot", r"^The game goes on after a restart: ",
            to="#hearts", since=mark, timeout=30)
        self.assertIn("hand 1", line.text)
        self.finish([pa, pb], alice)


if __name__ == "__main__":
    harness.main()
