"""Records on a network without accounts (ngIRCd), through the real bot
(docs/playing.md, "Who is who"): a record is bound to the nick it was
made under and the host the server showed. bob changes nick to bobby in
the middle of a game: the game counts for bob's key, the row shows "bob",
and bobby's own !stats finds it. Someone else then takes "bob" from
another host (a client connected from 127.0.0.2, so that ngIRCd shows
another host): they have no record, and after they play !top shows two
rows, "bob" and "bob(2)", never one name twice; bobby still finds his.
And what a person typed that hides or reorders text (bidi controls,
CTCP's \\x01, other controls) is never in the bot's replies.
Run: /usr/bin/python3 tests/integration/test_nick_records.py -v
"""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, Player, play_game  # noqa: E402

# what must never come back: C0 controls (mIRC formatting aside, which the
# bot's own card colours use and a plain-text bot never sends), DEL, C1
# controls, and the invisible and direction-changing characters
HIDING = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f"
                    "\u2028-\u202e\u2060-\u206f\ufeff]")


class NickRecordsTest(HarnessTestCase):

    def start(self):
        return self.bot(harness.records_bot_config(self.server.port,
                                                   self.data))

    def ask(self, client, text, match):
        """Says text in #hearts; the bot's channel line matching `match`,
        once every client in the channel has it (so that no answer comes
        late to the next question)."""
        watchers = set(getattr(self, "watchers", ())) | {client}
        marks = {c: c.mark() for c in watchers}
        client.say("#hearts", text)
        for c in watchers:
            got = c.wait_privmsg("heartsbot", match, to="#hearts",
                                 since=marks[c], timeout=15).text
            if c is client:
                line = got
        return line

    def top_names(self, client, preset):
        """The names of !top 10 PRESET, in order (its one to three
        lines)."""
        mark = client.mark()
        client.say("#hearts", "!top 10 " + preset)
        first = client.wait_privmsg("heartsbot", r"^Top (\d+) ", to="#hearts",
                                    since=mark, timeout=15)
        count = int(re.match(r"^Top (\d+) ", first.text).group(1))
        lines = (count + 3) // 4

        def top_lines():
            got = self.bot_lines(client, mark)
            at = next(i for i, t in enumerate(got) if t.startswith("Top "))
            return got[at:at + lines]

        client.wait_for(lambda m: len(top_lines()) >= lines, since=mark,
                        timeout=15)
        text = " ".join(top_lines())
        names = re.findall(r" \d+\. (\S+) \d+\??", text)
        self.assertEqual(len(names), count, text)
        return names

    @staticmethod
    def bot_lines(client, mark):
        return [m.text for m in client.messages(mark)
                if m.command == "PRIVMSG" and m.nick == "heartsbot"
                and m.target == "#hearts"]

    def game(self, opener, other):
        """opener opens a one-hand table, other joins, two computers;
        played to the end. Returns the Players."""
        self.ask(opener, "!hearts standard hands=1", r"opens a Hearts table")
        self.ask(other, "!join", r" sits down")
        self.ask(opener, "!bot 2", r"computer players")
        start = opener.mark()
        players = [Player(opener), Player(other)]
        return players, start

    def results(self):
        room = os.path.dirname(harness.archive_path(self.data))
        with open(os.path.join(room, "results.jsonl")) as f:
            return [json.loads(line) for line in f]

    def test_rename_mid_game_then_another_host_takes_the_nick(self):
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        bot = self.start()
        ann = self.client(self.server, "ann")
        bob = self.client(self.server, "bob")
        for c in (ann, bob):
            c.join("#hearts")
        ann.wait_member("heartsbot", "#hearts", timeout=15)
        self.watchers = [ann, bob]

        # bob plays as bob and is bobby before the game ends
        players, start = self.game(ann, bob)
        renamed = []

        def rename(player, ev):
            if player.client is bob and not renamed:
                renamed.append(bob.nick("bobby"))

        ann.say("#hearts", "!start")
        play_game(players,
                  lambda: ann.find(r"Game over!", frm="heartsbot",
                                   to="#hearts", since=start),
                  on_event=rename, timeout=90)
        self.assertTrue(renamed)
        bot.wait_log(r"game record written", timeout=10)
        # bobby's own !stats is the game bob played; the row shows bob
        self.ask(bob, "!stats", r"^bob \(standard\): 1 game, ")
        keys = sorted(s["key"] for s in self.results()[0]["seats"])
        self.assertEqual(keys, ["", "", "n:ann@127.0.0.1", "n:bob@127.0.0.1"])
        self.ask(ann, "!stats bobby", r"^bob \(standard\): 1 game, ")
        self.ask(ann, "!stats bob", r"^bob \(standard\): 1 game, ")
        self.assertEqual(sorted(self.top_names(ann, "custom")),
                         ["ann", "bob"])

        # someone else takes "bob" from another host: nothing of bob's
        mal = self.client(self.server, "bob", source="127.0.0.2",
                          user="mal")
        seen = ann.mark()
        mal.join("#hearts")
        ann.wait_join("bob", "#hearts", timeout=15, since=seen)
        self.watchers.append(mal)
        self.ask(mal, "!stats",
                 r"^You have not finished a game here\.")
        players, start = self.game(mal, ann)
        mal.say("#hearts", "!start")
        play_game(players,
                  lambda: mal.find(r"Game over!", frm="heartsbot",
                                   to="#hearts", since=start),
                  timeout=90)
        bot.wait_log(r"(?s)game record written.*game record written",
                     timeout=10)
        self.assertIn("n:bob@127.0.0.2",
                      [s["key"] for s in self.results()[1]["seats"]])

        # two rows, never one name twice
        for preset in ("standard", "custom"):
            names = self.top_names(ann, preset)
            self.assertEqual(sorted(names), ["ann", "bob", "bob(2)"])
        self.ask(mal, "!stats", r"^bob\(2\) \(standard\): 1 game, ")
        self.ask(bob, "!stats", r"^bob \(standard\): 1 game, ")
        self.ask(ann, "!stats bob", r"^bob \(standard\): 1 game, .* Other "
                 r"people played here as bob too: !stats bob\(2\)\.$")
        self.ask(ann, "!stats bob(2)", r"^bob\(2\) \(standard\): 1 game, ")

        # the boards a restart rebuilds from the files are the same
        bot.stop(timeout=30)
        room = os.path.dirname(harness.archive_path(self.data))
        os.unlink(os.path.join(room, "leaderboard.json"))
        bot = self.start()
        ann.wait_member("heartsbot", "#hearts", timeout=15)
        for preset in ("standard", "custom"):
            self.assertEqual(sorted(self.top_names(ann, preset)),
                             ["ann", "bob", "bob(2)"])
        self.ask(ann, "!stats bob(2)", r"^bob\(2\) \(standard\): 1 game, ")

    def test_hiding_characters_are_never_echoed(self):
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        self.start()
        ann = self.client(self.server, "ann")
        ann.join("#hearts")
        ann.wait_member("heartsbot", "#hearts", timeout=15)
        mark = ann.mark()
        rlo, lri, pdi, lrm, alm = ("\u202e", "\u2066", "\u2069", "\u200e",
                                  "\u061c")
        asks = [
            # an unknown option, its name hidden and reordered
            ("#hearts", "!hearts " + rlo + "zzq" + lrm + "=1",
             r"unknown option 'zzq'"),
            # an unknown command, a CTCP byte and a bell inside
            ("heartsbot", "plya\x01\x07" + lri + "x" + pdi,
             r"I don't know 'plyax'"),
            # an unknown preset
            ("#hearts", "!top 5 st" + rlo + "andrd\x02",
             r"unknown preset 'standrd'"),
            # a preset not found, in !rules
            ("#hearts", "!rules omn" + alm + "i\x1bbuz" + rlo,
             r"unknown preset 'omnibuz'"),
            ("heartsbot", "st" + rlo + "atz" + "\x01", r"'statz'"),
            # a value: the bot reads what is left, and says so plainly
            ("#hearts", "!hearts target=" + rlo + "05",
             r"opens a Hearts table"),
        ]
        for target, text, want in asks:
            m = ann.mark()
            ann.say(target, text)
            ann.wait_privmsg("heartsbot", want, since=m, timeout=15)
        m = ann.mark()
        ann.say("#hearts", "!hearts")
        ann.wait_privmsg("heartsbot", r"A table is open here: standard for 4 "
                         r"with target=5;", since=m, timeout=15)
        replies = [m for m in ann.messages(mark)
                   if m.command in ("PRIVMSG", "NOTICE")
                   and m.nick == "heartsbot"]
        self.assertTrue(replies)
        for m in replies:
            self.assertIsNone(HIDING.search(m.text), repr(m.text))


if __name__ == "__main__":
    unittest.main()
