"""Who the bot talks to, and who it is, through the real bot and a real
IRC server (ngIRCd, which has no services).

- A user named NickServ, connected before the bot, is not services: the
  bot asks the server who NickServ is (USERHOST), sees a host that does
  not match services_mask, and never sends it the password.
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


if __name__ == "__main__":
    harness.main()
