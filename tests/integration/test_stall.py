"""Nobody can stall the bot, through the real bot and a real ngIRCd
(without throttling): a person flooding it privately gets a few answers
and one word to slow down, while a table in the channel is answered at
once; a seated player's moves are answered however many; a table left to
the computer players pauses, says so, and goes on when its person says
`back`.

Run: /usr/bin/python3 tests/integration/test_stall.py -v
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}


class StallTest(HarnessTestCase):
    def start(self, game=None, bot=None):
        self.server = self.ngircd()
        cfg = harness.bot_config(
            self.server.port, os.path.join(self.tmpdir, "data"),
            irc=FAST_IRC, bot=bot or {},
            game=dict({"turn_timeout": 3600, "next_hand_delay": 0},
                      **(game or {})))
        return self.bot(cfg)

    def joined(self, nick):
        c = self.client(self.server, nick)
        c.join("#hearts")
        c.wait_member("heartsbot", "#hearts", timeout=20)
        return c

    def test_private_flood_gets_few_answers(self):
        self.start(bot={"reply_burst": 3, "reply_interval": 60})
        mallory = self.client(self.server, "mallory")
        alice = self.joined("alice")
        mark = mallory.mark()
        mallory.send_lines(["PRIVMSG heartsbot :x%d" % i for i in range(30)])
        mallory.wait_privmsg("heartsbot", r"too much", since=mark)
        # the channel is answered meanwhile
        amark = alice.mark()
        alice.say("#hearts", "!hearts")
        alice.wait_privmsg("heartsbot", r"opens a Hearts table",
                           to="#hearts", since=amark)
        time.sleep(1)
        got = mallory.texts_from("heartsbot", since=mark)
        self.assertEqual(len(got), 4, got)

    def test_walk_away_table_pauses_and_back_resumes(self):
        self.start(game={"turn_timeout": 5, "max_timeouts": 1})
        alice = self.joined("alice")
        mark = alice.mark()
        alice.say("#hearts", "!hearts standard pass_count=0")
        alice.say("#hearts", "!start")
        alice.wait_privmsg("heartsbot", r"Your cards", since=mark)
        pause = alice.wait_privmsg("heartsbot", r"the game pauses",
                                   to="#hearts", since=mark, timeout=20)
        # nothing more is said while it waits
        time.sleep(1.5)
        after = [m for m in alice.privmsgs_from("heartsbot", to="#hearts",
                                                since=mark)
                 if m.time > pause.time]
        self.assertEqual(after, [])
        back = alice.mark()
        alice.say("heartsbot", "back")
        alice.wait_privmsg("heartsbot", r"The game goes on", to="#hearts",
                           since=back)


if __name__ == "__main__":
    harness.main()
