"""A season's bots as the referee knows them: a bot id for each, a fresh token for each
command bot.

A command bot is registered at the referee as ``<bot>@<season>``; its bot id is kept in the
ladder database so a resumed season reuses it (the referee keeps its bots too). Its token is
not kept: every run asks the referee for a fresh one (``RotateBotToken``, which also refuses
the old token and ends its sessions) and hands it to the bot's process only. If the referee no
longer knows the stored id (a fresh referee data dir), or cannot rotate tokens, the bot is
registered again, and if the name is taken there by an identity whose token we do not hold, a
suffix ``-2``, ``-3``, ... is added. Bots that connect by themselves are given by ``bot_id``.
"""

from __future__ import annotations

from typing import Final

from brandeln.ladder.errors import BotStartError, RefereeBotNameTakenError
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.config import ExternalBot, SeasonConfig
from brandeln.ladder.store.database import LadderStore, token_hash

__all__ = ["MAX_NAME_SUFFIX", "season_identities"]

MAX_NAME_SUFFIX: Final = 100  # names tried: <bot>@<season>, then its -2 ... -100


async def season_identities(
    admin: AdminClient, config: SeasonConfig, store: LadderStore, *, rotate: bool = True
) -> tuple[dict[str, str], dict[str, str]]:
    """(bot ids, command bots' fresh tokens) by season bot name: a new token for each bot the
    referee knows (``rotate``; else a registration of its own), a registration for the
    others. Only the tokens' hashes are stored."""
    stored = store.bots.bot_identities(config.name)
    known = await admin.known_bot_ids()  # None: the referee cannot list its bots
    bot_ids: dict[str, str] = {}
    tokens: dict[str, str] = {}
    for bot in config.bots:
        if isinstance(bot, ExternalBot):
            if known is not None and bot.bot_id not in known:
                raise BotStartError(
                    f"bot {bot.name!r}: bot_id {bot.bot_id!r} is not registered at the referee "
                    "(or is revoked); see `brandeln bots list`"
                )
            bot_ids[bot.name] = bot.bot_id
            continue
        identity = stored.get(bot.name)
        if (
            rotate
            and identity is not None
            and identity.bot_id is not None
            and identity.referee_name is not None
            and (known is None or identity.bot_id in known)
        ):
            token = await admin.rotate_bot_token(identity.bot_id)
            if token is not None:
                store.bots.save_bot_identity(
                    config.name,
                    bot.name,
                    bot_id=identity.bot_id,
                    token_hash=token_hash(token),
                    referee_name=identity.referee_name,
                )
                bot_ids[bot.name], tokens[bot.name] = identity.bot_id, token
                continue
        base = f"{bot.name}@{config.name}"
        for attempt in range(1, MAX_NAME_SUFFIX + 1):
            referee_name = base if attempt == 1 else f"{base}-{attempt}"
            try:
                bot_id, token = await admin.register_bot(referee_name)
            except RefereeBotNameTakenError:
                continue
            store.bots.save_bot_identity(
                config.name,
                bot.name,
                bot_id=bot_id,
                token_hash=token_hash(token),
                referee_name=referee_name,
            )
            bot_ids[bot.name], tokens[bot.name] = bot_id, token
            break
        else:
            raise BotStartError(f"bot {bot.name!r}: every name {base}[-N] is taken at the referee")
    return bot_ids, tokens
