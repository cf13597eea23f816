"""A local stand-in for the Telegram Bot API, with scriptable people.

Telegram cannot be reached from where the tests run, and a test against the real service
could not script a dozen players anyway. The sandbox answers the bot over real HTTP the
way Telegram does (strictly checked against the official method table), keeps the state
Telegram keeps (chats, members and rights, messages, pins, private chats that need
Start), and lets a test act as the people on the other side.

    sandbox = Sandbox(bot_username="mafia_table_bot")
    await sandbox.start()
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(can_delete_messages=True, can_pin_messages=True)
    bot = sandbox.make_bot()            # aiogram Bot pointed at the sandbox
    ...                                 # run the dispatcher, then:
    await anna.send(club, "/newgame")
    await sandbox.settle()
    assert club.visible_messages()[-1].text.startswith("Lobby")
"""

from sandbox.api_errors import ApiError, SettleTimeout, SimulationError
from sandbox.calllog import SENDING_METHODS, CallRecord
from sandbox.people import SimGroup, SimUser
from sandbox.ratelimit import ManualClock, RateLimits, Window
from sandbox.server import Sandbox
from sandbox.world import (
    Account,
    AdminRights,
    Button,
    CallbackAnswer,
    CallbackPress,
    Chat,
    Group,
    PrivateChat,
    SimMessage,
    StoredFile,
)

__all__ = [
    "SENDING_METHODS",
    "Account",
    "AdminRights",
    "ApiError",
    "Button",
    "CallRecord",
    "CallbackAnswer",
    "CallbackPress",
    "Chat",
    "Group",
    "ManualClock",
    "PrivateChat",
    "RateLimits",
    "Sandbox",
    "SettleTimeout",
    "SimGroup",
    "SimMessage",
    "SimUser",
    "SimulationError",
    "StoredFile",
    "Window",
]
