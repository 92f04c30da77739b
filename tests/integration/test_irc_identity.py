"""Who the bot talks to, and who it is, through the real bot and a real
IRC server (ngIRCd, which has no services).

- A user named NickServ, connected before the bot, is not services: the
  bot asks the server who NickServ is (USERHOST), sees a host that does
  not match services_mask, and never sends it the password.
- Someone has the bot's nick when it starts: it comes up as heartsbot_,
  tells the channel so; when the squatter quits it takes heartsbot back
  at once and tells the channel again.
Run: /usr/bin/python3 tests/integration/test_irc_identity.py -v
"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}
PASSWORD = "pw-7c1f9e"


class NickServTest(HarnessTestCase):

    def test_impostor_nickserv_never_gets_the_password(self):
        server = self.ngircd()
        impostor = self.client(server, "NickServ")
        irc = dict(FAST_IRC, nickserv_password=PASSWORD)
        bot = self.bot(harness.bot_config(server.port,
                                          os.path.join(self.tmpdir, "data"),
                                          irc=irc))
        bot.wait_log(r"joined #hearts", timeout=20)
        bot.wait_log(r"NickServ!\S+ is not services", timeout=10)
        time.sleep(1)
        for m in impostor.messages():
            self.assertNotIn(PASSWORD, m.raw)
            self.assertFalse(m.nick and harness.irc_eq(m.nick, "heartsbot")
                             and "IDENTIFY" in m.raw, m.raw)
        self.assertNotIn(PASSWORD, bot.log())
        self.assertEqual(bot.stop(), 0)



class NickSquatTest(HarnessTestCase):

    def test_squatted_nick_announced_and_regained(self):
        server = self.ngircd()
        squatter = self.client(server, "heartsbot")
        squatter.join("#hearts")
        alice = self.client(server, "alice")
        alice.join("#hearts")
        mark = alice.mark()
        bot = self.bot(harness.bot_config(server.port,
                                          os.path.join(self.tmpdir, "data"),
                                          irc=FAST_IRC))
        m = alice.wait_privmsg("heartsbot_", r"I am heartsbot_ for now",
                               to="#hearts", since=mark, timeout=20)
        self.assertIn("/msg heartsbot_", m.text)
        mark = alice.mark()
        squatter.quit("bye")
        alice.wait_for(command="NICK", frm="heartsbot_", since=mark,
                       timeout=10)
        m = alice.wait_privmsg("heartsbot", r"I have my nick back",
                               to="#hearts", since=mark, timeout=10)
        self.assertIn("/msg heartsbot", m.text)
        # and it answers under its own nick
        mark = alice.mark()
        alice.say("heartsbot", "help")
        alice.wait_privmsg("heartsbot", r".", since=mark, timeout=10)
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
