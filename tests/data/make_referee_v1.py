import sys
from pathlib import Path

from arena.logrecords import MatchStatus
from arena.store import MatchRecord, RefereeStore

out = Path(sys.argv[1])
out.unlink(missing_ok=True)
s = RefereeStore(out)
bot, tok = s.register_bot("alice")
bot2, _ = s.register_bot("bob")
s.set_admin_token("x" * 40)
s.session_opened("s1", bot.bot_id, "1.0", "ipv4:127.0.0.1:1")
s.session_closed("s1")
s.session_opened("s2", bot2.bot_id, "2.0", "ipv4:127.0.0.1:2")
s.record_match(
    MatchRecord(
        "m_0123456789abcdef",
        "brandeln-4",
        (bot.bot_id, bot2.bot_id, bot.bot_id, bot2.bot_id),
        ("alice", "bob", "alice", "bob"),
        (1, -1, 2, -2),
        (2, 3, 1, 4),
        (),
        (0, 0, 0, 0),
        MatchStatus.FINISHED,
        2,
        1000,
        2000,
        "logs/m_0123456789abcdef.jsonl",
    )
)
s.record_match(
    MatchRecord(
        "m_running00000000",
        "brandeln-4",
        (bot.bot_id, bot2.bot_id, bot.bot_id, bot2.bot_id),
        ("alice", "bob", "alice", "bob"),
        (0, 0, 0, 0),
        (1, 1, 1, 1),
        (),
        (0, 0, 0, 0),
        MatchStatus.RUNNING,
        0,
        3000,
        0,
        "logs/m_running00000000.jsonl",
    )
)
s._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
s.close()
print(tok)
