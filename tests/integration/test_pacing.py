"""The bot's output pace by server, through the real bot and real ngIRCd.

- With the default config (flood_min_interval_ms = 0, "auto") the bot
  reads ngIRCd's name in RPL_MYINFO, lowers its pacing floor, and while
  the lag probes come back quickly it speeds up: a backlog of 60 channel
  lines on ngIRCd with its default throttling goes out clearly faster
  than the configured 1 line a 1.1 s, and the bot is never disconnected.
- PACE_FLOOR=1100 in the environment measures an explicit floor instead
  (it keeps overriding the server's, tests/unit/adapters/irc/test_adapter.c).

InspIRCd, which may kill a flood without delaying it first, keeps the
configured pace: test_game_network.FloodTest checks that with the default
config it is never killed.

Run: /usr/bin/python3 tests/integration/test_pacing.py -v
The pace reached is printed.
"""

import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, irc_eq  # noqa: E402

PEOPLE = 6
EACH = 10          # "!status" commands a person sends in one burst


class NgircdPaceTest(HarnessTestCase):

    def backlog(self, irc=None):
        """A table open in #hearts, then PEOPLE people each send EACH
        "!status" at once: ngIRCd feeds them to the bot at 3 a second
        each, so a backlog of PEOPLE * EACH channel answers builds up in
        the bot's queue. Returns (bot, lines per second of the answers
        as the channel saw them, the people)."""
        server = self.ngircd(strict=True)
        data = os.path.join(self.tmpdir, "data")
        bot = self.bot(harness.bot_config(
            server.port, data, irc=irc,
            bot=dict(harness.NO_ANSWER_LIMITS, colors=False)))
        bot.wait_log(r"joined #hearts", timeout=20)
        people = [self.client(server, "p%d" % i) for i in range(PEOPLE)]
        for c in people:
            c.join("#hearts")
        opener = people[0]
        opener.say("#hearts", "!hearts")
        opener.wait_privmsg("heartsbot", r"opens a Hearts table",
                            to="#hearts", timeout=15)
        time.sleep(2)     # the people's own penalties run out
        mark = opener.mark()
        for c in people:
            c.send_lines(["PRIVMSG #hearts :!status"] * EACH)
        want = PEOPLE * EACH

        def statuses():
            return [m for m in opener.privmsgs_from("heartsbot", "#hearts",
                                                    since=mark)
                    if m.text.startswith("Table at #hearts")]

        deadline = time.monotonic() + 100
        while len(statuses()) < want and time.monotonic() < deadline:
            self.assertTrue(bot.alive(), bot.log()[-2000:])
            time.sleep(0.25)
        got = statuses()
        self.assertEqual(len(got), want)
        rate = (len(got) - 1) / (got[-1].time - got[0].time)
        tail = got[-20:]
        print("\n%d lines at %.2f lines/s, the last 20 at %.2f (%s)"
              % (len(got), rate,
                 (len(tail) - 1) / (tail[-1].time - tail[0].time),
                 irc or "default config"), file=sys.stderr)
        return bot, rate, people

    def assert_never_disconnected(self, bot, people):
        for c in people:
            self.assertFalse(c.closed)
            self.assertEqual([m.raw for m in c.messages(command="QUIT")
                              if irc_eq(m.nick, "heartsbot")], [])
        self.assertEqual(len(re.findall(r"registered as heartsbot",
                                        bot.log())), 1)
        self.assertNotIn("connection closed", bot.log().lower())

    def test_default_pace_on_ngircd_is_faster_than_configured(self):
        """About 30 s: 60 lines, the pace moving down from 1.1 s."""
        floor = os.environ.get("PACE_FLOOR")
        irc = {"flood_min_interval_ms": int(floor)} if floor else None
        bot, rate, people = self.backlog(irc)
        self.assert_never_disconnected(bot, people)
        if floor:     # a measurement of another floor, not the default
            self.assertRegex(bot.log(), r"server ngircd-[0-9.]+; pacing %s "
                             r"to \d+ ms a line as configured" % floor)
            return
        self.assertRegex(bot.log(), r"server ngircd-[0-9.]+ is ngIRCd: "
                         r"pacing from 1100 ms a line down to 400 ")
        # 1 line a 1.1 s is 0.91 lines/s: clearly faster
        self.assertGreater(rate, 1.3)
        # it did move down, and the lag probes went out
        self.assertRegex(bot.log(), r"pacing [1-7]\d\d ms a line")
        self.assertIn("PING :lag", bot.log())
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
