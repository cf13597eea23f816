"""A JSON control API under `/_sandbox/`, for tests that drive a sandbox in another process.

When the bot runs as its own process (say, `python -m bot run` against a standalone
sandbox), the test cannot call `SimUser.press()` directly; it posts to these endpoints
instead. They mirror the Python API one to one:

    GET  /_sandbox/bot                              the bot's id, username and token
    POST /_sandbox/users                    {first_name, username?, last_name?, language_code?}
    POST /_sandbox/groups                           {title, owner_id, username?, type?}
                                                    (type "group": a basic group)
    POST /_sandbox/groups/{chat_id}/{action}        add_member {user_id, added_by?},
         remove_member {user_id, by?}, promote {user_id, rights}, demote {user_id},
         add_bot {added_by?}, promote_bot {rights, by?}, demote_bot {by?}, remove_bot {by?, ban?},
         migrate {by?} (a basic group becomes a supergroup: the answer describes the new one)
    POST /_sandbox/users/{user_id}/{action}         start_bot {payload?}, block_bot,
         send {chat_id, text, reply_to?}, send_command {chat_id, command, args?},
         send_media {chat_id, kind, caption?, data_base64?, filename?, emoji?},
         edit {chat_id, message_id, text}, react {chat_id, message_id, emoji?},
         forward {chat_id, message_id, to_chat_id},
         press {chat_id, message_id, button}, follow {chat_id, message_id, button},
         open_link {url}, leave {chat_id}
    GET  /_sandbox/users/{user_id}/inbox            the bot's messages in the private chat
    GET  /_sandbox/users/{user_id}/answers          answers to the person's button presses
    GET  /_sandbox/chats/{chat_id}/messages         ?visible=1 to leave out deleted ones
    GET  /_sandbox/callbacks/{query_id}             ?wait=<seconds> for the bot's answer
    GET  /_sandbox/calls                            ?method=&chat_id=&since=<seq>
    POST /_sandbox/settle                           {quiet?, within?}
    GET  /_sandbox/transcript                       plain text

A message is identified by `chat_id` and `message_id`; a button by its text or index.
Mistakes in a request answer 400 with `{"error": "..."}`.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from sandbox.api_errors import SettleTimeout, SimulationError
from sandbox.schema import UploadedFile
from sandbox.world import CallbackAnswer, CallbackPress, SimMessage

if TYPE_CHECKING:
    from sandbox.people import SimUser
    from sandbox.server import Sandbox

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Action = Callable[[dict[str, Any]], Awaitable[Any]]


def message_json(message: SimMessage) -> dict[str, Any]:
    """A message as the Bot API renders it, plus what only an observer can know."""
    return message.to_api() | {
        "deleted": message.deleted,
        "buttons": [
            [{"text": b.text, "callback_data": b.callback_data, "url": b.url} for b in row]
            for row in message.buttons()
        ],
    }


def _answer_json(answer: CallbackAnswer | None) -> dict[str, Any]:
    if answer is None:
        return {"answered": False}
    return {
        "answered": True,
        "text": answer.text,
        "show_alert": answer.show_alert,
        "url": answer.url,
        "cache_time": answer.cache_time,
    }


def _json_safe(value: Any) -> Any:
    if isinstance(value, UploadedFile):
        return {"filename": value.filename, "size": len(value.data)}
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def _guarded(handler: Handler) -> Handler:
    async def guarded(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except (SimulationError, LookupError, ValueError, TypeError) as error:
            return web.json_response({"error": str(error)}, status=400)

    return guarded


class _Control:
    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/_sandbox/bot", _guarded(self.bot)),
            web.post("/_sandbox/users", _guarded(self.add_user)),
            web.post("/_sandbox/groups", _guarded(self.add_group)),
            web.post("/_sandbox/groups/{chat_id}/{action}", _guarded(self.group_action)),
            web.get("/_sandbox/users/{user_id}/inbox", _guarded(self.inbox)),
            web.get("/_sandbox/users/{user_id}/answers", _guarded(self.answers)),
            web.post("/_sandbox/users/{user_id}/{action}", _guarded(self.user_action)),
            web.get("/_sandbox/chats/{chat_id}/messages", _guarded(self.messages)),
            web.get("/_sandbox/callbacks/{query_id}", _guarded(self.callback)),
            web.get("/_sandbox/calls", _guarded(self.calls)),
            web.post("/_sandbox/settle", _guarded(self.settle)),
            web.get("/_sandbox/transcript", _guarded(self.transcript)),
        ]

    async def _body(self, request: web.Request) -> dict[str, Any]:
        if not request.can_read_body:
            return {}
        body = await request.json()
        if not isinstance(body, dict):
            raise ValueError("the request body must be a JSON object")
        return body

    def _message(self, body: dict[str, Any]) -> SimMessage:
        return self.sandbox.message(int(body["chat_id"]), int(body["message_id"]))

    def _reply_to(self, body: dict[str, Any]) -> SimMessage | None:
        if body.get("reply_to") is None:
            return None
        return self._message({"chat_id": body["chat_id"], "message_id": body["reply_to"]})

    def _optional_user(self, body: dict[str, Any], key: str) -> SimUser | None:
        return self.sandbox.user(int(body[key])) if body.get(key) is not None else None

    async def bot(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.sandbox.bot.to_api() | {"token": self.sandbox.token})

    async def add_user(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        user = self.sandbox.add_user(
            body["first_name"],
            username=body.get("username"),
            last_name=body.get("last_name"),
            language_code=body.get("language_code", "ru"),
        )
        return web.json_response(user.to_api())

    async def add_group(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        owner = self.sandbox.user(int(body["owner_id"]))
        kind = body.get("type", "supergroup")
        if kind == "group":
            if body.get("username") is not None:
                raise ValueError("a basic group has no @username")
            group = self.sandbox.add_group(body["title"], owner)
        elif kind == "supergroup":
            group = self.sandbox.add_supergroup(body["title"], owner, username=body.get("username"))
        else:
            raise ValueError(f"a group is of type 'group' or 'supergroup', not {kind!r}")
        return web.json_response(group.describe())

    async def group_action(self, request: web.Request) -> web.StreamResponse:
        group = self.sandbox.group(int(request.match_info["chat_id"]))
        body = await self._body(request)
        action = request.match_info["action"]
        rights: dict[str, bool] = body.get("rights") or {}
        if action == "add_member":
            group.add_member(
                self.sandbox.user(int(body["user_id"])),
                added_by=self._optional_user(body, "added_by"),
            )
        elif action == "remove_member":
            group.remove_member(
                self.sandbox.user(int(body["user_id"])), by=self._optional_user(body, "by")
            )
        elif action == "promote":
            group.promote(self.sandbox.user(int(body["user_id"])), **rights)
        elif action == "demote":
            group.demote(self.sandbox.user(int(body["user_id"])))
        elif action == "add_bot":
            group.add_bot(added_by=self._optional_user(body, "added_by"))
        elif action == "promote_bot":
            group.promote_bot(by=self._optional_user(body, "by"), **rights)
        elif action == "demote_bot":
            group.demote_bot(by=self._optional_user(body, "by"))
        elif action == "remove_bot":
            group.remove_bot(by=self._optional_user(body, "by"), ban=bool(body.get("ban")))
        elif action == "migrate":
            group = group.migrate_to_supergroup(by=self._optional_user(body, "by"))
        else:
            raise LookupError(f"no group action {action!r}")
        return web.json_response(group.describe())

    async def user_action(self, request: web.Request) -> web.StreamResponse:
        user = self.sandbox.user(int(request.match_info["user_id"]))
        body = await self._body(request)
        actions: dict[str, Action] = {
            "start_bot": lambda b: user.start_bot(b.get("payload")),
            "block_bot": lambda b: user.block_bot(),
            "send": lambda b: user.send(
                self.sandbox.chat(int(b["chat_id"])), b["text"], reply_to=self._reply_to(b)
            ),
            "send_command": lambda b: user.send_command(
                self.sandbox.chat(int(b["chat_id"])), b["command"], b.get("args", "")
            ),
            "send_media": lambda b: user.send_media(
                self.sandbox.chat(int(b["chat_id"])),
                b["kind"],
                caption=b.get("caption"),
                data=base64.b64decode(b.get("data_base64", "AA==")),
                filename=b.get("filename"),
                emoji=b.get("emoji"),
            ),
            "edit": lambda b: user.edit(self._message(b), b["text"]),
            "react": lambda b: user.react(self._message(b), b.get("emoji", "👍")),
            "forward": lambda b: user.forward(
                self._message(b), self.sandbox.chat(int(b["to_chat_id"]))
            ),
            "press": lambda b: user.press(self._message(b), b["button"]),
            "follow": lambda b: user.follow(self._message(b), b["button"]),
            "open_link": lambda b: user.open_link(b["url"]),
            "leave": lambda b: user.leave(self.sandbox.group(int(b["chat_id"]))),
        }
        if request.match_info["action"] not in actions:
            raise LookupError(f"no user action {request.match_info['action']!r}")
        outcome = await actions[request.match_info["action"]](body)
        if isinstance(outcome, SimMessage):
            return web.json_response(message_json(outcome))
        if isinstance(outcome, CallbackPress):
            return web.json_response({"callback_query_id": outcome.id})
        return web.json_response({})

    async def inbox(self, request: web.Request) -> web.StreamResponse:
        user = self.sandbox.user(int(request.match_info["user_id"]))
        return web.json_response([message_json(m) for m in user.inbox()])

    async def answers(self, request: web.Request) -> web.StreamResponse:
        user = self.sandbox.user(int(request.match_info["user_id"]))
        return web.json_response([_answer_json(answer) for answer in user.answers()])

    async def messages(self, request: web.Request) -> web.StreamResponse:
        chat = self.sandbox.chat(int(request.match_info["chat_id"]))
        visible = request.query.get("visible") in ("1", "true")
        shown = chat.visible_messages() if visible else chat.messages()
        return web.json_response([message_json(m) for m in shown])

    async def callback(self, request: web.Request) -> web.StreamResponse:
        press = self.sandbox.world.queries.get(request.match_info["query_id"])
        if press is None:
            raise LookupError(f"no callback query {request.match_info['query_id']}")
        wait = float(request.query.get("wait", 0))
        if wait > 0 and press.answer is None:
            with contextlib.suppress(TimeoutError):
                await press.wait_answer(within=wait)
        return web.json_response(_answer_json(press.answer))

    async def calls(self, request: web.Request) -> web.StreamResponse:
        query = request.query
        chat_id = int(query["chat_id"]) if "chat_id" in query else None
        since = int(query.get("since", 0))
        records = self.sandbox.calls(query.get("method") or None, chat=chat_id)
        return web.json_response(
            [
                {
                    "seq": r.seq,
                    "time": r.time,
                    "method": r.method,
                    "params": _json_safe(r.params),
                    "chat_id": r.chat_id,
                    "status": r.status,
                    "description": r.description,
                    "injected": r.injected,
                }
                for r in records
                if r.seq > since
            ]
        )

    async def settle(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        try:
            await self.sandbox.settle(
                quiet=float(body.get("quiet", 0.05)), within=float(body.get("within", 5.0))
            )
        except SettleTimeout as timeout:
            return web.json_response({"settled": False, "reason": str(timeout)})
        return web.json_response({"settled": True})

    async def transcript(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text=self.sandbox.transcript() + "\n")


def control_routes(sandbox: Sandbox) -> list[web.RouteDef]:
    return _Control(sandbox).routes()
